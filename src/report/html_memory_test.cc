// The HTML memory timeline: a million-entry snapshot and a million-row memory timeline give
// pages under a fixed bound that show their peak; every real snapshot draws the peak the
// analyses compute; a trace with [memory] events gets the section; every page is well-formed.
#include <unistd.h>

#include <filesystem>
#include <regex>

#include <gtest/gtest.h>

#include "analyze/allocator_state.h"
#include "analyze/memory_timeline_stats.h"
#include "ingest/memory/snapshot_importer.h"
#include "pipeline/pipeline.h"
#include "report/html_test_util.h"
#include "report/text_format.h"
#include "synth/memory_steps.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace html_memory_test {

namespace fs = std::filesystem;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr size_t kPageBound = 1u << 20;  // 1 MiB, whatever the input's length

// Tags open and close in order (void elements and <x/> aside; script and style skipped): the
// page parses as the tree it was written as.
std::string TagBalance(const std::string& html) {
  static const std::vector<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link"};
  std::vector<std::string> open;
  for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    if (html.compare(at, 2, "<!") == 0) continue;
    const size_t end = html.find('>', at);
    if (end == std::string::npos) return "unclosed tag at byte " + std::to_string(at);
    const bool closing = html[at + 1] == '/';
    const size_t name_start = at + (closing ? 2 : 1);
    size_t name_end = name_start;
    while (name_end < end && (std::isalnum(static_cast<unsigned char>(html[name_end])) != 0))
      ++name_end;
    const std::string name = html.substr(name_start, name_end - name_start);
    if (name.empty()) return "empty tag name at byte " + std::to_string(at);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> at byte " + std::to_string(at) + " closes <" +
               (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    } else if (html[end - 1] != '/' && std::find(kVoid.begin(), kVoid.end(), name) == kVoid.end()) {
      open.push_back(name);
      if (name == "script" || name == "style") {
        at = html.find("</" + name + ">", end);
        if (at == std::string::npos) return "unclosed <" + name + ">";
        --at;  // the loop's find lands on this closing tag
      }
    }
    at = std::max(at, end - 1);
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

// Every figure's data-peak-bytes, in page order.
std::vector<int64_t> DrawnPeaks(const std::string& html) {
  std::vector<int64_t> out;
  const std::regex peak("data-peak-bytes=\"(-?[0-9]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), peak); it != std::sregex_iterator();
       ++it)
    out.push_back(std::stoll((*it)[1].str()));
  return out;
}

std::string Render(RankReport rank) {
  std::vector<RankReport> ranks;
  ranks.push_back(std::move(rank));
  return RenderReportHtml(ranks, {});
}

// A million trace entries: 1 MiB alloc/free pairs from 500 sites (file:line:function frames),
// a 3 GiB spike from one site in the middle, a segment_alloc/free pair every 5,000 entries and
// 250 OOMs. One segment of 4 GiB holds 512 MiB at the snapshot.
MemorySnapshot MillionEntrySnapshot() {
  MemorySnapshot s;
  s.path = "million.pickle";
  for (int i = 0; i < 500; ++i) {
    s.frames.push_back({s.strings.Intern("layer" + std::to_string(i)),
                        s.strings.Intern("model/<block>&.py"), 10 + i});
    s.stack_frames.push_back(static_cast<uint32_t>(i));
    s.stack_offsets.push_back(static_cast<uint32_t>(i));
  }
  s.stack_offsets.push_back(500);
  constexpr size_t kEntries = 1'000'000;
  s.trace.reserve(kEntries);
  const auto add = [&](TimeNs t, MemoryAction a, int64_t addr, int64_t size, StackId stack) {
    MemoryTraceEntry e;
    e.time = t;
    e.action = a;
    e.address = addr;
    e.size = size;
    e.stack = stack;
    s.trace.push_back(e);
  };
  int ooms = 0;
  for (int64_t i = 0; s.trace.size() < kEntries; ++i) {
    const TimeNs t = 2000 * i;
    const StackId stack = static_cast<StackId>((i / 2) % 500);
    if (i == 250'001) {
      add(t, MemoryAction::kAlloc, 1, 3 * kGiB, 7);
      add(t + 1, MemoryAction::kFreeCompleted, 1, 3 * kGiB, kNoStack);
    } else if (i % 5000 == 2) {
      add(t, MemoryAction::kSegmentAlloc, i, 20 * kMiB, kNoStack);
      add(t + 1, MemoryAction::kSegmentFree, i, 20 * kMiB, kNoStack);
    } else if (i % 1999 == 0 && ooms < 250) {
      add(t, MemoryAction::kOom, kNoValue, 8 * kGiB, stack);
      ++ooms;
    }
    add(t + 10, MemoryAction::kAlloc, 1000 + i, kMiB, stack);
    add(t + 20, MemoryAction::kFreeCompleted, 1000 + i, kMiB, kNoStack);
  }
  MemorySegment seg;
  seg.total_size = 4 * kGiB;
  seg.allocated_size = 512 * kMiB;
  s.segments.push_back(seg);
  s.layout.device_traces = true;
  return s;
}

TEST(HtmlMemoryTest, AMillionEntrySnapshotGivesABoundedPageWithItsPeak) {
  const MemorySnapshot s = MillionEntrySnapshot();
  ASSERT_GE(s.trace.size(), 1'000'000u);
  RankReport rank = ReportMemorySnapshot(s, DiagnoseOptions{});
  ASSERT_EQ(rank.memory_series.devices.size(), 1u);
  const DeviceMemorySeriesResult& d = rank.memory_series.devices[0];
  const int64_t peak = AnalyzeAllocatorState(s).peak_allocated;
  EXPECT_EQ(d.peak_allocated, peak);
  EXPECT_EQ(d.peak_allocated, 512 * kMiB + 3 * kGiB);
  const std::string html = Render(std::move(rank));
  RecordProperty("page_bytes", std::to_string(html.size()));
  EXPECT_LT(html.size(), kPageBound);
  EXPECT_EQ(TagBalance(html), "");
  EXPECT_NE(html.find("<h2>Memory timeline</h2>"), std::string::npos);
  ASSERT_EQ(DrawnPeaks(html), std::vector<int64_t>{peak});
  EXPECT_NE(html.find(">peak " + report::Bytes(static_cast<double>(peak)) + "<"),
            std::string::npos);
  // OOMs drawn up to the bound, segment events as strips, the peak's sites escaped.
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') < 2000, true);
  size_t oom_lines = 0;
  for (size_t at = html.find("<line class=\"oom\""); at != std::string::npos;
       at = html.find("<line class=\"oom\"", at + 1))
    ++oom_lines;
  EXPECT_EQ(oom_lines, kMemoryMarkerLimit);
  EXPECT_NE(html.find("the first 200 OOMs drawn one by one"), std::string::npos);
  EXPECT_NE(html.find("segment_alloc per bucket"), std::string::npos);
  EXPECT_NE(html.find("model/&lt;block&gt;&amp;.py:17:layer7"), std::string::npos);
  EXPECT_EQ(html.find("<block>"), std::string::npos);
  EXPECT_NE(html.find("GiB</text>"), std::string::npos);  // the y axis' unit
  EXPECT_NE(html.find("time (ms) from the first event"), std::string::npos);
}

TEST(HtmlMemoryTest, AMillionRowTimelineGivesABoundedPageWithItsPeak) {
  MemoryTimeline t = SyntheticStepTimeline(333'333, 100, 1);  // three rows a step
  ASSERT_GE(t.size(), 1'000'000u);
  const int64_t peak = AnalyzeMemoryTimeline(t).peak_bytes;
  const std::string html = Render(ReportMemoryTimeline(t, DiagnoseOptions{}));
  RecordProperty("page_bytes", std::to_string(html.size()));
  EXPECT_LT(html.size(), kPageBound);
  EXPECT_EQ(TagBalance(html), "");
  EXPECT_EQ(DrawnPeaks(html), std::vector<int64_t>{peak});
  EXPECT_NE(html.find(">peak " + report::Bytes(static_cast<double>(peak)) + "<"),
            std::string::npos);
  EXPECT_NE(html.find("live at the peak"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"name\">activation</td>"), std::string::npos);
}

// A synthetic trace writes [memory] events: the section replaces the old bucket chart.
TEST(HtmlMemoryTest, ATraceWithMemoryEventsGetsTheTimeline) {
  const std::string path =
      (fs::temp_directory_path() / ("gpuwhy_html_memory_" + std::to_string(::getpid()) + ".json"))
          .string();
  SynthOptions options;
  options.scenario = "healthy";
  options.steps = 8;
  ASSERT_TRUE(WriteSyntheticTrace(options, path).ok());
  StatusOr<Trace> trace = ImportTraceFile(path);
  fs::remove(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  RankReport rank{SummarizeTraceHeader(*trace), AnalyzeTrace(*trace), {}};
  rank.memory_series = ComputeTraceMemorySeries(*trace);
  ASSERT_FALSE(rank.memory_series.devices.empty());
  const MemoryUsageResult usage = rank.analysis.memory;
  const std::string html = Render(std::move(rank));
  EXPECT_EQ(TagBalance(html), "");
  const std::vector<int64_t> peaks = DrawnPeaks(html);
  ASSERT_EQ(peaks.size(), usage.devices.size());
  for (size_t i = 0; i < peaks.size(); ++i) EXPECT_EQ(peaks[i], usage.devices[i].peak_allocated);
  EXPECT_NE(html.find("time (ms) from the trace start"), std::string::npos);
  EXPECT_EQ(html.find("allocated (area) and reserved (line) over time"), std::string::npos);
}

// Every real snapshot: the drawn peak is the series' and, on one device, the allocator state's.
TEST(HtmlMemoryTest, RealSnapshotsDrawThePeakTheAnalysisFinds) {
  const fs::path dir = fs::path(GPUWHY_SHARED_DATA) / "memory" / "snapshots";
  if (!fs::exists(dir)) GTEST_SKIP() << "no " << dir << " (the shared data set)";
  size_t checked = 0;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    StatusOr<MemorySnapshot> s = ImportMemorySnapshot(file.string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    RankReport rank = ReportMemorySnapshot(*s, DiagnoseOptions{});
    const MemorySeriesResult series = rank.memory_series;
    const std::string html = Render(std::move(rank));
    EXPECT_EQ(TagBalance(html), "") << file;
    EXPECT_LT(html.size(), kPageBound) << file;
    const std::vector<int64_t> peaks = DrawnPeaks(html);
    ASSERT_EQ(peaks.size(), series.devices.size()) << file;
    for (size_t i = 0; i < peaks.size(); ++i) {
      EXPECT_EQ(peaks[i], series.devices[i].peak_allocated) << file;
    }
    if (series.devices.size() == 1) {
      EXPECT_EQ(peaks[0], AnalyzeAllocatorState(*s).peak_allocated) << file;
      ++checked;
    }
  }
  EXPECT_GE(checked, 5u) << "snapshots with a one-device trace";
}

}  // namespace html_memory_test
}  // namespace gpuwhy
