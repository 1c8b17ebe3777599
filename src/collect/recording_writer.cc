#include "collect/recording_writer.h"

#include <fmt/format.h>

#include "base/atomic_file.h"
#include "base/varint.h"

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

std::string EncodeRecording(const MetricSeriesSet& set) {
  std::string out = "gpuwhy-recording 1\n";
  out += "source " + Clean(set.source) + "\n";
  out += fmt::format("interval_ns {}\n", set.nominal_interval_ns);
  out += fmt::format("sampler_cpu_pct {:.4f}\n", set.sampler_cpu_pct);
  for (const SeriesDevice& d : set.devices) {
    out += fmt::format("device {}\t{}\t{}\t{}\n", d.index, Clean(d.name), Clean(d.uuid),
                       Clean(d.pci_bus_id));
  }
  for (const std::string& note : set.notes) out += "note " + Clean(note) + "\n";
  for (DataProblem kind : set.problems.Kinds()) {
    out += fmt::format("issue {}\t{}\t{}\n", GetDataProblemInfo(kind).id, set.problems.Get(kind),
                       Clean(set.problems.Detail(kind)));
  }
  for (const auto& [key, s] : set.all()) {
    out += fmt::format("series {}\t{}\t{}\t{}\t{}\t{}\n", Clean(key.metric), key.device,
                       Clean(key.entity), Clean(s.unit), Clean(s.label), s.size());
    TimeNs prev = 0;
    for (TimeNs t : s.time) {
      AppendZigzag(out, t - prev);
      prev = t;
    }
    for (double v : s.value) AppendDouble(out, v);
  }
  out += "end\n";
  return out;
}

Status WriteRecording(const MetricSeriesSet& set, const std::string& path) {
  return WriteFileAtomically(path, EncodeRecording(set), /*gzip_level=*/6);
}

}  // namespace gpuwhy
