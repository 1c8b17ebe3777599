// Building blocks of the HTML report: escaping and a few inline-SVG chart shapes. Every
// string that reaches the page goes through Escape (kernel and op names are full of <, >,
// & and quotes); charts take numbers that the analyses computed and only draw them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy::report::html {

// Escapes & < > " ' so that |text| is safe both as element content and as a quoted
// attribute value.
std::string Escape(std::string_view text);

// Appends "<tag attrs>escaped text</tag>".
void Element(std::string& out, std::string_view tag, std::string_view text,
             std::string_view attrs = "");

struct Series {
  std::string name;    // legend text
  std::string colour;  // CSS colour
};

// A stacked bar per entry: values[i][k] is the size of series k in bar i, in |unit|.
// |tooltips| (one per bar, may be empty) become the bars' <title>.
struct StackedBarsChart {
  std::string title;
  std::string unit;  // "ms"
  std::vector<Series> series;
  std::vector<std::string> labels;  // x-axis label of each bar
  std::vector<std::vector<double>> values;
  std::vector<std::string> tooltips;
};
std::string RenderStackedBars(const StackedBarsChart& chart);

// Stacked step areas over equal time buckets (0..100 % of each bucket), plus optional lines
// drawn on top, e.g. the other utilization convention.
struct TimeAreaChart {
  std::string title;
  double x_start_ms = 0;  // axis labels: time of the first bucket's start and last's end
  double x_end_ms = 0;
  double y_max = 100;
  std::string y_unit = "%";
  std::vector<Series> areas;                     // stacked bottom-up
  std::vector<std::vector<double>> area_values;  // [area][bucket]
  std::vector<Series> lines;
  std::vector<std::vector<double>> line_values;  // [line][bucket]
};
std::string RenderTimeAreas(const TimeAreaChart& chart);

// Horizontal bars with a value label each.
struct HBarChart {
  std::string title;
  std::vector<std::string> labels;
  std::vector<double> values;
  std::vector<std::string> value_texts;  // printed after the bar
  std::vector<std::string> colours;      // per bar
};
std::string RenderHBars(const HBarChart& chart);

// Vertical bars over categories (a histogram); counts drawn on a log scale when |log_y|.
struct ColumnChart {
  std::string title;
  std::vector<std::string> labels;
  std::vector<double> values;
  std::vector<std::string> colours;
  std::vector<std::string> tooltips;
  bool log_y = false;
  std::string y_unit;   // the y axis' title, above the axis
  std::string x_title;  // under the bar labels; empty: none
};
std::string RenderColumns(const ColumnChart& chart);

// A grid of cells (rows × columns) shaded from white (0) to |colour| (the largest value),
// with its colour scale under the grid; NaN cells are left grey. |tooltips| is indexed like
// |values|.
struct HeatMapChart {
  std::string title;
  std::string colour = "#d62728";
  std::string unit;          // of the values, on the colour scale
  std::string column_title;  // under the column labels; empty: none
  std::vector<std::string> row_labels;
  std::vector<std::string> column_labels;   // may be sparse: empty labels are skipped
  std::vector<std::vector<double>> values;  // [row][column]
  std::vector<std::vector<std::string>> tooltips;
};
std::string RenderHeatMap(const HeatMapChart& chart);

// A legend as a row of coloured swatches.
std::string RenderLegend(const std::vector<Series>& series);

}  // namespace gpuwhy::report::html
