// The members of an event's "args" that gpuwhy reads, in one table that both walkers use
// (KinetoEventParser::ParseArgs and the fast reader's ReadArg), so adding a key is one row of
// kKinetoArgKeys. A row names the key, how its value is read and the field it fills.
//
// The lookup is in this header so that the fast reader can inline it: one lookup per argument
// is on its hot path. It is a perfect hash made at compile time from the table.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <variant>

#include "ingest/kineto/kineto_event.h"

namespace gpuwhy {

// How a value is read. Both walkers implement every kind, and read a value of the kind's
// shape alike (kineto_arg_keys_test.cc); on values of other shapes they can differ.
enum class KinetoArgRead : uint8_t {
  kInt,        // an integer, or a string holding one, exact
  kInt32,      // the same, narrowed to int32_t
  kFloat,      // a number
  kIntTriple,  // [x, y, z]: the first three integers
  kString,     // a string
  kRawJson,    // an array's JSON text, kept raw until needed (shapes)
};

// A field of type T: a member of KinetoArgs or of its LaunchConfig.
template <typename T>
struct KinetoArgField {
  T KinetoArgs::*args = nullptr;
  T LaunchConfig::*launch = nullptr;

  T& Of(KinetoArgs& a) const { return launch != nullptr ? a.launch.*launch : a.*args; }
};

struct KinetoArgKey {
  using Field =
      std::variant<KinetoArgField<int64_t>, KinetoArgField<int32_t>, KinetoArgField<float>,
                   KinetoArgField<std::array<int32_t, 3>>, KinetoArgField<std::string_view>>;

  // |member| is a member of KinetoArgs or of LaunchConfig.
  template <typename T, typename Owner>
  constexpr KinetoArgKey(std::string_view key, KinetoArgRead read, T Owner::*member)
      : key(key), read(read), field(MakeField(member)) {}

  // The field this key fills in |a|; T is the field's type, as |read| implies.
  template <typename T>
  T& FieldOf(KinetoArgs& a) const {
    return std::get<KinetoArgField<T>>(field).Of(a);
  }

  std::string_view key;
  KinetoArgRead read;
  Field field;

 private:
  template <typename T, typename Owner>
  static constexpr Field MakeField(T Owner::*member) {
    static_assert(std::is_same_v<Owner, KinetoArgs> || std::is_same_v<Owner, LaunchConfig>);
    KinetoArgField<T> f;
    if constexpr (std::is_same_v<Owner, KinetoArgs>) {
      f.args = member;
    } else {
      f.launch = member;
    }
    return f;
  }
};

// Keys as Kineto writes them, some in two spellings (PyTorch versions differ). Any order.
inline constexpr auto kKinetoArgKeys = [] {
  using enum KinetoArgRead;
  return std::to_array<KinetoArgKey>({
      // Where the work ran, and the ids that join CPU ops, runtime calls and GPU work.
      {"device", kInt, &KinetoArgs::device},
      {"stream", kInt, &KinetoArgs::stream},
      {"correlation", kInt, &KinetoArgs::correlation},
      {"External id", kInt, &KinetoArgs::external_id},
      {"external id", kInt, &KinetoArgs::external_id},
      {"bytes", kInt, &KinetoArgs::bytes},
      {"Bytes", kInt, &KinetoArgs::bytes},
      // Kernel launches.
      {"grid", kIntTriple, &LaunchConfig::grid},
      {"block", kIntTriple, &LaunchConfig::block},
      {"registers per thread", kInt32, &LaunchConfig::registers_per_thread},
      {"shared memory", kInt32, &LaunchConfig::shared_memory_bytes},
      {"blocks per SM", kFloat, &LaunchConfig::blocks_per_sm},
      {"warps per SM", kFloat, &LaunchConfig::warps_per_sm},
      {"est. achieved occupancy %", kFloat, &LaunchConfig::occupancy_pct},
      {"graph id", kInt, &LaunchConfig::graph_id},
      {"graph node id", kInt, &LaunchConfig::graph_node_id},
      {"queued", kInt32, &LaunchConfig::queued},
      // Collectives.
      {"Collective name", kString, &KinetoArgs::collective_name},
      {"dtype", kString, &KinetoArgs::dtype},
      {"Process Group Name", kString, &KinetoArgs::process_group_name},
      {"Process Group Description", kString, &KinetoArgs::process_group_desc},
      {"In split size", kString, &KinetoArgs::in_split_sizes},
      {"Out split size", kString, &KinetoArgs::out_split_sizes},
      {"In msg nelems", kInt, &KinetoArgs::in_nelems},
      {"Out msg nelems", kInt, &KinetoArgs::out_nelems},
      {"Group size", kInt, &KinetoArgs::group_size},
      // Not "Seq" (KinetoArgs::sequence): the walkers' old switches filed it with the 4-byte
      // keys, so it never matched, and reading it now would change what imports produce.
      // [memory] instants.
      {"Device Type", kInt, &KinetoArgs::device_type},
      {"Device Id", kInt, &KinetoArgs::device_id},
      {"Addr", kInt, &KinetoArgs::addr},
      {"Total Allocated", kInt, &KinetoArgs::total_allocated},
      {"Total Reserved", kInt, &KinetoArgs::total_reserved},
      // cuda_sync.
      {"wait_on_stream", kInt, &KinetoArgs::wait_on_stream},
      {"wait_on_cuda_event_record_corr_id", kInt, &KinetoArgs::wait_on_event_correlation},
      // Shapes, when record_shapes was on.
      {"Input Dims", kRawJson, &KinetoArgs::input_dims},
      {"Input dims", kRawJson, &KinetoArgs::input_dims},
      {"Input type", kRawJson, &KinetoArgs::input_types},
      {"Concrete Inputs", kRawJson, &KinetoArgs::concrete_inputs},
      {"flops", kInt, &KinetoArgs::flops},
      // "M" metadata events.
      {"name", kString, &KinetoArgs::name},
  });
}();

// The row for |key| (its raw bytes, matched exactly), or nullptr for a key gpuwhy does not read.
inline const KinetoArgKey* FindKinetoArgKey(std::string_view key);

namespace kineto_arg_index {

inline constexpr size_t kRows = kKinetoArgKeys.size();

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// Bytes p[0, n) as a little-endian word, n <= 8: constexpr, so that the index is made at
// compile time, and one load at run time.
constexpr uint64_t Word(const char* p, size_t n) {
  if (!std::is_constant_evaluated() && std::endian::native == std::endian::little) {
    if (n == 8) return Load<uint64_t>(p);
    if (n == 4) return Load<uint32_t>(p);
  }
  uint64_t w = 0;
  for (size_t i = n; i-- > 0;) w = w << 8 | static_cast<unsigned char>(p[i]);
  return w;
}

// A key's length and its first and last bytes in two words, overlapping when it is short:
// they tell keys of up to 16 bytes apart, and longer keys compare their middle too.
struct KeyWords {
  uint64_t head = 0;
  uint64_t tail = 0;
  size_t length = 0;

  constexpr bool operator==(const KeyWords&) const = default;
};

constexpr KeyWords WordsOf(std::string_view key) {
  const char* p = key.data();
  size_t n = key.size();
  if (n >= 8) return {Word(p, 8), Word(p + n - 8, 8), n};
  if (n >= 4) return {Word(p, 4), Word(p + n - 4, 4), n};
  return {Word(p, n), 0, n};
}

// Bytes 8 to n - 8 of two n-byte keys, n > 16 (KeyWords holds the others).
inline bool SameMiddle(const char* a, const char* b, size_t n) {
  for (size_t i = 8; i + 8 < n; i += 8) {
    if (Word(a + i, 8) != Word(b + i, 8)) return false;
  }
  return true;
}

// The hash is perfect: kMultiplier gives every key of the table a slot of its own, so a
// lookup compares one row's words, whatever the key.
inline constexpr int kSlotBits = 8;
inline constexpr size_t kSlots = size_t{1} << kSlotBits;

constexpr size_t SlotOf(const KeyWords& w, uint64_t multiplier) {
  return static_cast<size_t>(((w.head ^ (w.tail << 1) ^ w.length) * multiplier) >>
                             (64 - kSlotBits));
}

constexpr bool EveryKeyHasItsOwnSlot(uint64_t multiplier) {
  std::array<bool, kSlots> taken{};
  for (const KinetoArgKey& row : kKinetoArgKeys) {
    size_t slot = SlotOf(WordsOf(row.key), multiplier);
    if (taken[slot]) return false;
    taken[slot] = true;
  }
  return true;
}

// The first odd multiple of 2^64 / golden ratio that separates the keys (0: none found).
constexpr uint64_t FindMultiplier() {
  for (uint64_t k = 1; k < 4096; ++k) {
    uint64_t multiplier = k * 0x9E3779B97F4A7C15u | 1;
    if (EveryKeyHasItsOwnSlot(multiplier)) return multiplier;
  }
  return 0;
}
inline constexpr uint64_t kMultiplier = FindMultiplier();

// slots[SlotOf(key)] is the entry to compare the key with; free slots name the last entry,
// which has no row (and the words of an empty key, which therefore finds nothing either).
struct KeyIndex {
  struct Entry {
    KeyWords words;
    const KinetoArgKey* row = nullptr;
  };
  std::array<Entry, kRows + 1> entries{};
  std::array<uint8_t, kSlots> slots{};
};

constexpr KeyIndex BuildKeyIndex() {
  KeyIndex index;
  index.slots.fill(kRows);
  for (size_t i = 0; i < kRows; ++i) {
    KeyWords words = WordsOf(kKinetoArgKeys[i].key);
    index.entries[i] = {words, &kKinetoArgKeys[i]};
    index.slots[SlotOf(words, kMultiplier)] = static_cast<uint8_t>(i);
  }
  return index;
}
inline constexpr KeyIndex kIndex = BuildKeyIndex();

constexpr bool KeysAreDistinctAndNonEmpty() {
  for (size_t i = 0; i < kRows; ++i) {
    if (kKinetoArgKeys[i].key.empty()) return false;
    for (size_t j = 0; j < i; ++j) {
      if (kKinetoArgKeys[i].key == kKinetoArgKeys[j].key) return false;
    }
  }
  return true;
}

template <typename T>
constexpr bool Fills(const KinetoArgKey& row) {
  return std::holds_alternative<KinetoArgField<T>>(row.field);
}

constexpr bool EveryReadFitsItsField() {
  for (const KinetoArgKey& row : kKinetoArgKeys) {
    bool fits = false;
    switch (row.read) {
      case KinetoArgRead::kInt: fits = Fills<int64_t>(row); break;
      case KinetoArgRead::kInt32: fits = Fills<int32_t>(row); break;
      case KinetoArgRead::kFloat: fits = Fills<float>(row); break;
      case KinetoArgRead::kIntTriple: fits = Fills<std::array<int32_t, 3>>(row); break;
      case KinetoArgRead::kString:
      case KinetoArgRead::kRawJson: fits = Fills<std::string_view>(row); break;
    }
    if (!fits) return false;
  }
  return true;
}

static_assert(kRows < 255, "KeyIndex::slots holds entry numbers in uint8_t");
static_assert(KeysAreDistinctAndNonEmpty(), "each key has one row");
static_assert(EveryReadFitsItsField(), "a row's read kind must match its field's type");
static_assert(kMultiplier != 0, "no multiplier gives every key its own slot: raise kSlotBits");

}  // namespace kineto_arg_index

inline const KinetoArgKey* FindKinetoArgKey(std::string_view key) {
  namespace index = kineto_arg_index;
  index::KeyWords words = index::WordsOf(key);
  const auto& entry =
      index::kIndex.entries[index::kIndex.slots[index::SlotOf(words, index::kMultiplier)]];
  if (entry.words != words) return nullptr;
  if (key.size() > 16 && !index::SameMiddle(entry.row->key.data(), key.data(), key.size())) {
    return nullptr;
  }
  return entry.row;
}

}  // namespace gpuwhy
