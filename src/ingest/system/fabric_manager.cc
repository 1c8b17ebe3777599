// NVIDIA Fabric Manager's log (/var/log/fabricmanager.log): "[Dec 19 2024 19:17:49] [ERROR]
// [tid 1374] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id
// 00000000:83:00.0 physical id 0 port 34". Each NVSwitch error line becomes a NodeEvent of
// kind "sxid" (the code is the SXid the driver logs for it); the rest is informational.
#include <fmt/format.h>

#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

// The word after |key| in |s|, "" when absent.
std::string_view WordAfter(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::vector<std::string_view> w = system::SplitWords(s.substr(at + key.size()));
  return w.empty() ? std::string_view() : w[0];
}

}  // namespace

Status ParseFabricManagerLog(std::string_view text, std::string_view path, SystemFacts& facts) {
  for (const system::TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    size_t at = t.find("detected NVSwitch ");
    if (at == std::string_view::npos) continue;
    std::string_view rest = t.substr(at + 18);
    bool fatal = rest.starts_with("fatal");
    if (!fatal && !rest.starts_with("non-fatal")) continue;
    std::optional<int64_t> code = system::ParseInt(WordAfter(rest, "error "));
    if (!code || *code < 0 || *code > 1'000'000) {
      facts.problems.Add(DataProblem::kUnparsedLine,
                         system::LineError(path, line.number, "NVSwitch error without a code"));
      continue;
    }
    NodeEvent e;
    e.kind = "sxid";
    e.code = static_cast<int>(*code);
    e.fatal = fatal;
    e.device = fmt::format("NVSwitch {} (physical id {})", WordAfter(rest, "pci bus id "),
                           WordAfter(rest, "physical id "));
    std::string_view port = WordAfter(rest, " port ");
    e.detail = port.empty() ? std::string(fatal ? "fatal" : "non-fatal")
                            : fmt::format("{}, port {}", fatal ? "fatal" : "non-fatal", port);
    if (t.starts_with("[")) e.time_text = std::string(t.substr(0, t.find(']') + 1));
    e.quote = system::Quote(path, line);
    facts.node_events.push_back(std::move(e));
  }
  return Status::Ok();
}

}  // namespace gpuwhy
