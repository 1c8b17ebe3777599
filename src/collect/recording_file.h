// The recording of `gpuwhy run -o` and `gpuwhy record -o`, written as the run goes so that a
// gpuwhy killed at any moment (SIGKILL, the OOM killer) leaves a readable recording: the bytes
// go to PATH.partial-XXXXXXXX (base/partial_file.h: unique, so two recorders of one PATH never
// share it), one gzip stream that every flush sync-flushes (all bytes up to it can be
// inflated), and Finish() ends the stream and renames the partial file to PATH. PATH is
// therefore either absent, the old file or the whole new recording; the partial file is the
// recording so far, which the reader reads up to any cut (docs/recording-format.md), and which
// `analyze PATH` names when PATH is missing.
#pragma once

#include <zlib.h>

#include <memory>
#include <string>

#include "base/status.h"
#include "base/time.h"
#include "collect/recording_writer.h"

namespace gpuwhy {

// What a kill can cost: the samples of at most this long (plus the sampler's last drain).
inline constexpr DurationNs kRecordingFlushInterval = kNsPerSec;

class RecordingFile {
 public:
  // Creates PATH.partial-XXXXXXXX beside PATH (or, when PATH exists and is not a regular file, such
  // as /dev/null, writes PATH itself). Fails when it cannot be written: run and record call it
  // before the job or the sampling starts.
  static StatusOr<std::unique_ptr<RecordingFile>> Create(const std::string& path);
  ~RecordingFile();
  RecordingFile(const RecordingFile&) = delete;
  RecordingFile& operator=(const RecordingFile&) = delete;

  // Appends what |set| gained since the last append and sync-flushes, when
  // kRecordingFlushInterval has passed since the last one (or |now| is true). The first
  // failure sticks: every later call returns it, and the partial file keeps what it holds.
  Status Append(const MetricSeriesSet& set, bool now = false);
  // The last append, 'end' and the gzip trailer; syncs and renames PATH.partial over PATH.
  Status Finish(const MetricSeriesSet& set);
  // Removes PATH.partial: nothing was recorded (the job could not start).
  void Discard();
  const std::string& path() const { return path_; }
  // "; what was recorded is in PATH.partial-…" for a failure message, "" for a device; an
  // empty partial file (a disk full from the start) is removed and said so.
  std::string Leftover();
  // Where the bytes are until Finish() (PATH itself for a device).
  const std::string& partial_path() const { return partial_; }

 private:
  RecordingFile(std::string path, std::string target, std::string partial, int fd);
  Status Deflate(std::string_view bytes, int flush);
  Status WriteAll(const unsigned char* data, size_t size);

  std::string path_;     // as given, for messages
  std::string target_;   // what Finish() replaces (a symlink resolved)
  std::string partial_;  // written until Finish()
  int fd_ = -1;
  z_stream zs_{};
  bool zs_open_ = false;
  Status failed_;
  TimeNs last_append_ = 0;  // CLOCK_MONOTONIC
  RecordingEncoder encoder_;
  std::string chunk_;
};

}  // namespace gpuwhy
