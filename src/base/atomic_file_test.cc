#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/file_input.h"
#include "base/output_sink.h"

namespace gpuwhy {
namespace atomic_file_test {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpuwhy_atomic_XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override {
    ::chmod(dir_.c_str(), 0700);
    fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Read(const std::string& path) const {
    StatusOr<std::string> bytes = ReadWholeFile(path);
    return bytes.ok() ? *bytes : "unreadable";
  }
  // The folder's entries: no temporary may be left behind.
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir_;
};

TEST_F(AtomicFileTest, CommitReplacesTheTargetAndKeepsItsPermissions) {
  ASSERT_TRUE(WriteFileAtomically(Path("report.txt"), "old\n").ok());
  ::chmod(Path("report.txt").c_str(), 0640);
  ASSERT_TRUE(WriteFileAtomically(Path("report.txt"), "new\n").ok());
  EXPECT_EQ(Read(Path("report.txt")), "new\n");
  struct stat st;
  ASSERT_EQ(::stat(Path("report.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Entries(), std::vector<std::string>{"report.txt"});
}

TEST_F(AtomicFileTest, AFileNeverCommittedLeavesTheTargetAsItWas) {
  ASSERT_TRUE(WriteFileAtomically(Path("report.txt"), "old\n").ok());
  {
    StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(Path("report.txt"));
    ASSERT_TRUE(file.ok()) << file.status().message();
    ASSERT_TRUE((*file)->Write("half a rep").ok());
    EXPECT_EQ(Read(Path("report.txt")), "old\n");  // nothing is in place before the commit
  }
  EXPECT_EQ(Read(Path("report.txt")), "old\n");
  EXPECT_EQ(Entries(), std::vector<std::string>{"report.txt"});
  {
    StatusOr<std::unique_ptr<OutputSink>> sink = OpenOutputSink(Path("trace.json.gz"));
    ASSERT_TRUE(sink.ok());
    ASSERT_TRUE((*sink)->Write("{\"traceEvents\":[").ok());
  }
  EXPECT_EQ(Entries(), std::vector<std::string>{"report.txt"});
}

// A write that fails part-way (the file size limit, as a full disk would): the old file stays,
// the temporary goes, and the error names the file.
TEST_F(AtomicFileTest, AFailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
  ASSERT_TRUE(WriteFileAtomically(Path("report.txt"), "old\n").ok());
  ASSERT_TRUE(WriteWholeFile(Path("trace.json.gz"), "old\n").ok());
  // Bytes that do not compress, so the gzip file grows past the limit too.
  std::string big(1 << 20, '\0');
  uint64_t state = 88172645463325252u;
  for (char& c : big) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    c = static_cast<char>(state);
  }
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Status plain = WriteFileAtomically(Path("report.txt"), big);
  Status gzip = WriteFileAtomically(Path("trace.json.gz"), big, 1);
  StatusOr<std::unique_ptr<OutputSink>> sink = OpenOutputSink(Path("report.txt"));
  Status sink_status = sink.ok() ? (*sink)->Write(big) : sink.status();
  if (sink_status.ok()) sink_status = (*sink)->Close();
  sink = Status::Ok();  // destroyed: nothing committed
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_FALSE(plain.ok());
  EXPECT_EQ(plain.message().rfind(Path("report.txt") + ": write failed: ", 0), 0u)
      << plain.message();
  EXPECT_FALSE(gzip.ok());
  EXPECT_FALSE(sink_status.ok());
  EXPECT_TRUE(Read(Path("report.txt")) == "old\n");
  EXPECT_TRUE(Read(Path("trace.json.gz")) == "old\n");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"report.txt", "trace.json.gz"}));
}

TEST_F(AtomicFileTest, AFolderThatCannotBeWrittenFailsAndKeepsTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into any folder";
  ASSERT_TRUE(WriteFileAtomically(Path("report.txt"), "old\n").ok());
  ::chmod(dir_.c_str(), 0500);
  Status status = WriteFileAtomically(Path("report.txt"), "new\n");
  ::chmod(dir_.c_str(), 0700);
  EXPECT_EQ(status.message(), Path("report.txt") + ": cannot create: Permission denied");
  EXPECT_EQ(Read(Path("report.txt")), "old\n");
  EXPECT_EQ(Entries(), std::vector<std::string>{"report.txt"});
}

TEST_F(AtomicFileTest, ASymlinkIsFollowedAndADeviceIsWrittenInPlace) {
  ASSERT_TRUE(WriteFileAtomically(Path("real.txt"), "old\n").ok());
  fs::create_symlink(Path("real.txt"), Path("link.txt"));
  ASSERT_TRUE(WriteFileAtomically(Path("link.txt"), "new\n").ok());
  EXPECT_TRUE(fs::is_symlink(Path("link.txt")));
  EXPECT_EQ(Read(Path("real.txt")), "new\n");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"link.txt", "real.txt"}));
  ASSERT_TRUE(WriteFileAtomically("/dev/null", "discarded").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(AtomicFileTest, AMissingFolderIsNamed) {
  Status status = WriteFileAtomically(Path("absent/report.txt"), "x");
  EXPECT_EQ(status.message(),
            Path("absent/report.txt") + ": cannot create: No such file or directory");
}

}  // namespace atomic_file_test
}  // namespace gpuwhy
