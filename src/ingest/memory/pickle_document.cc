#include "ingest/memory/pickle_document.h"

#include <bit>

namespace gpuwhy::pickle {

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kNone: return "None";
    case ValueType::kBool: return "bool";
    case ValueType::kInt: return "int";
    case ValueType::kBigInt: return "int (wider than 64 bits)";
    case ValueType::kFloat: return "float";
    case ValueType::kString: return "str";
    case ValueType::kBytes: return "bytes";
    case ValueType::kList: return "list";
    case ValueType::kTuple: return "tuple";
    case ValueType::kDict: return "dict";
    case ValueType::kSet: return "set";
    case ValueType::kFrozenSet: return "frozenset";
  }
  return "unknown";
}

double PickleRef::AsFloat() const {
  if (!valid()) return 0;
  const PickleDocument::Value& v = doc_->value(id_);
  if (v.type == ValueType::kFloat) return std::bit_cast<double>(v.b);
  if (v.type == ValueType::kInt || v.type == ValueType::kBool) return static_cast<double>(v.b);
  return 0;
}

bool PickleRef::AsBool() const { return AsInt() != 0; }

std::string_view PickleRef::AsString() const {
  if (!valid()) return {};
  const PickleDocument::Value& v = doc_->value(id_);
  if (v.type != ValueType::kString && v.type != ValueType::kBytes && v.type != ValueType::kBigInt)
    return {};
  return doc_->StringOf(v);
}

size_t PickleRef::size() const {
  return is_container() ? doc_->container(doc_->value(id_).a).size : 0;
}

PickleRef PickleRef::Find(std::string_view key) const {
  if (!valid() || type() != ValueType::kDict) return {};
  PickleRef found;
  bool is_key = true;
  bool match = false;
  ForEach([&](PickleRef item) {
    if (is_key) {
      match = item.is_string() && item.AsString() == key;
    } else if (match) {
      found = item;  // the last one wins, as in a Python dict
    }
    is_key = !is_key;
    return true;
  });
  return found;
}

std::string_view PickleDocument::StringOf(const Value& v) const {
  const std::string_view source = v.decoded ? std::string_view(decoded_) : input_;
  return source.substr(static_cast<size_t>(v.b), v.a);
}

size_t PickleDocument::bytes_used() const {
  return decoded_.capacity() + values_.capacity() * sizeof(Value) +
         containers_.capacity() * sizeof(Container) + chunks_.capacity() * sizeof(Chunk) +
         items_.capacity() * sizeof(ValueId);
}

}  // namespace gpuwhy::pickle
