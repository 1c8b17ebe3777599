#include "analyze/idle_host_sets.h"

#include <gtest/gtest.h>

#include "analyze/step_idle_test_util.h"

namespace gpuwhy {
namespace idle_host_sets_test {

using step_idle_test::TinyTrace;
using V = std::vector<Interval>;

constexpr TimeNs S = kNsPerSec;

IdleHostSets Build(const Trace& trace) {
  return BuildIdleHostSets(trace, ClassifyHostActivity(trace));
}

TEST(IdleHostSetsTest, BusyAndLaunchSetsAreTheUnionOverThreads) {
  constexpr TimeNs U = kNsPerUs;  // launch runs bridge holes of up to 20 µs
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  ThreadId other = t.Thread(2);
  // Main thread: a nested op around two launches 5 µs apart (one bridged run), then a
  // launch of its own; a second thread launches in between.
  t.Op("aten::mm", 0, 100);
  t.Op("aten::addmm", 10, 60);
  t.Kernel(20, 30, 30, 40);
  t.Kernel(35, 50, 50, 60);
  t.Launch(other, "cudaLaunchKernel", 90, 120, GpuOpKind::kKernel, "k2", 120, 130);
  t.Kernel(500, 510, 510, 520);
  IdleHostSets sets = Build(t.Finish());
  EXPECT_EQ(sets.busy.intervals(), (V{{0, 120 * U}, {500 * U, 510 * U}}));
  // Launch runs [20,50) and [90,120) and [500,510); aten::mm dispatches them: [0,100).
  EXPECT_EQ(sets.launch.intervals(), (V{{0, 120 * U}, {500 * U, 510 * U}}));
  EXPECT_TRUE(sets.input.empty());
  ASSERT_EQ(sets.segments.size(), 2u);
}

TEST(IdleHostSetsTest, SegmentsOfAnOpLongerThanTheirLengthFieldAreSplit) {
  TinyTrace t;
  t.Step(1, 0, 20 * S);
  t.Kernel(0, 10, 10, 20);
  t.Op("aten::long_cpu_op", 100, 100 + 10 * S);
  t.Op("aten::inner", 1 * S, 2 * S);
  t.Kernel(11 * S, 11 * S + 10, 11 * S + 10, 11 * S + 20);
  const Trace& trace = t.Finish();
  IdleHostSets sets = Build(trace);
  ASSERT_EQ(sets.segments.size(), 1u);
  const std::vector<HostSegment>& segs = sets.segments[0];
  // Disjoint, sorted, none longer than the field holds, and the 8 s after aten::inner split.
  for (size_t i = 0; i < segs.size(); ++i) {
    EXPECT_GT(segs[i].length, 0u);
    if (i > 0) {
      EXPECT_LE(segs[i - 1].end(), segs[i].start);
    }
  }
  size_t long_pieces = 0;
  for (const HostSegment& s : segs)
    long_pieces += trace.Str(trace.cpu_slices.name[s.row]) == "aten::long_cpu_op";
  EXPECT_EQ(long_pieces, 3u);  // [100, 1 s), then 8 s as 4.29 s + 3.71 s

  std::unordered_map<uint32_t, DurationNs> by_name;
  AccumulateHostNames(trace, sets.segments, IntervalSet::FromUnsorted({{0, 20 * S}}), by_name);
  auto ns_of = [&](const char* name) {
    for (const auto& [id, ns] : by_name)
      if (trace.Str(StringId(id)) == name) return ns;
    return DurationNs{-1};
  };
  EXPECT_EQ(ns_of("aten::long_cpu_op"), 9 * S);
  EXPECT_EQ(ns_of("aten::inner"), 1 * S);
  // A window across the point where the 8 s piece is split.
  by_name.clear();
  const TimeNs split = 2 * S + kMaxHostSegmentNs;
  AccumulateHostNames(trace, sets.segments, IntervalSet::FromUnsorted({{split - 7, split + 5}}),
                      by_name);
  EXPECT_EQ(ns_of("aten::long_cpu_op"), 12);
  EXPECT_EQ(by_name.size(), 1u);
}

}  // namespace idle_host_sets_test
}  // namespace gpuwhy
