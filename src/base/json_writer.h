// A small streaming JSON writer for machine-readable output (info, reports). Generic: it
// knows nothing of traces. Strings are escaped so the output is always valid UTF-8 JSON,
// whatever bytes a trace carried in its names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy {

// Appends |text| as a quoted JSON string: quotes, backslashes and control characters are
// escaped; each byte that is not part of valid UTF-8 becomes U+FFFD.
void AppendJsonString(std::string& out, std::string_view text);

class JsonWriter {
 public:
  // |indent| spaces per level; 0 writes everything on one line.
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // Inside an object, each value is preceded by its key.
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  // NaN and infinities, which JSON cannot express, are written as null.
  void Double(double value);
  void Bool(bool value);
  void Null();

  // Key + value shorthands for the common case.
  void Field(std::string_view key, std::string_view value) {
    Key(key);
    String(value);
  }
  void Field(std::string_view key, const char* value) {
    Key(key);
    String(value);
  }
  void Field(std::string_view key, int64_t value) {
    Key(key);
    Int(value);
  }
  void Field(std::string_view key, int value) {
    Key(key);
    Int(value);
  }
  void Field(std::string_view key, uint64_t value) {
    Key(key);
    Uint(value);
  }
  void Field(std::string_view key, double value) {
    Key(key);
    Double(value);
  }
  void Field(std::string_view key, bool value) {
    Key(key);
    Bool(value);
  }
  // |value| under |key|, or null when the caller says it is absent.
  void FieldOrNull(std::string_view key, int64_t value, bool present) {
    Key(key);
    if (present) {
      Int(value);
    } else {
      Null();
    }
  }
  // A measurement that may be missing: the number, or null.
  void FieldOrNull(std::string_view key, const std::optional<double>& value) {
    Key(key);
    if (value) {
      Double(*value);
    } else {
      Null();
    }
  }

  // The document so far; complete once every Begin has its End.
  const std::string& str() const { return out_; }
  bool complete() const { return stack_.empty() && wrote_root_; }

 private:
  enum class Container : uint8_t { kObject, kArray };
  struct Frame {
    Container container;
    bool empty = true;
  };
  // Writes the separator and indentation that go before a value (or a key).
  void BeforeValue();
  void Open(Container container, char bracket);
  void Close(Container container, char bracket);
  void NewLine(size_t depth);

  std::string out_;
  std::vector<Frame> stack_;
  int indent_;
  bool after_key_ = false;
  bool wrote_root_ = false;
};

}  // namespace gpuwhy
