// torch.cuda.memory_stats() dictionaries into AllocatorStats (model/memory_snapshot.h): printed
// as JSON (json.dumps), as a Python literal ({'allocated_bytes.all.current': 123, ...}, True,
// None) or as print(stats) shows the OrderedDict it is (OrderedDict([('key', 123), ...]), or
// OrderedDict({...}) from Python 3.12), pasted alone or inside a log. Only the flat keys PyTorch
// documents are read ("<stat>.<pool>.<metric>", "oversize_*.<metric>", num_alloc_retries,
// num_ooms, num_sync_all_streams, num_device_alloc, num_device_free, max_split_size); a dict
// counts only with at least kMinMemoryStatsKeys of them, so other JSON is never claimed.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "model/data_problems.h"
#include "model/memory_snapshot.h"

namespace gpuwhy {

inline constexpr size_t kMinMemoryStatsKeys = 3;

// Every memory_stats() dict in |text|, in order. A dict ends at '}' or "])", or where one of
// its keys comes again (the next print). memory_stats() does not name its device: device 0.
// A known key whose value is no integer (or past int64, or negative where only max_split_size
// may be) is counted in |problems| as bad_value with its byte offset. |offsets|, when given, gets
// each dict's byte offset (its first key), to merge them with a log's tables in file order.
std::vector<AllocatorStats> FindMemoryStats(std::string_view text, DataProblems& problems,
                                            std::vector<size_t>* offsets = nullptr);

// Whether |text| holds at least one such dict: the input-kind sniffer's test.
bool HoldsMemoryStats(std::string_view text);

}  // namespace gpuwhy
