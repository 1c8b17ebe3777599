// gpuwhy annotate: the output is a trace gpuwhy reads back with no error stat and the same
// events, the added complete events nest properly on every track (Perfetto's rule), and the
// tracks carry the idle causes, steps, counters and the finding the generator injected.
#include "annotate/annotate.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "analyze/analysis.h"
#include "base/file_input.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"
#include "report/report.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace annotate_test {

namespace fs = std::filesystem;

std::string Decompressed(const std::string& path) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  EXPECT_TRUE(source.ok());
  std::string text, chunk(1 << 20, '\0');
  for (;;) {
    StatusOr<size_t> got = (*source)->Read(chunk.data(), chunk.size());
    if (!got.ok() || *got == 0) break;
    text.append(chunk.data(), *got);
  }
  return text;
}

struct Annotated {
  Trace original;
  Diagnosis diagnosis;
  std::string input;
  std::string output;
};

Annotated AnnotateScenario(const std::string& scenario) {
  fs::path dir = fs::temp_directory_path() / ("gpuwhy_annotate_" + std::to_string(getpid()));
  fs::create_directories(dir);
  Annotated a;
  a.input = (dir / (scenario + ".json")).string();
  a.output = (dir / (scenario + ".annotated.json.gz")).string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = 8;
  EXPECT_TRUE(WriteSyntheticTrace(options, a.input).ok());
  StatusOr<Trace> trace = ImportTraceFile(a.input);
  EXPECT_TRUE(trace.ok());
  TraceAnalysis analysis = AnalyzeTrace(*trace);
  a.diagnosis = Diagnose(*trace, analysis);
  Status written =
      WriteAnnotatedTrace(a.input, BuildAnnotationTracks(analysis, a.diagnosis), a.output);
  EXPECT_TRUE(written.ok()) << written.message();
  a.original = std::move(*trace);
  return a;
}

TEST(AnnotateTest, OutputReadsBackWithTheSameEventsAndNoErrorStat) {
  Annotated a = AnnotateScenario("input-bound");
  StatusOr<Trace> back = ImportTraceFile(a.output);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const RankHeader header = SummarizeTraceHeader(*back);
  EXPECT_EQ(header.problems.WorstSeverity(), ProblemSeverity::kInfo) << header.problems.Describe();
  EXPECT_EQ(back->gpu_ops.size(), a.original.gpu_ops.size());
  EXPECT_EQ(back->steps.size(), a.original.steps.size());
  // Original events are copied byte for byte: the first one of the input is in the output.
  std::string input = Decompressed(a.input);
  size_t open = input.find("{\"ph\"");
  if (open == std::string::npos) open = input.find("{", input.find("traceEvents"));
  std::string first_event = input.substr(open, input.find('}', open) - open + 1);
  EXPECT_NE(Decompressed(a.output).find(first_event), std::string::npos) << first_event;
}

TEST(AnnotateTest, AddedCompleteEventsNestOnEveryTrack) {
  Annotated a = AnnotateScenario("input-bound");
  simdjson::dom::parser parser;
  simdjson::padded_string json(Decompressed(a.output));
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS);
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, double>>> tracks;
  std::map<std::string, size_t> by_category;
  std::set<std::string> finding_names;
  for (simdjson::dom::element e : root["traceEvents"].get_array()) {
    int64_t pid = 0;
    if (e["pid"].get_int64().get(pid) != simdjson::SUCCESS || pid < kAnnotatePidBase) continue;
    std::string_view ph = e["ph"].get_string().value();
    std::string_view cat;
    if (e["cat"].get_string().get(cat) == simdjson::SUCCESS) ++by_category[std::string(cat)];
    if (ph != "X") continue;
    double ts = e["ts"].get_double().value(), dur = e["dur"].get_double().value();
    tracks[{pid, e["tid"].get_int64().value()}].push_back({ts, ts + dur});
    if (cat == "gpuwhy_finding") finding_names.insert(std::string(e["name"].get_string().value()));
  }
  ASSERT_FALSE(tracks.empty());
  // Perfetto's rule for complete events on one track: each is either after the open ones
  // end or inside the innermost one.
  for (auto& [track, events] : tracks) {
    std::sort(events.begin(), events.end());
    std::vector<double> open_ends;
    for (const auto& [start, end] : events) {
      while (!open_ends.empty() && open_ends.back() <= start) open_ends.pop_back();
      EXPECT_TRUE(open_ends.empty() || end <= open_ends.back())
          << "pid " << track.first << " tid " << track.second << " [" << start << ", " << end
          << ")";
      open_ends.push_back(end);
    }
  }
  EXPECT_GT(by_category["gpuwhy_idle"], 0u);
  EXPECT_GT(by_category["gpuwhy_step"], 0u);
  EXPECT_GT(by_category["gpuwhy_counter"], 0u);
  EXPECT_TRUE(finding_names.count(ScenarioExpectedFinding("input-bound")))
      << "no marker for the injected finding";
}

TEST(AnnotateTest, LanesSeparateOverlappingEvents) {
  std::vector<AddedEvent> events(3);
  events[0] = {'X', 1, 10, 0, 100, "a", "c", {}, {}};
  events[1] = {'X', 1, 10, 50, 100, "b", "c", {}, {}};  // overlaps a: next lane
  events[2] = {'X', 1, 10, 100, 10, "c", "c", {}, {}};  // after a ends: back in lane 0
  AssignLanes(events);
  EXPECT_EQ(events[0].tid, 10);
  EXPECT_EQ(events[1].tid, 11);
  EXPECT_EQ(events[2].tid, 10);
}

}  // namespace annotate_test
}  // namespace gpuwhy
