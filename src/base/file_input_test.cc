#include "base/file_input.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "base/gzip_test_util.h"

namespace gpuwhy {
namespace file_input_test {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuwhy_file_input_" + name)).string();
}

std::string ReadRaw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A gzip bomb as found in the wild: one small member concatenated (legal gzip), here 256
// members of 16 MiB of zeros each: 4 GiB from about 4 MB.
std::string GzipBomb() {
  const std::string member = testing::GzipMember('\0', 16u << 20);
  std::string bomb;
  for (int i = 0; i < 256; ++i) bomb += member;
  return bomb;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

std::string ReadAll(ByteSource& source, Status* final_status) {
  std::string out;
  char buffer[7];  // tiny reads exercise the chunk boundaries
  while (true) {
    auto n = source.Read(buffer, sizeof(buffer));
    if (!n.ok()) {
      *final_status = n.status();
      return out;
    }
    if (*n == 0) return out;
    out.append(buffer, *n);
  }
}

TEST(FileInputTest, PlainAndGzipGiveSameBytesRegardlessOfName) {
  std::string content;
  for (int i = 0; i < 5000; ++i) content += "{\"ts\": " + std::to_string(i) + "},\n";
  std::string plain = TempPath("plain.json.gz");  // misleading name on purpose
  std::string gz = TempPath("packed.gz");
  ASSERT_TRUE(WriteWholeFile(plain + ".tmp", content).ok());
  std::filesystem::rename(plain + ".tmp", plain);
  ASSERT_TRUE(WriteWholeFile(gz, content).ok());
  std::string renamed = TempPath("packed.json");
  std::filesystem::rename(gz, renamed);

  for (const std::string& path : {plain, renamed}) {
    auto source = OpenByteSource(path);
    ASSERT_TRUE(source.ok()) << source.status().message();
    Status status;
    EXPECT_EQ(ReadAll(**source, &status), content);
    EXPECT_TRUE(status.ok()) << status.message();
  }
  EXPECT_EQ((*OpenByteSource(renamed))->compression(), Compression::kGzip);
  auto whole = ReadWholeFile(renamed);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, content);
}

TEST(FileInputTest, TruncatedGzipYieldsPrefixThenDataLoss) {
  std::string content(200000, 'a');
  for (size_t i = 0; i < content.size(); i += 37) content[i] = static_cast<char>('a' + i % 26);
  std::string gz = TempPath("cut.gz");
  ASSERT_TRUE(WriteWholeFile(gz, content).ok());
  auto packed = ReadWholeFile(gz);
  std::string raw;
  {
    FILE* f = std::fopen(gz.c_str(), "rb");
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) raw.append(buffer, n);
    std::fclose(f);
  }
  std::string cut = TempPath("cut2.gz");
  ASSERT_TRUE(WriteWholeFile(cut + ".raw", raw.substr(0, raw.size() / 2)).ok());
  std::filesystem::rename(cut + ".raw", cut);
  auto source = OpenByteSource(cut);
  ASSERT_TRUE(source.ok());
  Status status;
  std::string got = ReadAll(**source, &status);
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_GT(got.size(), 0u);
  EXPECT_EQ(got, content.substr(0, got.size()));
}

// Past its first 4 MiB a gzip stream is inflated on a second thread: the same bytes in the
// same order, then the same verdict (a cut stream, a flipped CRC) after the last good byte,
// and a source dropped half-read stops its thread.
TEST(FileInputTest, GzipPastTheFirstMegabytesIsInflatedAheadWithTheSameBytesAndVerdict) {
  std::string content;
  for (int64_t i = 0; content.size() < (13u << 20); ++i) {
    content += "{\"ph\": \"X\", \"ts\": " + std::to_string(i * 7919 % 1000003) + "},\n";
  }
  std::string gz = TempPath("ahead.json.gz");
  ASSERT_TRUE(WriteWholeFile(gz, content).ok());
  const std::string packed = ReadRaw(gz);
  auto read_with = [](const std::string& path, size_t capacity, Status* status) {
    auto source = OpenByteSource(path);
    EXPECT_TRUE(source.ok());
    std::string out;
    std::string buffer(capacity, '\0');
    while (true) {
      auto n = (*source)->Read(buffer.data(), buffer.size());
      if (!n.ok()) {
        *status = n.status();
        EXPECT_EQ(*(*source)->Read(buffer.data(), buffer.size()), 0u);  // told once, then the end
        return out;
      }
      if (*n == 0) return out;
      out.append(buffer.data(), *n);
    }
  };
  for (size_t capacity : {size_t{4093}, size_t{1} << 16, size_t{3} << 20}) {
    Status status;
    EXPECT_EQ(read_with(gz, capacity, &status), content) << capacity;
    EXPECT_TRUE(status.ok()) << status.message();
  }
  // Cut in the middle: every byte before the cut, then data loss.
  testing::WriteRawFile(gz, packed.substr(0, packed.size() * 3 / 4));
  Status cut;
  std::string got = read_with(gz, 1 << 16, &cut);
  EXPECT_EQ(cut.code(), StatusCode::kDataLoss) << cut.message();
  EXPECT_GT(got.size(), 5u << 20);
  EXPECT_EQ(got, content.substr(0, got.size()));
  // A flipped CRC: every byte, then the check's verdict.
  std::string bad = packed;
  bad[bad.size() - 8] = static_cast<char>(bad[bad.size() - 8] ^ 0x01);
  testing::WriteRawFile(gz, bad);
  Status crc;
  EXPECT_EQ(read_with(gz, 1 << 16, &crc), content);
  EXPECT_NE(crc.message().find("CRC-32 mismatch"), std::string::npos) << crc.message();
  // Dropped after 6 MiB, with the ring full: the destructor stops and joins the thread.
  testing::WriteRawFile(gz, packed);
  for (int i = 0; i < 3; ++i) {
    auto source = OpenByteSource(gz);
    ASSERT_TRUE(source.ok());
    std::string buffer(1 << 20, '\0');
    for (int k = 0; k < 6; ++k) ASSERT_TRUE((*source)->Read(buffer.data(), buffer.size()).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * i));
  }
  std::filesystem::remove(gz);
}

TEST(FileInputTest, MissingFileAndDirectoryAreErrors) {
  auto missing = OpenByteSource("/nonexistent/gpuwhy/trace.json");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/gpuwhy/trace.json"), std::string::npos);
  EXPECT_FALSE(OpenByteSource(std::filesystem::temp_directory_path().string()).ok());
}

TEST(FileInputTest, AFlippedCrcOrAWrongLengthIsDataLossNamingTheCheck) {
  std::string content;
  for (int i = 0; i < 3000; ++i) content += "{\"ts\": " + std::to_string(i) + "},\n";
  std::string gz = TempPath("check.json.gz");
  ASSERT_TRUE(WriteWholeFile(gz, content).ok());
  const std::string good = ReadRaw(gz);
  ASSERT_GT(good.size(), 8u);
  // The trailer: CRC-32 (4 bytes) then ISIZE (4 bytes), little-endian.
  struct Case {
    size_t byte;
    const char* check;
  };
  for (Case c : {Case{good.size() - 8, "CRC-32 mismatch"}, Case{good.size() - 4, "ISIZE"}}) {
    std::string bad = good;
    bad[c.byte] = static_cast<char>(bad[c.byte] ^ 0x01);
    testing::WriteRawFile(gz, bad);
    auto source = OpenByteSource(gz);
    ASSERT_TRUE(source.ok());
    Status status;
    EXPECT_EQ(ReadAll(**source, &status), content);  // every byte is given, then the verdict
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << c.check;
    EXPECT_NE(status.message().find(c.check), std::string::npos) << status.message();
    // The offset is in the trailer, where the check is read.
    const size_t at = status.message().find("at compressed byte ");
    ASSERT_NE(at, std::string::npos) << status.message();
    const uint64_t offset = std::stoull(status.message().substr(at + 19));
    EXPECT_GE(offset, good.size() - 8) << status.message();
    EXPECT_LE(offset, good.size()) << status.message();
    StatusOr<std::string> whole = ReadWholeFile(gz);
    EXPECT_FALSE(whole.ok()) << c.check;
  }
}

TEST(FileInputTest, AFifoIsRefusedAtOnceInsteadOfWaitedOn) {
  std::string fifo = TempPath("fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Before, open() waited for a writer forever: this one comes after 3 s to end the wait.
  std::promise<void> done;
  std::thread writer([&, finished = done.get_future()] {
    if (finished.wait_for(std::chrono::seconds(3)) == std::future_status::ready) return;
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  });
  const auto start = std::chrono::steady_clock::now();
  auto source = OpenByteSource(fifo);
  auto whole = ReadWholeFile(fifo);
  const auto waited = std::chrono::steady_clock::now() - start;
  done.set_value();
  writer.join();
  std::filesystem::remove(fifo);
  EXPECT_LT(waited, std::chrono::seconds(2));
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.status().message(),
            fifo + ": is a FIFO (named pipe), not a regular file: save the stream to a file first");
  EXPECT_FALSE(whole.ok());
  // A character device is still read: /dev/null is an empty input.
  auto null = ReadWholeFile("/dev/null");
  ASSERT_TRUE(null.ok()) << null.status().message();
  EXPECT_EQ(*null, "");
}

TEST(FileInputTest, AGzipBombIsRefusedAtItsKindsLimitWithoutReadingTheRest) {
  std::string bomb_path = TempPath("bomb.log.gz");
  const std::string bomb = GzipBomb();
  EXPECT_LT(bomb.size(), 8u << 20);
  testing::WriteRawFile(bomb_path, bomb);
  const auto start = std::chrono::steady_clock::now();
  StatusOr<std::string> text = ReadWholeFile(bomb_path, InputLimit::kNodeLog);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            bomb_path +
                ": decompressed content over the 256 MiB limit for a node log or "
                "command output (GPUWHY_INPUT_LIMITS=node_log=SIZE raises it)");
  // 4 GiB inflated would take far longer: the read stopped at the limit.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  std::filesystem::remove(bomb_path);
}

TEST(FileInputTest, TheLimitIsOverriddenByOneVariableAndAPlainFileIsRefusedByItsSize) {
  std::string path = TempPath("limit.txt");
  testing::WriteRawFile(path, std::string(5000, 'x'));
  {
    ScopedEnv env(kInputLimitsEnv, "report=4K");
    StatusOr<std::string> report = ReadWholeFile(path, InputLimit::kReport);
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.status().message(),
              path +
                  ": content over the 4 KiB limit for a gpuwhy JSON report "
                  "(GPUWHY_INPUT_LIMITS=report=SIZE raises it)");
    EXPECT_TRUE(ReadWholeFile(path, InputLimit::kRankSummary).ok());
  }
  {
    ScopedEnv env(kInputLimitsEnv, "5000");  // exactly the limit is accepted
    EXPECT_TRUE(ReadWholeFile(path, InputLimit::kReport).ok());
  }
  {
    ScopedEnv env(kInputLimitsEnv, "report=lots");
    StatusOr<std::string> report = ReadWholeFile(path, InputLimit::kReport);
    ASSERT_FALSE(report.ok());
    EXPECT_TRUE(report.status().message().starts_with(path + ": GPUWHY_INPUT_LIMITS: "))
        << report.status().message();
  }
  std::filesystem::remove(path);
}

}  // namespace file_input_test
}  // namespace gpuwhy
