#include "ingest/input_kind.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "base/file_input.h"
#include "base/partial_file.h"
#include "ingest/memory/memory_stats_parser.h"
#include "ingest/memory/memory_timeline_importer.h"
#include "ingest/memory/oom_message_parser.h"
#include "ingest/metrics/recording_reader.h"
#include "ingest/ncu/ncu_csv_importer.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// Enough to see past a BOM and leading whitespace in any sane JSON file, and what the
// system-log sniffer reads (its first 64 KiB).
constexpr size_t kHeadBytes = 64 << 10;
// The metric-log sniffer looks at the first 16 KiB (a dmon header repeats every 20 lines).
constexpr size_t kMetricHeadBytes = 16 << 10;
// A rank summary names itself in its first member.
constexpr size_t kRankSummaryHeadBytes = 256;
// A gpuwhy report names its tool and schema near the top.
constexpr size_t kReportHeadBytes = 4096;

bool EndsWithLower(const std::string& path, std::string_view suffix) {
  if (path.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = static_cast<char>(
        std::tolower(static_cast<unsigned char>(path[path.size() - suffix.size() + i])));
    if (c != suffix[i]) return false;
  }
  return true;
}

// Fills |head| up to its size or the end of the content; false when the content ended.
bool ReadHead(ByteSource& source, std::string& head) {
  size_t filled = 0;
  while (filled < head.size()) {
    StatusOr<size_t> got = source.Read(head.data() + filled, head.size() - filled);
    if (!got.ok() || *got == 0) {
      head.resize(filled);
      return true;
    }
    filled += *got;
  }
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Protocols 0 and 1 write no PROTO opcode: a dict or list opens the stream as pickle.dumps writes
// it. Protocol 0: MARK and DICT/LIST ("(d", "(l") then a text PUT ("p0\n") or, with the memo
// off, a text argument's opcode. Protocol 1: EMPTY_DICT/EMPTY_LIST ("}", "]") then BINPUT,
// MARK or STOP. No JSON, log or table opens so (JSON never opens with '}' or ']').
bool IsTextPickle(std::string_view head) {
  if (head.size() < 2) return false;
  if (head[0] == '}' || head[0] == ']') {
    return head[1] == 'q' || head[1] == 'r' || head[1] == '(' || head[1] == '.';
  }
  if (head[0] != '(' || (head[1] != 'd' && head[1] != 'l') || head.size() < 3) return false;
  if (head[2] == 'p') {
    size_t i = 3;
    while (i < head.size() && IsDigit(head[i])) ++i;
    return i > 3 && i < head.size() && head[i] == '\n';
  }
  return std::string_view("VSILFN(.").find(head[2]) != std::string_view::npos;
}

bool IsPickle(std::string_view head) {
  // PROTO opcode (0x80) then the protocol number: 2 to 5 is every pickle Python 3 writes.
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 &&
      head[1] <= 5) {
    return true;
  }
  return IsTextPickle(head);
}

// A gpuwhy JSON report names its schema, its tool and its ranks near the top
// (report/json_report.cc writes it, report/json_report_reader.cc reads it back).
bool LooksLikeGpuwhyReport(std::string_view head) {
  size_t tool = head.find("\"tool\"");
  return head.find("\"schema_version\"") != std::string_view::npos &&
         tool != std::string_view::npos &&
         head.find("\"gpuwhy\"", tool) != std::string_view::npos &&
         head.find("\"ranks\"") != std::string_view::npos;
}

// A JSON array opens with a value; a kernel log's "[    5.123456] NVRM: ..." opens with a
// number, which no trace or report array does.
bool OpensJsonArray(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
  return i == rest.size() || rest[i] == '{' || rest[i] == '[' || rest[i] == ']' || rest[i] == '"';
}

}  // namespace

std::string_view InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kMissing: return "a missing path";
    case InputKind::kDirectory: return "a folder";
    case InputKind::kUnreadable: return "an unreadable file";
    case InputKind::kEmpty: return "an empty file";
    case InputKind::kKinetoJson: return "a Kineto trace";
    case InputKind::kNsysSqlite: return "an Nsight Systems SQLite export";
    case InputKind::kNsysReport: return "an Nsight Systems report";
    case InputKind::kMetricLog: return "a metric log";
    case InputKind::kSystemLog: return "a node log";
    case InputKind::kRankSummary: return "a gpuwhy rank summary";
    case InputKind::kGpuwhyReport: return "a gpuwhy JSON report";
    case InputKind::kPythonPickle: return "a Python pickle";
    case InputKind::kMemorySummary:
      return "a torch.cuda memory text (memory_summary() table, memory_stats() dict or CUDA "
             "out-of-memory message)";
    case InputKind::kMemoryTimeline: return "a PyTorch profiler memory timeline";
    case InputKind::kProfileSummary: return "a profiler summary report";
    case InputKind::kNcuCsv: return "an Nsight Compute CSV export";
    case InputKind::kUnknown: return "a file of no format gpuwhy knows";
  }
  return "a file of no format gpuwhy knows";
}

namespace {

template <typename Format, typename Name>
std::string JoinFormatNames(Format first, Format last, Name name) {
  std::string out;
  for (int f = static_cast<int>(first); f <= static_cast<int>(last); ++f) {
    if (!out.empty()) out += ", ";
    out += name(static_cast<Format>(f));
  }
  return out;
}

// torch.cuda memory text: a memory_summary() table, a memory_stats() dict or a CUDA
// out-of-memory message.
bool HoldsMemoryText(std::string_view text) {
  return text.find("PyTorch CUDA memory summary") != std::string_view::npos ||
         text.find(kOomMarker) != std::string_view::npos || HoldsMemoryStats(text);
}

// The last kHeadBytes of a plain file: an OOM message ends a training log, past its head.
bool TailHoldsMemoryText(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  if (size <= static_cast<std::streamoff>(kHeadBytes)) return false;
  std::string tail(kHeadBytes, '\0');
  in.seekg(size - static_cast<std::streamoff>(kHeadBytes));
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<size_t>(in.gcount()));
  return HoldsMemoryText(tail);
}

}  // namespace

std::string InputKindHelp(InputKind kind) {
  switch (kind) {
    case InputKind::kMissing:
    case InputKind::kDirectory:
    case InputKind::kUnreadable:
    case InputKind::kEmpty:
    case InputKind::kUnknown: return "";
    case InputKind::kKinetoJson:
      return "Kineto / PyTorch profiler traces (.json, .json.gz; the legacy Chrome-trace array "
             "too)";
    case InputKind::kNsysSqlite: return "Nsight Systems SQLite exports (nsys export --type sqlite)";
    case InputKind::kNsysReport: return "Nsight Systems reports (.nsys-rep: named, not read)";
    case InputKind::kMetricLog:
      return fmt::format("metric logs ({})",
                         JoinFormatNames(MetricLogFormat::kDmon, MetricLogFormat::kRecording,
                                         MetricLogFormatName));
    case InputKind::kSystemLog:
      return fmt::format("node logs ({})",
                         JoinFormatNames(SystemFormat::kKernelLog, SystemFormat::kCommandCapture,
                                         SystemFormatName));
    case InputKind::kRankSummary: return "rank summaries (gpuwhy analyze --summary)";
    case InputKind::kGpuwhyReport: return "gpuwhy JSON reports (analyze --format json)";
    case InputKind::kPythonPickle:
      return "allocator snapshots (torch.cuda.memory._dump_snapshot pickles, decoded as data, "
             "never run)";
    case InputKind::kMemorySummary:
      return "torch.cuda.memory_summary() tables, memory_stats() dicts (JSON or Python) and CUDA "
             "out-of-memory messages (alone, or inside a training log or Markdown file)";
    case InputKind::kMemoryTimeline:
      return "PyTorch profiler memory timelines (export_memory_timeline raw JSON, as HTA reads "
             "them)";
    case InputKind::kProfileSummary:
      return "profiler summaries (nsys stats cuda_gpu_kern_sum text, DLProf summary and kernel "
             "CSVs)";
    case InputKind::kNcuCsv:
      return "Nsight Compute CSV exports (details page or --page raw; joined to a trace's "
             "kernels)";
  }
  return "";
}

std::string DescribeInput(const InputClass& input) {
  switch (input.kind) {
    case InputKind::kMetricLog:
      return fmt::format("a metric log ({})", MetricLogFormatName(input.metric_format));
    case InputKind::kSystemLog:
      return fmt::format("a node log ({})", SystemFormatName(input.system_format));
    case InputKind::kProfileSummary:
      return fmt::format("a profiler summary report ({})", SummaryToolName(input.summary_tool));
    default: return std::string(InputKindName(input.kind));
  }
}

InputClass ClassifyHead(std::string_view head, bool raw_gzip, bool complete) {
  InputClass out;
  out.gzip = raw_gzip;
  if (head.empty()) {
    out.kind = InputKind::kEmpty;
    return out;
  }
  if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16)) {
    out.kind = InputKind::kNsysSqlite;
    return out;
  }
  if (IsPickle(head)) {
    out.kind = InputKind::kPythonPickle;
    return out;
  }
  if (head.substr(0, kRecordingMagic.size()) == kRecordingMagic) {
    out.kind = InputKind::kMetricLog;
    out.metric_format = MetricLogFormat::kRecording;
    return out;
  }
  size_t i = head.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  out.offset = i;
  if (i == head.size()) {
    // Only whitespace so far: a longer file may still hold JSON; let the parser decide.
    out.kind = complete ? InputKind::kEmpty : InputKind::kKinetoJson;
    return out;
  }
  // Before the JSON-array test: a timeline's rows are arrays, which no trace's are.
  if (LooksLikeMemoryTimeline(head.substr(i))) {
    out.kind = InputKind::kMemoryTimeline;
    return out;
  }
  if (head[i] == '{' || (head[i] == '[' && OpensJsonArray(head.substr(i + 1)))) {
    if (head.substr(0, kRankSummaryHeadBytes).find("\"gpuwhy_rank_summary\"") !=
        std::string_view::npos) {
      out.kind = InputKind::kRankSummary;
    } else if (LooksLikeGpuwhyReport(head.substr(0, kReportHeadBytes))) {
      out.kind = InputKind::kGpuwhyReport;
    } else if (head[i] == '{' && HoldsMemoryStats(head)) {
      out.kind = InputKind::kMemorySummary;  // json.dumps(torch.cuda.memory_stats())
    } else {
      out.kind = InputKind::kKinetoJson;
    }
    return out;
  }
  // A gzip file is a compressed trace unless its text says otherwise (a recording is caught
  // above; the Kineto importer names what is wrong with anything else).
  if (std::optional<SummaryTool> tool = SniffProfileSummary(head)) {
    out.kind = InputKind::kProfileSummary;
    out.summary_tool = *tool;
    return out;
  }
  // Before the metric-log sniffers: an ncu header is a CSV header too, and more specific.
  if (LooksLikeNcuCsv(head.substr(i))) {
    out.kind = InputKind::kNcuCsv;
    return out;
  }
  out.system_format = SniffSystemFormat(head);
  out.metric_format = SniffMetricLog(head.substr(0, kMetricHeadBytes));
  if (out.system_format == SystemFormat::kCommandCapture) {
    out.kind = InputKind::kSystemLog;  // its dmon sections do not make it a metric log
  } else if (out.metric_format != MetricLogFormat::kNone) {
    out.kind = InputKind::kMetricLog;
  } else if (out.system_format != SystemFormat::kUnknown) {
    out.kind = InputKind::kSystemLog;
  } else if (HoldsMemoryText(head)) {
    out.kind = InputKind::kMemorySummary;
  } else {
    out.kind = raw_gzip ? InputKind::kKinetoJson : InputKind::kUnknown;
  }
  if (out.kind == InputKind::kSystemLog || out.kind == InputKind::kMetricLog)
    out.memory_text = HoldsMemoryText(head);
  return out;
}

InputClass ClassifyInput(const std::string& path) {
  InputClass out;
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    out.kind = InputKind::kMissing;
    out.error = MissingFileMessage(path);  // names what a killed `run -o PATH` left
    return out;
  }
  if (fs::is_directory(status)) {
    out.kind = InputKind::kDirectory;
    return out;
  }
  if (EndsWithLower(path, ".nsys-rep") || EndsWithLower(path, ".qdrep")) {
    out.kind = InputKind::kNsysReport;
    return out;
  }
  // One open, one read: the byte source tells gzip by its magic and inflates the head. A gzip
  // stream cut inside the head ends the head; the importer names what is wrong with it.
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) {
    out.kind = InputKind::kUnreadable;
    out.error = source.status().message();
    return out;
  }
  const bool gzip = (*source)->compression() == Compression::kGzip;
  std::string head(kHeadBytes, '\0');
  const bool complete = ReadHead(**source, head);
  InputClass input = ClassifyHead(head, gzip, complete);
  if (input.kind == InputKind::kUnknown && !complete && !gzip && TailHoldsMemoryText(path)) {
    input.kind = InputKind::kMemorySummary;
  } else if (input.kind == InputKind::kSystemLog && !input.memory_text && !complete && !gzip) {
    input.memory_text = TailHoldsMemoryText(path);
  }
  return input;
}

}  // namespace gpuwhy
