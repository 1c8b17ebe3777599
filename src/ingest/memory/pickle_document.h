// A decoded data-only Python pickle (ingest/memory/pickle_decoder.h builds it): every value in
// one flat table, containers as chunks of value ids. A memo GET pushes the same value again
// instead of a copy, so the document is a graph (shared and even cyclic values are legal pickle)
// and its size stays linear in the input: readers walk the paths they know, never the whole
// graph recursively.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy::pickle {

enum class ValueType : uint8_t {
  kNone,
  kBool,
  kInt,     // fits int64
  kBigInt,  // LONG1/LONG4 wider than int64: raw little-endian two's complement bytes
  kFloat,
  kString,  // str (UTF-8 bytes as written)
  kBytes,   // bytes, bytearray, protocol-0/1 STRING
  kList,
  kTuple,
  kDict,  // items are key, value, key, value, ...
  kSet,
  kFrozenSet,
};

std::string_view ValueTypeName(ValueType type);

using ValueId = uint32_t;
inline constexpr uint32_t kNoChunk = UINT32_MAX;

class PickleDocument;

// A value of a document: cheap to copy, valid while the document (and, for strings, the input
// bytes it was decoded from) lives.
class PickleRef {
 public:
  PickleRef() = default;
  PickleRef(const PickleDocument* doc, ValueId id) : doc_(doc), id_(id) {}

  bool valid() const { return doc_ != nullptr; }
  ValueId id() const { return id_; }
  ValueType type() const;  // kNone for an invalid ref (a key that was absent)
  bool is_container() const;
  bool is_string() const { return valid() && type() == ValueType::kString; }
  bool is_int() const { return valid() && type() == ValueType::kInt; }

  int64_t AsInt() const;              // kInt and kBool; 0 otherwise
  double AsFloat() const;             // kFloat, or an int converted; 0 otherwise
  bool AsBool() const;                // kBool, or a non-zero int
  std::string_view AsString() const;  // kString, kBytes, kBigInt (raw bytes); "" otherwise
  // Items of a container (a dict's as key, value, key, value...); 0 for other values.
  size_t size() const;

  // Visits the items of a container in order; |fn| returns false to stop.
  template <typename Fn>
  void ForEach(Fn&& fn) const;
  // The value of the last item with string key |key| of a dict; invalid when absent.
  PickleRef Find(std::string_view key) const;
  // The last item of a container in O(1) (a walk to it, for each of 10^4 references to one
  // long list, was quadratic work); invalid when empty or not a container.
  PickleRef Last() const;

 private:
  const PickleDocument* doc_ = nullptr;
  ValueId id_ = 0;
};

class PickleDocument {
 public:
  struct Value {
    ValueType type = ValueType::kNone;
    bool decoded = false;  // string bytes live in decoded_, not in the input
    uint32_t a = 0;        // string length, or container index
    int64_t b = 0;         // int, float bits, string offset
  };
  struct Container {
    uint32_t first_chunk = kNoChunk;
    uint32_t last_chunk = kNoChunk;
    uint32_t size = 0;
  };
  struct Chunk {
    uint32_t begin = 0;  // into items_
    uint32_t count = 0;
    uint32_t next = kNoChunk;
  };

  PickleRef root() const { return {this, root_}; }
  bool has_root() const { return has_root_; }
  // The input ended before STOP: root() holds what was read (open containers closed).
  bool truncated() const { return truncated_; }
  uint64_t truncated_at() const { return truncated_at_; }
  const std::string& truncation_detail() const { return truncation_detail_; }
  int protocol() const { return protocol_; }
  size_t value_count() const { return values_.size(); }
  size_t item_count() const { return items_.size(); }
  // Bytes the document itself holds (tables and decoded strings), for the memory benchmark.
  size_t bytes_used() const;

  const Value& value(ValueId id) const { return values_[id]; }
  std::string_view StringOf(const Value& v) const;
  const Container& container(uint32_t index) const { return containers_[index]; }
  const Chunk& chunk(uint32_t index) const { return chunks_[index]; }
  ValueId item(uint32_t index) const { return items_[index]; }

 private:
  friend class PickleDecoder;

  std::string_view input_;
  std::string decoded_;  // protocol-0 strings with escapes, after decoding
  std::vector<Value> values_;
  std::vector<Container> containers_;
  std::vector<Chunk> chunks_;
  std::vector<ValueId> items_;
  ValueId root_ = 0;
  bool has_root_ = false;
  bool truncated_ = false;
  uint64_t truncated_at_ = 0;
  std::string truncation_detail_;
  int protocol_ = 0;
};

inline ValueType PickleRef::type() const {
  return valid() ? doc_->value(id_).type : ValueType::kNone;
}

inline bool PickleRef::is_container() const {
  const ValueType t = type();
  return t == ValueType::kList || t == ValueType::kTuple || t == ValueType::kDict ||
         t == ValueType::kSet || t == ValueType::kFrozenSet;
}

inline int64_t PickleRef::AsInt() const {
  const ValueType t = type();
  return t == ValueType::kInt || t == ValueType::kBool ? doc_->value(id_).b : 0;
}

template <typename Fn>
void PickleRef::ForEach(Fn&& fn) const {
  if (!is_container()) return;
  const PickleDocument::Value& v = doc_->value(id_);
  for (uint32_t c = doc_->container(v.a).first_chunk; c != kNoChunk; c = doc_->chunk(c).next) {
    const PickleDocument::Chunk& chunk = doc_->chunk(c);
    for (uint32_t i = 0; i < chunk.count; ++i) {
      if (!fn(PickleRef(doc_, doc_->item(chunk.begin + i)))) return;
    }
  }
}

inline PickleRef PickleRef::Last() const {
  if (!is_container()) return {};
  const PickleDocument::Container& c = doc_->container(doc_->value(id_).a);
  if (c.last_chunk == kNoChunk) return {};
  const PickleDocument::Chunk& chunk = doc_->chunk(c.last_chunk);
  if (chunk.count == 0) return {};
  return PickleRef(doc_, doc_->item(chunk.begin + chunk.count - 1));
}

}  // namespace gpuwhy::pickle
