#include "pipeline/node_report.h"

#include "base/number_cast.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "base/file_input.h"
#include "base/guarded_read.h"
#include "collect/system_probe/system_probe.h"
#include "diagnose/diagnose_platform.h"
#include "diagnose/merge.h"
#include "ingest/importer.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

std::string InputsNote(const SystemFacts& facts) {
  std::map<std::string, int> formats;
  for (const SystemInput& input : facts.inputs) ++formats[input.format];
  std::string list;
  for (const auto& [format, n] : formats) {
    list += fmt::format("{}{} x{}", list.empty() ? "" : ", ", format, n);
  }
  return list.empty() ? "no input could be read" : "inputs read: " + list;
}

// A bundle folder: every node log in it, plus its proc/ and sys/ trees when it has them.
void ReadBundle(const std::string& dir, SystemFacts& facts, Report& report,
                std::vector<std::string>& notes) {
  BundleReadResult read = ReadSupportBundle(dir, facts);
  for (const BundleFailure& f : read.failures) report.failures.push_back({f.path, f.message});
  for (const std::string& file : read.unrecognised) {
    notes.push_back(file + ": not a recognised log or command output, skipped");
  }
  std::error_code ec;
  if (fs::is_directory(fs::path(dir) / "proc", ec) || fs::is_directory(fs::path(dir) / "sys", ec)) {
    ProbeOptions probe;
    probe.root = dir;
    probe.read_environment = false;
    probe.run_commands = false;
    ProbeHostFiles(probe, facts);
  }
}

void ReadNodeLog(const PlannedInput& input, SystemFacts& facts, Report& report) {
  Status status = GuardedRead(input.path, [&] {
    StatusOr<std::string> text = ReadWholeFile(input.path, InputLimit::kNodeLog);
    return text.ok() ? ParseSystemText(input.input.system_format, *text, input.path, facts)
                     : text.status();
  });
  if (!status.ok()) report.failures.push_back({input.path, status.message()});
}

}  // namespace

RankReport ReportNodeFacts(const SystemFacts& facts, const std::string& source,
                           const DiagnoseOptions& options) {
  RankReport report;
  report.header.path = source;
  int32_t id = 0;
  for (const GpuState& g : facts.gpus) {
    ReportDevice device;
    device.id = id++;
    device.name = g.pci_bus_id.empty() ? g.name : fmt::format("{} ({})", g.name, g.pci_bus_id);
    if (g.memory_total_mib) {
      // A total no int64 holds (a corrupt 1.8e19 MiB) is left unknown, not cast.
      if (std::optional<int64_t> bytes = ToInteger<int64_t>(*g.memory_total_mib * 1048576))
        device.memory_bytes = *bytes;
    }
    device.active = true;
    report.header.devices.push_back(std::move(device));
  }
  report.diagnosis = DiagnoseSystemFacts(facts, options);
  report.diagnosis.notes.insert(report.diagnosis.notes.begin(), InputsNote(facts));
  return report;
}

void AddNodeLogs(const std::vector<PlannedInput>& plan, const PipelineOptions& options,
                 Report& report) {
  SystemFacts facts;
  facts.source = options.node_source;
  std::vector<std::string> sources;
  std::vector<std::string> notes;
  std::vector<std::string> skipped;
  bool any = !options.accept.traces;
  for (const PlannedInput& input : plan) {
    if (input.role == InputRole::kBundle) {
      Status status = GuardedRead(input.path, [&] {
        ReadBundle(input.path, facts, report, notes);
        return Status::Ok();
      });
      if (!status.ok()) report.failures.push_back({input.path, status.message()});
    } else if (input.role == InputRole::kNodeLog) {
      ReadNodeLog(input, facts, report);
    } else {
      if (input.role == InputRole::kSkipped) {
        notes.push_back(input.error);
        skipped.push_back(input.path);
      }
      continue;
    }
    any = true;
    sources.push_back(input.path);
  }
  if (!any) return;
  // Files given, none readable as a node log or command output: nothing usable (the README's
  // exit policy: 2), as analyze says of an input it cannot read.
  if (!options.accept.traces && sources.size() + skipped.size() > 0 && facts.inputs.empty() &&
      facts.settings.empty()) {
    std::string all;
    for (const std::string& s : sources) all += (all.empty() ? "" : ", ") + s;
    for (const std::string& s : skipped) all += (all.empty() ? "" : ", ") + s;
    report.failures.push_back(
        {all,
         "no input could be read as a node log or command output (see gpuwhy doctor "
         "--help for the formats)"});
  }
  if (Status lost = DataLossStatus("node logs", facts.problems); !lost.ok())
    report.data_loss.push_back({"node logs", lost.message()});
  std::string source = options.node_source;
  if (source.empty()) {
    source = "doctor: ";
    for (size_t i = 0; i < sources.size(); ++i) source += (i > 0 ? ", " : "") + sources[i];
  }
  RankReport platform = ReportNodeFacts(facts, source, options.diagnose);
  for (std::string& note : notes) platform.diagnosis.notes.push_back(std::move(note));
  if (report.ranks.empty()) {
    report.ranks.push_back(std::move(platform));
    return;
  }
  for (RankReport& rank : report.ranks) MergeDiagnosis(rank.diagnosis, platform.diagnosis);
}

}  // namespace gpuwhy
