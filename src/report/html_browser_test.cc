// The HTML report in a real browser (Debian's chromium, headless): the page renders to a
// screenshot that is not blank, its DOM after scripts ran holds the findings and charts,
// and names built to run script never do. Skips when chromium is not installed.
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "pipeline/pipeline.h"
#include "report/html_test_util.h"
#include "report/html_writer.h"
#include "synth/memory_steps.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace html_browser_test {

namespace fs = std::filesystem;
using namespace html_test;  // NOLINT

constexpr const char* kChromium = "/usr/bin/chromium";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A script that measures every <text> of the SVGs |selector| names against its SVG's box and
// puts the count and the clipped texts in the body's data-measured / data-clipped attributes.
std::string MeasureClippedTexts(std::string_view selector) {
  return std::string(R"(<script>
    let clipped = [], measured = 0;
    for (const svg of document.querySelectorAll(')") +
         std::string(selector) + R"(')) {
      const box = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll('text')) {
        const r = t.getBoundingClientRect();
        ++measured;
        if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
            r.bottom > box.bottom + 1)
          clipped.push(t.textContent);
      }
    }
    document.body.setAttribute('data-measured', measured);
    document.body.setAttribute('data-clipped', clipped.join(' | '));
  </script>)";
}

// The value of the first attribute |name| in |dom| ("(missing)" when none): what a measuring
// script left on the body.
std::string Attribute(const std::string& dom, std::string_view name) {
  size_t at = dom.find(std::string(name) + "=\"");
  if (at == std::string::npos) return "(missing)";
  at += name.size() + 2;
  return dom.substr(at, dom.find('"', at) - at);
}

// The page's Content-Security-Policy forbids inline scripts, so a measuring copy drops it.
bool DropContentSecurityPolicy(std::string& page) {
  size_t policy = page.find("<meta http-equiv=\"Content-Security-Policy\"");
  if (policy == std::string::npos) return false;
  page.erase(policy, page.find('>', policy) + 1 - policy);
  return true;
}

class HtmlBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kChromium)) {
      GTEST_SKIP()
          << kChromium
          << " not found: install Debian's chromium (scripts/setup.sh) to run the browser test";
    }
    std::string pattern = (fs::temp_directory_path() / "gpuwhy_browser_XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs headless chromium on |html_path|: --dump-dom into the returned string, or a
  // screenshot into |png| when given.
  std::string Chromium(const std::string& html_path, const std::string& png = "",
                       int window_width = 1200) {
    std::string out = dir_ + (png.empty() ? "/dom.html" : "/chromium.log");
    std::string command = fmt::format(
        "timeout 120 {} --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars "
        "--user-data-dir={}/profile --window-size={},1800 {} file://{} > {} 2>{}/stderr.log",
        kChromium, dir_, window_width, png.empty() ? "--dump-dom" : "--screenshot=" + png,
        html_path, out, dir_);
    int rc = std::system(command.c_str());
    EXPECT_EQ(rc, 0) << command << "\n" << ReadAll(dir_ + "/stderr.log");
    return png.empty() ? ReadAll(out) : "";
  }

  // The HTML report of a synthetic trace of |scenario| ("" when it could not be written).
  std::string SynthReportPage(const std::string& scenario, int steps) {
    std::string trace = dir_ + "/input.json";
    SynthOptions options;
    options.scenario = scenario;
    options.steps = steps;
    if (!WriteSyntheticTrace(options, trace).ok()) return "";
    return HtmlReportOf(trace);
  }

  std::string dir_;
};

// Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what chromium writes) into RGB triples.
bool DecodePng(const std::string& png, std::vector<uint8_t>& rgb, uint32_t& width,
               uint32_t& height) {
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
           (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
  };
  if (png.size() < 33 || png.compare(1, 3, "PNG") != 0) return false;
  width = be32(16);
  height = be32(20);
  uint8_t depth = uint8_t(png[24]), colour = uint8_t(png[25]), interlace = uint8_t(png[28]);
  if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) return false;
  size_t channels = colour == 6 ? 4 : 3;
  std::string idat;
  for (size_t at = 8; at + 8 <= png.size();) {
    uint32_t length = be32(at);
    std::string type = png.substr(at + 4, 4);
    if (type == "IDAT") idat += png.substr(at + 8, length);
    at += 12 + length;
  }
  size_t stride = width * channels;
  std::vector<uint8_t> raw((stride + 1) * height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
      Z_OK)
    return false;
  std::vector<uint8_t> pixels(stride * height), prior(stride, 0);
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t* line = raw.data() + y * (stride + 1);
    uint8_t filter = line[0];
    uint8_t* cur = pixels.data() + y * stride;
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= channels ? cur[x - channels] : 0, b = prior[x],
          c = x >= channels ? prior[x - channels] : 0;
      int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      int predictor = filter == 1   ? a
                      : filter == 2 ? b
                      : filter == 3 ? (a + b) / 2
                      : filter == 4 ? (pa <= pb && pa <= pc ? a
                                       : pb <= pc           ? b
                                                            : c)
                                    : 0;
      cur[x] = uint8_t(line[1 + x] + predictor);
    }
    std::copy(cur, cur + stride, prior.begin());
  }
  rgb.clear();
  for (size_t i = 0; i < pixels.size(); i += channels)
    rgb.insert(rgb.end(), pixels.begin() + i, pixels.begin() + i + 3);
  return true;
}

TEST_F(HtmlBrowserTest, ReportRendersWithFindingsAndCharts) {
  std::string trace = dir_ + "/input.json";
  SynthOptions options;
  options.scenario = "input-bound";
  options.steps = 12;
  ASSERT_TRUE(WriteSyntheticTrace(options, trace).ok());
  std::string page = dir_ + "/report.html";
  WriteFile(page, HtmlReportOf(trace));

  std::string dom = Chromium(page);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << dom.substr(0, 500);
  EXPECT_NE(dom.find(ScenarioExpectedFinding("input-bound")), std::string::npos);
  EXPECT_NE(dom.find("class=\"finding sev-"), std::string::npos);
  size_t svgs = 0;
  for (size_t at = dom.find("<svg"); at != std::string::npos; at = dom.find("<svg", at + 1)) ++svgs;
  EXPECT_GE(svgs, 4u);
  EXPECT_NE(dom.find("<polygon class=\"area\""), std::string::npos);  // utilization over time
  EXPECT_NE(dom.find("<h2>Checklist</h2>"), std::string::npos);

  std::string png = dir_ + "/shot.png";
  Chromium(page, png);
  std::vector<uint8_t> rgb;
  uint32_t width = 0, height = 0;
  ASSERT_TRUE(DecodePng(ReadAll(png), rgb, width, height)) << "not an 8-bit RGB(A) PNG: " << png;
  EXPECT_EQ(width, 1200u);
  // Not blank: many pixels differ from the white page, in more than a few colours.
  size_t non_white = 0;
  double sum = 0, sum_sq = 0;
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < rgb.size(); i += 3) {
    if (rgb[i] < 250 || rgb[i + 1] < 250 || rgb[i + 2] < 250) ++non_white;
    double lum = 0.299 * rgb[i] + 0.587 * rgb[i + 1] + 0.114 * rgb[i + 2];
    sum += lum;
    sum_sq += lum * lum;
    if (colours.size() < 1000) colours.insert((rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2]);
  }
  double n = static_cast<double>(rgb.size() / 3);
  double variance = sum_sq / n - (sum / n) * (sum / n);
  EXPECT_GT(non_white, rgb.size() / 3 / 50) << "under 2% of the pixels are drawn";
  EXPECT_GT(variance, 100.0);
  EXPECT_GT(colours.size(), 20u);
}

// Every text of every chart (axis titles, rotated bar labels, the heat map's colour scale) lies
// inside its SVG, as the browser lays it out. The kernel histogram clipped its y-axis title
// and its rotated duration labels, and the heat map had no colour scale.
TEST_F(HtmlBrowserTest, NoChartTextIsClipped) {
  std::string page = SynthReportPage("input-bound", 12);
  ASSERT_FALSE(page.empty());
  report::html::HeatMapChart heat;
  heat.title = "Arrival after the first rank, per collective (µs)";
  heat.unit = "µs";
  heat.column_title = "matched collective, in order of first arrival (from #0)";
  for (int r = 0; r < 8; ++r) {
    heat.row_labels.push_back(fmt::format("rank {}", r));
    std::vector<double> row;
    for (int c = 0; c < 120; ++c) row.push_back(r == 3 ? NAN : (r * 37 + c * 11) % 900);
    heat.values.push_back(row);
  }
  for (int c = 0; c < 120; ++c)
    heat.column_labels.push_back(c % 12 == 0 ? fmt::format("#{}", c) : "");
  report::html::ColumnChart columns;
  columns.title = "Long labels";
  columns.y_unit = "kernels and copies";
  columns.x_title = "duration (each bar: from this value to the next)";
  columns.log_y = true;
  for (const char* label : {"0 ns", "1.0 µs", "10.0 µs", "100.0 µs", "1.000 ms", "10.000 ms",
                            "100.000 ms", "1,000.000 ms"}) {
    columns.labels.push_back(label);
    columns.values.push_back(12345);
  }
  // The measuring script is the test's own: the page's policy (no inline script but its own)
  // is taken out of this copy.
  ASSERT_TRUE(DropContentSecurityPolicy(page));
  const std::string measure = MeasureClippedTexts("svg");
  page.insert(page.rfind("</body>"),
              report::html::RenderHeatMap(heat) + report::html::RenderColumns(columns) + measure);
  std::string path = dir_ + "/measured.html";
  WriteFile(path, page);
  std::string dom = Chromium(path);
  const auto attribute = [&](std::string_view name) { return Attribute(dom, name); };
  EXPECT_EQ(attribute("data-clipped"), "");
  EXPECT_GT(std::stoi("0" + attribute("data-measured")), 40);
  EXPECT_NE(dom.find("class=\"scale\""), std::string::npos);  // the heat map's colour scale
}

// An allocator snapshot's page: the memory timeline is laid out by the browser with its peak,
// every text of its chart inside the SVG, and no trace section around it.
TEST_F(HtmlBrowserTest, SnapshotMemoryTimelineRendersUnclipped) {
  std::vector<RankReport> ranks;
  ranks.push_back(ReportMemorySnapshot(SyntheticStepSnapshot(40, 2048, 300, 16384), {}));
  std::string page = RenderReportHtml(ranks, {});
  ASSERT_TRUE(DropContentSecurityPolicy(page));
  page.insert(page.rfind("</body>"), MeasureClippedTexts("figure.memory-timeline svg"));
  std::string path = dir_ + "/snapshot.html";
  WriteFile(path, page);
  std::string dom = Chromium(path);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << dom.substr(0, 500);
  EXPECT_NE(dom.find("<h2>Memory timeline</h2>"), std::string::npos);
  EXPECT_NE(dom.find("<circle class=\"peak\""), std::string::npos);
  EXPECT_EQ(dom.find("<h2>Step time breakdown</h2>"), std::string::npos);
  EXPECT_NE(dom.find("data-clipped=\"\""), std::string::npos)
      << dom.substr(dom.find("data-clipped"), 300);
  EXPECT_NE(dom.find("data-measured=\"1"), std::string::npos);  // 10 and more texts measured
}

TEST_F(HtmlBrowserTest, HostileNamesNeverRunScript) {
  std::string trace = dir_ + "/hostile.json";
  WriteFile(trace, HostileTrace());
  std::string page = dir_ + "/hostile.html";
  WriteFile(page, HtmlReportOf(trace));
  std::string dom = Chromium(page);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << dom.substr(0, 500);
  // The names are on the page as text...
  EXPECT_NE(dom.find("&lt;script&gt;document.body.setAttribute"), std::string::npos);
  // ...and neither payload ran: the attribute they set is absent, no <img> element exists.
  EXPECT_EQ(dom.find("data-pwned=\""), std::string::npos);
  EXPECT_EQ(dom.find("<img"), std::string::npos);
  // The page's own script did run: the sortable tables still work is left to the eye, but
  // the DOM shows the tables rendered.
  EXPECT_NE(dom.find("<table class=\"sortable\">"), std::string::npos);
}

// In a narrow window (a notebook cell): the page keeps its width, wide tables scroll inside
// their own box, and no word of a table's text is cut across two lines; only long ids (kernel
// names, paths) may break anywhere.
TEST_F(HtmlBrowserTest, NarrowWindowScrollsTablesAndKeepsWordsWhole) {
  std::string page = SynthReportPage("launch-bound", 6);
  ASSERT_TRUE(DropContentSecurityPolicy(page));
  page.insert(page.rfind("</body>"), R"(<script>
    let broken = [], words = 0, scrolling = 0;
    for (const cell of document.querySelectorAll('td.name:not(.id), th')) {
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node; (node = walk.nextNode());) {
        for (const m of node.data.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          ++words;
          const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
          if (tops.size > 1) broken.push(m[0]);
        }
      }
    }
    for (const box of document.querySelectorAll('.table-scroll'))
      scrolling += box.scrollWidth > box.clientWidth + 1;
    document.body.setAttribute('data-words', words);
    document.body.setAttribute('data-broken', broken.join(' | '));
    document.body.setAttribute('data-scrolling', scrolling);
    document.body.setAttribute('data-overflow',
        document.documentElement.scrollWidth - document.documentElement.clientWidth);
  </script>)");
  std::string path = dir_ + "/narrow.html";
  WriteFile(path, page);
  std::string dom = Chromium(path, "", 520);
  const auto attribute = [&](std::string_view name) { return Attribute(dom, name); };
  EXPECT_EQ(attribute("data-broken"), "");
  EXPECT_GT(std::stoi("0" + attribute("data-words")), 50);
  EXPECT_GE(std::stoi("0" + attribute("data-scrolling")), 1);  // the kernel table, 9 columns
  EXPECT_LE(std::stoi("0" + attribute("data-overflow")), 0) << "the page is wider than the window";
}

}  // namespace html_browser_test
}  // namespace gpuwhy
