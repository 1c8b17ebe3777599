#include "ingest/memory/snapshot_importer.h"

#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "base/file_input.h"
#include "base/input_limits.h"
#include "ingest/memory/pickle_decoder.h"
#include "ingest/memory/snapshot_stream_reader.h"

namespace gpuwhy {
namespace {

using pickle::PickleDocument;
using pickle::PickleRef;
using pickle::ValueType;

constexpr uint32_t kNotCached = UINT32_MAX;
constexpr uint64_t kBytesPerRecord = 4;
constexpr uint64_t kSlackRecords = 4096;

// Sizes from an untrusted file: a sum past int64 wraps (two's complement) instead of being UB.
int64_t WrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

int64_t IntOr(PickleRef value, int64_t fallback) {
  return value.is_int() ? value.AsInt() : fallback;
}

// Fills one MemorySnapshot from a decoded document, interning frames and stacks once each.
class SnapshotReader {
 public:
  SnapshotReader(const PickleDocument& doc, MemorySnapshot& out, uint64_t max_records)
      : out_(out),
        max_records_(max_records),
        frame_of_value_(doc.value_count(), kNotCached),
        stack_of_value_(doc.value_count(), kNotCached) {
    out_.stack_offsets.push_back(0);
  }

  void ReadRoot(PickleRef root);
  // The walk stopped: shared references would expand past max_records.
  bool over_budget() const { return over_budget_; }

 private:
  void ReadSegments(PickleRef segments);
  void ReadSegment(PickleRef segment);
  void ReadBlock(PickleRef block, const MemorySegment& segment, int64_t& offset);
  void ReadDeviceTraces(PickleRef traces);
  void ReadTraceEntry(PickleRef entry, int32_t device);
  void ReadSettings(PickleRef settings);
  StackId InternStack(PickleRef frames);
  uint32_t InternFrame(PickleRef frame);
  void Malformed(std::string_view what, size_t index, std::string_view why) {
    out_.problems.Add(DataProblem::kMalformedEvent, fmt::format("{} {}: {}", what, index, why));
  }

  // Counts one block, segment or trace entry visited (read or skipped); false once past the
  // budget. The document shares what a memo GET repeats, but the snapshot holds one record
  // per reference: a 40 KB pickle listing one segment and one block 10^4 times each expanded
  // to 10^8 blocks (2.2 GB).
  bool Charge() {
    if (max_records_ != 0 && ++records_ > max_records_) over_budget_ = true;
    return !over_budget_;
  }

  MemorySnapshot& out_;
  const uint64_t max_records_;  // 0: no bound
  uint64_t records_ = 0;
  bool over_budget_ = false;
  std::vector<uint32_t> frame_of_value_;  // by pickle value id: each memoized frame read once
  std::vector<uint32_t> stack_of_value_;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t> frame_index_;
  std::unordered_map<std::string, StackId> stack_index_;  // frame indices as bytes
};

uint32_t SnapshotReader::InternFrame(PickleRef frame) {
  uint32_t& cached = frame_of_value_[frame.id()];
  if (cached != kNotCached) return cached;
  MemoryFrame f;
  f.name = out_.strings.Intern(frame.Find("name").AsString());
  f.filename = out_.strings.Intern(frame.Find("filename").AsString());
  f.line = IntOr(frame.Find("line"), 0);
  auto [it, added] = frame_index_.try_emplace({f.name.value, f.filename.value, f.line},
                                              static_cast<uint32_t>(out_.frames.size()));
  if (added) out_.frames.push_back(f);
  cached = it->second;
  return cached;
}

StackId SnapshotReader::InternStack(PickleRef frames) {
  if (!frames.valid() || frames.size() == 0 || frames.type() != ValueType::kList) return kNoStack;
  uint32_t& cached = stack_of_value_[frames.id()];
  if (cached != kNotCached) return cached;
  std::string key;
  key.reserve(frames.size() * sizeof(uint32_t));
  frames.ForEach([&](PickleRef frame) {
    if (frame.type() != ValueType::kDict) return true;
    const uint32_t index = InternFrame(frame);
    key.append(reinterpret_cast<const char*>(&index), sizeof index);
    return true;
  });
  auto [it, added] = stack_index_.try_emplace(key, static_cast<StackId>(out_.stack_count()));
  if (added) {
    const auto* begin = reinterpret_cast<const uint32_t*>(key.data());
    out_.stack_frames.insert(out_.stack_frames.end(), begin, begin + key.size() / sizeof(uint32_t));
    out_.stack_offsets.push_back(static_cast<uint32_t>(out_.stack_frames.size()));
  }
  cached = it->second;
  return cached;
}

void SnapshotReader::ReadBlock(PickleRef block, const MemorySegment& segment, int64_t& offset) {
  const size_t index = out_.blocks.size();
  PickleRef size = block.Find("size");
  if (block.type() != ValueType::kDict || !size.is_int()) {
    Malformed("block", index, block.type() == ValueType::kDict ? "no size" : "not a dict");
    return;
  }
  MemoryBlock b;
  b.size = size.AsInt();
  // Older snapshots leave blocks without an address: they tile their segment in order.
  b.address = IntOr(block.Find("address"),
                    segment.address == kNoValue ? kNoValue : WrappingAdd(segment.address, offset));
  offset = WrappingAdd(offset, b.size);
  PickleRef requested = block.Find("requested_size");
  if (requested.is_int()) out_.layout.requested_size = true;
  b.requested_size = IntOr(requested, kNoValue);
  b.state = ParseBlockState(block.Find("state").AsString());
  PickleRef frames = block.Find("frames");
  if (frames.valid()) out_.layout.block_frames = true;
  if (PickleRef history = block.Find("history"); history.valid()) {
    out_.layout.block_history = true;
    // The 2.0 layout: the most recent history entry holds the allocation's frames.
    PickleRef last = history.Last();
    if (!frames.valid() && last.type() == ValueType::kDict) frames = last.Find("frames");
  }
  b.stack = InternStack(frames);
  out_.blocks.push_back(b);
}

void SnapshotReader::ReadSegment(PickleRef segment) {
  const size_t index = out_.segments.size();
  PickleRef total = segment.Find("total_size");
  if (segment.type() != ValueType::kDict || !total.is_int()) {
    Malformed("segment", index,
              segment.type() == ValueType::kDict ? "no total_size" : "not a dict");
    return;
  }
  MemorySegment s;
  s.device = static_cast<int32_t>(IntOr(segment.Find("device"), 0));
  s.address = IntOr(segment.Find("address"), kNoValue);
  s.total_size = total.AsInt();
  s.allocated_size = IntOr(segment.Find("allocated_size"), kNoValue);
  s.active_size = IntOr(segment.Find("active_size"), kNoValue);
  s.requested_size = IntOr(segment.Find("requested_size"), kNoValue);
  s.stream = IntOr(segment.Find("stream"), kNoValue);
  const std::string_view type = segment.Find("segment_type").AsString();
  s.pool = type == "large" ? SegmentPool::kLarge
                           : (type == "small" ? SegmentPool::kSmall : SegmentPool::kUnknown);
  s.expandable = segment.Find("is_expandable").AsBool();
  if (segment.Find("segment_pool_id").valid()) out_.layout.segment_pool_id = true;
  s.stack = InternStack(segment.Find("frames"));
  s.first_block = static_cast<uint32_t>(out_.blocks.size());
  int64_t offset = 0;
  segment.Find("blocks").ForEach([&](PickleRef block) {
    if (!Charge()) return false;
    ReadBlock(block, s, offset);
    return true;
  });
  s.block_count = static_cast<uint32_t>(out_.blocks.size() - s.first_block);
  out_.segments.push_back(s);
}

void SnapshotReader::ReadSegments(PickleRef segments) {
  segments.ForEach([&](PickleRef segment) {
    if (!Charge()) return false;
    ReadSegment(segment);
    return !over_budget_;
  });
}

void SnapshotReader::ReadTraceEntry(PickleRef entry, int32_t device) {
  const size_t index = out_.trace.size();
  PickleRef action = entry.Find("action");
  if (entry.type() != ValueType::kDict || !action.is_string()) {
    Malformed("trace entry", index, entry.type() == ValueType::kDict ? "no action" : "not a dict");
    return;
  }
  MemoryTraceEntry e;
  e.device = device;
  e.action = ParseMemoryAction(action.AsString());
  if (e.action == MemoryAction::kUnknown) {
    out_.problems.Add(
        DataProblem::kUnknownCategory,
        fmt::format("trace entry {}: action '{}'", index, action.AsString().substr(0, 40)));
  }
  e.address = IntOr(entry.Find("addr"), kNoValue);
  e.size = IntOr(entry.Find("size"), 0);
  e.stream = IntOr(entry.Find("stream"), kNoValue);
  e.device_free = IntOr(entry.Find("device_free"), kNoValue);
  PickleRef time_us = entry.Find("time_us");
  // Microseconds since the epoch fit int64 nanoseconds until the year 2262.
  if (time_us.is_int() && time_us.AsInt() > -INT64_MAX / 1000 &&
      time_us.AsInt() < INT64_MAX / 1000) {
    e.time = time_us.AsInt() * 1000;
  }
  e.stack = InternStack(entry.Find("frames"));
  out_.trace.push_back(e);
}

void SnapshotReader::ReadDeviceTraces(PickleRef traces) {
  out_.layout.device_traces = true;
  int32_t device = 0;
  traces.ForEach([&](PickleRef entries) {
    entries.ForEach([&](PickleRef entry) {
      if (!Charge()) return false;
      ReadTraceEntry(entry, device);
      return true;
    });
    ++device;
    return !over_budget_;
  });
}

void SnapshotReader::ReadSettings(PickleRef settings) {
  if (settings.type() != ValueType::kDict) return;
  AllocatorSettings& s = out_.settings;
  out_.layout.allocator_settings = true;
  s.recorded = true;
  s.alloc_conf = std::string(settings.Find("PYTORCH_CUDA_ALLOC_CONF").AsString());
  if (PickleRef v = settings.Find("max_split_size"); v.is_int()) s.max_split_size = v.AsInt();
  if (PickleRef v = settings.Find("expandable_segments"); v.type() == ValueType::kBool)
    s.expandable_segments = v.AsBool();
  if (PickleRef v = settings.Find("garbage_collection_threshold"); v.valid())
    s.garbage_collection_threshold = v.AsFloat();
}

void SnapshotReader::ReadRoot(PickleRef root) {
  if (root.type() == ValueType::kList) {  // torch.cuda.memory_snapshot(): segments only
    ReadSegments(root);
    return;
  }
  ReadSegments(root.Find("segments"));
  if (over_budget_) return;
  if (PickleRef traces = root.Find("device_traces"); traces.valid()) ReadDeviceTraces(traces);
  ReadSettings(root.Find("allocator_settings"));
  if (PickleRef annotations = root.Find("external_annotations"); annotations.valid()) {
    out_.layout.external_annotations = true;
    out_.annotation_count = static_cast<int64_t>(annotations.size());
  }
}

bool LooksLikeSnapshot(PickleRef root) {
  if (root.type() == ValueType::kList) {
    bool segment = true;  // an empty list is an empty snapshot
    root.ForEach([&](PickleRef first) {
      segment = first.Find("total_size").valid();
      return false;
    });
    return segment;
  }
  return root.type() == ValueType::kDict &&
         (root.Find("segments").valid() || root.Find("device_traces").valid());
}

}  // namespace

StatusOr<MemorySnapshot> ParseMemorySnapshot(std::string_view bytes, std::string_view name) {
  StreamReadResult fast = ReadSnapshotStreaming(bytes);
  if (!fast.snapshot) return ParseMemorySnapshotViaDocument(bytes, name);
  fast.snapshot->path = std::string(name);
  fast.snapshot->file_bytes = bytes.size();
  return std::move(*fast.snapshot);
}

StatusOr<MemorySnapshot> ParseMemorySnapshotViaDocument(std::string_view bytes,
                                                        std::string_view name) {
  StatusOr<PickleDocument> doc = pickle::DecodePickle(bytes);
  if (!doc.ok()) return doc.status().WithContext(std::string(name));
  if (!doc->has_root()) return InvalidArgument("{}: byte 0: the pickle holds no value", name);
  PickleRef root = doc->root();
  if (!LooksLikeSnapshot(root) && doc->truncated()) {
    return InvalidArgument("{}: {}, before any snapshot field was read", name,
                           doc->truncation_detail());
  }
  if (!LooksLikeSnapshot(root)) {
    return InvalidArgument(
        "{}: a pickle of a {}, not a torch.cuda.memory._dump_snapshot() (no 'segments' or "
        "'device_traces')",
        name, pickle::ValueTypeName(root.type()));
  }
  MemorySnapshot out;
  out.path = std::string(name);
  out.file_bytes = bytes.size();
  out.layout.pickle_protocol = doc->protocol();
  if (doc->truncated()) out.problems.Add(DataProblem::kTruncated, doc->truncation_detail());
  ASSIGN_OR_RETURN(uint64_t limit, MaxInputBytes(InputLimit::kOther));
  // A snapshot written without shared records spends at least 8 bytes of pickle on each
  // block, segment or trace entry (a dict and its size); one per kBytesPerRecord bytes is
  // room to spare for every real file and bounds the snapshot's memory by the file's size.
  const uint64_t max_records = limit == 0 ? 0 : bytes.size() / kBytesPerRecord + kSlackRecords;
  SnapshotReader reader(*doc, out, max_records);
  reader.ReadRoot(root);
  if (reader.over_budget()) {
    return InvalidArgument(
        "{}: shared pickle references expand its {} bytes past {} blocks, segments and trace "
        "entries: over the limit of one per {} bytes of the file for a memory snapshot (no "
        "snapshot PyTorch writes comes near it; {}=other=0 lifts it)",
        name, bytes.size(), max_records, kBytesPerRecord, kInputLimitsEnv);
  }
  return out;
}

StatusOr<MemorySnapshot> ImportMemorySnapshot(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  return ParseMemorySnapshot(bytes, path);
}

}  // namespace gpuwhy
