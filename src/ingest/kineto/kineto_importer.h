// Reads PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip, into a Trace.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy {

struct KinetoImportOptions {
  // Bytes decompressed and tokenized per batch; bounds memory on multi-GB traces.
  size_t chunk_bytes = 8u << 20;
};

// Imports one file. Fails (kInvalidArgument, message "PATH: byte N: why") only when nothing
// usable can be read: empty, binary, not JSON, or JSON that is not a trace. A trace cut
// short imports what it holds, with the `truncated` import stat set.
StatusOr<Trace> ImportKinetoFile(const std::string& path, const KinetoImportOptions& options = {});

// Same, from bytes in memory; |name| is used in messages.
StatusOr<Trace> ImportKinetoBytes(std::string_view content, const std::string& name,
                                  const KinetoImportOptions& options = {});

}  // namespace gpuwhy
