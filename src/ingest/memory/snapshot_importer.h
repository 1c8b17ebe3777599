// torch.cuda.memory._dump_snapshot() pickles into MemorySnapshot (model/memory_snapshot.h),
// decoded by the data-only pickle decoder (pickle_decoder.h): nothing in the file is ever
// imported or run. Reads the 2.1+ layout (segments with blocks and frames, device_traces,
// allocator_settings, external_annotations) and the older one (block history, a bare list of
// segments from torch.cuda.memory_snapshot()). A record that is not a dict or lacks its size is
// skipped and counted; a truncated file keeps what was read.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/memory_snapshot.h"

namespace gpuwhy {

// |name| prefixes every message ("NAME: byte 12: ..."). The one-pass reader
// (snapshot_stream_reader.h) takes the files CPython writes; any other falls back to the
// document path below, which gives the same snapshot, the error or the partial read.
StatusOr<MemorySnapshot> ParseMemorySnapshot(std::string_view bytes, std::string_view name);

// The document path alone: DecodePickle, then a walk of the document (about three times the
// file's size in memory). For the tests and the benchmark that compare the two.
StatusOr<MemorySnapshot> ParseMemorySnapshotViaDocument(std::string_view bytes,
                                                        std::string_view name);

// Reads |path| (plain or gzip) whole and parses it.
StatusOr<MemorySnapshot> ImportMemorySnapshot(const std::string& path);

}  // namespace gpuwhy
