#include "base/file_input.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace gpuwhy {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuwhy_file_input_" + name)).string();
}

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

TEST(FileInputTest, MissingFileAndDirectoryAreErrors) {
  auto missing = OpenByteSource("/nonexistent/gpuwhy/trace.json");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/gpuwhy/trace.json"), std::string::npos);
  EXPECT_FALSE(OpenByteSource(std::filesystem::temp_directory_path().string()).ok());
}

}  // namespace
}  // namespace gpuwhy
