#include "model/op_shapes.h"

#include <cctype>

namespace gpuwhy {
namespace {

// A cursor over the recorded JSON; only lists, integers and plain strings occur in it.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Integer(int64_t& out) {
    SkipSpace();
    bool negative = pos_ < text_.size() && text_[pos_] == '-';
    if (negative) ++pos_;
    size_t begin = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (value > (INT64_MAX - 9) / 10) return false;  // dims beyond int64: not a shape
      value = value * 10 + (text_[pos_++] - '0');
    }
    out = negative ? -value : value;
    return pos_ > begin;
  }
  // A string without escapes (type names have none; an escape makes it no type list).
  bool String(std::string& out) {
    if (!Eat('"')) return false;
    size_t end = text_.find('"', pos_);
    if (end == std::string_view::npos) return false;
    std::string_view body = text_.substr(pos_, end - pos_);
    if (body.find('\\') != std::string_view::npos) return false;
    out.assign(body);
    pos_ = end + 1;
    return true;
  }
  // Skips one nested list (a TensorList's shapes).
  bool SkipList() {
    if (!Eat('[')) return false;
    int depth = 1;
    while (pos_ < text_.size() && depth > 0) {
      char c = text_[pos_++];
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    }
    return depth == 0;
  }
  // A bare word (True, False) that the next byte does not continue.
  bool Word(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    size_t after = pos_ + word.size();
    if (after < text_.size() && std::isalnum(static_cast<unsigned char>(text_[after])))
      return false;
    pos_ = after;
    return true;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string_view text_;
  size_t pos_ = 0;
};

// [d0, d1, ...] or a nested list (left empty).
bool Dims(Cursor& c, std::vector<int64_t>& out) {
  if (!c.Eat('[')) return false;
  if (c.Eat(']')) return true;
  if (c.Peek('[')) {  // a TensorList: no single shape
    do {
      if (!c.SkipList()) return false;
    } while (c.Eat(','));
    return c.Eat(']');
  }
  do {
    int64_t d = 0;
    if (!c.Integer(d)) return false;
    out.push_back(d);
  } while (c.Eat(','));
  return c.Eat(']');
}

// ["a", "b", ...] of strings without escapes.
std::optional<std::vector<std::string>> StringList(std::string_view json) {
  Cursor c(json);
  std::vector<std::string> types;
  if (!c.Eat('[')) return std::nullopt;
  if (!c.Eat(']')) {
    do {
      types.emplace_back();
      if (!c.String(types.back())) return std::nullopt;
    } while (c.Eat(','));
    if (!c.Eat(']')) return std::nullopt;
  }
  if (!c.AtEnd()) return std::nullopt;
  return types;
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> ParseInputDims(std::string_view json) {
  Cursor c(json);
  std::vector<std::vector<int64_t>> inputs;
  if (!c.Eat('[')) return std::nullopt;
  if (!c.Eat(']')) {
    do {
      inputs.emplace_back();
      if (!Dims(c, inputs.back())) return std::nullopt;
    } while (c.Eat(','));
    if (!c.Eat(']')) return std::nullopt;
  }
  if (!c.AtEnd()) return std::nullopt;
  return inputs;
}

std::optional<std::vector<std::string>> ParseInputTypes(std::string_view json) {
  return StringList(json);
}

std::optional<std::vector<std::string>> ParseConcreteInputs(std::string_view json) {
  return StringList(json);
}

std::optional<std::vector<int64_t>> ParseConcreteInts(std::string_view text) {
  Cursor c(text);
  std::vector<int64_t> out;
  const bool list = c.Eat('[');
  if (list && c.Eat(']')) return c.AtEnd() ? std::optional(out) : std::nullopt;
  do {
    int64_t v = 0;
    if (c.Word("True")) {
      v = 1;
    } else if (!c.Word("False") && !c.Integer(v)) {
      return std::nullopt;
    }
    out.push_back(v);
  } while (list && c.Eat(','));
  if (list && !c.Eat(']')) return std::nullopt;
  if (!c.AtEnd()) return std::nullopt;
  return out;
}

}  // namespace gpuwhy
