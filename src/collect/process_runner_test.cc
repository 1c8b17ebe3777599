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

namespace gpuwhy {
namespace process_runner_test {

// Gone: no such process, or a zombie about to be reaped.
bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || text.substr(close + 2, 1) == "Z";
}

pid_t ReadPid(const std::string& path) {
  if (!WaitForFile(path + ".done", std::chrono::seconds(20))) return 0;
  pid_t pid = 0;
  std::ifstream(path) >> pid;
  return pid;
}

// `sh -c CMD` where CMD writes a pid to FILE then FILE.done.
std::string WritePid(const std::string& what, const std::string& file) {
  return "echo " + what + " > " + file + " && touch " + file + ".done";
}

TEST(ProcessRunnerTreeTest, WhatTheJobLeftRunningEndsWithIt) {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_tree_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  const std::string file = dir + "/pid";
  ProcessRunner runner(500);
  // The job starts a daemon-like grandchild in a session of its own, then exits.
  ASSERT_TRUE(runner.Start({"sh", "-c", "setsid sleep 600 & " + WritePid("$!", file)}).ok());
  pid_t orphan = ReadPid(file);
  ASSERT_GT(orphan, 0);
  while (!runner.Poll()) ::usleep(10000);
  EXPECT_EQ(runner.exit_code(), 0);
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i, ::usleep(10000)) gone = Gone(orphan);
  if (!gone) ::kill(orphan, SIGKILL);
  EXPECT_TRUE(gone) << "the job's setsid grandchild outlived it";
  fs::remove_all(dir);
}

TEST(ProcessRunnerTreeTest, AJobIgnoringSigtermIsKilledAfterTheGracePeriod) {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_tree_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  const std::string file = dir + "/pid";
  const auto start = std::chrono::steady_clock::now();
  pid_t job = 0;
  {
    ProcessRunner runner(300);
    ASSERT_TRUE(
        runner
            .Start({"sh", "-c",
                    "trap '' TERM; " + WritePid("$$", file) + "; while :; do sleep 0.05; done"})
            .ok());
    job = ReadPid(file);
    ASSERT_GT(job, 0);
    EXPECT_FALSE(runner.Poll());
  }  // gpuwhy is done with it (an error path): the tree is ended
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(Gone(job));
  EXPECT_LT(took, std::chrono::seconds(8));
  fs::remove_all(dir);
}

TEST(ProcessRunnerTreeTest, ACommandThatCannotRunSaysWhy) {
  ProcessRunner runner;
  Status status = runner.Start({"/nonexistent/gpuwhy-cmd"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("No such file"), std::string::npos) << status.message();
}

}  // namespace process_runner_test
}  // namespace gpuwhy
