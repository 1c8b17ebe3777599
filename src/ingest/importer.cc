#include "ingest/importer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "ingest/kineto/kineto_importer.h"
#include "ingest/nsys/nsys_importer.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// Enough to see past a BOM and leading whitespace in any sane JSON file.
constexpr size_t kSniffBytes = 64 << 10;

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
  if (found == 0) return InvalidArgument("{}: no trace files (*.json, *.json.gz, *.sqlite) found", dir);
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

std::string NsysExportHint(const std::string& path) {
  std::string stem = path;
  for (std::string_view suffix : {".nsys-rep", ".qdrep"}) {
    if (EndsWith(Lower(stem), suffix)) stem.resize(stem.size() - suffix.size());
  }
  return fmt::format("nsys export --type sqlite --output {}.sqlite {}", stem, path);
}

enum class SniffedFormat { kKineto, kSqlite, kNotATrace };

struct Sniff {
  SniffedFormat format = SniffedFormat::kNotATrace;
  uint64_t offset = 0;  // of the first meaningful byte, for messages
  bool empty = false;
};

StatusOr<Sniff> SniffFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return IoError("{}: cannot open: {}", path, std::strerror(errno));
  std::string head(kSniffBytes, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(file.gcount()));
  Sniff sniff;
  if (head.empty()) {
    sniff.empty = true;
    return sniff;
  }
  if (head.size() >= 2 && head[0] == '\x1f' && head[1] == '\x8b') {
    sniff.format = SniffedFormat::kKineto;  // gzip: the Kineto importer checks what is inside
    return sniff;
  }
  if (head.compare(0, 16, std::string_view("SQLite format 3\0", 16)) == 0) {
    sniff.format = SniffedFormat::kSqlite;
    return sniff;
  }
  size_t i = head.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  sniff.offset = i;
  if (i == head.size()) {
    // Only whitespace so far: a longer file may still hold JSON; let the parser decide.
    sniff.format = head.size() < kSniffBytes ? SniffedFormat::kNotATrace : SniffedFormat::kKineto;
    sniff.empty = head.size() < kSniffBytes;
    return sniff;
  }
  if (head[i] == '{' || head[i] == '[') sniff.format = SniffedFormat::kKineto;
  return sniff;
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
    if (!fs::exists(status)) return NotFound("{}: no such file or directory", path);
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
    return InvalidArgument("{}: holds {} traces (one per profiled process); read it with "
                           "ImportTraceFiles",
                           path, traces.size());
  }
  return std::move(traces.front());
}

StatusOr<std::vector<Trace>> ImportTraceFiles(const std::string& path,
                                              const ImportOptions& options) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return NotFound("{}: no such file or directory", path);
  if (fs::is_directory(status)) return InvalidArgument("{}: is a directory", path);
  std::string lower = Lower(path);
  if (EndsWith(lower, ".nsys-rep") || EndsWith(lower, ".qdrep")) {
    return InvalidArgument(
        "{}: Nsight Systems reports are not read directly; export to SQLite first: {}", path,
        NsysExportHint(path));
  }
  ASSIGN_OR_RETURN(Sniff sniff, SniffFile(path));
  if (sniff.format == SniffedFormat::kSqlite) {
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
  if (sniff.empty) {
    return InvalidArgument("{}: byte {}: {} (expected Kineto JSON)", path, sniff.offset,
                           sniff.offset == 0 ? "empty file" : "only whitespace");
  }
  if (sniff.format == SniffedFormat::kNotATrace) {
    return InvalidArgument("{}: byte {}: not a trace (expected Kineto JSON)", path, sniff.offset);
  }
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

Status PartialInputStatus(const Trace& trace) {
  if (trace.stats.Get(ImportStat::kTruncated) == 0) return Status::Ok();
  return Status(StatusCode::kDataLoss,
                fmt::format("{}: {} (truncated; the events before the cut were kept)",
                            trace.metadata.path, trace.stats.Detail(ImportStat::kTruncated)));
}

}  // namespace gpuwhy
