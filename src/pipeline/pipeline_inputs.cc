#include "pipeline/pipeline_inputs.h"

#include "base/guarded_read.h"
#include "ingest/importer.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace {

bool IsTrace(InputKind kind) {
  return kind == InputKind::kKinetoJson || kind == InputKind::kNsysSqlite;
}

// The role of one classified file under |policy|.
PlannedInput PlanFile(const std::string& path, const InputClass& input, const InputPolicy& policy) {
  PlannedInput out{path, input, InputRole::kFailed, {}};
  // A command that reads node logs only (doctor) reads a file that is both a metric log and a
  // node log (an nvidia-smi --query-gpu CSV) as the node log; the others as metrics.
  const bool node_first =
      !policy.traces && policy.node_logs && input.system_format != SystemFormat::kUnknown;
  if (node_first) {
    out.role = InputRole::kNodeLog;
    return out;
  }
  if (IsTrace(input.kind) && policy.traces) {
    out.role = InputRole::kTrace;
    return out;
  }
  if (input.kind == InputKind::kProfileSummary && policy.traces) {
    out.role = InputRole::kProfileSummary;
    return out;
  }
  const bool memory = input.kind == InputKind::kPythonPickle ||
                      input.kind == InputKind::kMemorySummary ||
                      input.kind == InputKind::kMemoryTimeline;
  if (memory && policy.traces && policy.memory_snapshots) {
    out.role = InputRole::kMemorySnapshot;
    return out;
  }
  if (input.kind == InputKind::kNcuCsv && policy.kernel_profiles && policy.traces) {
    out.role = InputRole::kKernelProfile;
    return out;
  }
  if (input.kind == InputKind::kRankSummary && policy.rank_summaries) {
    out.role = InputRole::kRankSummary;
    return out;
  }
  if (input.kind == InputKind::kMetricLog && policy.metric_logs) {
    out.role = InputRole::kMetricLog;
    return out;
  }
  if (input.kind == InputKind::kSystemLog && policy.node_logs) {
    out.role = InputRole::kNodeLog;
    return out;
  }
  if (input.kind == InputKind::kMissing || input.kind == InputKind::kUnreadable) {
    out.error = input.error;
    return out;
  }
  if (!policy.traces) {
    // gpuwhy doctor lists what it did not read instead of failing on it.
    out.role = InputRole::kSkipped;
    const bool unknown = input.kind == InputKind::kUnknown || input.kind == InputKind::kEmpty;
    out.error = unknown ? path + ": not a recognised log or command output, skipped"
                        : path + ": " + DescribeInput(input) + ", not a node log: skipped";
    return out;
  }
  out.error = NotATrace(path, input).message();
  return out;
}

bool Accepted(InputRole role) { return role != InputRole::kFailed && role != InputRole::kSkipped; }

InputClass Unreadable(const Status& status) {
  InputClass input;
  input.kind = InputKind::kUnreadable;
  input.error = status.message();
  return input;
}

// ClassifyInput, where an exception while reading the head is that file's own failure.
InputClass Classify(const std::string& path) {
  InputClass input;
  Status status = GuardedRead(path, [&] {
    input = ClassifyInput(path);
    return Status::Ok();
  });
  return status.ok() ? input : Unreadable(status);
}

// A file's role, and a second one for the memory text in a node log (an OOM message at the end
// of a training log that is an NCCL log too) where the command reads memory text.
void PlanFileAndItsMemoryText(const std::string& path, const InputClass& input,
                              const InputPolicy& policy, std::vector<PlannedInput>& out) {
  out.push_back(PlanFile(path, input, policy));
  const InputRole role = out.back().role;
  if (!input.memory_text || !policy.traces || !policy.memory_snapshots) return;
  if (role != InputRole::kNodeLog && role != InputRole::kMetricLog) return;
  InputClass memory = input;
  memory.kind = InputKind::kMemorySummary;
  out.push_back({path, memory, InputRole::kMemorySnapshot, {}});
}

void PlanPath(const std::string& path, const InputPolicy& policy, std::vector<PlannedInput>& out) {
  InputClass input = Classify(path);
  if (input.kind != InputKind::kDirectory) {
    PlanFileAndItsMemoryText(path, input, policy, out);
    return;
  }
  if (!policy.traces) {
    out.push_back({path, input, InputRole::kBundle, {}});
    return;
  }
  StatusOr<std::vector<std::string>> files = ExpandInputPaths({path});
  if (files.ok() && !files->empty()) {
    for (const std::string& file : *files)
      PlanFileAndItsMemoryText(file, Classify(file), policy, out);
    return;
  }
  // A folder without trace files that holds node logs is a support bundle.
  if (policy.node_logs && LooksLikeSupportBundle(path)) {
    out.push_back({path, input, InputRole::kBundle, {}});
    return;
  }
  out.push_back({path, input, InputRole::kFailed,
                 files.ok() ? path + ": no trace files found" : files.status().message()});
}

}  // namespace

std::string AcceptedInputsHelp(const InputPolicy& policy) {
  std::string kinds;
  for (int k = static_cast<int>(InputKind::kKinetoJson); k < static_cast<int>(InputKind::kUnknown);
       ++k) {
    InputClass input;
    input.kind = static_cast<InputKind>(k);
    if (input.kind == InputKind::kMetricLog) input.metric_format = MetricLogFormat::kDmon;
    if (input.kind == InputKind::kSystemLog) input.system_format = SystemFormat::kKernelLog;
    if (!Accepted(PlanFile("help", input, policy).role)) continue;
    if (!kinds.empty()) kinds += "; ";
    kinds += InputKindHelp(input.kind);
  }
  const char* folders = !policy.traces     ? "a folder is a support bundle"
                        : policy.node_logs ? "a folder is its files, or a support bundle"
                                           : "a folder is its files";
  return "Files or folders (" + std::string(folders) + "), recognised by content: " + kinds;
}

std::vector<PlannedInput> PlanInputs(const std::vector<std::string>& paths,
                                     const InputPolicy& policy) {
  std::vector<PlannedInput> out;
  for (const std::string& path : paths) {
    // A folder walk that throws fails that path alone, as a file that throws does.
    const size_t planned = out.size();
    Status status = GuardedRead(path, [&] {
      PlanPath(path, policy, out);
      return Status::Ok();
    });
    if (status.ok()) continue;
    out.resize(planned);
    out.push_back({path, Unreadable(status), InputRole::kFailed, status.message()});
  }
  return out;
}

}  // namespace gpuwhy
