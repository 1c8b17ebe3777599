#include "cli/doctor_report.h"

#include <map>
#include <ostream>

#include <fmt/format.h>

#include "base/file_input.h"
#include "diagnose/diagnose_platform.h"

namespace gpuwhy {
namespace {

Severity SeverityNamed(std::string_view name) {
  for (Severity s : {Severity::kInfo, Severity::kLow, Severity::kMedium, Severity::kHigh}) {
    if (SeverityName(s) == name) return s;
  }
  return Severity::kCritical;
}

std::string InputsNote(const SystemFacts& facts) {
  std::map<std::string, int> formats;
  for (const SystemInput& input : facts.inputs) ++formats[input.format];
  std::string list;
  for (const auto& [format, n] : formats) {
    list += fmt::format("{}{} x{}", list.empty() ? "" : ", ", format, n);
  }
  return list.empty() ? "no input could be read" : "inputs read: " + list;
}

}  // namespace

RankReport DoctorReport(const SystemFacts& facts, const std::string& source,
                        const DiagnoseOptions& options) {
  RankReport report;
  report.header.path = source;
  int32_t id = 0;
  for (const GpuState& g : facts.gpus) {
    ReportDevice device;
    device.id = id++;
    device.name = g.pci_bus_id.empty() ? g.name : fmt::format("{} ({})", g.name, g.pci_bus_id);
    if (g.memory_total_mib) device.memory_bytes = static_cast<int64_t>(*g.memory_total_mib * 1048576);
    device.active = true;
    report.header.devices.push_back(std::move(device));
  }
  report.diagnosis = DiagnoseSystemFacts(facts, options);
  report.diagnosis.notes.insert(report.diagnosis.notes.begin(), InputsNote(facts));
  return report;
}

int RenderAndExit(std::span<const RankReport> ranks, std::span<const ReportFailure> failures,
                  const std::string& format, const std::string& output, const std::string& fail_on,
                  const CliContext& context) {
  const bool to_file = !output.empty();
  TextReportOptions text;
  text.colour = !to_file && context.colour == ColourMode::kOn ? TextColour::kOn : TextColour::kOff;
  std::string rendered;
  if (format == "json") {
    rendered = RenderReportJson(ranks, failures);
  } else if (format == "md") {
    rendered = RenderReportMarkdown(ranks, failures, text);
  } else {
    rendered = RenderReportText(ranks, text);
  }
  if (to_file) {
    if (Status status = WriteWholeFile(output, rendered); !status.ok()) {
      PrintError(context, status);
      return kExitUnusable;
    }
  } else {
    context.out << rendered << std::flush;
  }
  if (!failures.empty()) return kExitUnusable;
  if (!fail_on.empty()) {
    Severity threshold = SeverityNamed(fail_on);
    for (const RankReport& rank : ranks) {
      for (const Finding& f : rank.diagnosis.findings) {
        if (f.severity >= threshold) return kExitFindings;
      }
    }
  }
  return kExitOk;
}

}  // namespace gpuwhy
