#include "ingest/metrics/recording_reader.h"

#include <fmt/format.h>

#include "base/text.h"
#include "base/text_escape.h"
#include "base/varint.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

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

// "series METRIC\tDEVICE\tENTITY\tUNIT\tLABEL\tCOUNT" then COUNT zigzag time deltas and
// COUNT doubles.
bool ReadSeries(std::string_view bytes, size_t& pos, const std::vector<std::string>& f,
                MetricSeriesSet& set) {
  if (f.size() != 6) return false;
  std::optional<double> device = text::ParseNumber(f[1]);
  std::optional<double> count = text::ParseNumber(f[5]);
  if (!device || !count || *count < 0) return false;
  auto n = static_cast<size_t>(*count);
  std::vector<TimeNs> times;
  times.reserve(n);
  TimeNs t = 0;
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> delta = ReadZigzag(bytes, pos);
    if (!delta) return false;
    t += *delta;
    times.push_back(t);
  }
  if (pos + 8 * n > bytes.size()) return false;
  MetricSeries& s = set.GetOrCreate({f[0], static_cast<int32_t>(*device), f[2]}, f[3]);
  s.label = f[4];
  for (size_t i = 0; i < n; ++i) s.Add(times[i], *ReadDouble(bytes, pos));
  return true;
}

// "issue ID\tCOUNT\tDETAIL": a problem the recorder counted, by its declared id.
void ReadProblem(const std::vector<std::string>& f, MetricSeriesSet& set) {
  auto count = static_cast<int64_t>(text::ParseNumber(f[1]).value_or(0));
  if (std::optional<DataProblem> kind = FindDataProblem(f[0])) {
    set.problems.Add(*kind, f[2], count);
    return;
  }
  set.problems.Add(DataProblem::kUnknownProblem, f[0] + ": " + f[2], count);
}

}  // namespace

SniffResult SniffRecording(std::string_view head) {
  return head.substr(0, kRecordingMagic.size()) == kRecordingMagic ? SniffResult::kYes
                                                                   : SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseRecording(std::string_view bytes, std::string_view name) {
  if (bytes.substr(0, kRecordingMagic.size()) != kRecordingMagic) {
    return InvalidArgument("{}: byte 0: not a gpuwhy recording", name);
  }
  MetricSeriesSet set;
  set.source = "gpuwhy recording";
  set.path = std::string(name);
  size_t pos = kRecordingMagic.size();
  bool ended = false;
  while (!ended) {
    const size_t line_start = pos;
    std::optional<std::string_view> line = NextLine(bytes, pos);
    if (!line) break;
    size_t space = line->find(' ');
    std::string_view key = line->substr(0, space);
    std::vector<std::string> f =
        Tabs(space == std::string_view::npos ? "" : line->substr(space + 1));
    bool ok = true;
    if (key == "end") {
      ended = true;
    } else if (key == "source") {
      set.source = f[0];
    } else if (key == "interval_ns") {
      set.nominal_interval_ns = static_cast<DurationNs>(text::ParseNumber(f[0]).value_or(0));
    } else if (key == "sampler_cpu_pct") {
      set.sampler_cpu_pct = text::ParseNumber(f[0]).value_or(-1);
    } else if (key == "device" && f.size() == 4) {
      SeriesDevice& d =
          set.GetOrCreateDevice(static_cast<int32_t>(text::ParseNumber(f[0]).value_or(-1)));
      d.name = f[1];
      d.uuid = f[2];
      d.pci_bus_id = f[3];
    } else if (key == "note") {
      set.notes.push_back(f[0]);
    } else if (key == "issue" && f.size() == 3) {
      ReadProblem(f, set);
    } else if (key == "series") {
      ok = ReadSeries(bytes, pos, f, set);
    } else {
      ok = false;
    }
    if (!ok) {
      set.problems.Add(DataProblem::kTruncated,
                       fmt::format("byte {}: unreadable record '{}'", line_start,
                                   std::string(key.substr(0, 20))));
      break;
    }
  }
  if (!ended && set.problems.Get(DataProblem::kTruncated) == 0) {
    set.problems.Add(DataProblem::kTruncated,
                     fmt::format("byte {}: recording ends without 'end'", pos));
  }
  if (set.empty()) return Status(StatusCode::kDataLoss, fmt::format("{}: no series", name));
  return set;
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
