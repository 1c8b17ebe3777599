#include "collect/recording_writer.h"

#include <fmt/format.h>

#include "base/atomic_file.h"
#include "base/varint.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {
namespace {

// Header fields are tab-separated: tabs and newlines inside a value become spaces.
std::string Clean(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

void RecordingEncoder::EncodeNew(const MetricSeriesSet& set, std::string& out) {
  if (!header_) {
    out += fmt::format("{}{}\n", kRecordingMagic, kRecordingVersion);
    out += "source " + Clean(set.source) + "\n";
    header_ = true;
  }
  // Scalars are written when they change; the reader keeps the last.
  if (set.nominal_interval_ns != interval_ns_) {
    out += fmt::format("interval_ns {}\n", set.nominal_interval_ns);
    interval_ns_ = set.nominal_interval_ns;
  }
  if (set.sampler_cpu_pct != sampler_cpu_pct_) {
    out += fmt::format("sampler_cpu_pct {:.4f}\n", set.sampler_cpu_pct);
    sampler_cpu_pct_ = set.sampler_cpu_pct;
  }
  for (const SeriesDevice& d : set.devices) {
    std::array<std::string, 3> fields = {Clean(d.name), Clean(d.uuid), Clean(d.pci_bus_id)};
    auto [it, added] = devices_.try_emplace(d.index, fields);
    if (!added && it->second == fields) continue;
    it->second = fields;
    out += fmt::format("device {}\t{}\t{}\t{}\n", d.index, fields[0], fields[1], fields[2]);
  }
  for (const std::string& note : set.notes) {
    if (notes_.insert(note).second) out += "note " + Clean(note) + "\n";
  }
  // Counts gained since the last chunk: the reader adds them up.
  for (DataProblem kind : set.problems.Kinds()) {
    int64_t& written = problems_[static_cast<size_t>(kind)];
    const int64_t count = set.problems.Get(kind);
    if (count <= written) continue;
    out += fmt::format("issue {}\t{}\t{}\n", GetDataProblemInfo(kind).id, count - written,
                       Clean(set.problems.Detail(kind)));
    written = count;
  }
  for (const auto& [key, s] : set.all()) {
    size_t& from = written_[key];
    if (from > s.size()) from = 0;  // not a grown set: encode it whole
    if (from == s.size()) continue;
    out += fmt::format("series {}\t{}\t{}\t{}\t{}\t{}\n", Clean(key.metric), key.device,
                       Clean(key.entity), Clean(s.unit), Clean(s.label), s.size() - from);
    // The block's first time is a delta from 0: each block reads without the ones before.
    TimeNs prev = 0;
    for (size_t i = from; i < s.size(); ++i) {
      AppendZigzag(out, s.time[i] - prev);
      prev = s.time[i];
    }
    for (size_t i = from; i < s.size(); ++i) AppendDouble(out, s.value[i]);
    from = s.size();
  }
}

std::string EncodeRecording(const MetricSeriesSet& set) {
  RecordingEncoder encoder;
  std::string out;
  encoder.EncodeNew(set, out);
  RecordingEncoder::EncodeEnd(out);
  return out;
}

Status WriteRecording(const MetricSeriesSet& set, const std::string& path) {
  return WriteFileAtomically(path, EncodeRecording(set), /*gzip_level=*/6);
}

}  // namespace gpuwhy
