// The HTML memory timeline: per device, allocated and reserved bytes over time as bands (each
// bucket's lowest to highest level) with the last level as a line, OOMs as vertical lines,
// segment allocs and frees as count strips under the axis, the peak marked, and the table of
// what was live at the peak. Every number comes from analyze/memory_timeline_series; the
// drawing is bounded by its buckets and markers, never by the input's length.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/html_sections.h"
#include "report/html_writer.h"
#include "report/text_format.h"

namespace gpuwhy::report::html {
namespace {

constexpr double kMemoryChartWidth = 960, kMemoryChartLeft = 64, kMemoryChartRight = 16;
constexpr double kTop = 22, kBottom = 200;  // plot area
constexpr double kStrip = 14;               // each segment-event strip under the axis
constexpr double kMemoryChartHeight = kBottom + 2 * kStrip + 44;
constexpr const char* kAllocatedColour = "#59a14f";
constexpr const char* kReservedColour = "#4e79a7";
constexpr const char* kOomColour = "#d62728";
constexpr const char* kSegmentAllocColour = "#f28e2b";
constexpr const char* kSegmentFreeColour = "#b07aa1";

std::string N(double v) { return fmt::format("{:.1f}", v); }

struct ByteUnit {
  double scale;
  const char* name;
};
// The axis unit from the largest value drawn: B, KiB, MiB or GiB.
ByteUnit ByteUnitFor(double max) {
  if (max >= 1024.0 * 1024 * 1024) return {1024.0 * 1024 * 1024, "GiB"};
  if (max >= 1024.0 * 1024) return {1024.0 * 1024, "MiB"};
  if (max >= 1024.0) return {1024.0, "KiB"};
  return {1, "B"};
}

struct TimeUnit {
  double scale;  // ns per unit
  const char* name;
};
TimeUnit TimeUnitFor(double span_ns) {
  if (span_ns >= 10e9) return {1e9, "s"};
  if (span_ns >= 10e6) return {1e6, "ms"};
  if (span_ns >= 10e3) return {1e3, "µs"};
  return {1, "ns"};
}

// The axis' top: four grid steps of a round number (1, 1.5, 2, 2.5, 3, 4, 5, 7.5 times a power
// of ten) covering |v|.
double NiceCeiling(double v) {
  if (v <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(v / 4)));
  for (double step : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.5, 10.0}) {
    if (4 * step * power >= v) return 4 * step * power;
  }
  return 40 * power;
}

// "0", "12", "2.5", "0.25", "147": round values without trailing zeros.
std::string Label(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9 || std::fabs(v) >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

void AxisText(std::string& out, double x, double y, std::string_view text,
          std::string_view anchor = "start") {
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" class=\"axis\">{}</text>", N(x),
                     N(y), anchor, Escape(text));
}

class MemoryChart {
 public:
  MemoryChart(const DeviceMemorySeriesResult& d, int64_t origin) : d_(d), origin_(origin) {
    const double most = static_cast<double>(std::max<int64_t>(
        {d.peak_allocated, d.peak_reserved == kNoValue ? 0 : d.peak_reserved, 1}));
    unit_ = ByteUnitFor(most);
    max_ = NiceCeiling(most / unit_.scale) * unit_.scale;
    dx_ = (kMemoryChartWidth - kMemoryChartLeft - kMemoryChartRight) / static_cast<double>(std::max<size_t>(1, d.buckets.size()));
    time_ = TimeUnitFor(static_cast<double>(d.x_end - origin_));
  }

  std::string Render() const {
    std::string out = fmt::format(
        "<figure class=\"chart memory-timeline\" data-device=\"{}\" data-peak-bytes=\"{}\" "
        "data-buckets=\"{}\"><figcaption>{}</figcaption><svg class=\"chart-svg\" role=\"img\" "
        "viewBox=\"0 0 {} {}\" width=\"100%\" preserveAspectRatio=\"xMinYMin meet\">",
        d_.device, d_.peak_allocated, d_.buckets.size(), Escape(Caption()), N(kMemoryChartWidth), N(kMemoryChartHeight));
    YAxis(out);
    if (d_.has_reserved) Band(out, &MemoryBucket::reserved, kReservedColour, "reserved");
    Band(out, &MemoryBucket::allocated, kAllocatedColour, "allocated");
    Strip(out, MemoryMarkerKind::kSegmentAlloc, kBottom + 4, kSegmentAllocColour);
    Strip(out, MemoryMarkerKind::kSegmentFree, kBottom + 4 + kStrip, kSegmentFreeColour);
    Ooms(out);
    Peak(out);
    XAxis(out);
    out += "</svg></figure>";
    return out + RenderLegend(Legend());
  }

 private:
  std::string Caption() const {
    return fmt::format("GPU {}: allocated{} over {} ({}), {}", d_.device,
                       d_.has_reserved ? " and reserved" : "", d_.source,
                       d_.axis == MemoryAxis::kTime ? "time" : "trace entry order", unit_.name);
  }

  double X(int64_t x) const {
    const double span = static_cast<double>(std::max<int64_t>(1, d_.x_end - d_.x_start));
    const double f = std::clamp(static_cast<double>(x - d_.x_start) / span, 0.0, 1.0);
    return kMemoryChartLeft + f * (kMemoryChartWidth - kMemoryChartLeft - kMemoryChartRight);
  }
  double Y(int64_t bytes) const {
    return kBottom - std::clamp(static_cast<double>(bytes) / max_, 0.0, 1.0) * (kBottom - kTop);
  }
  double BucketX(size_t b) const { return kMemoryChartLeft + dx_ * (static_cast<double>(b) + 0.5); }

  void YAxis(std::string& out) const {
    for (int i = 0; i <= 4; ++i) {
      const double y = kBottom - (kBottom - kTop) * i / 4.0;
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"grid\"/>", N(kMemoryChartLeft),
                         N(y), N(kMemoryChartWidth - kMemoryChartRight), N(y));
      AxisText(out, kMemoryChartLeft - 4, y + 4, Label(max_ * i / 4.0 / unit_.scale), "end");
    }
    AxisText(out, 2, kTop - 10, unit_.name);
  }

  void XAxis(std::string& out) const {
    const double y = kBottom + 2 * kStrip + 18;
    for (int i = 0; i <= 4; ++i) {
      const int64_t x = d_.x_start + (d_.x_end - d_.x_start) * i / 4;
      const std::string text = d_.axis == MemoryAxis::kTime
                                   ? Label(static_cast<double>(x - origin_) / time_.scale) +
                                         (i == 4 ? " " : "") + (i == 4 ? time_.name : "")
                                   : Count(x);
      AxisText(out, X(x), y, text, i == 0 ? "start" : i == 4 ? "end" : "middle");
    }
    AxisText(out, (kMemoryChartWidth + kMemoryChartLeft) / 2, y + 16,
         d_.axis == MemoryAxis::kTime
             ? fmt::format("time ({}) from the {}", time_.name,
                           d_.source == "[memory] events" ? "trace start" : "first event")
             : std::string("trace entry (the snapshot's entries carry no time)"),
         "middle");
  }

  // The bucket's lowest to highest level as a filled band, its last level as a line.
  void Band(std::string& out, MemoryBucketLevels MemoryBucket::*member, const char* colour,
            std::string_view name) const {
    std::string top, bottom, last;
    for (size_t b = 0; b < d_.buckets.size(); ++b) {
      const MemoryBucketLevels& l = d_.buckets[b].*member;
      if (l.max == kNoValue) continue;
      top += fmt::format("{},{} ", N(BucketX(b)), N(Y(l.max)));
      last += fmt::format("{},{} ", N(BucketX(b)), N(Y(l.last)));
    }
    for (size_t r = d_.buckets.size(); r-- > 0;) {
      const MemoryBucketLevels& l = d_.buckets[r].*member;
      if (l.min != kNoValue) bottom += fmt::format("{},{} ", N(BucketX(r)), N(Y(l.min)));
    }
    if (top.empty()) return;
    out += fmt::format(
        "<polygon class=\"band\" points=\"{}{}\" fill=\"{}\" fill-opacity=\"0.35\" stroke=\"{}\" "
        "stroke-width=\"0.6\"><title>{}: lowest to highest in each bucket</title></polygon>",
        top, bottom, colour, colour, Escape(name));
    out += fmt::format(
        "<polyline class=\"line\" points=\"{}\" stroke=\"{}\"><title>{}: level at each bucket's "
        "end</title></polyline>",
        last, colour, Escape(name));
  }

  // Per bucket a tick as tall as log(1 + count) allows, one path per kind.
  void Strip(std::string& out, MemoryMarkerKind kind, double y, const char* colour) const {
    const size_t k = static_cast<size_t>(kind);
    if (d_.marker_totals[k] == 0) return;
    int32_t most = 1;
    for (const MemoryBucket& b : d_.buckets) most = std::max(most, b.markers[k]);
    std::string path;
    for (size_t b = 0; b < d_.buckets.size(); ++b) {
      const int32_t n = d_.buckets[b].markers[k];
      if (n == 0) continue;
      const double h = (kStrip - 3) * std::log1p(n) / std::log1p(most) + 1;
      path += fmt::format("M{} {}v{}", N(BucketX(b)), N(y + kStrip - 2), N(-h));
    }
    out += fmt::format(
        "<path class=\"strip\" d=\"{}\" stroke=\"{}\" stroke-width=\"{}\" fill=\"none\"><title>{}: "
        "{} in all, at most {} in one bucket</title></path>",
        path, colour, N(std::max(1.0, dx_ * 0.8)), MemoryMarkerKindName(kind),
        Count(d_.marker_totals[k]), Count(most));
  }

  void Ooms(std::string& out) const {
    for (const MemoryMarker& m : d_.markers) {
      if (m.kind != MemoryMarkerKind::kOom) continue;
      out += fmt::format(
          "<line class=\"oom\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
          "stroke-width=\"1.5\"><title>OOM: {} requested at {}</title></line>",
          N(X(m.x)), N(kTop), N(X(m.x)), N(kBottom), kOomColour,
          Bytes(static_cast<double>(m.bytes)), At(m.x));
    }
  }

  void Peak(std::string& out) const {
    if (d_.peak_allocated <= 0) return;
    const double x = X(d_.peak_x), y = Y(d_.peak_allocated);
    const std::string text = "peak " + Bytes(static_cast<double>(d_.peak_allocated));
    out += fmt::format(
        "<circle class=\"peak\" cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"#1b1b1b\"><title>{} allocated "
        "at {}</title></circle>",
        N(x), N(y), Escape(text), At(d_.peak_x));
    const bool right = x > kMemoryChartWidth - 200;
    AxisText(out, right ? x - 8 : x + 8, std::max(kTop - 8, y - 6), text, right ? "end" : "start");
  }

  std::string At(int64_t x) const {
    if (d_.axis == MemoryAxis::kEntryIndex) return "entry " + Count(x);
    return Label(static_cast<double>(x - origin_) / time_.scale) + " " + time_.name;
  }

  std::vector<Series> Legend() const {
    std::vector<Series> s{
        {"allocated (band: lowest to highest per bucket; line: last)", kAllocatedColour}};
    if (d_.has_reserved) s.push_back({"reserved", kReservedColour});
    const auto count = [&](MemoryMarkerKind k) { return d_.marker_totals[static_cast<size_t>(k)]; };
    if (count(MemoryMarkerKind::kOom) > 0)
      s.push_back({fmt::format("OOM ({})", Count(count(MemoryMarkerKind::kOom))), kOomColour});
    if (count(MemoryMarkerKind::kSegmentAlloc) > 0)
      s.push_back({fmt::format("segment_alloc per bucket ({})",
                               Count(count(MemoryMarkerKind::kSegmentAlloc))),
                   kSegmentAllocColour});
    if (count(MemoryMarkerKind::kSegmentFree) > 0)
      s.push_back({fmt::format("segment_free per bucket ({})",
                               Count(count(MemoryMarkerKind::kSegmentFree))),
                   kSegmentFreeColour});
    return s;
  }

  const DeviceMemorySeriesResult& d_;
  int64_t origin_;
  double max_ = 1;
  ByteUnit unit_{};
  TimeUnit time_{};
  double dx_ = 1;
};

void PeakTable(std::string& out, const DeviceMemorySeriesResult& d) {
  if (d.peak_sites.empty() && d.peak_unattributed <= 0) return;
  Element(out, "h3",
          fmt::format("GPU {}: live at the peak ({}) by {}", d.device,
                      Bytes(static_cast<double>(d.peak_allocated)), d.peak_site_kind));
  const double peak = static_cast<double>(std::max<int64_t>(1, d.peak_allocated));
  std::vector<std::vector<Cell>> rows;
  const bool counted = d.peak_site_kind != "category";
  for (const PeakAllocation& p : d.peak_sites) {
    std::vector<Cell> row{{p.site},
                          Num(Bytes(static_cast<double>(p.bytes)), static_cast<double>(p.bytes)),
                          Num(Pct(100.0 * static_cast<double>(p.bytes) / peak),
                              100.0 * static_cast<double>(p.bytes) / peak)};
    if (counted) row.push_back(Num(Count(p.count), static_cast<double>(p.count)));
    rows.push_back(std::move(row));
  }
  if (d.peak_unattributed > 0) {
    const double bytes = static_cast<double>(d.peak_unattributed);
    std::vector<Cell> row{
        {d.source == "[memory] events" ? "allocated before the trace or outside any CPU op"
                                       : "allocated before the trace began, or without frames"},
        Num(Bytes(bytes), bytes),
        Num(Pct(100.0 * bytes / peak), 100.0 * bytes / peak)};
    if (counted) row.push_back(Num("–", 0));
    rows.push_back(std::move(row));
  }
  std::vector<std::string> headers{
      d.peak_site_kind == "frame" ? "site (file:line:function)" : d.peak_site_kind, "bytes",
      "of the peak"};
  if (counted) headers.emplace_back("allocations");
  Table(out, headers, rows, true);
  if (d.peak_sites_left_out > 0) {
    Element(out, "p", fmt::format("{} more sites left out", Count(d.peak_sites_left_out)),
            "class=\"note\"");
  }
}

std::string Summary(const DeviceMemorySeriesResult& d) {
  const auto count = [&](MemoryMarkerKind k) { return d.marker_totals[static_cast<size_t>(k)]; };
  std::string text = fmt::format("{} events in {} buckets; peak {} allocated", Count(d.entries),
                                 d.buckets.size(), Bytes(static_cast<double>(d.peak_allocated)));
  if (d.has_reserved && d.peak_reserved != kNoValue)
    text += fmt::format(", {} reserved at most", Bytes(static_cast<double>(d.peak_reserved)));
  if (d.source == "allocator snapshot trace") {
    text += fmt::format("; {} OOMs, {} segment_alloc, {} segment_free",
                        Count(count(MemoryMarkerKind::kOom)),
                        Count(count(MemoryMarkerKind::kSegmentAlloc)),
                        Count(count(MemoryMarkerKind::kSegmentFree)));
  }
  int64_t ooms_listed = 0;
  for (const MemoryMarker& marker : d.markers) ooms_listed += marker.kind == MemoryMarkerKind::kOom;
  if (count(MemoryMarkerKind::kOom) > ooms_listed) {
    text += fmt::format(" (the first {} OOMs drawn one by one, the rest counted per bucket)",
                        Count(ooms_listed));
  }
  return text;
}

}  // namespace

void RenderMemoryTimelineHtml(std::string& out, const RankHeader& h, const MemorySeriesResult& m) {
  if (m.devices.empty()) return;
  OpenSection(out, "memory-timeline", "Memory timeline",
              "allocated and reserved bytes over time: each bucket's band runs from its lowest to "
              "its highest level, so no peak is lost however many events there were");
  for (const DeviceMemorySeriesResult& d : m.devices) {
    const int64_t origin =
        d.source == "[memory] events" && h.span.length() > 0 ? h.span.start : d.x_start;
    Element(out, "p", Summary(d), "class=\"meta\"");
    out += MemoryChart(d, origin).Render();
    PeakTable(out, d);
  }
  for (const std::string& line : m.not_applicable)
    Element(out, "p", "n/a: " + line, "class=\"note\"");
  CloseSection(out);
}

}  // namespace gpuwhy::report::html
