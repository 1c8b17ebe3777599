#include "ingest/system/command_capture.h"

#include "ingest/system/text_lines.h"

namespace gpuwhy::system {
namespace {

constexpr std::string_view kHeader = "# $ ";

bool IsRuler(std::string_view line) {
  line = Trim(line);
  return line.size() >= 20 && line.find_first_not_of('#') == std::string_view::npos;
}

}  // namespace

std::vector<CapturedSection> SplitCommandCapture(std::string_view text) {
  std::vector<TextLine> lines = SplitLines(text);
  std::vector<CapturedSection> sections;
  // A section's output runs from after its header (and the ruler under it) to the next ruler.
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i].text;
    if (!line.starts_with(kHeader)) continue;
    size_t body = i + 1;
    if (body < lines.size() && IsRuler(lines[body].text)) ++body;
    size_t end = body;
    while (end < lines.size() && !IsRuler(lines[end].text) &&
           !lines[end].text.starts_with(kHeader)) {
      ++end;
    }
    CapturedSection s;
    s.command = Trim(line.substr(kHeader.size()));
    s.first_line = body < lines.size() ? lines[body].number : lines.back().number + 1;
    if (end > body) {
      const char* from = lines[body].text.data();
      const char* to = lines[end - 1].text.data() + lines[end - 1].text.size();
      s.text = std::string_view(from, static_cast<size_t>(to - from));
    }
    sections.push_back(s);
    if (end > i + 1) i = end - 1;
  }
  if (sections.size() < 2) sections.clear();
  return sections;
}

SystemFormat FormatOfCommand(std::string_view command) {
  std::vector<std::string_view> words = SplitWords(command);
  if (words.empty()) return SystemFormat::kUnknown;
  std::string_view tool = words[0];
  if (size_t slash = tool.rfind('/'); slash != std::string_view::npos)
    tool.remove_prefix(slash + 1);
  auto has = [&](std::string_view w) {
    for (std::string_view x : words) {
      if (x == w || x.starts_with(std::string(w) + "=")) return true;
    }
    return false;
  };
  if (tool == "nvidia-smi") {
    if (words.size() == 1) return SystemFormat::kNvidiaSmiTable;
    if (has("-q") || has("--query"))
      return has("-x") || has("--xml-format") ? SystemFormat::kNvidiaSmiXml
                                              : SystemFormat::kNvidiaSmiQuery;
    if (has("--query-gpu")) return SystemFormat::kNvidiaSmiCsv;
    if (has("topo")) return SystemFormat::kTopology;
    if (has("nvlink")) return SystemFormat::kNvLinkStatus;
    return SystemFormat::kUnknown;  // -h, --version, -L, dmon, pmon, other queries
  }
  if (tool == "lspci") return SystemFormat::kLspci;
  if (tool == "dmesg" || tool == "journalctl") return SystemFormat::kKernelLog;
  if (tool == "ibstat" || tool == "ibstatus") return SystemFormat::kInfiniband;
  if (tool == "env" || tool == "printenv") return SystemFormat::kEnvironment;
  return SystemFormat::kUnknown;
}

}  // namespace gpuwhy::system
