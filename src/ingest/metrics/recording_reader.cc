#include "ingest/metrics/recording_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "base/file_input.h"
#include "base/text.h"
#include "base/text_escape.h"
#include "base/varint.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

// Device indices above this are not GPUs of one machine (NVML counts a few dozen at most).
constexpr int64_t kMaxDeviceIndex = 1 << 16;
// The least a sample takes in a block: a one-byte time delta and an 8-byte value.
constexpr size_t kMinSampleBytes = 9;

// Splits a header line's tab-separated fields.
std::vector<std::string> Tabs(std::string_view line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::optional<std::string_view> NextLine(std::string_view bytes, size_t& pos) {
  size_t end = bytes.find('\n', pos);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view line = bytes.substr(pos, end - pos);
  pos = end + 1;
  return line;
}

// An integer field as the writer writes it: plain decimal, inside [lo, hi]. Anything else
// ("1e9", "nan", "inf", an overflow) is nullopt, never a cast of an out-of-range double.
std::optional<int64_t> WholeNumber(std::string_view text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

enum class Block { kRead, kSkipped, kUnreadable };

struct RecordingCursor {
  std::string_view bytes;
  size_t pos = 0;
  MetricSeriesSet set;

  size_t remaining() const { return bytes.size() - pos; }
  void Problem(DataProblem kind, size_t at, std::string_view what) {
    set.problems.Add(kind, fmt::format("byte {}: {}", at, what));
  }
};

// Sample times: the first delta is from 0, each later one from the previous time. A time
// outside [0, kRecordingMaxTimeNs) (a corrupt delta, or deltas summing past int64) is nullopt.
std::optional<std::vector<TimeNs>> ReadTimes(RecordingCursor& r, size_t n, bool& cut) {
  std::vector<TimeNs> times;
  times.reserve(n);  // bounded by the bytes that remain (ReadSeries)
  TimeNs t = 0;
  bool in_range = true;
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> delta = ReadZigzag(r.bytes, r.pos);
    if (!delta) {
      cut = true;
      return std::nullopt;
    }
    if (__builtin_add_overflow(t, *delta, &t) || t < 0 || t >= kRecordingMaxTimeNs) {
      in_range = false;
      t = 0;  // keep reading: the block's length is known, the blocks after it are fine
    }
    times.push_back(t);
  }
  if (!in_range) return std::nullopt;
  return times;
}

// "series METRIC\tDEVICE\tENTITY\tUNIT\tLABEL\tCOUNT" then COUNT zigzag time deltas and
// COUNT doubles, appended to the series (version 2 writes a block per series per flush).
Block ReadSeries(RecordingCursor& r, size_t line_start, const std::vector<std::string>& f) {
  if (f.size() != 6) return Block::kUnreadable;
  std::optional<int64_t> device = WholeNumber(f[1], -1, kMaxDeviceIndex);
  // Every sample takes at least kMinSampleBytes: a count the rest of the file cannot hold is a
  // cut or a lie, and is refused before anything is reserved for it.
  std::optional<int64_t> count =
      WholeNumber(f[5], 0,
                  static_cast<int64_t>(std::min<size_t>(r.remaining() / kMinSampleBytes,
                                                        std::numeric_limits<int64_t>::max())));
  if (!device || !count) return Block::kUnreadable;
  const auto n = static_cast<size_t>(*count);
  bool cut = false;
  std::optional<std::vector<TimeNs>> times = ReadTimes(r, n, cut);
  if (cut || r.remaining() / 8 < n) return Block::kUnreadable;
  const SeriesKey key{f[0], static_cast<int32_t>(*device), f[2]};
  if (!times) {
    r.pos += 8 * n;
    r.Problem(
        DataProblem::kBadTimestamp, line_start,
        fmt::format("series {}: a sample time is out of range; the block is skipped", key.metric));
    return Block::kSkipped;
  }
  MetricSeries& s = r.set.GetOrCreate(key, f[3]);
  s.label = f[4];
  for (size_t i = 0; i < n; ++i) {
    double v = *ReadDouble(r.bytes, r.pos);
    if (std::isfinite(v)) {
      s.Add((*times)[i], v);
      continue;
    }
    r.Problem(DataProblem::kBadValue, line_start,
              fmt::format("series {}: sample {}: value {} skipped", key.metric, i, v));
  }
  return Block::kRead;
}

// "issue ID\tCOUNT\tDETAIL": a problem the recorder counted, by its declared id. Version 2
// writes the count gained since the previous flush, so counts add up.
bool ReadProblem(const std::vector<std::string>& f, MetricSeriesSet& set) {
  DataProblem kind = FindDataProblem(f[0]).value_or(DataProblem::kUnknownProblem);
  std::optional<int64_t> count =
      WholeNumber(f[1], 0, std::numeric_limits<int64_t>::max() - set.problems.Get(kind));
  if (!count) return false;
  set.problems.Add(kind, kind == DataProblem::kUnknownProblem ? f[0] + ": " + f[2] : f[2], *count);
  return true;
}

bool ReadDevice(const std::vector<std::string>& f, MetricSeriesSet& set) {
  std::optional<int64_t> index = WholeNumber(f[0], -1, kMaxDeviceIndex);
  if (!index) return false;
  SeriesDevice& d = set.GetOrCreateDevice(static_cast<int32_t>(*index));
  d.name = f[1];
  d.uuid = f[2];
  d.pci_bus_id = f[3];
  return true;
}

// One header record; false when its fields cannot be used (the line is skipped and counted).
bool ReadRecord(std::string_view key, const std::vector<std::string>& f, MetricSeriesSet& set) {
  if (key == "source") {
    set.source = f[0];
  } else if (key == "interval_ns") {
    std::optional<int64_t> ns = WholeNumber(f[0], 0, kRecordingMaxTimeNs);
    if (!ns) return false;
    set.nominal_interval_ns = *ns;
  } else if (key == "sampler_cpu_pct") {
    std::optional<double> pct = text::ParseNumber(f[0]);
    // -1 is the writer's "unknown"; a share of one core beyond 1e6% is no measurement.
    if (!pct || !std::isfinite(*pct) || *pct < -1 || *pct > 1e6) return false;
    set.sampler_cpu_pct = *pct;
  } else if (key == "device" && f.size() == 4) {
    return ReadDevice(f, set);
  } else if (key == "note") {
    set.notes.push_back(f[0]);
  } else if (key == "issue" && f.size() == 3) {
    return ReadProblem(f, set);
  } else {
    return false;
  }
  return true;
}

// "gpuwhy-recording N": the versions this reader knows.
Status ReadVersion(RecordingCursor& r, std::string_view name) {
  if (r.bytes.substr(0, kRecordingMagic.size()) != kRecordingMagic) {
    return InvalidArgument("{}: byte 0: not a gpuwhy recording", name);
  }
  r.pos = kRecordingMagic.size();
  std::optional<std::string_view> line = NextLine(r.bytes, r.pos);
  std::string_view text = line ? *line : r.bytes.substr(r.pos);
  if (!line) r.pos = r.bytes.size();
  std::optional<int64_t> version = WholeNumber(text, 1, 1 << 20);
  if (!version) return InvalidArgument("{}: byte 0: not a gpuwhy recording", name);
  if (*version > kRecordingVersion) {
    return InvalidArgument(
        "{}: recording version {}: this gpuwhy reads versions 1 to {} (a newer gpuwhy wrote it)",
        name, *version, kRecordingVersion);
  }
  return Status::Ok();
}

}  // namespace

SniffResult SniffRecording(std::string_view head) {
  return head.substr(0, kRecordingMagic.size()) == kRecordingMagic ? SniffResult::kYes
                                                                   : SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseRecording(std::string_view bytes, std::string_view name,
                                         std::string_view cut) {
  RecordingCursor r{bytes};
  RETURN_IF_ERROR(ReadVersion(r, name));
  r.set.source = "gpuwhy recording";
  r.set.path = std::string(name);
  bool ended = false;
  while (!ended) {
    const size_t line_start = r.pos;
    std::optional<std::string_view> line = NextLine(bytes, r.pos);
    if (!line) break;
    size_t space = line->find(' ');
    std::string_view key = line->substr(0, space);
    std::vector<std::string> f =
        Tabs(space == std::string_view::npos ? "" : line->substr(space + 1));
    if (key == "end") {
      ended = true;
    } else if (key == "series") {
      if (ReadSeries(r, line_start, f) == Block::kUnreadable) {
        // The block's length is unknown: nothing after it can be found.
        r.Problem(DataProblem::kTruncated, line_start, "unreadable series block");
        break;
      }
    } else if (!ReadRecord(key, f, r.set)) {
      r.Problem(DataProblem::kUnparsedLine, line_start,
                fmt::format("unreadable record '{}'", std::string(key.substr(0, 20))));
    }
  }
  // One "truncated" per recording: where the file ended when it is known, else where the
  // text did.
  if ((!ended || !cut.empty()) && r.set.problems.Get(DataProblem::kTruncated) == 0) {
    if (cut.empty()) {
      r.Problem(DataProblem::kTruncated, r.pos, "recording ends without 'end'");
    } else {
      r.set.problems.Add(DataProblem::kTruncated, std::string(cut));
    }
  }
  if (r.set.empty()) return Status(StatusCode::kDataLoss, fmt::format("{}: no series", name));
  return std::move(r.set);
}

StatusOr<MetricSeriesSet> ParseRecording(std::string_view bytes, std::string_view name) {
  return ParseRecording(bytes, name, "");
}

StatusOr<MetricSeriesSet> ReadRecordingFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path));
  std::string bytes;
  std::string cut;
  constexpr size_t kChunk = 1 << 20;
  while (true) {
    size_t old = bytes.size();
    bytes.resize(old + kChunk);
    StatusOr<size_t> n = source->Read(bytes.data() + old, kChunk);
    if (!n.ok()) {
      bytes.resize(old);
      // A gzip stream cut short still gave every byte before the cut: the recording of a
      // gpuwhy killed while it wrote.
      if (n.status().code() != StatusCode::kDataLoss || bytes.empty()) {
        return n.status().WithContext(path);
      }
      cut = n.status().message();
      break;
    }
    bytes.resize(old + *n);
    if (*n == 0) break;
  }
  return ParseRecording(bytes, path, cut);
}

std::string RenderSeriesCsv(const MetricSeriesSet& set) {
  std::string out = "time_s,device,entity,metric,unit,value\n";
  TimeNs origin = set.Span() ? set.Span()->first : 0;
  for (const auto& [key, s] : set.all()) {
    std::string device = key.device >= 0 ? std::to_string(key.device) : "";
    // Names come from the log (a process name in pmon): quoted, never read as a formula.
    std::string fields = fmt::format("{},{},{},{}", device, text::CsvField(key.entity),
                                     text::CsvField(key.metric), text::CsvField(s.unit));
    for (size_t i = 0; i < s.size(); ++i) {
      out += fmt::format("{:.3f},{},{:g}\n", NsToSec(s.time[i] - origin), fields, s.value[i]);
    }
  }
  return out;
}

}  // namespace gpuwhy
