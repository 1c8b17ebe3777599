#include "synth/repeat_trace.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/file_input.h"

namespace gpuwhy {
namespace {

namespace od = simdjson::ondemand;

// The events as text pieces, parsed once and written once per copy: verbatim text, or a
// number that moves with the copy.
enum class Moves : uint8_t { kNot, kTime, kId };
struct Piece {
  std::string_view text;
  Moves moves = Moves::kNot;
};

struct Events {
  std::vector<Piece> pieces;
  double first_us = std::numeric_limits<double>::infinity();
  double last_end_us = -std::numeric_limits<double>::infinity();
  int64_t max_id = 0;
};

bool IsPlainInteger(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

double NumberOf(std::string_view token) {
  double v = std::nan("");
  std::from_chars(token.data(), token.data() + token.size(), v);
  return v;
}

bool IsLinkingArg(std::string_view key) { return key == "correlation" || key == "External id"; }

// A member's key as written (escapes kept), read from the key's raw text up to its closing
// quote; the document was validated as it was walked, so that quote exists.
simdjson::error_code RawKey(simdjson::simdjson_result<od::field>& result, od::field& field,
                            std::string_view& key) {
  if (auto error = std::move(result).get(field)) return error;
  const char* start = field.key().raw();
  const char* p = start;
  while (*p != '"') p += *p == '\\' ? 2 : 1;
  key = std::string_view(start, static_cast<size_t>(p - start));
  return simdjson::SUCCESS;
}

simdjson::error_code RawValue(od::value value, std::string_view& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::object) {
    od::object object;
    if (auto error = value.get_object().get(object)) return error;
    return object.raw_json().get(out);
  }
  if (type == od::json_type::array) {
    od::array array;
    if (auto error = value.get_array().get(array)) return error;
    return array.raw_json().get(out);
  }
  out = value.raw_json_token();
  return simdjson::SUCCESS;
}

void AddMember(Events& e, bool first, std::string_view key, std::string_view value, Moves moves) {
  e.pieces.push_back({first ? "\"" : ",\""});
  e.pieces.push_back({key});
  e.pieces.push_back({"\":"});
  e.pieces.push_back({value, moves});
}

simdjson::error_code ReadArgs(od::object args, Events& e) {
  bool first = true;
  for (auto result : args) {
    od::field field;
    std::string_view key;
    std::string_view raw;
    if (auto error = RawKey(result, field, key)) return error;
    if (auto error = RawValue(field.value(), raw)) return error;
    bool links = IsLinkingArg(key) && IsPlainInteger(raw);
    if (links) {
      e.max_id = std::max<int64_t>(e.max_id, static_cast<int64_t>(NumberOf(raw)));
    }
    AddMember(e, first, key, raw, links ? Moves::kId : Moves::kNot);
    first = false;
  }
  return simdjson::SUCCESS;
}

simdjson::error_code ReadEvent(od::object event, Events& e) {
  e.pieces.push_back({"{"});
  bool first = true;
  double ts = std::nan("");
  double dur = 0;
  for (auto result : event) {
    od::field field;
    std::string_view key;
    if (auto error = RawKey(result, field, key)) return error;
    od::value value = field.value();
    od::json_type type;
    if (auto error = value.type().get(type)) return error;
    if (key == "args" && type == od::json_type::object) {
      e.pieces.push_back({first ? "\"args\":{" : ",\"args\":{"});
      if (auto error = ReadArgs(value.get_object(), e)) return error;
      e.pieces.push_back({"}"});
      first = false;
      continue;
    }
    std::string_view raw;
    if (auto error = RawValue(value, raw)) return error;
    Moves moves = Moves::kNot;
    if (key == "ts") {
      ts = NumberOf(raw);
      // Whole-µs shifts of the integer part keep the decimal text exact.
      std::string_view whole = raw.substr(0, raw.find('.'));
      if (IsPlainInteger(whole)) moves = Moves::kTime;
    } else if (key == "dur") {
      dur = NumberOf(raw);
    } else if (key == "id" && IsPlainInteger(raw)) {
      e.max_id = std::max<int64_t>(e.max_id, static_cast<int64_t>(NumberOf(raw)));
      moves = Moves::kId;
    }
    AddMember(e, first, key, raw, moves);
    first = false;
  }
  e.pieces.push_back({"}"});
  if (std::isfinite(ts)) {
    e.first_us = std::min(e.first_us, ts);
    e.last_end_us = std::max(e.last_end_us, ts + (std::isfinite(dur) ? dur : 0));
  }
  return simdjson::SUCCESS;
}

void WriteMoved(std::FILE* out, const Piece& p, int64_t time_shift, int64_t id_shift) {
  if (p.moves == Moves::kNot || (time_shift == 0 && id_shift == 0)) {
    std::fwrite(p.text.data(), 1, p.text.size(), out);
    return;
  }
  size_t dot = p.moves == Moves::kTime ? p.text.find('.') : std::string_view::npos;
  std::string_view whole = p.text.substr(0, dot);
  int64_t value = 0;
  std::from_chars(whole.data(), whole.data() + whole.size(), value);
  if (p.moves == Moves::kId && value <= 0) {  // 0 and -1 mean "none": they link nothing
    std::fwrite(p.text.data(), 1, p.text.size(), out);
    return;
  }
  value += p.moves == Moves::kTime ? time_shift : id_shift;
  fmt::print(out, "{}", value);
  if (dot != std::string_view::npos) std::fwrite(p.text.data() + dot, 1, p.text.size() - dot, out);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

Status WriteRepeatedTrace(const std::string& input_path, const std::string& out_path,
                          const RepeatTraceOptions& options, RepeatTraceSummary* summary) {
  StatusOr<std::string> text = ReadWholeFile(input_path);
  if (!text.ok()) return text.status();
  simdjson::padded_string json(*text);
  od::parser parser;
  od::document doc;
  if (auto error = parser.iterate(json).get(doc)) {
    return InvalidArgument("{}: {}", input_path, simdjson::error_message(error));
  }
  // Top-level members other than traceEvents, verbatim; the events as pieces.
  std::vector<std::pair<std::string_view, std::string_view>> members;
  Events events;
  od::object root;
  simdjson::error_code error = doc.get_object().get(root);
  for (auto result : root) {
    if (error) break;
    od::field field;
    std::string_view key;
    if ((error = RawKey(result, field, key))) break;
    if (key != "traceEvents") {
      std::string_view raw;
      if ((error = RawValue(field.value(), raw))) break;
      members.emplace_back(key, raw);
      continue;
    }
    od::array array;
    if ((error = field.value().get_array().get(array))) break;
    for (auto element : array) {
      od::object event;
      if ((error = element.get_object().get(event))) break;
      if ((error = ReadEvent(event, events))) break;
      events.pieces.push_back({",\n"});
    }
  }
  if (error) {
    return InvalidArgument("{}: {}", input_path, simdjson::error_message(error));
  }
  if (!events.pieces.empty()) events.pieces.pop_back();  // the last separator
  int64_t shift_us =
      std::isfinite(events.first_us)
          ? static_cast<int64_t>(std::ceil(events.last_end_us - events.first_us)) + options.gap_us
          : 0;
  int64_t id_shift = events.max_id + 1;

  std::unique_ptr<std::FILE, FileCloser> out(std::fopen(out_path.c_str(), "wb"));
  if (!out) return IoError("{}: cannot write", out_path);
  std::fputs("{\n", out.get());
  for (const auto& [key, raw] : members) fmt::print(out.get(), "\"{}\": {},\n", key, raw);
  std::fputs("\"traceEvents\": [\n", out.get());
  int copies = 0;
  uint64_t bytes = 0;
  while (copies < std::max(1, options.copies) || (bytes < options.min_bytes && copies < 100000)) {
    if (copies > 0) std::fputs(",\n", out.get());
    for (const Piece& p : events.pieces)
      WriteMoved(out.get(), p, copies * shift_us, copies * id_shift);
    ++copies;
    bytes = static_cast<uint64_t>(std::ftell(out.get()));
    if (events.pieces.empty()) break;
  }
  std::fputs("\n]\n}\n", out.get());
  bytes = static_cast<uint64_t>(std::ftell(out.get()));
  if (std::ferror(out.get()) != 0 || std::fclose(out.release()) != 0) {
    return IoError("{}: write failed", out_path);
  }
  if (summary != nullptr) *summary = {copies, bytes, shift_us};
  return Status::Ok();
}

}  // namespace gpuwhy
