// A buffered, chunked output file: plain or gzip (by the ".gz" suffix). Writers format
// into a reusable buffer and hand it over in chunks of a few MB, so a multi-GB trace
// never sits in memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
  virtual Status Close() = 0;
  // Uncompressed bytes accepted so far.
  uint64_t bytes_written() const { return bytes_written_; }

 protected:
  uint64_t bytes_written_ = 0;
};

// Opens `path` for writing; gzip (fast level) when it ends in ".gz". The file is an AtomicFile
// (base/atomic_file.h): Close() puts it in place; a sink destroyed before leaves the old file.
StatusOr<std::unique_ptr<OutputSink>> OpenOutputSink(const std::string& path);

// Discards bytes but counts them: used to measure the size of a step.
std::unique_ptr<OutputSink> CountingSink();

bool HasGzipSuffix(std::string_view path);

}  // namespace gpuwhy
