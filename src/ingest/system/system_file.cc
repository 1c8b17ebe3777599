// Recognising a system file by its content and dispatching it to its parser.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "base/file_input.h"
#include "ingest/system/command_capture.h"
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

bool IsEnvLine(std::string_view t) {
  size_t eq = t.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (char c : t.substr(0, eq)) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// Share of the first non-empty lines that |test| accepts, in [0, 1].
template <typename Test>
double ShareOfLines(std::string_view text, Test test) {
  int total = 0, yes = 0;
  for (const system::TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (t.empty() || t.starts_with("$ ")) continue;
    ++total;
    yes += test(line.text) ? 1 : 0;
    if (total == 200) break;
  }
  return total == 0 ? 0 : static_cast<double>(yes) / total;
}

}  // namespace

std::string_view SystemFormatName(SystemFormat format) {
  static constexpr std::array<std::string_view, 14> kNames = {"unknown",
                                                              "kernel log",
                                                              "lspci -vvv",
                                                              "nvidia-smi topo -m",
                                                              "NCCL log",
                                                              "nvidia-smi -q",
                                                              "nvidia-smi -q -x",
                                                              "nvidia-smi",
                                                              "nvidia-smi --query-gpu csv",
                                                              "nvidia-smi nvlink -s",
                                                              "ibstat",
                                                              "environment",
                                                              "command capture",
                                                              "fabric manager log"};
  return kNames[static_cast<size_t>(format)];
}

SystemFormat SniffSystemFormat(std::string_view text) {
  std::string_view head = text.substr(0, 64 * 1024);
  using system::Contains;
  // First: a capture holds the other formats' outputs in its sections.
  if (system::SplitCommandCapture(head).size() >= 2) return SystemFormat::kCommandCapture;
  if (Contains(head, "<nvidia_smi_log") || system::Trim(head).starts_with("<?xml")) {
    return SystemFormat::kNvidiaSmiXml;
  }
  if (Contains(head, "NVSMI LOG")) return SystemFormat::kNvidiaSmiQuery;
  if (Contains(head, "NVIDIA-SMI ") && Contains(head, "Driver Version")) {
    return SystemFormat::kNvidiaSmiTable;
  }
  // --query-gpu's header names its fields ("pci.bus_id", "utilization.gpu [%]").
  std::string_view first_line = head.substr(0, head.find('\n'));
  if (Contains(head, "--query-gpu") || Contains(first_line, "pci.bus_id") ||
      (Contains(first_line, "utilization.gpu") && Contains(first_line, ","))) {
    return SystemFormat::kNvidiaSmiCsv;
  }
  if (Contains(head, "NCCL INFO") || Contains(head, "NCCL WARN") || Contains(head, "# nThread") ||
      Contains(head, "Avg bus bandwidth") ||
      (Contains(head, "busbw") && Contains(head, "algbw") && Contains(head, "redop"))) {
    return SystemFormat::kNccl;
  }
  if (Contains(head, "[tid ") && (Contains(head, "NVSwitch") || Contains(head, "Fabric Manager") ||
                                  Contains(head, "fabric manager"))) {
    return SystemFormat::kFabricManager;
  }
  if (Contains(head, "nvidia-smi topo") || Contains(head, "CPU Affinity") ||
      (Contains(head, "Legend:") && Contains(head, "NV#"))) {
    return SystemFormat::kTopology;
  }
  if (Contains(head, "LnkSta:") || Contains(head, "LnkCap:") ||
      ShareOfLines(head, [](std::string_view l) {
        if (l.size() > 13 && l[4] == ':') l.remove_prefix(5);  // PCI domain
        return l.size() > 8 && l[2] == ':' && l[5] == '.' && l[7] == ' ';
      }) > 0.5) {
    return SystemFormat::kLspci;
  }
  if (Contains(head, "nvidia-smi nvlink") ||
      (Contains(head, "GPU 0:") && Contains(head, "Link 0:"))) {
    return SystemFormat::kNvLinkStatus;
  }
  if (Contains(head, "CA '") || Contains(head, "Infiniband device '")) {
    return SystemFormat::kInfiniband;
  }
  if (Contains(head, "NVRM:") || ShareOfLines(head, HasKernelLogTimestamp) > 0.3) {
    return SystemFormat::kKernelLog;
  }
  if (ShareOfLines(head, [](std::string_view l) { return IsEnvLine(system::Trim(l)); }) > 0.8) {
    return SystemFormat::kEnvironment;
  }
  return SystemFormat::kUnknown;
}

Status ParseSystemText(SystemFormat format, std::string_view text, std::string_view path,
                       SystemFacts& facts) {
  facts.inputs.push_back({std::string(path), std::string(SystemFormatName(format)),
                          static_cast<int64_t>(std::count(text.begin(), text.end(), '\n'))});
  switch (format) {
    case SystemFormat::kKernelLog: return ParseKernelLog(text, path, facts);
    case SystemFormat::kLspci: return ParseLspci(text, path, facts);
    case SystemFormat::kTopology: return ParseTopology(text, path, facts);
    case SystemFormat::kNccl: return ParseNcclLog(text, path, facts);
    case SystemFormat::kNvidiaSmiQuery: return ParseNvidiaSmiQuery(text, path, facts);
    case SystemFormat::kNvidiaSmiXml: return ParseNvidiaSmiXml(text, path, facts);
    case SystemFormat::kNvidiaSmiTable: return ParseNvidiaSmiTable(text, path, facts);
    case SystemFormat::kNvidiaSmiCsv: return ParseNvidiaSmiCsv(text, path, facts);
    case SystemFormat::kNvLinkStatus: return ParseNvLinkStatus(text, path, facts);
    case SystemFormat::kInfiniband: return ParseInfiniband(text, path, facts);
    case SystemFormat::kEnvironment: return ParseEnvironment(text, path, facts);
    case SystemFormat::kFabricManager: return ParseFabricManagerLog(text, path, facts);
    case SystemFormat::kCommandCapture:
      facts.inputs.pop_back();  // each section is recorded as its own input
      return ParseCommandCapture(text, path, facts);
    case SystemFormat::kUnknown: break;
  }
  facts.inputs.pop_back();
  return NotFound("{}: not a recognised system log", path);
}

Status ParseCommandCapture(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::vector<system::CapturedSection> sections = system::SplitCommandCapture(text);
  // The last section of each format wins: two snapshots of one GPU are one GPU.
  std::map<SystemFormat, const system::CapturedSection*> latest;
  for (const system::CapturedSection& s : sections) {
    SystemFormat format = system::FormatOfCommand(s.command);
    if (format != SystemFormat::kUnknown && format != SystemFormat::kCommandCapture)
      latest[format] = &s;
  }
  if (latest.empty()) return NotFound("{}: a command capture with no section gpuwhy reads", path);
  // nvidia-smi's forms describe the same GPUs: only the richest present is read (each would
  // add its own record of every GPU).
  constexpr std::array<SystemFormat, 4> kGpuStateByRichness = {
      SystemFormat::kNvidiaSmiXml, SystemFormat::kNvidiaSmiQuery, SystemFormat::kNvidiaSmiCsv,
      SystemFormat::kNvidiaSmiTable};
  bool have_state = false;
  for (SystemFormat format : kGpuStateByRichness) {
    if (latest.count(format) == 0) continue;
    if (have_state) latest.erase(format);
    have_state = true;
  }
  Status first_error;
  for (const auto& [format, s] : latest) {
    std::string label = fmt::format("{} (`{}` from line {})", path, s->command, s->first_line);
    Status status = ParseSystemText(format, s->text, label, facts);
    if (!status.ok() && first_error.ok()) first_error = status;
  }
  return first_error;
}

Status ReadSystemFile(const std::string& path, SystemFacts& facts) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, InputLimit::kNodeLog));
  return ParseSystemText(SniffSystemFormat(text), text, path, facts);
}

}  // namespace gpuwhy
