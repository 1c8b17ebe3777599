#include "annotate/rank_rewrite.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "annotate/trace_output.h"

namespace gpuwhy {
namespace {

// Original threads of one rank: tid = process pid × stride + first-seen order.
constexpr int64_t kThreadStride = 100'000;
// Remapped flow ids stay below 2^53 so chrome://tracing (JavaScript doubles) keeps them exact.
constexpr int64_t kMaxExactId = int64_t{1} << 53;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

// |i| at an opening quote; returns the index after the closing one, or npos.
size_t SkipString(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// |i| at the first byte of a value; returns the index after it, or npos.
size_t SkipValue(std::string_view s, size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      char c = s[i];
      if (c == '"') {
        i = SkipString(s, i);
        if (i == std::string_view::npos) return i;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return std::string_view::npos;
  }
  size_t start = i;
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !IsSpace(s[i])) ++i;
  return i > start ? i : std::string_view::npos;
}

std::string_view Unquoted(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    return value.substr(1, value.size() - 2);
  return value;
}

const JsonMember* Find(const std::vector<JsonMember>& members, std::string_view key) {
  for (const JsonMember& m : members) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

bool IsNamingMetadata(std::string_view name) {
  return name == "process_name" || name == "thread_name" || name == "process_sort_index" ||
         name == "thread_sort_index" || name == "process_labels";
}

// "name" of a naming event's args, as JSON string content; nullopt when absent.
std::optional<std::string_view> ArgsName(const JsonMember* args) {
  if (args == nullptr) return std::nullopt;
  std::vector<JsonMember> inner;
  if (!SplitTopLevelMembers(args->value, inner)) return std::nullopt;
  const JsonMember* name = Find(inner, "name");
  if (name == nullptr || name->value.empty() || name->value.front() != '"') return std::nullopt;
  return Unquoted(name->value);
}

// "pid 12", "tid stream 7"; "(none)" for an empty or absent value.
std::string Fallback(std::string_view what, std::string_view value_json) {
  std::string_view v = Unquoted(value_json);
  return fmt::format("{} {}", what, v.empty() || v == "null" ? "(none)" : v);
}

std::optional<int64_t> NonNegativeInteger(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

bool SplitTopLevelMembers(std::string_view object, std::vector<JsonMember>& members) {
  size_t i = SkipSpace(object, 0);
  if (i >= object.size() || object[i] != '{') return false;
  i = SkipSpace(object, i + 1);
  if (i < object.size() && object[i] == '}') return SkipSpace(object, i + 1) == object.size();
  for (;;) {
    if (i >= object.size() || object[i] != '"') return false;
    size_t key_end = SkipString(object, i);
    if (key_end == std::string_view::npos) return false;
    std::string_view key = object.substr(i + 1, key_end - i - 2);
    i = SkipSpace(object, key_end);
    if (i >= object.size() || object[i] != ':') return false;
    i = SkipSpace(object, i + 1);
    size_t value_end = SkipValue(object, i);
    if (value_end == std::string_view::npos) return false;
    members.push_back({key, object.substr(i, value_end - i)});
    i = SkipSpace(object, value_end);
    if (i >= object.size()) return false;
    if (object[i] == '}') return SkipSpace(object, i + 1) == object.size();
    if (object[i] != ',') return false;
    i = SkipSpace(object, i + 1);
  }
}

RankEventRewriter::RankEventRewriter(const RankPlacement& placement) : placement_(placement) {}

int64_t RankEventRewriter::ProcessOrder(const std::string& pid) {
  auto [it, added] = process_order_.try_emplace(pid, static_cast<int64_t>(process_order_.size()));
  (void)added;
  return it->second;
}

int64_t RankEventRewriter::ThreadFor(std::string_view pid_json, std::string_view tid_json) {
  std::pair<std::string, std::string> key{std::string(pid_json), std::string(tid_json)};
  auto it = threads_.find(key);
  if (it != threads_.end()) return it->second.tid;
  Thread t;
  t.order = static_cast<int64_t>(threads_.size());
  t.tid = placement_.pid * kThreadStride + t.order + 1;
  t.process_order = ProcessOrder(key.first);
  threads_.emplace(std::move(key), t);
  return t.tid;
}

void RankEventRewriter::NameProcess(std::string_view pid_json, std::string_view json_name) {
  process_names_[std::string(pid_json)] = std::string(json_name);
}

void RankEventRewriter::NameThread(std::string_view pid_json, std::string_view tid_json,
                                   std::string_view json_name) {
  thread_names_[{std::string(pid_json), std::string(tid_json)}] = std::string(json_name);
}

bool RankEventRewriter::Rewrite(std::string_view event, std::string& out) {
  members_.clear();
  if (!SplitTopLevelMembers(event, members_)) {
    stats_.malformed++;
    stats_.events++;
    out.append(event);
    return true;
  }
  const JsonMember* ph = Find(members_, "ph");
  const JsonMember* pid = Find(members_, "pid");
  const JsonMember* tid = Find(members_, "tid");
  std::string_view pid_text = pid ? pid->value : std::string_view("null");
  std::string_view tid_text = tid ? tid->value : std::string_view("null");
  if (ph != nullptr && Unquoted(ph->value) == "M") {
    const JsonMember* name = Find(members_, "name");
    std::string_view what = name ? Unquoted(name->value) : std::string_view();
    if (IsNamingMetadata(what)) {
      std::optional<std::string_view> args_name = ArgsName(Find(members_, "args"));
      if (args_name && what == "process_name") NameProcess(pid_text, *args_name);
      if (args_name && what == "thread_name") NameThread(pid_text, tid_text, *args_name);
      stats_.naming_absorbed++;
      return false;
    }
  }
  const bool counter = ph != nullptr && Unquoted(ph->value) == "C";
  size_t copied = 0;  // bytes of |event| already in |out|
  auto replace = [&](const JsonMember& m, std::string_view text) {
    size_t at = static_cast<size_t>(m.value.data() - event.data());
    out.append(event.substr(copied, at - copied));
    out.append(text);
    copied = at + m.value.size();
  };
  // Members in the order they were written, so the copy between them stays in order.
  for (const JsonMember& m : members_) {
    if (&m == pid) {
      replace(m, std::to_string(placement_.pid));
    } else if (&m == tid) {
      // Counters belong to the process (Chrome trace semantics): no thread of their own.
      replace(m, counter ? std::string("0") : std::to_string(ThreadFor(pid_text, tid_text)));
    } else if (m.key == "ts") {
      std::optional<TimeNs> ts = ParseMicrosecondsToNs(Unquoted(m.value));
      if (ts) {
        replace(m, FormatMicros(Align(*ts)));
      } else {
        stats_.unshifted++;
      }
    } else if (m.key == "id") {
      std::optional<int64_t> id = NonNegativeInteger(m.value);
      if (id && *id <= (kMaxExactId - placement_.rank_count) / placement_.rank_count) {
        replace(m, std::to_string(*id * placement_.rank_count + placement_.rank_index));
      } else {
        stats_.flow_ids_kept++;
      }
    }
  }
  if (pid != nullptr && tid == nullptr && !counter) ThreadFor(pid_text, tid_text);
  out.append(event.substr(copied));
  stats_.events++;
  return true;
}

std::vector<MergedThread> RankEventRewriter::Threads() const {
  std::vector<std::pair<std::pair<int64_t, int64_t>, MergedThread>> sorted;
  for (const auto& [key, t] : threads_) {
    auto process = process_names_.find(key.first);
    std::string process_name =
        process != process_names_.end() ? process->second : Fallback("pid", key.first);
    auto thread = thread_names_.find(key);
    std::string thread_name =
        thread != thread_names_.end() ? thread->second : Fallback("tid", key.second);
    sorted.push_back(
        {{t.process_order, t.order}, MergedThread{t.tid, process_name + " / " + thread_name, 0}});
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<MergedThread> out;
  for (auto& [order, thread] : sorted) {
    thread.sort_index = static_cast<int64_t>(out.size());
    out.push_back(std::move(thread));
  }
  return out;
}

}  // namespace gpuwhy
