// Runs the user's command for `gpuwhy run`: its stdin/stdout/stderr are inherited untouched,
// SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to gpuwhy are forwarded to it (except those the
// kernel sent to the process group they share, which it has already had: one Ctrl-C reaches it
// once), it gets SIGTERM when gpuwhy dies (PR_SET_PDEATHSIG), and its exit code is passed
// through (128 + N when it died of signal N, as shells report it).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

class ProcessRunner {
 public:
  // Starts |argv| (argv[0] looked up in PATH). Errors when it cannot be started.
  // |environment| ("NAME=VALUE" entries) replaces or adds to the command's copy of gpuwhy's
  // environment; gpuwhy's own stays as it was.
  Status Start(const std::vector<std::string>& argv,
               const std::vector<std::string>& environment = {});
  pid_t pid() const { return pid_; }
  // Non-blocking: true once the command has exited; exit_code() is then valid.
  bool Poll();
  int exit_code() const { return exit_code_; }
  ~ProcessRunner();

 private:
  pid_t pid_ = 0;
  int exit_code_ = -1;
};

}  // namespace gpuwhy
