// The recording reader on hand-made bytes: counts, indices and times from the file are checked
// before they are used (a count is bounded by the bytes left, a NaN is never cast, deltas that
// sum past int64 are refused), versions 1 and 2 read, blocks of one series append, and a
// recording cut at any byte keeps what came before the cut.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/varint.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {
namespace recording_reader_test {

// "series ..." then |times| (as the writer's deltas) and |values|.
std::string Block(std::string_view header, const std::vector<int64_t>& deltas,
                  const std::vector<double>& values) {
  std::string out = std::string(header) + "\n";
  for (int64_t d : deltas) AppendZigzag(out, d);
  for (double v : values) AppendDouble(out, v);
  return out;
}

const std::string kHead = "gpuwhy-recording 2\nsource test\ninterval_ns 100000000\n";
const std::string kGood = Block("series gpu.util_pct\t0\t\t%\t\t2", {1000, 5}, {10, 20});

TEST(RecordingReaderTest, ACountTheBytesCannotHoldIsRefusedBeforeAnythingIsReserved) {
  // 1e17 samples would reserve 800 PB (bad_alloc before); "nan" and "inf" were cast to size_t.
  for (const char* count : {"100000000000000000", "nan", "inf", "-1", "1e9", "3"}) {
    std::string bytes =
        kHead + kGood + "series gpu.util_pct\t1\t\t%\t\t" + count + "\n" + std::string(20, '\x01');
    StatusOr<MetricSeriesSet> set = ParseRecording(bytes, "lie");
    ASSERT_TRUE(set.ok()) << count << ": " << set.status().message();
    EXPECT_EQ(set->sample_count(), 2u) << count;
    EXPECT_EQ(set->problems.Get(DataProblem::kTruncated), 1) << count;
  }
}

TEST(RecordingReaderTest, IndicesAndHeaderNumbersOutOfRangeAreSkippedAndCounted) {
  std::string bytes = kHead + "device inf\tA\tB\tC\n" + "device nan\tA\tB\tC\n" +
                      "interval_ns 1e300\n" + "sampler_cpu_pct nan\n" +
                      "issue ring_overflow\t9223372036854775807\tx\n" +
                      "issue ring_overflow\t9223372036854775807\tx\n" + kGood +
                      Block("series gpu.util_pct\t4294967296\t\t%\t\t1", {1}, {1}) + "end\n";
  StatusOr<MetricSeriesSet> set = ParseRecording(bytes, "ranges");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_TRUE(set->devices.empty());
  EXPECT_EQ(set->nominal_interval_ns, 100000000);
  EXPECT_EQ(set->sampler_cpu_pct, -1);
  // The second count would overflow the total: refused, the first kept.
  EXPECT_EQ(set->problems.Get(DataProblem::kRingOverflow), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 5) << set->problems.Describe();
  // A device index beyond int32 is unreadable: the block's length is then unknown.
  EXPECT_EQ(set->problems.Get(DataProblem::kTruncated), 1);
  EXPECT_EQ(set->sample_count(), 2u);
}

TEST(RecordingReaderTest, TimeDeltasThatSumPastTheRangeSkipTheBlockAndReadOn) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  std::string bytes = kHead + Block("series a\t-1\t\t%\t\t2", {max, max}, {1, 2}) +
                      Block("series b\t-1\t\t%\t\t1", {-5}, {1}) + kGood + "end\n";
  StatusOr<MetricSeriesSet> set = ParseRecording(bytes, "overflow");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->Find("a"), nullptr);
  EXPECT_EQ(set->Find("b"), nullptr);
  EXPECT_EQ(set->problems.Get(DataProblem::kBadTimestamp), 2);
  EXPECT_EQ(set->problems.Get(DataProblem::kTruncated), 0);
  ASSERT_NE(set->Find("gpu.util_pct", 0), nullptr);
  EXPECT_EQ(set->Find("gpu.util_pct", 0)->time, (std::vector<TimeNs>{1000, 1005}));
  // Any two sample times subtract without overflow.
  EXPECT_LT(set->Span()->second, kRecordingMaxTimeNs);
}

TEST(RecordingReaderTest, ValuesThatAreNotFiniteAreSkippedAndCounted) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::string bytes =
      kHead + Block("series host.cpu_count\t-1\t\tcount\t\t3", {1, 1, 1}, {nan, inf, 2}) + "end\n";
  StatusOr<MetricSeriesSet> set = ParseRecording(bytes, "nan");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->Find("host.cpu_count")->value, (std::vector<double>{2}));
  EXPECT_EQ(set->problems.Get(DataProblem::kBadValue), 2);
}

TEST(RecordingReaderTest, BlocksOfOneSeriesAppendAndVersionOneStillReads) {
  std::string v2 = kHead + kGood + "issue ring_overflow\t2\tlost\n" +
                   Block("series gpu.util_pct\t0\t\t%\t\t1", {2000}, {30}) +
                   "issue ring_overflow\t3\tlost\n" + "end\n";
  StatusOr<MetricSeriesSet> set = ParseRecording(v2, "v2");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->Find("gpu.util_pct", 0)->time, (std::vector<TimeNs>{1000, 1005, 2000}));
  EXPECT_EQ(set->problems.Get(DataProblem::kRingOverflow), 5);
  // Version 1 (gpuwhy before incremental recordings) wrote one block per series.
  std::string v1 =
      "gpuwhy-recording 1\nsource gpuwhy run\ninterval_ns 100000000\n"
      "sampler_cpu_pct 0.2500\ndevice 0\tNVIDIA H100\tGPU-1\t00000000:17:00.0\n" +
      kGood + "end\n";
  set = ParseRecording(v1, "v1");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->sample_count(), 2u);
  EXPECT_EQ(set->devices.at(0).name, "NVIDIA H100");
  EXPECT_TRUE(set->problems.empty()) << set->problems.Describe();
  StatusOr<MetricSeriesSet> newer = ParseRecording("gpuwhy-recording 3\n" + kGood, "v3");
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("recording version 3"), std::string::npos);
}

TEST(RecordingReaderTest, ARecordingCutAtAnyByteKeepsTheBlocksBeforeTheCut) {
  std::string bytes = kHead + "note nvml: absent\n" + kGood +
                      Block("series gpu.util_pct\t0\t\t%\t\t1", {2000}, {30}) + "end\n";
  size_t previous = 0;
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    StatusOr<MetricSeriesSet> set = ParseRecording(bytes.substr(0, cut), "cut");
    if (!set.ok()) {
      EXPECT_EQ(previous, 0u) << cut;  // nothing before the first block
      continue;
    }
    EXPECT_GE(set->sample_count(), previous) << cut;
    previous = set->sample_count();
    EXPECT_EQ(set->problems.Get(DataProblem::kTruncated), cut == bytes.size() ? 0 : 1) << cut;
  }
  EXPECT_EQ(previous, 3u);
}

}  // namespace recording_reader_test
}  // namespace gpuwhy
