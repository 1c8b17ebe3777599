#include "report/html_writer.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/text_escape.h"

namespace gpuwhy::report::html {
namespace {

constexpr double kWidth = 960;  // every chart's viewBox width
constexpr double kLeft = 56;    // room for y-axis labels
constexpr double kRight = 12;

// Coordinates with one decimal keep the SVG small and sharp enough.
std::string Num(double v) { return fmt::format("{:.1f}", v); }

void OpenSvg(std::string& out, double height, std::string_view title) {
  out += fmt::format(
      "<figure class=\"chart\"><figcaption>{}</figcaption><svg class=\"chart-svg\" role=\"img\" "
      "viewBox=\"0 0 {} {}\" width=\"100%\" preserveAspectRatio=\"xMinYMin meet\">",
      Escape(title), Num(kWidth), Num(height));
}

void CloseSvg(std::string& out) { out += "</svg></figure>"; }

void Text(std::string& out, double x, double y, std::string_view text,
          std::string_view anchor = "start", std::string_view cls = "axis") {
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" class=\"{}\">{}</text>", Num(x),
                     Num(y), anchor, cls, Escape(text));
}

// Width of |text| in the charts' 11px font, generously (an average glyph is ~6 px wide):
// room is made from it so that no label is clipped by the SVG's edge.
double TextWidth(std::string_view text) {
  size_t glyphs = 0;
  for (unsigned char c : text) glyphs += (c & 0xC0) != 0x80;  // UTF-8 lead bytes
  return 6.5 * static_cast<double>(glyphs);
}

// "1.2k", "35", "0.5": short axis labels.
std::string Short(double v) {
  if (std::fabs(v) >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (std::fabs(v) >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  if (std::fabs(v) >= 10 || v == 0) return fmt::format("{:.0f}", v);
  return fmt::format("{:.2g}", v);
}

// Horizontal grid lines with labels at 0, 1/4, ... of |max|.
void YAxis(std::string& out, double top, double bottom, double max, std::string_view unit) {
  for (int i = 0; i <= 4; ++i) {
    double y = bottom - (bottom - top) * i / 4.0;
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"grid\"/>", Num(kLeft),
                       Num(y), Num(kWidth - kRight), Num(y));
    Text(out, kLeft - 4, y + 4, Short(max * i / 4.0) + (i == 4 ? " " + std::string(unit) : ""),
         "end");
  }
}

}  // namespace

std::string Escape(std::string_view raw) {
  // Control bytes first (ESC, BEL, C1, bytes that are not UTF-8): shown as "\x1b" and the
  // like, as every text sink shows them (base/text_escape.h); line breaks and tabs stay.
  const std::string text = text::EscapeControl(raw, text::LineBreaks::kKeep);
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void Element(std::string& out, std::string_view tag, std::string_view text,
             std::string_view attrs) {
  out += fmt::format("<{}{}{}>{}</{}>", tag, attrs.empty() ? "" : " ", attrs, Escape(text), tag);
}

std::string RenderLegend(const std::vector<Series>& series) {
  std::string out = "<div class=\"legend\">";
  for (const Series& s : series) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", Escape(s.colour),
                       Escape(s.name));
  }
  return out + "</div>";
}

std::string RenderStackedBars(const StackedBarsChart& chart) {
  constexpr double kHeight = 260, kTop = 10, kBottom = 230;
  std::string out;
  OpenSvg(out, kHeight, chart.title);
  double max = 0;
  for (const auto& bar : chart.values) {
    double sum = 0;
    for (double v : bar) sum += std::max(0.0, v);
    max = std::max(max, sum);
  }
  if (max <= 0) max = 1;
  YAxis(out, kTop, kBottom, max, chart.unit);
  size_t n = chart.values.size();
  double slot = n > 0 ? (kWidth - kLeft - kRight) / static_cast<double>(n) : 0;
  double bar_width = std::max(1.0, slot * 0.8);
  size_t label_every = std::max<size_t>(1, n / 20);
  for (size_t i = 0; i < n; ++i) {
    double x = kLeft + slot * static_cast<double>(i) + (slot - bar_width) / 2;
    out += "<g class=\"bar\">";
    if (i < chart.tooltips.size()) out += "<title>" + Escape(chart.tooltips[i]) + "</title>";
    double y = kBottom;
    for (size_t k = 0; k < chart.values[i].size() && k < chart.series.size(); ++k) {
      double h = std::max(0.0, chart.values[i][k]) / max * (kBottom - kTop);
      if (h <= 0) continue;
      y -= h;
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", Num(x),
                         Num(y), Num(bar_width), Num(h), Escape(chart.series[k].colour));
    }
    out += "</g>";
    if (i % label_every == 0 && i < chart.labels.size()) {
      Text(out, x + bar_width / 2, kBottom + 16, chart.labels[i], "middle");
    }
  }
  CloseSvg(out);
  return out + RenderLegend(chart.series);
}

std::string RenderTimeAreas(const TimeAreaChart& chart) {
  constexpr double kHeight = 200, kTop = 10, kBottom = 170;
  std::string out;
  OpenSvg(out, kHeight, chart.title);
  YAxis(out, kTop, kBottom, chart.y_max, chart.y_unit);
  size_t n = 0;
  for (const auto& a : chart.area_values) n = std::max(n, a.size());
  for (const auto& l : chart.line_values) n = std::max(n, l.size());
  if (n > 0 && chart.y_max > 0) {
    double dx = (kWidth - kLeft - kRight) / static_cast<double>(n);
    auto y_of = [&](double v) {
      return kBottom - std::clamp(v / chart.y_max, 0.0, 1.0) * (kBottom - kTop);
    };
    std::vector<double> base(n, 0.0);
    for (size_t a = 0; a < chart.area_values.size() && a < chart.areas.size(); ++a) {
      const std::vector<double>& v = chart.area_values[a];
      // Step outline along the top, then back along the bottom.
      std::string top, bottom;
      bool any = false;
      for (size_t b = 0; b < n; ++b) {
        double value = b < v.size() ? v[b] : 0.0;
        any = any || value > 0;
        double x0 = kLeft + dx * static_cast<double>(b), x1 = x0 + dx;
        top += fmt::format("{},{} {},{} ", Num(x0), Num(y_of(base[b] + value)), Num(x1),
                           Num(y_of(base[b] + value)));
        size_t r = n - 1 - b;
        double rx0 = kLeft + dx * static_cast<double>(r), rx1 = rx0 + dx;
        bottom +=
            fmt::format("{},{} {},{} ", Num(rx1), Num(y_of(base[r])), Num(rx0), Num(y_of(base[r])));
      }
      for (size_t b = 0; b < n && b < v.size(); ++b) base[b] += v[b];
      if (!any) continue;
      out += fmt::format(
          "<polygon class=\"area\" points=\"{}{}\" fill=\"{}\"><title>{}</title></polygon>", top,
          bottom, Escape(chart.areas[a].colour), Escape(chart.areas[a].name));
    }
    for (size_t l = 0; l < chart.line_values.size() && l < chart.lines.size(); ++l) {
      std::string points;
      for (size_t b = 0; b < chart.line_values[l].size(); ++b) {
        points += fmt::format("{},{} ", Num(kLeft + dx * (static_cast<double>(b) + 0.5)),
                              Num(y_of(chart.line_values[l][b])));
      }
      out += fmt::format(
          "<polyline class=\"line\" points=\"{}\" stroke=\"{}\"><title>{}</title></polyline>",
          points, Escape(chart.lines[l].colour), Escape(chart.lines[l].name));
    }
  }
  Text(out, kLeft, kBottom + 18, fmt::format("{:.1f} ms", chart.x_start_ms), "start");
  Text(out, kWidth - kRight, kBottom + 18, fmt::format("{:.1f} ms", chart.x_end_ms), "end");
  Text(out, (kWidth + kLeft) / 2, kBottom + 18, "time from the trace start", "middle");
  CloseSvg(out);
  std::vector<Series> legend = chart.areas;
  legend.insert(legend.end(), chart.lines.begin(), chart.lines.end());
  return out + RenderLegend(legend);
}

std::string RenderHBars(const HBarChart& chart) {
  constexpr double kRow = 22, kLabel = 200, kValue = 220;
  double height = kRow * static_cast<double>(chart.values.size()) + 10;
  std::string out;
  OpenSvg(out, height, chart.title);
  double max = 0;
  for (double v : chart.values) max = std::max(max, v);
  if (max <= 0) max = 1;
  double span = kWidth - kLabel - kValue;
  for (size_t i = 0; i < chart.values.size(); ++i) {
    double y = 5 + kRow * static_cast<double>(i);
    double w = std::max(0.0, chart.values[i]) / max * span;
    Text(out, kLabel - 6, y + 15, i < chart.labels.size() ? chart.labels[i] : "", "end", "label");
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                       Num(kLabel), Num(y + 3), Num(w), Num(kRow - 6),
                       Escape(i < chart.colours.size() ? chart.colours[i] : "#4e79a7"));
    Text(out, kLabel + w + 6, y + 15, i < chart.value_texts.size() ? chart.value_texts[i] : "",
         "start", "label");
  }
  CloseSvg(out);
  return out;
}

std::string RenderColumns(const ColumnChart& chart) {
  // Labels are drawn at -45°: each reaches down and left by its width / sqrt(2), so the
  // bottom margin (and the left one, for the first bars) grows with the longest label.
  constexpr double kTop = 24, kPlot = 176, kRotated = 0.7072;
  double longest = 0;
  for (const std::string& label : chart.labels) longest = std::max(longest, TextWidth(label));
  const double kBottom = kTop + kPlot;
  const double label_drop = longest * kRotated + 16;
  const double height = kBottom + label_drop + (chart.x_title.empty() ? 4 : 20);
  size_t n = chart.values.size();
  double slot = n > 0 ? (kWidth - kLeft - kRight) / static_cast<double>(n) : 0;
  const double left = std::max(kLeft, longest * kRotated - slot / 2 + 4);
  slot = n > 0 ? (kWidth - left - kRight) / static_cast<double>(n) : 0;
  std::string out;
  OpenSvg(out, height, chart.title);
  double max = 0;
  for (double v : chart.values) max = std::max(max, v);
  auto scale = [&](double v) {
    if (v <= 0 || max <= 0) return 0.0;
    return chart.log_y ? std::log10(1 + v) / std::log10(1 + max) : v / max;
  };
  // Grid at decades for a log axis, quarters otherwise; the unit is the axis' title above it.
  const int steps = 4;
  for (int i = 0; chart.log_y ? std::pow(10.0, i) <= std::max(1.0, max) : i <= steps; ++i) {
    double value = chart.log_y ? std::pow(10.0, i) : max * i / steps;
    double y = kBottom - scale(value) * (kBottom - kTop);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"grid\"/>", Num(left),
                       Num(y), Num(kWidth - kRight), Num(y));
    Text(out, left - 4, y + 4, Short(value), "end");
  }
  Text(out, 2, kTop - 10, chart.y_unit + (chart.log_y ? " (log scale)" : ""), "start");
  for (size_t i = 0; i < n; ++i) {
    double x = left + slot * static_cast<double>(i);
    double h = scale(chart.values[i]) * (kBottom - kTop);
    out += "<g class=\"bar\">";
    if (i < chart.tooltips.size()) out += "<title>" + Escape(chart.tooltips[i]) + "</title>";
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/></g>",
                       Num(x + 1), Num(kBottom - h), Num(std::max(1.0, slot - 2)), Num(h),
                       Escape(i < chart.colours.size() ? chart.colours[i] : "#4e79a7"));
    if (i < chart.labels.size()) {
      out += fmt::format(
          "<text class=\"axis\" text-anchor=\"end\" transform=\"translate({},{}) "
          "rotate(-45)\">{}</text>",
          Num(x + slot / 2 + 4), Num(kBottom + 12), Escape(chart.labels[i]));
    }
  }
  if (!chart.x_title.empty())
    Text(out, left + (kWidth - left - kRight) / 2, height - 6, chart.x_title, "middle");
  CloseSvg(out);
  return out;
}

std::string RenderHeatMap(const HeatMapChart& chart) {
  constexpr double kRowHeight = 18, kLabel = 90, kTop = 4, kScale = 30;
  const double grid_bottom = kTop + kRowHeight * static_cast<double>(chart.values.size());
  double height = grid_bottom + 24 + (chart.column_title.empty() ? 0 : 16) + kScale;
  std::string out;
  OpenSvg(out, height, chart.title);
  double max = 0;
  size_t columns = 0;
  for (const auto& row : chart.values) {
    columns = std::max(columns, row.size());
    for (double v : row) {
      if (!std::isnan(v)) max = std::max(max, v);
    }
  }
  double cell = columns > 0 ? (kWidth - kLabel - kRight) / static_cast<double>(columns) : 0;
  for (size_t r = 0; r < chart.values.size(); ++r) {
    double y = kTop + kRowHeight * static_cast<double>(r);
    Text(out, kLabel - 6, y + 13, r < chart.row_labels.size() ? chart.row_labels[r] : "", "end",
         "label");
    for (size_t c = 0; c < chart.values[r].size(); ++c) {
      double v = chart.values[r][c];
      double opacity = std::isnan(v) || max <= 0 ? 0 : std::clamp(v / max, 0.0, 1.0);
      out += fmt::format(
          "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "fill-opacity=\"{:.3f}\" stroke=\"#eee\" stroke-width=\"0.5\">",
          Num(kLabel + cell * static_cast<double>(c)), Num(y), Num(std::max(0.5, cell)),
          Num(kRowHeight - 2), std::isnan(v) ? "#999" : Escape(chart.colour),
          std::isnan(v) ? 0.3 : std::max(0.04, opacity));
      if (r < chart.tooltips.size() && c < chart.tooltips[r].size())
        out += "<title>" + Escape(chart.tooltips[r][c]) + "</title>";
      out += "</rect>";
    }
  }
  double y = grid_bottom + 14;
  for (size_t c = 0; c < chart.column_labels.size(); ++c) {
    if (!chart.column_labels[c].empty())
      Text(out, kLabel + cell * (static_cast<double>(c) + 0.5), y, chart.column_labels[c],
           "middle");
  }
  if (!chart.column_title.empty()) {
    y += 16;
    Text(out, kLabel + (kWidth - kLabel - kRight) / 2, y, chart.column_title, "middle");
  }
  // The colour scale: five swatches from the lightest shade (0) to the full colour (max).
  y += 12;
  Text(out, kLabel - 6, y + 11, "scale", "end", "label");
  constexpr int kSwatches = 5;
  for (int i = 0; i < kSwatches; ++i) {
    double fraction = static_cast<double>(i) / (kSwatches - 1);
    double x = kLabel + 80.0 * i;
    out += fmt::format(
        "<rect class=\"scale\" x=\"{}\" y=\"{}\" width=\"24\" height=\"14\" fill=\"{}\" "
        "fill-opacity=\"{:.3f}\" stroke=\"#ccc\" stroke-width=\"0.5\"/>",
        Num(x), Num(y), Escape(chart.colour), std::max(0.04, fraction));
    Text(out, x + 28, y + 11, Short(max * fraction) + (chart.unit.empty() ? "" : " " + chart.unit));
  }
  Text(out, kLabel + 80.0 * kSwatches, y + 11, "grey: no arrival recorded");
  CloseSvg(out);
  return out;
}

}  // namespace gpuwhy::report::html
