// One table model, four renderers: the rows are built once (DiffTables) and written as text,
// Markdown or HTML; JSON writes the RunDiff's fields directly.
#include "diff/diff_render.h"

#include <cmath>

#include <fmt/format.h>

#include "base/json_writer.h"
#include "report/html_sections.h"
#include "report/html_writer.h"
#include "report/markdown_text.h"
#include "report/text_format.h"

namespace gpuwhy {
namespace {

struct DiffTable {
  std::string title;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
};

std::string MsOrDash(double ms) { return std::isnan(ms) ? "–" : fmt::format("{:.3f} ms", ms); }
std::string PctOrDash(double pct) { return std::isnan(pct) ? "–" : fmt::format("{:.1f} %", pct); }
std::string Delta(double base, double test, std::string_view unit) {
  if (std::isnan(base) || std::isnan(test)) return "–";
  double d = test - base;
  return fmt::format("{}{:.3f} {}", d < 0 ? "−" : "+", std::fabs(d), unit);
}
std::string RelPct(double base, double test) {
  if (std::isnan(base) || std::isnan(test) || base == 0) return "–";
  return fmt::format("{:+.1f} %", 100.0 * (test - base) / base);
}

std::vector<DiffTable> DiffTables(const RunDiff& d) {
  std::vector<DiffTable> tables;
  DiffTable steps{"Step time and breakdown per step (median ± robust spread over steps)",
                  {"", "base", "test", "change", "relative"},
                  {}};
  auto add_change = [&](const ValueChange& c) {
    steps.rows.push_back(
        {c.name, fmt::format("{} ± {}", MsOrDash(c.base.median), MsOrDash(c.base.spread)),
         fmt::format("{} ± {}", MsOrDash(c.test.median), MsOrDash(c.test.spread)),
         Delta(c.base.median, c.test.median, "ms"), RelPct(c.base.median, c.test.median)});
  };
  add_change(d.step);
  for (const ValueChange& c : d.categories) add_change(c);
  tables.push_back(std::move(steps));

  DiffTable util{"GPU utilization (whole analysed window)", {"", "base", "test", "change"}, {}};
  util.rows.push_back({"kernel (TensorBoard)", PctOrDash(d.base_kernel_util_pct),
                       PctOrDash(d.test_kernel_util_pct),
                       Delta(d.base_kernel_util_pct, d.test_kernel_util_pct, "points")});
  util.rows.push_back({"GPU op (HTA)", PctOrDash(d.base_gpu_op_util_pct),
                       PctOrDash(d.test_gpu_op_util_pct),
                       Delta(d.base_gpu_op_util_pct, d.test_gpu_op_util_pct, "points")});
  tables.push_back(std::move(util));

  if (!d.idle.empty()) {
    DiffTable idle{
        "GPU idle by cause (ms per step, mean)", {"cause", "base", "test", "change"}, {}};
    for (const ValueChange& c : d.idle) {
      idle.rows.push_back({c.name, MsOrDash(c.base.median), MsOrDash(c.test.median),
                           Delta(c.base.median, c.test.median, "ms")});
    }
    tables.push_back(std::move(idle));
  }
  DiffTable findings{"Findings", {"", "id", "recoverable per step (base → test)", "title"}, {}};
  for (const FindingChange& f : d.findings) {
    findings.rows.push_back(
        {f.kind, f.id,
         fmt::format("{:.3f} → {:.3f} ms", f.base_recoverable_ms, f.test_recoverable_ms), f.title});
  }
  if (findings.rows.empty()) findings.rows.push_back({"", "none in either run", "", ""});
  tables.push_back(std::move(findings));
  DiffTable kernels{"Kernels added, removed, slower or faster (largest time change first)",
                    {"", "name", "calls (base → test)", "ms per step", "µs per call"},
                    {}};
  for (const KernelChange& k : d.kernels) {
    kernels.rows.push_back(
        {k.kind, k.name,
         fmt::format("{} → {}", report::Count(k.base_count), report::Count(k.test_count)),
         fmt::format("{:.3f} → {:.3f}", k.base_ms_per_step, k.test_ms_per_step),
         fmt::format("{:.1f} → {:.1f}", k.base_mean_us, k.test_mean_us)});
  }
  if (kernels.rows.empty())
    kernels.rows.push_back({"", "no kernel changed by the threshold", "", "", ""});
  tables.push_back(std::move(kernels));
  return tables;
}

std::string GateText(const RunDiff& d) {
  if (std::isnan(d.step_change_pct)) return "";
  return d.regressed
             ? fmt::format(
                   "REGRESSION: step time {:+.1f} % and beyond the step-to-step noise ({:.3f} ms)",
                   d.step_change_pct, d.noise_ms)
             : "";
}

}  // namespace

std::string RenderDiffText(const RunDiff& d) {
  std::string out = fmt::format("gpuwhy diff\n  base  {}\n  test  {}\n\n{}\n", d.base_path,
                                d.test_path, d.verdict);
  if (std::string gate = GateText(d); !gate.empty()) out += gate + "\n";
  for (const DiffTable& t : DiffTables(d)) {
    out += "\n" + t.title + "\n";
    std::vector<report::Column> columns;
    for (size_t i = 0; i < t.headers.size(); ++i) {
      bool text = i == 0 || t.headers[i] == "name" || t.headers[i] == "title" ||
                  t.headers[i] == "id" || t.headers[i] == "cause";
      columns.push_back({t.headers[i],
                         t.headers[i] == "name"    ? size_t{36}
                         : t.headers[i] == "title" ? size_t{40}
                                                   : size_t{34},
                         text ? report::Align::kLeft : report::Align::kRight});
    }
    report::TextTable table(columns);
    for (const auto& row : t.rows) {
      std::vector<std::string> cells = row;
      for (size_t i = 0; i < cells.size(); ++i) {
        if (t.headers[i] == "name") cells[i] = report::ShortenKernelName(cells[i], 36);
      }
      table.AddRow(cells);
    }
    table.Render(out);
  }
  for (const std::string& note : d.notes) out += "note: " + note + "\n";
  return out;
}

std::string RenderDiffMarkdown(const RunDiff& d) {
  // Names and paths come from the traces: literal text, never Markdown (report/markdown_text).
  const auto cell = [](const std::string& text) { return report::MarkdownText(text); };
  std::string out = fmt::format("## gpuwhy diff\n\n- base: {}\n- test: {}\n\n**{}**\n\n",
                                report::MarkdownCode(d.base_path),
                                report::MarkdownCode(d.test_path), cell(d.verdict));
  if (std::string gate = GateText(d); !gate.empty()) out += "**" + gate + "**\n\n";
  for (const DiffTable& t : DiffTables(d)) {
    out += "### " + t.title + "\n\n|";
    for (const std::string& h : t.headers) out += " " + cell(h) + " |";
    out += "\n|";
    for (size_t i = 0; i < t.headers.size(); ++i) out += " --- |";
    out += "\n";
    for (const auto& row : t.rows) {
      out += "|";
      for (const std::string& c : row) out += " " + cell(c) + " |";
      out += "\n";
    }
    out += "\n";
  }
  for (const std::string& note : d.notes) out += "> note: " + cell(note) + "\n";
  return out;
}

std::string RenderDiffHtml(const RunDiff& d) {
  using namespace report::html;  // NOLINT
  std::string out = PageStart("gpuwhy diff");
  out += "<header><h1>gpuwhy diff</h1>";
  Element(out, "p", "base: " + d.base_path, "class=\"meta\"");
  Element(out, "p", "test: " + d.test_path, "class=\"meta\"");
  Element(out, "p", d.verdict, "class=\"verdict\" id=\"verdict\"");
  if (std::string gate = GateText(d); !gate.empty()) Element(out, "p", gate, "class=\"errors\"");
  out += "</header>";
  // The per-step breakdown side by side: one stacked bar for base, one for test.
  StackedBarsChart chart;
  chart.title = "Median time per step by category (ms)";
  chart.unit = "ms";
  const char* colours[] = {"#4e79a7", "#f28e2b", "#edc948", "#b07aa1",
                           "#76b7b2", "#e15759", "#59a14f", "#bab0ac"};
  chart.labels = {"base", "test"};
  chart.values.resize(2);
  for (size_t i = 0; i < d.categories.size(); ++i) {
    chart.series.push_back({d.categories[i].name, colours[i % std::size(colours)]});
    chart.values[0].push_back(
        std::isnan(d.categories[i].base.median) ? 0 : d.categories[i].base.median);
    chart.values[1].push_back(
        std::isnan(d.categories[i].test.median) ? 0 : d.categories[i].test.median);
  }
  out += RenderStackedBars(chart);
  for (const DiffTable& t : DiffTables(d)) {
    OpenSection(out, "", t.title);
    std::vector<std::vector<Cell>> rows;
    for (const auto& row : t.rows) {
      std::vector<Cell> cells;
      for (const std::string& c : row) cells.push_back({c});
      rows.push_back(std::move(cells));
    }
    Table(out, t.headers, rows);
    CloseSection(out);
  }
  for (const std::string& note : d.notes) Element(out, "p", "note: " + note, "class=\"note\"");
  return out + PageEnd();
}

std::string RenderDiffJson(const RunDiff& d) {
  JsonWriter w;
  auto number = [&](std::string_view key, double v) {
    w.Key(key);
    if (std::isnan(v))
      w.Null();
    else
      w.Double(v);
  };
  auto change = [&](const ValueChange& c) {
    w.BeginObject();
    w.Field("name", c.name);
    number("base_median_ms", c.base.median);
    number("base_spread_ms", c.base.spread);
    number("test_median_ms", c.test.median);
    number("test_spread_ms", c.test.spread);
    number("delta_ms", c.delta());
    w.EndObject();
  };
  w.BeginObject();
  w.Field("tool", "gpuwhy");
  w.Field("kind", "diff");
  w.Field("base", d.base_path);
  w.Field("test", d.test_path);
  w.Field("verdict", d.verdict);
  number("step_change_pct", d.step_change_pct);
  number("noise_ms", d.noise_ms);
  w.Field("significant", d.significant);
  w.Field("regressed", d.regressed);
  w.Field("moved_category", d.moved_category);
  w.Key("step");
  change(d.step);
  w.Key("categories");
  w.BeginArray();
  for (const ValueChange& c : d.categories) change(c);
  w.EndArray();
  w.Key("utilization");
  w.BeginObject();
  number("base_kernel_pct", d.base_kernel_util_pct);
  number("test_kernel_pct", d.test_kernel_util_pct);
  number("base_gpu_op_pct", d.base_gpu_op_util_pct);
  number("test_gpu_op_pct", d.test_gpu_op_util_pct);
  w.EndObject();
  w.Key("idle_ms_per_step");
  w.BeginArray();
  for (const ValueChange& c : d.idle) {
    w.BeginObject();
    w.Field("cause", c.name);
    number("base", c.base.median);
    number("test", c.test.median);
    w.EndObject();
  }
  w.EndArray();
  w.Key("findings");
  w.BeginArray();
  for (const FindingChange& f : d.findings) {
    w.BeginObject();
    w.Field("id", f.id);
    w.Field("change", f.kind);
    w.Field("title", f.title);
    number("base_recoverable_ms_per_step", f.base_recoverable_ms);
    number("test_recoverable_ms_per_step", f.test_recoverable_ms);
    w.EndObject();
  }
  w.EndArray();
  w.Key("kernels");
  w.BeginArray();
  for (const KernelChange& k : d.kernels) {
    w.BeginObject();
    w.Field("name", k.name);
    w.Field("change", k.kind);
    w.Field("base_count", k.base_count);
    w.Field("test_count", k.test_count);
    number("base_ms_per_step", k.base_ms_per_step);
    number("test_ms_per_step", k.test_ms_per_step);
    number("base_mean_us", k.base_mean_us);
    number("test_mean_us", k.test_mean_us);
    w.EndObject();
  }
  w.EndArray();
  w.Field("kernels_partial", d.kernels_partial);
  w.Key("notes");
  w.BeginArray();
  for (const std::string& n : d.notes) w.String(n);
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace gpuwhy
