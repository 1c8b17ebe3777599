// CUDA out-of-memory messages in training logs (model/memory_snapshot.h OomMessage): the caching
// allocator's "CUDA out of memory. Tried to allocate ..." in the 2.1+ sentence form and the older
// parenthesised form, also as "HIP"/"XPU out of memory", behind log prefixes, or split over a
// few lines. Each message is read from its marker to the end of its last sentence; a figure
// that is not printed stays kNoValue.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/memory_snapshot.h"

namespace gpuwhy {

// "out of memory. Tried to allocate": what every form of the message holds.
inline constexpr std::string_view kOomMarker = "out of memory. Tried to allocate ";

// "2.00 GiB", "20.00 MiB", "512 bytes", "0 bytes" as bytes (KiB, MiB, GiB, TiB are powers of
// 1024); nullopt for anything else, a negative or a value past int64.
std::optional<int64_t> ParseAllocatorSize(std::string_view text);

// Every message in |text|, in order; |first_line| numbers text's first line.
std::vector<OomMessage> FindOomMessages(std::string_view text, size_t first_line = 1);

}  // namespace gpuwhy
