#include "ingest/memory/snapshot_stream_reader.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "ingest/memory/pickle_decoder.h"

namespace gpuwhy {
namespace {

// The keys the snapshot reader looks at; any other string is kOther.
enum Field : uint8_t {
  kOther,
  kName,
  kFilename,
  kLine,
  kSize,
  kAddress,
  kRequestedSize,
  kState,
  kFrames,
  kHistory,
  kDevice,
  kTotalSize,
  kAllocatedSize,
  kActiveSize,
  kStream,
  kSegmentType,
  kIsExpandable,
  kSegmentPoolId,
  kBlocks,
  kAction,
  kAddr,
  kDeviceFree,
  kTimeUs,
  kSegments,
  kDeviceTraces,
  kAllocatorSettings,
  kExternalAnnotations,
  kAllocConf,
  kMaxSplitSize,
  kExpandableSegments,
  kGcThreshold,
  kFieldCount
};

constexpr std::array<std::string_view, kFieldCount> kFieldNames = {
    "",
    "name",
    "filename",
    "line",
    "size",
    "address",
    "requested_size",
    "state",
    "frames",
    "history",
    "device",
    "total_size",
    "allocated_size",
    "active_size",
    "stream",
    "segment_type",
    "is_expandable",
    "segment_pool_id",
    "blocks",
    "action",
    "addr",
    "device_free",
    "time_us",
    "segments",
    "device_traces",
    "allocator_settings",
    "external_annotations",
    "PYTORCH_CUDA_ALLOC_CONF",
    "max_split_size",
    "expandable_segments",
    "garbage_collection_threshold",
};

Field KeyOf(std::string_view s) {
  for (size_t i = 1; i < kFieldCount; ++i) {
    if (kFieldNames[i] == s) return static_cast<Field>(i);
  }
  return kOther;
}

// What a container is for the reader, fixed when it is created.
enum class Role : uint8_t {
  kOpaque,  // read by nobody (only its item count, for external_annotations)
  kRoot,
  kSegments,
  kSegment,
  kBlocks,
  kBlock,
  kHistory,
  kHistoryEntry,
  kFrames,
  kFrame,
  kDeviceTraces,
  kTrace,
  kTraceEntry,
  kSettings,
  kUnsupported,  // a place the document path reads in a way this one does not: decline
  kCount
};

enum class Kind : uint8_t {
  kAbsent,
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kBytes,
  kBigInt,
  kList,
  kDict,
  kTuple,
  kSet
};

bool IsContainer(Kind k) { return k >= Kind::kList; }

// One value on the stack or in a record's fields: scalars inline, strings as a span of the
// input, containers as a record index (frame dicts in a table of their own: they are few and
// read again and again, so they stay in cache).
struct Slot {
  Kind kind = Kind::kAbsent;
  Field field = kOther;  // strings: the key it spells
  bool frame = false;    // containers: a in frames_, not records_
  uint32_t a = 0;        // string length, container record
  uint64_t b = 0;        // int, float bits, string offset
};
static_assert(sizeof(Slot) == 16);

constexpr uint32_t kNone = UINT32_MAX;
constexpr uint32_t kMaxRecords = 1u << 28;  // the memo's 4 bytes: 2 bits tag, 2 bits kind

struct Record {
  Kind kind = Kind::kList;
  Role role = Role::kOpaque;
  bool frozen = false;      // joined a parent: its contents are final
  bool read = false;        // a segment or trace entry read into the model (at its last SETITEMS)
  uint32_t size = 0;        // items (a dict's keys and values both count)
  uint32_t fields = kNone;  // into fields_ (dict roles) or id_lists_ (frames and blocks lists)
  uint32_t result = kNone;  // frame index, stack id, trace device, history's last entry, or a
                            // segment's or trace entry's place in the order they were read
};
static_assert(sizeof(Record) == 16);

// The fields each dict role keeps, in slot order.
std::vector<Field> RoleFields(Role role) {
  switch (role) {
    case Role::kRoot: return {kSegments, kDeviceTraces, kAllocatorSettings, kExternalAnnotations};
    case Role::kSegment:
      return {kDevice, kAddress,     kTotalSize,    kAllocatedSize, kActiveSize, kRequestedSize,
              kStream, kSegmentType, kIsExpandable, kSegmentPoolId, kFrames,     kBlocks};
    case Role::kBlock: return {kSize, kAddress, kRequestedSize, kState, kFrames, kHistory};
    case Role::kHistoryEntry: return {kFrames};
    case Role::kFrame: return {kName, kFilename, kLine};
    case Role::kTraceEntry: return {kAction, kAddr, kSize, kStream, kDeviceFree, kTimeUs, kFrames};
    case Role::kSettings: return {kAllocConf, kMaxSplitSize, kExpandableSegments, kGcThreshold};
    default: return {};
  }
}

struct RoleTable {
  std::array<std::array<int8_t, kFieldCount>, static_cast<size_t>(Role::kCount)> index{};
  std::array<uint8_t, static_cast<size_t>(Role::kCount)> width{};
  RoleTable() {
    for (size_t r = 0; r < index.size(); ++r) {
      index[r].fill(-1);
      int8_t i = 0;
      for (Field f : RoleFields(static_cast<Role>(r))) index[r][f] = i++;
      width[r] = static_cast<uint8_t>(i);
    }
  }
};
const RoleTable kRoles;

// The role of a container of |kind| that is the value of key |field| of a |parent| dict, or
// (|field| == kOther and |item|) an item of a |parent| list, mirroring what the document path
// reads where (snapshot_importer.cc).
Role ChildRole(Role parent, bool item, Field field, Kind kind) {
  const bool list = kind == Kind::kList;
  const bool dict = kind == Kind::kDict;
  switch (parent) {
    case Role::kRoot:
      if (item) return Role::kUnsupported;
      if (field == kSegments) return list ? Role::kSegments : Role::kUnsupported;
      if (field == kDeviceTraces) return list ? Role::kDeviceTraces : Role::kUnsupported;
      if (field == kAllocatorSettings && dict) return Role::kSettings;
      return Role::kOpaque;
    case Role::kSegments: return item && dict ? Role::kSegment : Role::kOpaque;
    case Role::kSegment:
      if (field == kBlocks) return list ? Role::kBlocks : Role::kUnsupported;
      if (field == kFrames && list) return Role::kFrames;
      return Role::kOpaque;
    case Role::kBlocks: return item && dict ? Role::kBlock : Role::kOpaque;
    case Role::kBlock:
      if (field == kHistory) return list ? Role::kHistory : Role::kUnsupported;
      if (field == kFrames && list) return Role::kFrames;
      return Role::kOpaque;
    case Role::kHistory: return item && dict ? Role::kHistoryEntry : Role::kOpaque;
    case Role::kHistoryEntry:
    case Role::kTraceEntry: return field == kFrames && list ? Role::kFrames : Role::kOpaque;
    case Role::kFrames: return item && dict ? Role::kFrame : Role::kOpaque;
    case Role::kDeviceTraces: return list ? Role::kTrace : Role::kUnsupported;
    case Role::kTrace: return item && dict ? Role::kTraceEntry : Role::kOpaque;
    default: return Role::kOpaque;
  }
}

// A place the reader reads (and can tell from others).
bool IsRead(Role role) { return role != Role::kOpaque && role != Role::kUnsupported; }

// A record that is read into the model once, when it joins its parent: never shared.
bool ReadOnce(Role role) {
  return role != Role::kOpaque && role != Role::kFrames && role != Role::kFrame;
}

class StreamReader {
 public:
  explicit StreamReader(std::string_view data) : data_(data) {
    // Reserving touches no pages (RSS grows with use) and spares reallocation copies; CPython
    // memoizes each string, dict and list, about one per 80 bytes of a snapshot.
    memo_.reserve(data.size() / 48 + 16);
    records_.reserve(data.size() / 48 + 16);
    stack_table_.assign(1024, 0);
    out_.stack_offsets.push_back(0);
  }

  StreamReadResult Run();

 private:
  bool Decline(size_t at, std::string_view why) {
    if (why_.empty()) why_ = fmt::format("byte {}: {}", at, why);
    return false;
  }
  [[gnu::always_inline]] inline bool Step(uint8_t op, size_t at);
  bool Have(size_t n) const { return data_.size() - pos_ >= n; }
  uint64_t Le(size_t n) {  // after Have(n); little-endian host (x86-64, aarch64)
    // Fixed-size loads: a memcpy of a variable length is a byte loop, whose stores then stall
    // the load of the whole value (this is on the path of every memo GET).
    const char* p = data_.data() + pos_;
    pos_ += n;
    switch (n) {
      case 1: return static_cast<uint8_t>(*p);
      case 2: return Load<uint16_t>(p);
      case 4: return Load<uint32_t>(p);
      default: return Load<uint64_t>(p);
    }
  }
  template <typename T>
  static uint64_t Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  size_t Base() const { return marks_.empty() ? 0 : marks_.back(); }

  bool PushInt(int64_t v) {
    stack_.push_back({Kind::kInt, kOther, false, 0, static_cast<uint64_t>(v)});
    return true;
  }
  bool String(size_t at, size_t length_bytes, Kind kind);
  bool Long1(size_t at);
  bool NewContainer(size_t at, Kind kind);
  Role Predict(Kind kind, uint32_t& device, uint32_t& parent) const;
  bool Tuple(size_t at, size_t n);

  Record& Rec(const Slot& s) { return s.frame ? frames_[s.a] : records_[s.a]; }
  const Record& Rec(const Slot& s) const { return s.frame ? frames_[s.a] : records_[s.a]; }
  static bool Same(const Slot& x, const Slot& y) { return x.frame == y.frame && x.a == y.a; }
  // The memo holds 4 bytes a key (it is read at random, once per GET: it must stay small):
  // a container's kind and record, or an index into memo_values_ for anything else.
  uint32_t Encode(const Slot& s);
  Slot Decode(uint32_t entry) const;

  bool AttachItem(size_t at, const Slot& parent, const Slot& v);
  bool AttachPair(size_t at, const Slot& parent, const Slot& k, const Slot& v);
  bool Join(size_t at, const Slot& parent, const Slot& v, bool item, Field field);
  bool Extend(size_t at, Kind want);
  bool Finish(size_t at);

  const Slot& FieldOfRecord(uint32_t record, Field f) { return FieldOf(records_[record], f); }
  const Slot& FieldOf(const Record& r, Field f) {
    static const Slot kAbsentSlot;
    const int8_t i = kRoles.index[static_cast<size_t>(r.role)][f];
    return i < 0 || r.fields == kNone ? kAbsentSlot : fields_[r.fields + i];
  }
  uint32_t AllocFields(Role role);
  void FreeFields(Record& r);
  uint32_t AllocIds();
  void FreeIds(uint32_t record);

  std::string_view Str(const Slot& s) const {
    return s.kind == Kind::kString || s.kind == Kind::kBytes || s.kind == Kind::kBigInt
               ? data_.substr(s.b, s.a)
               : std::string_view();
  }
  static int64_t IntOr(const Slot& s, int64_t fallback) {
    return s.kind == Kind::kInt ? static_cast<int64_t>(s.b) : fallback;
  }
  static int64_t AsInt(const Slot& s) {
    return s.kind == Kind::kInt || s.kind == Kind::kBool ? static_cast<int64_t>(s.b) : 0;
  }
  bool IsDict(const Slot& s) const { return s.kind == Kind::kDict; }

  bool ReadRecordEarly(size_t at, const Slot& record);
  bool JoinRecord(size_t at, const Slot& v, bool segment, int32_t device);
  bool ReadSegment(size_t at, const Slot& v);
  void ReadBlock(uint32_t block, const MemorySegment& segment, int64_t& offset);
  bool ReadTraceEntry(size_t at, const Slot& v, int32_t device);
  StackId InternStack(const Slot& frames);
  uint32_t InternFrame(uint32_t frame);
  void Malformed(std::string_view what, size_t index, std::string_view why) {
    out_.problems.Add(DataProblem::kMalformedEvent, fmt::format("{} {}: {}", what, index, why));
  }

  std::string_view data_;
  size_t pos_ = 0;
  std::string why_;
  std::vector<Slot> stack_;
  std::vector<size_t> marks_;
  std::vector<uint32_t> memo_;
  std::vector<Slot> memo_values_;
  std::vector<Record> records_;
  std::vector<Record> frames_;  // kFrame dicts
  std::vector<Slot> fields_;
  std::array<std::vector<uint32_t>, static_cast<size_t>(Role::kCount)> free_fields_;
  std::vector<std::vector<uint32_t>> id_lists_;
  std::vector<uint32_t> free_ids_;
  uint32_t root_ = kNone;
  uint32_t segments_ = kNone;
  uint32_t device_traces_ = kNone;
  int32_t last_trace_device_ = -1;
  // Segments and trace entries are read when their dict is complete, before they join their
  // list (CPython batches 1,000 items per APPENDS): they must join in the order they were read.
  uint32_t segments_read_ = 0;
  uint32_t segments_joined_ = 0;
  uint32_t entries_read_ = 0;
  uint32_t entries_joined_ = 0;
  std::vector<int32_t> entry_devices_;  // by the order entries were read
  bool first_segment_has_total_ = false;
  int protocol_ = 0;

  MemorySnapshot out_;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t> frame_index_;
  // Stacks by their frames: open addressing, StackId + 1 (0: empty), hashed over stack_frames.
  std::vector<uint32_t> stack_table_;
  std::vector<uint32_t> key_;
};

uint32_t StreamReader::AllocFields(Role role) {
  const uint8_t width = kRoles.width[static_cast<size_t>(role)];
  if (width == 0) return kNone;
  std::vector<uint32_t>& free = free_fields_[static_cast<size_t>(role)];
  if (!free.empty()) {
    const uint32_t at = free.back();
    free.pop_back();
    std::fill_n(fields_.begin() + at, width, Slot{});
    return at;
  }
  const auto at = static_cast<uint32_t>(fields_.size());
  fields_.resize(fields_.size() + width);
  return at;
}

void StreamReader::FreeFields(Record& r) {
  if (r.fields == kNone) return;
  free_fields_[static_cast<size_t>(r.role)].push_back(r.fields);
  r.fields = kNone;
}

uint32_t StreamReader::AllocIds() {
  if (!free_ids_.empty()) {
    const uint32_t at = free_ids_.back();
    free_ids_.pop_back();
    return at;
  }
  id_lists_.emplace_back();
  return static_cast<uint32_t>(id_lists_.size() - 1);
}

void StreamReader::FreeIds(uint32_t record) {
  Record& r = records_[record];
  if (r.fields == kNone) return;
  id_lists_[r.fields].clear();
  free_ids_.push_back(r.fields);
  r.fields = kNone;
}

bool StreamReader::String(size_t at, size_t length_bytes, Kind kind) {
  if (!Have(length_bytes)) return Decline(at, "input ends");
  const uint64_t n = Le(length_bytes);
  if (!Have(n)) return Decline(at, "a length past the input's end");
  Slot s{kind, kOther, false, static_cast<uint32_t>(n), pos_};
  if (kind == Kind::kString) s.field = KeyOf(data_.substr(pos_, n));
  pos_ += n;
  stack_.push_back(s);
  return true;
}

// LONG1: little-endian two's complement, as the document decoder reads it (sign bytes that add
// nothing dropped; wider than 64 bits kept as raw bytes).
bool StreamReader::Long1(size_t at) {
  if (!Have(1)) return Decline(at, "input ends");
  const uint64_t n = Le(1);
  if (!Have(n)) return Decline(at, "input ends");
  const auto* raw = reinterpret_cast<const uint8_t*>(data_.data() + pos_);
  const size_t offset = pos_;
  pos_ += n;
  size_t size = n;
  while (size > 1) {
    const uint8_t last = raw[size - 1];
    const bool negative_below = (raw[size - 2] & 0x80) != 0;
    if ((last == 0 && !negative_below) || (last == 0xff && negative_below)) {
      --size;
      continue;
    }
    break;
  }
  if (size > 8) {
    stack_.push_back({Kind::kBigInt, kOther, false, static_cast<uint32_t>(n), offset});
    return true;
  }
  uint64_t bits = 0;
  for (size_t i = 0; i < size; ++i) bits |= uint64_t{raw[i]} << (8 * i);
  if (size > 0 && size < 8 && (raw[size - 1] & 0x80) != 0) bits |= ~uint64_t{0} << (8 * size);
  return PushInt(static_cast<int64_t>(bits));
}

uint32_t StreamReader::Encode(const Slot& s) {
  if (IsContainer(s.kind)) {
    const auto kind = static_cast<uint32_t>(s.kind) - static_cast<uint32_t>(Kind::kList);
    return (s.frame ? 1u << 30 : 0u) | kind << 28 | s.a;
  }
  memo_values_.push_back(s);
  return 2u << 30 | static_cast<uint32_t>(memo_values_.size() - 1);
}

Slot StreamReader::Decode(uint32_t entry) const {
  const uint32_t tag = entry >> 30;
  if (tag == 2) return memo_values_[entry & ((1u << 30) - 1)];
  const auto kind = static_cast<Kind>(static_cast<uint32_t>(Kind::kList) + ((entry >> 28) & 3));
  return {kind, kOther, tag == 1, entry & (kMaxRecords - 1), 0};
}

// Where a new container goes, from the stack as CPython leaves it: after MARK, the items of the
// container below the MARK (a dict's key on top when the count is odd); right after an open list,
// its one item (APPEND). |device| is a trace list's index in device_traces.
Role StreamReader::Predict(Kind kind, uint32_t& device, uint32_t& parent) const {
  const size_t base = Base();
  const Record* owner = marks_.empty() || base == 0 ? nullptr : &Rec(stack_[base - 1]);
  if (stack_.empty())
    return root_ != kNone        ? Role::kUnsupported
           : kind == Kind::kDict ? Role::kRoot
           : kind == Kind::kList ? Role::kSegments
                                 : Role::kUnsupported;
  const Slot& top = stack_.back();
  if (stack_.size() > base && top.kind == Kind::kList && !Rec(top).frozen) {
    // Either the list's one item (APPEND) or, when the MARK is a list's, that list's next item
    // (device_traces: a trace list right after another): the one whose role fits.
    const Record& list = Rec(top);
    const Role as_item = ChildRole(list.role, true, kOther, kind);
    const bool sibling = owner != nullptr && owner->kind == Kind::kList &&
                         IsRead(ChildRole(owner->role, true, kOther, kind)) && !IsRead(as_item);
    if (!sibling) {
      device = list.size;
      parent = top.a;
      return as_item;
    }
  }
  if (owner == nullptr) {
    // One SETITEM (a dict of one key): the dict and its key on top, no MARK.
    if (stack_.size() >= 2 && top.kind == Kind::kString &&
        stack_[stack_.size() - 2].kind == Kind::kDict && !Rec(stack_[stack_.size() - 2]).frozen) {
      return ChildRole(Rec(stack_[stack_.size() - 2]).role, false, top.field, kind);
    }
    return Role::kOpaque;
  }
  const Record& o = *owner;
  const size_t pending = stack_.size() - base;
  parent = stack_[base - 1].a;
  if (o.kind == Kind::kDict) {
    if (pending % 2 == 0 || top.kind != Kind::kString) return Role::kUnsupported;
    return ChildRole(o.role, false, top.field, kind);
  }
  device = static_cast<uint32_t>(o.size + pending);
  return ChildRole(o.role, true, kOther, kind);
}

bool StreamReader::NewContainer(size_t at, Kind kind) {
  uint32_t device = kNone;
  uint32_t parent = kNone;
  const Role role = Predict(kind, device, parent);
  if (role == Role::kUnsupported) return Decline(at, "a container where a snapshot has none");
  if (records_.size() >= kMaxRecords || frames_.size() >= kMaxRecords) {
    return Decline(at, "too many containers");
  }
  Record r;
  r.kind = kind;
  r.role = role;
  const auto id = static_cast<uint32_t>(records_.size());
  switch (role) {
    case Role::kRoot: root_ = id; break;
    case Role::kSegments:
      if (segments_ != kNone) return Decline(at, "a second segments list");
      segments_ = id;
      if (root_ == kNone) root_ = id;
      break;
    case Role::kDeviceTraces:
      if (device_traces_ != kNone) return Decline(at, "a second device_traces list");
      device_traces_ = id;
      break;
    case Role::kTrace: r.result = device; break;
    case Role::kTraceEntry:
      r.result = parent;  // a kTrace list: ChildRole gives kTraceEntry only there
      break;
    case Role::kFrame:
      frames_.push_back(r);
      stack_.push_back({kind, kOther, true, static_cast<uint32_t>(frames_.size() - 1), 0});
      return true;
    default: break;  // fields and id lists come with the first item: an empty one costs none
  }
  records_.push_back(r);
  stack_.push_back({kind, kOther, false, id, 0});
  return true;
}

// TUPLE1-3: a tuple is read by nobody; what it swallows must be read by nobody either.
bool StreamReader::Tuple(size_t at, size_t n) {
  if (stack_.size() < Base() + n) return Decline(at, "pop from an empty stack");
  for (size_t i = stack_.size() - n; i < stack_.size(); ++i) {
    const Slot& s = stack_[i];
    if (IsContainer(s.kind) && Rec(s).role != Role::kOpaque) {
      return Decline(at, "a snapshot record inside a tuple");
    }
  }
  stack_.resize(stack_.size() - n);
  if (!NewContainer(at, Kind::kTuple)) return false;
  Record& r = Rec(stack_.back());
  r.size = static_cast<uint32_t>(n);
  if (r.role != Role::kOpaque) return Decline(at, "a tuple where a snapshot has a list or dict");
  return true;
}

// |v| joins |parent| (as an item, or as key |field|'s value): it must have the role predicted
// for that place, and a record read once must join once.
bool StreamReader::Join(size_t at, const Slot& parent, const Slot& v, bool item, Field field) {
  if (!IsContainer(v.kind)) return true;
  Record& child = Rec(v);
  if (Same(v, parent)) return Decline(at, "a container inside itself");
  if (child.role != ChildRole(Rec(parent).role, item, field, child.kind)) {
    return Decline(at, "a container joins a place other than the one it was read for");
  }
  if (child.frozen && ReadOnce(child.role)) return Decline(at, "a snapshot record used twice");
  child.frozen = true;
  return true;
}

bool StreamReader::AttachItem(size_t at, const Slot& parent, const Slot& v) {
  Record& p = Rec(parent);
  const uint32_t position = p.size;
  if (!Join(at, parent, v, true, kOther)) return false;
  ++p.size;
  switch (p.role) {
    case Role::kSegments: return JoinRecord(at, v, true, 0);
    case Role::kBlocks:
      if (p.fields == kNone) p.fields = AllocIds();
      id_lists_[p.fields].push_back(IsDict(v) ? v.a : kNone);
      return true;
    case Role::kHistory: p.result = IsDict(v) ? v.a : kNone; return true;
    case Role::kFrames:
      if (!IsDict(v)) return true;  // else a frame: Join checked its role
      if (p.fields == kNone) p.fields = AllocIds();
      id_lists_[p.fields].push_back(v.a);
      return true;
    case Role::kDeviceTraces:
      if (v.kind == Kind::kList && Rec(v).result != position) {
        return Decline(at, "a trace list joins device_traces out of order");
      }
      return true;
    case Role::kTrace: return JoinRecord(at, v, false, static_cast<int32_t>(p.result));
    default: return true;
  }
}

bool StreamReader::AttachPair(size_t at, const Slot& parent, const Slot& k, const Slot& v) {
  if (IsContainer(k.kind)) return Decline(at, "a container as a dict key");
  if (Rec(parent).read) return Decline(at, "items added to a record already read");
  const Field field = k.kind == Kind::kString ? k.field : kOther;
  if (!Join(at, parent, v, false, field)) return false;
  Record& p = Rec(parent);
  p.size += 2;
  const int8_t i = kRoles.index[static_cast<size_t>(p.role)][field];
  if (i < 0) return true;
  if (p.fields == kNone) p.fields = AllocFields(p.role);
  fields_[p.fields + i] = v;
  return true;
}

// APPENDS, SETITEMS, ADDITEMS.
bool StreamReader::Extend(size_t at, Kind want) {
  if (marks_.empty()) return Decline(at, "no MARK to close");
  const size_t begin = marks_.back();
  marks_.pop_back();
  if (begin <= Base() || stack_[begin - 1].kind != want) {
    return Decline(at, "items for a container of another type");
  }
  const Slot parent = stack_[begin - 1];
  Record& p = Rec(parent);
  if (p.frozen || p.read) return Decline(at, "items added to a container already read");
  if (p.role == Role::kFrames) {
    // The hot loop (a frames list of memo GETs for every block and trace entry): a frame dict
    // needs no role check (only kFrame dicts live in frames_).
    for (size_t i = begin; i < stack_.size(); ++i) {
      const Slot& v = stack_[i];
      if (v.frame) {
        frames_[v.a].frozen = true;
        if (p.fields == kNone) p.fields = AllocIds();
        id_lists_[p.fields].push_back(v.a);
        ++p.size;
      } else if (!AttachItem(at, parent, v)) {
        return false;
      }
    }
    stack_.resize(begin);
    return true;
  }
  if (want == Kind::kDict) {
    if ((stack_.size() - begin) % 2 != 0) return Decline(at, "a dict's items come in pairs");
    for (size_t i = begin; i < stack_.size(); i += 2) {
      if (!AttachPair(at, parent, stack_[i], stack_[i + 1])) return false;
    }
    stack_.resize(begin);
    return ReadRecordEarly(at, parent);
  } else {
    for (size_t i = begin; i < stack_.size(); ++i) {
      if (!AttachItem(at, parent, stack_[i])) return false;
    }
  }
  stack_.resize(begin);
  return true;
}

// A segment or trace entry dict whose SETITEMS closed is complete in CPython's output: read it
// now, so that a batch of 1,000 (or, from other writers, all of them) pending on the stack holds
// no fields. Items added later make the reader decline.
bool StreamReader::ReadRecordEarly(size_t at, const Slot& slot) {
  if (slot.frame) return true;
  const uint32_t record = slot.a;
  Record& r = records_[record];
  if (r.role == Role::kSegment) {
    r.read = true;
    r.result = segments_read_++;
    return ReadSegment(at, {Kind::kDict, kOther, false, record, 0});
  }
  if (r.role == Role::kTraceEntry) {
    // Its list was created, and its device fixed, before it (result: that list, till now).
    const auto device = static_cast<int32_t>(records_[r.result].result);
    r.read = true;
    r.result = entries_read_++;
    entry_devices_.push_back(device);
    return ReadTraceEntry(at, {Kind::kDict, kOther, false, record, 0}, device);
  }
  return true;
}

// A segment or trace entry joins its list: read already (in the same order) or now.
bool StreamReader::JoinRecord(size_t at, const Slot& v, bool segment, int32_t device) {
  uint32_t& read = segment ? segments_read_ : entries_read_;
  uint32_t& joined = segment ? segments_joined_ : entries_joined_;
  if (IsDict(v) && records_[v.a].read) {
    if (records_[v.a].result != joined) return Decline(at, "records join in another order");
    if (!segment && entry_devices_[joined] != device) {
      return Decline(at, "a trace entry joins another device's list");
    }
    ++joined;
    return true;
  }
  if (read != joined) return Decline(at, "records join in another order");
  ++read;
  ++joined;
  if (segment) return ReadSegment(at, v);
  entry_devices_.push_back(device);
  return ReadTraceEntry(at, v, device);
}

uint32_t StreamReader::InternFrame(uint32_t frame) {
  const Record& r = frames_[frame];
  if (r.result != kNone) return r.result;
  MemoryFrame f;
  f.name = out_.strings.Intern(Str(FieldOf(r, kName)));
  f.filename = out_.strings.Intern(Str(FieldOf(r, kFilename)));
  f.line = IntOr(FieldOf(r, kLine), 0);
  auto [it, added] = frame_index_.try_emplace({f.name.value, f.filename.value, f.line},
                                              static_cast<uint32_t>(out_.frames.size()));
  if (added) out_.frames.push_back(f);
  frames_[frame].result = it->second;
  FreeFields(frames_[frame]);
  return it->second;
}

uint64_t HashFrames(const uint32_t* f, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  for (size_t i = 0; i < n; ++i) {
    h = (h ^ f[i]) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return h;
}

StackId StreamReader::InternStack(const Slot& frames) {
  if (frames.kind != Kind::kList || frames.frame) return kNoStack;
  Record& list = records_[frames.a];
  if (list.size == 0) return kNoStack;
  if (list.result != kNone) return list.result;
  key_.clear();
  if (list.fields != kNone) {
    for (uint32_t frame : id_lists_[list.fields]) key_.push_back(InternFrame(frame));
  }
  // The same stack is written out for many blocks and entries: find it, or add it.
  const uint32_t* offsets = out_.stack_offsets.data();
  const uint32_t* all = out_.stack_frames.data();
  size_t mask = stack_table_.size() - 1;
  size_t i = HashFrames(key_.data(), key_.size()) & mask;
  for (; stack_table_[i] != 0; i = (i + 1) & mask) {
    const uint32_t id = stack_table_[i] - 1;
    const size_t n = offsets[id + 1] - offsets[id];
    if (n == key_.size() && std::equal(key_.begin(), key_.end(), all + offsets[id])) {
      list.result = id;
      FreeIds(frames.a);
      return id;
    }
  }
  const auto id = static_cast<StackId>(out_.stack_count());
  out_.stack_frames.insert(out_.stack_frames.end(), key_.begin(), key_.end());
  out_.stack_offsets.push_back(static_cast<uint32_t>(out_.stack_frames.size()));
  stack_table_[i] = id + 1;
  if (out_.stack_count() * 2 > stack_table_.size()) {  // grow: rehash every stack
    stack_table_.assign(stack_table_.size() * 2, 0);
    mask = stack_table_.size() - 1;
    for (uint32_t s = 0; s < out_.stack_count(); ++s) {
      const uint32_t* f = out_.stack_frames.data() + out_.stack_offsets[s];
      size_t at = HashFrames(f, out_.stack_offsets[s + 1] - out_.stack_offsets[s]) & mask;
      while (stack_table_[at] != 0) at = (at + 1) & mask;
      stack_table_[at] = s + 1;
    }
  }
  list.result = id;
  FreeIds(frames.a);
  return id;
}

void StreamReader::ReadBlock(uint32_t block, const MemorySegment& segment, int64_t& offset) {
  const size_t index = out_.blocks.size();
  if (block == kNone) return Malformed("block", index, "not a dict");
  const Slot& size = FieldOfRecord(block, kSize);
  if (size.kind != Kind::kInt) {
    Malformed("block", index, "no size");
    FreeFields(records_[block]);
    return;
  }
  MemoryBlock b;
  b.size = static_cast<int64_t>(size.b);
  // Older snapshots leave blocks without an address: they tile their segment in order (a sum
  // past int64 wraps, as in the document path).
  b.address = IntOr(FieldOfRecord(block, kAddress),
                    segment.address == kNoValue
                        ? kNoValue
                        : static_cast<int64_t>(static_cast<uint64_t>(segment.address) +
                                               static_cast<uint64_t>(offset)));
  offset = static_cast<int64_t>(static_cast<uint64_t>(offset) + static_cast<uint64_t>(b.size));
  const Slot& requested = FieldOfRecord(block, kRequestedSize);
  if (requested.kind == Kind::kInt) out_.layout.requested_size = true;
  b.requested_size = IntOr(requested, kNoValue);
  b.state = ParseBlockState(Str(FieldOfRecord(block, kState)));
  Slot frames = FieldOfRecord(block, kFrames);
  if (frames.kind != Kind::kAbsent) out_.layout.block_frames = true;
  if (const Slot& history = FieldOfRecord(block, kHistory); history.kind != Kind::kAbsent) {
    out_.layout.block_history = true;
    // The 2.0 layout: the most recent history entry holds the allocation's frames.
    if (frames.kind == Kind::kAbsent && history.kind == Kind::kList) {
      const uint32_t last = records_[history.a].result;
      if (last != kNone) frames = FieldOfRecord(last, kFrames);
    }
  }
  b.stack = InternStack(frames);
  out_.blocks.push_back(b);
  FreeFields(records_[block]);
}

bool StreamReader::ReadSegment(size_t at, const Slot& v) {
  const size_t index = out_.segments.size();
  if (segments_read_ == 1) {  // for a bare list of segments, the document path's check
    first_segment_has_total_ = IsDict(v) && FieldOfRecord(v.a, kTotalSize).kind != Kind::kAbsent;
  }
  if (!IsDict(v)) {
    Malformed("segment", index, "not a dict");
    return true;
  }
  const uint32_t seg = v.a;
  const Slot& total = FieldOfRecord(seg, kTotalSize);
  if (total.kind != Kind::kInt) {
    Malformed("segment", index, "no total_size");
    return true;
  }
  // The document path reads every segment before any trace entry: keep its stack numbering.
  if (last_trace_device_ >= 0) return Decline(at, "segments after the device traces");
  MemorySegment s;
  s.device = static_cast<int32_t>(IntOr(FieldOfRecord(seg, kDevice), 0));
  s.address = IntOr(FieldOfRecord(seg, kAddress), kNoValue);
  s.total_size = static_cast<int64_t>(total.b);
  s.allocated_size = IntOr(FieldOfRecord(seg, kAllocatedSize), kNoValue);
  s.active_size = IntOr(FieldOfRecord(seg, kActiveSize), kNoValue);
  s.requested_size = IntOr(FieldOfRecord(seg, kRequestedSize), kNoValue);
  s.stream = IntOr(FieldOfRecord(seg, kStream), kNoValue);
  const std::string_view type = Str(FieldOfRecord(seg, kSegmentType));
  s.pool = type == "large" ? SegmentPool::kLarge
                           : (type == "small" ? SegmentPool::kSmall : SegmentPool::kUnknown);
  s.expandable = AsInt(FieldOfRecord(seg, kIsExpandable)) != 0;
  if (FieldOfRecord(seg, kSegmentPoolId).kind != Kind::kAbsent) out_.layout.segment_pool_id = true;
  s.stack = InternStack(FieldOfRecord(seg, kFrames));
  s.first_block = static_cast<uint32_t>(out_.blocks.size());
  int64_t offset = 0;
  if (const Slot blocks = FieldOfRecord(seg, kBlocks);
      blocks.kind == Kind::kList && records_[blocks.a].fields != kNone) {
    for (uint32_t block : id_lists_[records_[blocks.a].fields]) ReadBlock(block, s, offset);
    FreeIds(blocks.a);
  }
  s.block_count = static_cast<uint32_t>(out_.blocks.size() - s.first_block);
  out_.segments.push_back(s);
  FreeFields(records_[seg]);
  return true;
}

bool StreamReader::ReadTraceEntry(size_t at, const Slot& v, int32_t device) {
  if (device < last_trace_device_) return Decline(at, "device traces out of order");
  last_trace_device_ = device;
  const size_t index = out_.trace.size();
  if (!IsDict(v)) {
    Malformed("trace entry", index, "not a dict");
    return true;
  }
  const uint32_t entry = v.a;
  const Slot& action = FieldOfRecord(entry, kAction);
  if (action.kind != Kind::kString) {
    Malformed("trace entry", index, "no action");
    FreeFields(records_[entry]);
    return true;
  }
  MemoryTraceEntry e;
  e.device = device;
  e.action = ParseMemoryAction(Str(action));
  if (e.action == MemoryAction::kUnknown) {
    out_.problems.Add(DataProblem::kUnknownCategory,
                      fmt::format("trace entry {}: action '{}'", index, Str(action).substr(0, 40)));
  }
  e.address = IntOr(FieldOfRecord(entry, kAddr), kNoValue);
  e.size = IntOr(FieldOfRecord(entry, kSize), 0);
  e.stream = IntOr(FieldOfRecord(entry, kStream), kNoValue);
  e.device_free = IntOr(FieldOfRecord(entry, kDeviceFree), kNoValue);
  const Slot& time_us = FieldOfRecord(entry, kTimeUs);
  // Microseconds since the epoch fit int64 nanoseconds until the year 2262.
  if (const auto t = static_cast<int64_t>(time_us.b);
      time_us.kind == Kind::kInt && t > -INT64_MAX / 1000 && t < INT64_MAX / 1000) {
    e.time = t * 1000;
  }
  e.stack = InternStack(FieldOfRecord(entry, kFrames));
  out_.trace.push_back(e);
  FreeFields(records_[entry]);
  return true;
}

// STOP: the root is the only value left; what the document path reads from it is here.
bool StreamReader::Finish(size_t at) {
  if (stack_.size() != 1 || !marks_.empty() || !IsContainer(stack_[0].kind) || stack_[0].frame ||
      stack_[0].a != root_) {
    return Decline(at, "STOP with other values than the snapshot on the stack");
  }
  if (segments_read_ != segments_joined_ || entries_read_ != entries_joined_) {
    return Decline(at, "records read that joined no list");
  }
  const Record& root = records_[root_];
  if (root.role == Role::kSegments) {  // torch.cuda.memory_snapshot(): segments only
    if (root.size > 0 && !first_segment_has_total_) return Decline(at, "not a list of segments");
    return true;
  }
  const Slot& segments = FieldOfRecord(root_, kSegments);
  const Slot& traces = FieldOfRecord(root_, kDeviceTraces);
  if (segments.kind == Kind::kAbsent && traces.kind == Kind::kAbsent) {
    return Decline(at, "no 'segments' or 'device_traces'");
  }
  // Records were read as they came: only if they came from the lists the root keeps.
  if (segments_ != kNone && (segments.kind != Kind::kList || segments.a != segments_)) {
    return Decline(at, "a segments list the root does not keep");
  }
  if (device_traces_ != kNone && (traces.kind != Kind::kList || traces.a != device_traces_)) {
    return Decline(at, "a device_traces list the root does not keep");
  }
  if (traces.kind != Kind::kAbsent) out_.layout.device_traces = true;
  if (const Slot& settings = FieldOfRecord(root_, kAllocatorSettings); IsDict(settings)) {
    const uint32_t r = settings.a;
    AllocatorSettings& s = out_.settings;
    out_.layout.allocator_settings = true;
    s.recorded = true;
    s.alloc_conf = std::string(Str(FieldOfRecord(r, kAllocConf)));
    if (const Slot& m = FieldOfRecord(r, kMaxSplitSize); m.kind == Kind::kInt) {
      s.max_split_size = static_cast<int64_t>(m.b);
    }
    if (const Slot& e = FieldOfRecord(r, kExpandableSegments); e.kind == Kind::kBool) {
      s.expandable_segments = e.b != 0;
    }
    if (const Slot& g = FieldOfRecord(r, kGcThreshold); g.kind != Kind::kAbsent) {
      s.garbage_collection_threshold = g.kind == Kind::kFloat
                                           ? std::bit_cast<double>(g.b)
                                           : (g.kind == Kind::kInt || g.kind == Kind::kBool
                                                  ? static_cast<double>(static_cast<int64_t>(g.b))
                                                  : 0.0);
    }
  }
  if (const Slot& a = FieldOfRecord(root_, kExternalAnnotations); a.kind != Kind::kAbsent) {
    out_.layout.external_annotations = true;
    out_.annotation_count = IsContainer(a.kind) ? Rec(a).size : 0;
  }
  return true;
}

bool StreamReader::Step(uint8_t op, size_t at) {
  switch (op) {
    case 0x80: {  // PROTO
      if (!Have(1)) return Decline(at, "input ends");
      const uint64_t n = Le(1);
      if (n < 2 || n > 5) return Decline(at, "not protocol 2 to 5");
      protocol_ = static_cast<int>(n);
      return true;
    }
    case 0x95:  // FRAME: a length hint
      if (!Have(8)) return Decline(at, "input ends");
      pos_ += 8;
      return true;
    case '(':  // MARK: CPython's pickler marks only the start of a batch of a container's items
      if (marks_.size() >= pickle::kMaxDepth) return Decline(at, "nesting too deep");
      if (stack_.size() <= Base() || !IsContainer(stack_.back().kind)) {
        return Decline(at, "a MARK not after a container");
      }
      marks_.push_back(stack_.size());
      return true;
    case 0x94:  // MEMOIZE
      if (stack_.size() <= Base()) return Decline(at, "empty stack");
      if (memo_values_.size() >= kMaxRecords) return Decline(at, "too many memo values");
      memo_.push_back(Encode(stack_.back()));
      return true;
    case 'q':    // BINPUT
    case 'r': {  // LONG_BINPUT
      const size_t n = op == 'q' ? 1 : 4;
      if (!Have(n)) return Decline(at, "input ends");
      const uint64_t key = Le(n);
      if (stack_.size() <= Base()) return Decline(at, "empty stack");
      if (memo_values_.size() >= kMaxRecords) return Decline(at, "too many memo values");
      if (key == memo_.size()) {
        memo_.push_back(Encode(stack_.back()));
      } else if (key < memo_.size()) {
        memo_[key] = Encode(stack_.back());
      } else {
        return Decline(at, "a memo key out of sequence");
      }
      return true;
    }
    case 'h':    // BINGET
    case 'j': {  // LONG_BINGET
      const size_t n = op == 'h' ? 1 : 4;
      if (!Have(n)) return Decline(at, "input ends");
      const uint64_t key = Le(n);
      if (key >= memo_.size()) return Decline(at, "memo key read before it was written");
      stack_.push_back(Decode(memo_[key]));
      return true;
    }
    case 'N': stack_.push_back({Kind::kNone}); return true;
    case 0x88: stack_.push_back({Kind::kBool, kOther, false, 0, 1}); return true;  // NEWTRUE
    case 0x89: stack_.push_back({Kind::kBool, kOther, false, 0, 0}); return true;  // NEWFALSE
    case 'K':                                                                      // BININT1
      if (!Have(1)) return Decline(at, "input ends");
      return PushInt(static_cast<int64_t>(Le(1)));
    case 'M':  // BININT2
      if (!Have(2)) return Decline(at, "input ends");
      return PushInt(static_cast<int64_t>(Le(2)));
    case 'J':  // BININT
      if (!Have(4)) return Decline(at, "input ends");
      return PushInt(static_cast<int32_t>(static_cast<uint32_t>(Le(4))));
    case 0x8a: return Long1(at);
    case 'G':  // BINFLOAT: big-endian IEEE 754
      if (!Have(8)) return Decline(at, "input ends");
      stack_.push_back({Kind::kFloat, kOther, false, 0, __builtin_bswap64(Le(8))});
      return true;
    case 'X': return String(at, 4, Kind::kString);   // BINUNICODE
    case 0x8c: return String(at, 1, Kind::kString);  // SHORT_BINUNICODE
    case 0x8d: return String(at, 8, Kind::kString);  // BINUNICODE8
    case 'T':                                        // BINSTRING
      if (Have(4) && static_cast<uint8_t>(data_[pos_ + 3]) & 0x80)
        return Decline(at, "BINSTRING length < 0");
      return String(at, 4, Kind::kString);
    case 'U': return String(at, 1, Kind::kString);    // SHORT_BINSTRING
    case 'B': return String(at, 4, Kind::kBytes);     // BINBYTES
    case 'C': return String(at, 1, Kind::kBytes);     // SHORT_BINBYTES
    case 0x8e: return String(at, 8, Kind::kBytes);    // BINBYTES8
    case 0x96: return String(at, 8, Kind::kBytes);    // BYTEARRAY8
    case ']': return NewContainer(at, Kind::kList);   // EMPTY_LIST
    case '}': return NewContainer(at, Kind::kDict);   // EMPTY_DICT
    case ')': return NewContainer(at, Kind::kTuple);  // EMPTY_TUPLE
    case 0x8f: return NewContainer(at, Kind::kSet);   // EMPTY_SET
    case 0x85: return Tuple(at, 1);                   // TUPLE1
    case 0x86: return Tuple(at, 2);                   // TUPLE2
    case 0x87: return Tuple(at, 3);                   // TUPLE3
    case 'a': {                                       // APPEND
      if (stack_.size() < Base() + 2 || stack_[stack_.size() - 2].kind != Kind::kList) {
        return Decline(at, "APPEND without a list");
      }
      const Slot v = stack_.back();
      stack_.pop_back();
      if (Rec(stack_.back()).frozen) return Decline(at, "items added to a list already read");
      return AttachItem(at, stack_.back(), v);
    }
    case 's': {  // SETITEM
      if (stack_.size() < Base() + 3 || stack_[stack_.size() - 3].kind != Kind::kDict) {
        return Decline(at, "SETITEM without a dict");
      }
      const Slot v = stack_.back();
      const Slot k = stack_[stack_.size() - 2];
      stack_.resize(stack_.size() - 2);
      if (Rec(stack_.back()).frozen) return Decline(at, "items added to a dict already read");
      return AttachPair(at, stack_.back(), k, v) && ReadRecordEarly(at, stack_.back());
    }
    case 'e': return Extend(at, Kind::kList);  // APPENDS
    case 'u': return Extend(at, Kind::kDict);  // SETITEMS
    case 0x90: return Extend(at, Kind::kSet);  // ADDITEMS
    case '.': return Finish(at);               // STOP
    default: return Decline(at, "an opcode the streaming reader leaves to the document decoder");
  }
}

StreamReadResult StreamReader::Run() {
  StreamReadResult result;
  if (data_.size() >= UINT32_MAX) {
    result.declined = "over 4 GiB";
    return result;
  }
  while (true) {
    if (pos_ >= data_.size()) {
      Decline(pos_, "input ends before STOP");
      break;
    }
    const size_t at = pos_++;
    const auto op = static_cast<uint8_t>(data_[at]);
    if (!Step(op, at)) break;
    if (op == '.') {
      out_.layout.pickle_protocol = protocol_;
      result.snapshot = std::move(out_);
      return result;
    }
  }
  result.declined = std::move(why_);
  return result;
}

}  // namespace

StreamReadResult ReadSnapshotStreaming(std::string_view bytes) { return StreamReader(bytes).Run(); }

}  // namespace gpuwhy
