// The process runner under a real terminal (a pseudo-terminal this test owns): a Ctrl-C typed
// there reaches the command once, although the runner forwards the signals sent to gpuwhy.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collect/process_runner.h"

namespace gpuwhy {
namespace process_runner_test {

namespace fs = std::filesystem;

// The command of the test is this binary again, with GPUWHY_TEST_SIGINT_COUNT=FILE: it counts
// the SIGINTs it gets for two seconds and writes the count to FILE (FILE.ready once it counts).
volatile sig_atomic_t g_sigints = 0;
void CountSigint(int) { g_sigints = g_sigints + 1; }

[[noreturn]] void CountSigintsAndExit(const std::string& out) {
  struct sigaction action {};
  action.sa_handler = CountSigint;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  std::ofstream(out + ".ready") << "1";
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < end) ::usleep(10000);
  std::ofstream(out) << g_sigints;
  ::_exit(0);
}

const bool kIsTheCommand = [] {
  if (const char* out = std::getenv("GPUWHY_TEST_SIGINT_COUNT")) CountSigintsAndExit(out);
  return false;
}();

bool WaitForFile(const std::string& path, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!fs::exists(path)) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(ProcessRunnerTerminalTest, OneCtrlCReachesTheCommandOnce) {
  ASSERT_FALSE(kIsTheCommand);
  std::string dir = (fs::temp_directory_path() / "gpuwhy_tty_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  const std::string count = dir + "/count";
  int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    GTEST_SKIP() << "no pseudo-terminal here";
  }
  const std::string terminal = ::ptsname(master);
  // "gpuwhy": a session leader whose controlling terminal is the pty, so that the pty's
  // Ctrl-C goes to its foreground process group, gpuwhy and the command alike.
  pid_t gpuwhy = ::fork();
  ASSERT_GE(gpuwhy, 0);
  if (gpuwhy == 0) {
    ::setsid();
    int tty = ::open(terminal.c_str(), O_RDWR);
    if (tty < 0 || ::ioctl(tty, TIOCSCTTY, 0) != 0) ::_exit(100);
    termios mode{};
    ::tcgetattr(tty, &mode);
    mode.c_lflag |= ISIG;
    mode.c_cc[VINTR] = 3;
    ::tcsetattr(tty, TCSANOW, &mode);
    ::setenv("GPUWHY_TEST_SIGINT_COUNT", count.c_str(), 1);
    ProcessRunner runner;
    if (!runner.Start({"/proc/self/exe"}).ok()) ::_exit(101);
    while (!runner.Poll()) ::usleep(5000);
    ::_exit(runner.exit_code());
  }
  ASSERT_TRUE(WaitForFile(count + ".ready", std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Three presses, each given time to arrive (two signals of one kind pending at once merge).
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(::write(master, "\x03", 1), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  int status = 0;
  ASSERT_EQ(::waitpid(gpuwhy, &status, 0), gpuwhy);
  ::close(master);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  int got = -1;
  std::ifstream(count) >> got;
  EXPECT_EQ(got, 3);  // 3 to 6 when the runner forwarded the terminal's copy too
  fs::remove_all(dir);
}

}  // namespace process_runner_test
}  // namespace gpuwhy
