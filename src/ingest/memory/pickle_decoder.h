// A pickle decoder for untrusted bytes that never names, imports or calls code. It implements the
// data opcodes of protocols 0 to 5 (containers, strings and bytes, ints including LONG1/LONG4,
// floats, bools and None, MARK and FRAME, the memo) and refuses every opcode that names a global
// or calls one (GLOBAL, STACK_GLOBAL, REDUCE, INST, OBJ, NEWOBJ, NEWOBJ_EX, BUILD, EXT1/2/4,
// PERSID, BINPERSID) or needs out-of-band buffers (NEXT_BUFFER, READONLY_BUFFER), with one line
// naming the opcode and its byte offset. No allow-list: the real allocator snapshots use data
// opcodes only (docs/memory.md), so nothing is mapped from a name.
//
// Bounds: nesting (open MARKs) at most kMaxDepth, lengths never past the input's end, memo keys
// outside the dense range at most kMaxSparseMemo, input at most 4 GiB (32-bit offsets). A pickle
// cut before its STOP yields the values read so far, open containers closed, flagged truncated.
#pragma once

#include <cstddef>
#include <string_view>

#include "base/status.h"
#include "ingest/memory/pickle_document.h"

namespace gpuwhy::pickle {

inline constexpr size_t kMaxDepth = 1000;
inline constexpr size_t kMaxSparseMemo = 1 << 20;

// Decodes |data|; the document's strings point into |data|, which must outlive it. Errors read
// "byte N: ..." (the caller prefixes the file name).
StatusOr<PickleDocument> DecodePickle(std::string_view data);

// The opcode's name as pickletools prints it ("GLOBAL", "BINUNICODE"); "" when unknown.
std::string_view OpcodeName(uint8_t opcode);

}  // namespace gpuwhy::pickle
