// The caching allocator's free blocks at one moment of a snapshot's trace, replayed block by block
// back from the snapshot's end state (the only state a snapshot records whole): each entry after
// the moment is undone by address (an alloc's block leaves, a freed block returns, a segment
// mapped later leaves, one released later returns), then the gaps between live blocks inside
// each segment are the free blocks (the allocator merges free neighbours, so one gap is one
// block). For an OOM that is what an expert asks: was the request's size free in all but in no
// one block of its pool (fragmentation), or not free at all (the memory was full)?
//
// A trace records requested sizes, not the blocks' rounded extents: a block that returns by an
// undone free is taken as its request rounded up to 512 bytes, and the allocator may have kept up
// to 1 MiB more unsplit behind it in a large segment (20 MiB past max_split_size). Free figures
// are therefore bounds: an upper one (the block at its rounded request) and a lower one (each
// returned block's possible unsplit tail taken from the gap behind it). Blocks live at the
// snapshot have their exact extents.
#pragma once

#include <cstdint>
#include <string>

#include "model/memory_snapshot.h"

namespace gpuwhy {

struct FreeBlocksAt {
  // The trace and the end state agree: every undone entry found what it names. Otherwise the
  // figures below are not set and |disagreement| says where ("entry 812: ...").
  bool replayed = false;
  std::string disagreement;
  int32_t device = 0;
  size_t entries_undone = 0;
  // The pool and stream the request could be served from: requests up to 1 MiB come from the
  // small pool (2 MiB segments), larger ones from the large pool; a block of another stream's
  // segment cannot serve it. kNoValue stream: any.
  SegmentPool pool = SegmentPool::kUnknown;
  int64_t stream = kNoValue;
  int64_t request = 0;
  int64_t segments = 0;  // of that pool and stream
  int64_t free_blocks = 0;
  int64_t largest_free_block = 0;      // upper bound (exact when no block returned by an undo)
  int64_t largest_free_block_min = 0;  // lower bound
  int64_t free_bytes = 0;              // in all, upper bound
  int64_t free_bytes_min = 0;          // lower bound
  // Every segment of the device at that moment, all pools: reserved and live bytes.
  int64_t reserved = 0;
  int64_t live = 0;
};

// The largest request a pool's block serves from the small pool (PyTorch's kSmallSize).
inline constexpr int64_t kSmallPoolMaxRequest = int64_t{1} << 20;

// The free blocks of |device| just before trace entry |index| of |s| ran (s.trace.size(): at the
// snapshot), for a request of |request| bytes on |stream| (kNoValue: any stream).
FreeBlocksAt ReplayFreeBlocks(const MemorySnapshot& s, int32_t device, size_t index,
                              int64_t request, int64_t stream);

}  // namespace gpuwhy
