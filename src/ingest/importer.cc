#include "ingest/importer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "base/guarded_read.h"
#include "base/partial_file.h"
#include "ingest/input_kind.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/nsys/nsys_importer.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Names a directory walk picks up. Our own `.truth.json` sidecars are ground truth, not traces.
bool LooksLikeTraceName(const std::string& file_name) {
  std::string name = Lower(file_name);
  if (EndsWith(name, ".truth.json")) return false;
  return EndsWith(name, ".json") || EndsWith(name, ".gz") || EndsWith(name, ".sqlite");
}

Status ExpandDirectory(const std::string& dir, std::vector<std::string>& out) {
  std::error_code ec;
  auto options = fs::directory_options::skip_permission_denied;
  size_t found = 0;
  for (fs::recursive_directory_iterator it(dir, options, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Hidden folders hold editor and VCS state, never traces.
    if (!name.empty() && name[0] == '.' && it->is_directory(ec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || !LooksLikeTraceName(name)) continue;
    out.push_back(it->path().string());
    ++found;
  }
  if (ec) return IoError("{}: {}", dir, ec.message());
  if (found == 0)
    return InvalidArgument("{}: no trace files (*.json, *.json.gz, *.sqlite) found", dir);
  return Status::Ok();
}

std::optional<int64_t> ParseRankIn(std::string_view name) {
  std::string lower = Lower(name);
  for (std::string_view word : {"rank", "worker"}) {
    for (size_t at = lower.find(word); at != std::string::npos; at = lower.find(word, at + 1)) {
      // "rank" must start a word: "frank3" is not rank 3.
      if (at > 0 && std::isalpha(static_cast<unsigned char>(lower[at - 1]))) continue;
      size_t i = at + word.size();
      if (i < lower.size() && (lower[i] == '-' || lower[i] == '_')) ++i;
      size_t digits_start = i;
      while (i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])) &&
             i - digits_start < 9) {
        ++i;
      }
      if (i == digits_start) continue;
      return std::stoll(lower.substr(digits_start, i - digits_start));
    }
  }
  return std::nullopt;
}

// Which command reads an input that is not a trace.
std::string_view ReaderOf(InputKind kind) {
  switch (kind) {
    case InputKind::kMetricLog: return "gpuwhy analyze reads it as GPU metrics";
    case InputKind::kSystemLog: return "gpuwhy analyze and gpuwhy doctor --from read it";
    case InputKind::kRankSummary: return "gpuwhy analyze merges it with the other ranks";
    case InputKind::kProfileSummary: return "gpuwhy analyze reads its kernel totals";
    case InputKind::kGpuwhyReport: return "gpuwhy diff compares it";
    case InputKind::kNcuCsv:
      return "gpuwhy info reads it, gpuwhy analyze beside a trace (roofline class per kernel)";
    default: return "gpuwhy reads traces as Kineto JSON or Nsight Systems SQLite";
  }
}

std::string NsysExportHint(const std::string& path) {
  std::string stem = path;
  for (std::string_view suffix : {".nsys-rep", ".qdrep"}) {
    if (EndsWith(Lower(stem), suffix)) stem.resize(stem.size() - suffix.size());
  }
  return fmt::format("nsys export --type sqlite --output {}.sqlite {}", stem, path);
}

}  // namespace

std::optional<int64_t> ParseRankFromFileName(const std::string& path) {
  fs::path p(path);
  if (auto rank = ParseRankIn(p.filename().string())) return rank;
  // Layouts such as traces/rank_3/host.1234.pt.trace.json name the rank in the folder.
  if (p.has_parent_path()) return ParseRankIn(p.parent_path().filename().string());
  return std::nullopt;
}

StatusOr<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) return NotFound("{}", MissingFileMessage(path));
    if (fs::is_directory(status)) {
      RETURN_IF_ERROR(ExpandDirectory(path, out));
      continue;
    }
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

StatusOr<Trace> ImportTraceFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::vector<Trace> traces, ImportTraceFiles(path));
  if (traces.size() != 1) {
    return InvalidArgument(
        "{}: holds {} traces (one per profiled process); read it with "
        "ImportTraceFiles",
        path, traces.size());
  }
  return std::move(traces.front());
}

StatusOr<std::vector<Trace>> ImportTraceFiles(const std::string& path,
                                              const ImportOptions& options) {
  return ImportTraceFiles(path, ClassifyInput(path), options);
}

Status NotATrace(const std::string& path, const InputClass& input) {
  switch (input.kind) {
    case InputKind::kMissing: return NotFound("{}", input.error);
    case InputKind::kUnreadable: return IoError("{}", input.error);
    case InputKind::kDirectory: return InvalidArgument("{}: is a directory", path);
    case InputKind::kNsysReport:
      return InvalidArgument(
          "{}: Nsight Systems reports are not read directly; export to SQLite first: {}", path,
          NsysExportHint(path));
    case InputKind::kEmpty:
      return InvalidArgument("{}: byte {}: {} (expected Kineto JSON)", path, input.offset,
                             input.offset == 0 ? "empty file" : "only whitespace");
    case InputKind::kUnknown:
      return InvalidArgument("{}: byte {}: not a trace (expected Kineto JSON)", path, input.offset);
    case InputKind::kPythonPickle:
    case InputKind::kMemorySummary:
    case InputKind::kMemoryTimeline:
      return InvalidArgument("{}: {}: not a format gpuwhy reads", path, DescribeInput(input));
    case InputKind::kMetricLog:
    case InputKind::kSystemLog:
    case InputKind::kProfileSummary:
    case InputKind::kRankSummary:
    case InputKind::kGpuwhyReport:
    case InputKind::kNcuCsv:
    case InputKind::kKinetoJson:
    case InputKind::kNsysSqlite: break;
  }
  return InvalidArgument("{}: {}: not a trace ({})", path, DescribeInput(input),
                         ReaderOf(input.kind));
}

namespace {

StatusOr<std::vector<Trace>> ImportClassified(const std::string& path, const InputClass& input,
                                              const ImportOptions& options) {
  if (input.kind == InputKind::kNsysSqlite) {
    NsysImportOptions nsys;
    nsys.step_range = options.step_range;
    ASSIGN_OR_RETURN(std::vector<Trace> traces, ImportNsysSqlite(path, nsys));
    if (traces.size() == 1 && traces.front().rank.rank == kNoValue) {
      if (auto rank = ParseRankFromFileName(path)) {
        traces.front().rank.rank = *rank;
        traces.front().rank.source = RankSource::kFileName;
      }
    }
    return traces;
  }
  if (input.kind != InputKind::kKinetoJson) return NotATrace(path, input);
  ASSIGN_OR_RETURN(Trace trace, ImportKinetoFile(path));
  if (trace.rank.rank == kNoValue) {
    if (auto rank = ParseRankFromFileName(path)) {
      trace.rank.rank = *rank;
      trace.rank.source = RankSource::kFileName;
    }
  }
  std::vector<Trace> traces;
  traces.push_back(std::move(trace));
  return traces;
}

// A trace none of whose events could be read ("{"traceEvents":[", every element malformed)
// holds nothing to analyse: the input is unusable, not a run without work.
Status CheckSomethingWasRead(const std::string& path, const std::vector<Trace>& traces) {
  for (const Trace& trace : traces) {
    if (trace.span().length() > 0) return Status::Ok();
  }
  const Trace* first = traces.empty() ? nullptr : &traces.front();
  std::string why;
  if (first != nullptr) {
    for (DataProblem kind : first->problems.Kinds()) {
      if (GetDataProblemInfo(kind).severity == ProblemSeverity::kInfo) continue;
      why = fmt::format(" ({}: {})", GetDataProblemInfo(kind).id, first->problems.Detail(kind));
      break;
    }
  }
  return InvalidArgument("{}: no timed trace event could be read{}: nothing to analyse", path, why);
}

}  // namespace

StatusOr<std::vector<Trace>> ImportTraceFiles(const std::string& path, const InputClass& input,
                                              const ImportOptions& options) {
  return GuardedRead(path, [&]() -> StatusOr<std::vector<Trace>> {
    ASSIGN_OR_RETURN(std::vector<Trace> traces, ImportClassified(path, input, options));
    RETURN_IF_ERROR(CheckSomethingWasRead(path, traces));
    return traces;
  });
}

Status DataLossStatus(const std::string& path, const DataProblems& problems) {
  std::vector<std::string> parts;
  for (DataProblem kind : problems.Kinds()) {
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    if (info.severity == ProblemSeverity::kInfo) continue;
    std::string_view detail = problems.Detail(kind);
    // Text importers name the file in their details ("PATH: line 14: ..."): the message below
    // names it once already.
    if (detail.starts_with(path + ": ")) detail.remove_prefix(path.size() + 2);
    if (kind == DataProblem::kTruncated) {
      parts.insert(parts.begin(),
                   fmt::format("{} (truncated; the events before the cut were kept)", detail));
      continue;
    }
    parts.push_back(fmt::format("{} x{}{}{}", info.id, problems.Get(kind),
                                detail.empty() ? "" : ", first: ", detail));
  }
  if (parts.empty()) return Status::Ok();
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : "; ") + part;
  return Status(StatusCode::kDataLoss, fmt::format("{}: {}", path, joined));
}
}  // namespace gpuwhy
