// The one classifier of gpuwhy's inputs: reads the head of a file once (through gzip) and says
// what it is, by content, never by name (the one exception: Nsight Systems reports, whose binary
// container gpuwhy does not read, are named by extension so the message can say how to export
// them). Every command asks this, and src/pipeline maps each kind to its importer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/metrics/metric_log.h"
#include "ingest/summaries/profile_summary_reader.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {

enum class InputKind {
  kMissing,     // no such file or directory
  kDirectory,   // expanded into its files, or read as a support bundle
  kUnreadable,  // exists but cannot be opened
  kEmpty,       // no bytes, or only whitespace
  kKinetoJson,  // a JSON document that is not one of gpuwhy's own (PyTorch profiler / Chrome trace)
  kNsysSqlite,  // Nsight Systems SQLite export
  kNsysReport,  // .nsys-rep / .qdrep: must be exported first
  kMetricLog,   // dmon, pmon, --query-gpu CSV, dcgm-exporter, gpuwhy recording (metric_format)
  kSystemLog,   // kernel log, lspci, topology, NCCL, nvidia-smi -q, ... (system_format)
  kRankSummary,     // gpuwhy analyze --summary
  kGpuwhyReport,    // gpuwhy analyze --format json
  kPythonPickle,    // torch.cuda.memory._dump_snapshot() and other pickles
  kMemorySummary,   // torch.cuda.memory_summary() text, memory_stats() dicts, OOM messages
  kMemoryTimeline,  // the profiler's export_memory_timeline raw JSON (HTA's memory timeline)
  kProfileSummary,  // nsys stats kernel summary, DLProf summary/kernel CSV (summary_tool)
  kNcuCsv,          // Nsight Compute CSV export (details page or --page raw)
  kUnknown,
};

// "a Kineto trace", "an nvidia-smi dmon log", ...: for messages ("PATH: <this>: ...").
std::string_view InputKindName(InputKind kind);

// What a command's --help says of the files of |kind| it reads ("Nsight Systems SQLite exports
// (nsys export --type sqlite)"): plural, with the formats recognised, the metric-log and
// node-log formats listed from their own tables. "" for kinds that are not files to read
// (missing, folder, unreadable, empty, unknown).
std::string InputKindHelp(InputKind kind);

struct InputClass {
  InputKind kind = InputKind::kUnknown;
  MetricLogFormat metric_format = MetricLogFormat::kNone;  // kMetricLog
  // The node-log reading of the same bytes (kSystemLog, and a --query-gpu CSV, which is both a
  // metric log and an nvidia-smi output gpuwhy doctor reads).
  SystemFormat system_format = SystemFormat::kUnknown;
  SummaryTool summary_tool = SummaryTool::kNsysKernelSummary;  // kProfileSummary
  uint64_t offset = 0;  // of the first meaningful byte (kEmpty, kUnknown), for messages
  bool gzip = false;    // the file is gzip-compressed
  // A node or metric log that also holds torch.cuda memory text: a training log with NCCL
  // lines that ends in a CUDA out-of-memory message is read as both.
  bool memory_text = false;
  std::string error;  // kMissing / kUnreadable: "PATH: why"
};

// "an nvidia-smi dmon log", "a kernel log", "a Kineto trace": the kind with its format.
std::string DescribeInput(const InputClass& input);

// Reads at most the first 64 KiB (decompressed) of |path|.
InputClass ClassifyInput(const std::string& path);

// The same on bytes already read: |head| is the (decompressed) start of the file, |raw_gzip|
// whether the file itself was gzip, |complete| whether |head| is the whole content. Exposed for
// tests and for callers that hold the bytes.
InputClass ClassifyHead(std::string_view head, bool raw_gzip, bool complete);

}  // namespace gpuwhy
