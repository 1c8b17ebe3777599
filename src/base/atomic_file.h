// Output files written all or nothing, so a full disk or a killed run never leaves a half
// report where the old one was.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

// The bytes go to a temporary file in the target's folder ("." + name + ".gpuwhy-tmp-…"), which
// Commit() fsyncs and renames over the target, then syncs the folder. Until Commit() succeeds
// the target is what it was (absent, or the old file, whose permissions the new one keeps), and
// a file that is never committed (a failed write, an early return) is removed. A symlink is
// followed: the file it names is replaced. A target that exists and is not a regular file
// (/dev/null, /dev/stdout, a FIFO) cannot be replaced and is written in place.
class AtomicFile {
 public:
  static StatusOr<std::unique_ptr<AtomicFile>> Create(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // What is written to (a FILE* or gzFile may work on a dup() of it).
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  Status Write(std::string_view bytes);
  // Syncs, closes and renames over the target; on failure the temporary is removed.
  Status Commit();

 private:
  AtomicFile(std::string path, std::string target, std::string temp, int fd)
      : path_(std::move(path)), target_(std::move(target)), temp_(std::move(temp)), fd_(fd) {}
  void Discard();

  std::string path_;    // as given, for messages
  std::string target_;  // the file replaced (a symlink resolved)
  std::string temp_;    // empty: written in place
  int fd_ = -1;
};

// The steps of committing a file, shared with writers that keep their own descriptor (the
// recording's partial file): fsync (when |sync|) and close |fd|, returning 0 or the errno of
// the first step that failed; and a best-effort fsync of the folder holding |path|, so that a
// rename into it survives a crash.
int SyncAndClose(int fd, bool sync = true);
void SyncDirectoryOf(const std::string& path);

// |content| to |path| through an AtomicFile: plain, or gzip at |gzip_level| (1 to 9) when it is
// not 0.
Status WriteFileAtomically(const std::string& path, std::string_view content, int gzip_level = 0);

}  // namespace gpuwhy
