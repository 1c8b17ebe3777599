// Concatenated captures repeat step numbers (ProfilerStep#1..N, then #1..N again). A
// collective's "before" window must start at the step that holds it, found by position: a
// lookup by number finds the first copy's step, reaching back over every copy in between.
// The trace is three copies of `gpuwhy synth --scenario comm-exposed` (synth/repeat_trace.h).
// Two oracles: each copy's collectives carry the single capture's values (copies are the
// same events shifted by a known time), and every value is recomputed here by brute force
// (scan every step for the one holding the arrival, clip the interval sets to the window).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "analyze/analysis.h"
#include "ingest/importer.h"
#include "ranks/cross_rank.h"
#include "ranks/rank_summary.h"
#include "synth/repeat_trace.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace repeated_steps_test {

namespace fs = std::filesystem;

struct Analysed {
  Trace trace;
  TraceAnalysis analysis;
  RankSummary summary;
};

std::unique_ptr<Analysed> Analyse(const std::string& path) {
  StatusOr<Trace> trace = ImportTraceFile(path);
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  if (!trace.ok()) return nullptr;
  auto out = std::make_unique<Analysed>();
  out->trace = std::move(*trace);
  out->analysis = AnalyzeTrace(out->trace);
  out->summary = SummarizeRank(out->trace, out->analysis);
  return out;
}

const IntervalSet* InputWait(const TraceAnalysis& a, int32_t device) {
  for (const DeviceIdleGaps& d : a.idle_gaps.devices) {
    if (d.device == device) return &d.by_cause[static_cast<size_t>(IdleCause::kInputWait)];
  }
  return nullptr;
}

class RepeatedStepsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "gpuwhy_repeat_XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    SynthOptions options;
    options.scenario = "comm-exposed";
    options.steps = 6;
    std::string single = dir_ + "/single.json";
    ASSERT_TRUE(WriteSyntheticTrace(options, single).ok());
    RepeatTraceOptions repeat;
    repeat.copies = 3;
    std::string repeated = dir_ + "/repeated.json";
    Status status = WriteRepeatedTrace(single, repeated, repeat, &repeat_);
    ASSERT_TRUE(status.ok()) << status.message();
    single_ = Analyse(single).release();
    repeated_ = Analyse(repeated).release();
  }
  static void TearDownTestSuite() {
    delete single_;
    delete repeated_;
    fs::remove_all(dir_);
  }
  static inline std::string dir_;
  static inline RepeatTraceSummary repeat_;
  static inline Analysed* single_ = nullptr;
  static inline Analysed* repeated_ = nullptr;
};

TEST_F(RepeatedStepsTest, StepNumbersRepeat) {
  ASSERT_NE(repeated_, nullptr);
  EXPECT_EQ(repeat_.copies, 3);
  std::multiset<int64_t> numbers;
  for (const RankStepTiming& s : repeated_->summary.steps) numbers.insert(s.number);
  ASSERT_FALSE(numbers.empty());
  EXPECT_GE(numbers.count(3), 3u) << "each copy keeps ProfilerStep#3";
}

TEST_F(RepeatedStepsTest, EveryCopyCarriesTheSingleCapturesBeforeTimes) {
  ASSERT_NE(single_, nullptr);
  ASSERT_NE(repeated_, nullptr);
  const TimeNs shift = repeat_.shift_us * kNsPerUs;
  size_t compared = 0;
  for (const RankCollectiveTiming& x : single_->summary.collectives) {
    if (x.step == kNoValue) continue;  // a warm-up step's collective: no window
    for (int copy = 0; copy < repeat_.copies; ++copy) {
      const RankCollectiveTiming* found = nullptr;
      for (const RankCollectiveTiming& c : repeated_->summary.collectives) {
        if (c.device == x.device && c.start == x.start + copy * shift) found = &c;
      }
      ASSERT_NE(found, nullptr) << "copy " << copy << " of the collective at " << x.start;
      if (found->step == kNoValue) continue;  // the last copy's tail step may be left out
      EXPECT_EQ(found->step, x.step);
      EXPECT_EQ(found->compute_before_ns, x.compute_before_ns) << "copy " << copy;
      EXPECT_EQ(found->input_wait_before_ns, x.input_wait_before_ns) << "copy " << copy;
      ++compared;
    }
  }
  EXPECT_GE(compared, 10u);
  // The single capture has real values to compare: compute and input wait before arrival.
  bool any_wait = false;
  for (const RankCollectiveTiming& x : single_->summary.collectives)
    any_wait = any_wait || x.input_wait_before_ns > 0;
  EXPECT_TRUE(any_wait);
}

TEST_F(RepeatedStepsTest, BeforeTimesMatchABruteForceRecount) {
  ASSERT_NE(repeated_, nullptr);
  const TraceAnalysis& a = repeated_->analysis;
  size_t checked = 0;
  for (const RankCollectiveTiming& c : repeated_->summary.collectives) {
    const StepExtent* holding = nullptr;
    for (const StepExtent& s : a.steps.extents.steps) {
      if (s.window.start <= c.start && c.start < s.window.end) holding = &s;
    }
    if (holding == nullptr) {
      EXPECT_EQ(c.step, kNoValue);
      continue;
    }
    EXPECT_EQ(c.step, holding->number);
    Interval before{holding->window.start, c.start};
    const IntervalSet& computation = a.timelines.by_device.at(c.device).computation;
    EXPECT_EQ(c.compute_before_ns, computation.Clip(before).TotalLength()) << c.start;
    const IntervalSet* wait = InputWait(a, c.device);
    ASSERT_NE(wait, nullptr);
    EXPECT_EQ(c.input_wait_before_ns, wait->Clip(before).TotalLength()) << c.start;
    ++checked;
  }
  EXPECT_GE(checked, 15u);
}

// Matched across ranks, each arrival is measured from the step that holds it: with numbers
// repeating, the step found by number was another copy's (after the arrival, or long before).
// Two ranks of the same repeated capture; the oracle is the brute-force holding step.
TEST_F(RepeatedStepsTest, CrossRankArrivalsCountFromTheStepThatHoldsThem) {
  ASSERT_NE(repeated_, nullptr);
  RankSummary rank0 = repeated_->summary;
  RankSummary rank1 = repeated_->summary;
  rank0.rank = 0;
  rank1.rank = 1;
  rank0.world_size = rank1.world_size = 2;
  CrossRankResult job = AnalyzeCrossRank({rank0, rank1}, {});
  ASSERT_FALSE(job.collectives.empty());
  std::set<TimeNs> step_starts_seen;
  size_t checked = 0;
  for (const MatchedCollective& m : job.collectives) {
    for (const CollectiveArrival& a : m.arrivals) {
      const RankStepTiming* holding = nullptr;
      for (const RankStepTiming& s : repeated_->summary.steps) {
        if (s.start <= a.arrival && a.arrival < s.end) holding = &s;
      }
      if (holding == nullptr || m.step == kNoValue) continue;
      EXPECT_EQ(a.step_start, holding->start) << "step " << m.step << " arrival " << a.arrival;
      step_starts_seen.insert(a.step_start);
      ++checked;
    }
  }
  EXPECT_GE(checked, 20u);
  // Every copy's steps are used, not one copy's for all three.
  EXPECT_GE(step_starts_seen.size(), 3u * 4u);
}

}  // namespace repeated_steps_test
}  // namespace gpuwhy
