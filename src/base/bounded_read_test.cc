// Reads bounded by the input (issue 37): a gzip bomb is refused holding no more than a chunk,
// accepted content costs its own size once, and a settings file is a regular file of bounded
// size, never /dev/zero, /dev/urandom or a FIFO.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "base/file_input.h"
#include "base/gzip_test_util.h"

namespace gpuwhy {
namespace bounded_read_test {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gpuwhy_bounded_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

int64_t PeakRssKiB() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Runs |read| in a child process and returns how far its peak RSS rose (KiB), or -1 when the
// child failed. A child so the peak is the read's own, not whatever the test process held.
template <typename Read>
int64_t PeakRssGrowthKiB(Read read) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    const int64_t before = PeakRssKiB();
    const bool ok = read();
    const int64_t growth = PeakRssKiB() - before;
    ssize_t written = ::write(pipe_fds[1], &growth, sizeof growth);
    ::_exit(ok && written == sizeof growth ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  int64_t growth = -1;
  if (::read(pipe_fds[0], &growth, sizeof growth) != sizeof growth) growth = -1;
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? growth : -1;
}

// A string grown by doubling held its old and new buffers at the last growth: a bomb was
// refused only after the peak reached twice the limit. Counted first, it never holds it.
TEST(BoundedReadTest, AGzipBombIsRefusedWithoutHoldingTheLimit) {
  const std::string path = TempPath("bomb.log.gz");
  std::string bomb;
  const std::string member = testing::GzipMember('\0', 16u << 20);
  for (int i = 0; i < 16; ++i) bomb += member;  // 256 MiB inflated
  testing::WriteRawFile(path, bomb);
  ::setenv("GPUWHY_INPUT_LIMITS", "node_log=64M", 1);
  const int64_t growth = PeakRssGrowthKiB([&] {
    StatusOr<std::string> text = ReadWholeFile(path, InputLimit::kNodeLog);
    return !text.ok() && text.status().message().find("over the 64 MiB limit") != std::string::npos;
  });
  ::unsetenv("GPUWHY_INPUT_LIMITS");
  std::filesystem::remove(path);
  ASSERT_GE(growth, 0) << "the bomb was not refused";
  EXPECT_LT(growth, 32 << 10) << "KiB at the peak, limit 64 MiB";
}

// Accepted content is held once: one string of its size, not a doubling one.
TEST(BoundedReadTest, AcceptedGzipContentIsHeldOnce) {
  const std::string path = TempPath("fine.log.gz");
  testing::WriteRawFile(path, testing::GzipMember('\0', 48u << 20));
  const int64_t growth = PeakRssGrowthKiB([&] {
    StatusOr<std::string> text = ReadWholeFile(path, InputLimit::kNodeLog);
    return text.ok() && text->size() == (48u << 20);
  });
  std::filesystem::remove(path);
  ASSERT_GE(growth, 0);
  EXPECT_LT(growth, 72 << 10) << "KiB at the peak for 48 MiB of content";
}

TEST(BoundedReadTest, SettingsAreARegularFileOfBoundedSize) {
  const std::string path = TempPath("rules.conf");
  testing::WriteRawFile(path, "launch.tiny_kernels.min_share = 0.5\n");
  StatusOr<std::string> text = ReadSettingsFile(path);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "launch.tiny_kernels.min_share = 0.5\n");
  testing::WriteRawFile(path, std::string((1u << 20) + 1, '#'));
  StatusOr<std::string> big = ReadSettingsFile(path);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("over the 1 MiB limit for a rule config file"),
            std::string::npos)
      << big.status().message();
  std::filesystem::remove(path);

  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    if (!std::filesystem::exists(device)) continue;
    StatusOr<std::string> refused = ReadSettingsFile(device);
    ASSERT_FALSE(refused.ok()) << device;
    EXPECT_EQ(
        refused.status().message(),
        std::string(device) + ": not a regular file (a character device): name a file of settings");
  }
  const std::string fifo = TempPath("rules.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  StatusOr<std::string> from_fifo = ReadSettingsFile(fifo);  // no writer: must not wait
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_NE(from_fifo.status().message().find("a FIFO"), std::string::npos);
  std::filesystem::remove(fifo);
  EXPECT_FALSE(ReadSettingsFile(TempPath("absent.conf")).ok());
}

}  // namespace bounded_read_test
}  // namespace gpuwhy
