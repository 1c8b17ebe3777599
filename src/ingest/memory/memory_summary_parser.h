// torch.cuda.memory_summary() tables into AllocatorStats (model/memory_snapshot.h), in both
// layouts (before PyTorch 2.1, and 2.1+ with its "Requested memory" and "Oversize" rows), pasted
// alone or inside a log or Markdown file (a prefix before each line's first '|' is ignored).
// Every table found is one AllocatorStats; values keep the summary's rounding (KiB/MiB/GiB as
// printed; "KB", "MB", "GB" are the same powers of 1024 in older PyTorch).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/memory_snapshot.h"

namespace gpuwhy {

// A MemorySnapshot with source "torch.cuda.memory_summary" and one stats entry per table and
// per torch.cuda.memory_stats() dict, in file order (ingest/memory/memory_stats_parser.h; source
// "torch.cuda.memory_stats" when there is no table), and the CUDA out-of-memory messages of the
// same text (ingest/memory/oom_message_parser.h; source "CUDA out-of-memory message" when there
// is neither); an error naming |name| when the text holds none of them.
StatusOr<MemorySnapshot> ParseMemorySummaryText(std::string_view text, std::string_view name);

// Reads |path| (plain or gzip) whole and parses it.
StatusOr<MemorySnapshot> ImportMemorySummary(const std::string& path);

}  // namespace gpuwhy
