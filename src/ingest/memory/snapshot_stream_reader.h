// A one-pass reader of torch.cuda.memory._dump_snapshot() pickles that builds MemorySnapshot
// directly as the opcodes arrive, instead of decoding a whole PickleDocument first and walking it
// (pickle_decoder.h + snapshot_importer.cc). Each new dict or list gets a role from where it is
// created (the root, a segment, a block's frames list, ...; CPython writes a container's items
// right after it, so its parent and key are on the stack), a record is read into the model when
// it joins its parent, and the memo keeps only small slots: a 100 MB snapshot needs the file and
// about half its size more, not three times it (docs/memory.md, "Speed and memory").
//
// It reads only what CPython's pickler writes for a snapshot at protocols 2 to 5 (EMPTY_DICT or
// EMPTY_LIST, MARK ... SETITEMS/APPENDS or one SETITEM/APPEND, binary scalars, a dense memo).
// Anything else (a code opcode, text opcodes, containers built from the stack, a cut file, a
// container used where its role says it cannot be, an error of any kind) makes it decline, and
// ParseMemorySnapshot then reads the bytes with the document decoder, which names the error or
// keeps the partial snapshot. It never names, imports or calls anything either.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/memory_snapshot.h"

namespace gpuwhy {

struct StreamReadResult {
  std::optional<MemorySnapshot> snapshot;  // set when the reader took the file
  std::string declined;                    // otherwise why, "byte N: ..." (tests and debugging)
};

// Reads |bytes|; the snapshot equals what the document path makes of the same bytes (the fuzz
// body checks it), except path and file_bytes, which the caller fills.
StreamReadResult ReadSnapshotStreaming(std::string_view bytes);

}  // namespace gpuwhy
