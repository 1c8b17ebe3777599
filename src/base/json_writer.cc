#include "base/json_writer.h"

#include <cmath>

#include <fmt/format.h>

#include "base/status.h"
#include "base/text_escape.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      size_t length = text::Utf8SequenceLength(text, i);
      if (length == 0) {
        out.append(kReplacement);
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void JsonWriter::NewLine(size_t depth) {
  if (indent_ <= 0) return;
  out_.push_back('\n');
  out_.append(depth * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  GPUWHY_CHECK(stack_.empty() ? !wrote_root_ : stack_.back().container == Container::kArray);
  if (stack_.empty()) {
    wrote_root_ = true;
    return;
  }
  if (!stack_.back().empty) out_.push_back(',');
  stack_.back().empty = false;
  NewLine(stack_.size());
}

void JsonWriter::Key(std::string_view key) {
  GPUWHY_CHECK(!stack_.empty() && stack_.back().container == Container::kObject && !after_key_);
  if (!stack_.back().empty) out_.push_back(',');
  stack_.back().empty = false;
  NewLine(stack_.size());
  AppendJsonString(out_, key);
  out_.append(indent_ > 0 ? ": " : ":");
  after_key_ = true;
}

void JsonWriter::Open(Container container, char bracket) {
  BeforeValue();
  out_.push_back(bracket);
  stack_.push_back({container});
}

void JsonWriter::Close(Container container, char bracket) {
  GPUWHY_CHECK(!stack_.empty() && stack_.back().container == container && !after_key_);
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) NewLine(stack_.size());
  out_.push_back(bracket);
  if (stack_.empty() && indent_ > 0) out_.push_back('\n');
}

void JsonWriter::BeginObject() { Open(Container::kObject, '{'); }
void JsonWriter::EndObject() { Close(Container::kObject, '}'); }
void JsonWriter::BeginArray() { Open(Container::kArray, '['); }
void JsonWriter::EndArray() { Close(Container::kArray, ']'); }

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(out_, value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", value);
}

void JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", value);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_.append("null");
    return;
  }
  // fmt's shortest round-trip form; integral values keep no trailing ".0" noise.
  fmt::format_to(std::back_inserter(out_), "{}", value);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_.append(value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_.append("null");
}

}  // namespace gpuwhy
