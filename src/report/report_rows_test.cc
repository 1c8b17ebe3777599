// Which per-step and per-device rows a report lists past its caps (report_rows.h).
#include "report/report_rows.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace gpuwhy::report {
namespace report_rows_test {

// `count` steps numbered from 1, each 10 ms, except the `slow` ones (by position) at 50 ms.
StepBreakdownResult Steps(size_t count, const std::vector<size_t>& slow = {}) {
  StepBreakdownResult r;
  for (size_t i = 0; i < count; ++i) {
    StepCosts step;
    step.number = static_cast<int64_t>(i) + 1;
    step.total_ns = 10'000'000;
    r.steps.push_back(step);
  }
  for (size_t i : slow) r.steps[i].total_ns = 50'000'000;
  return r;
}

TEST(ReportRowsTest, StepsUnderTheCapAreAllListed) {
  StepRows rows = SelectStepRows(Steps(kMaxStepRows));
  EXPECT_EQ(rows.left_out, 0u);
  EXPECT_TRUE(rows.Keeps(kMaxStepRows - 1));
  EXPECT_TRUE(rows.KeepsNumber(123456));  // no cap: every metric is kept
}

TEST(ReportRowsTest, PastTheCapEndsSlowestAndAnEvenSampleAreListed) {
  const size_t count = 5000;
  const std::vector<size_t> slow = {1000, 2345, 4000};
  StepRows rows = SelectStepRows(Steps(count, slow));
  EXPECT_EQ(rows.total, count);
  EXPECT_EQ(rows.left_out, count - kMaxStepRows);
  EXPECT_EQ(std::count(rows.kept.begin(), rows.kept.end(), true),
            static_cast<std::ptrdiff_t>(kMaxStepRows));
  for (size_t i = 0; i < kStepRowsAtEachEnd; ++i) {
    EXPECT_TRUE(rows.Keeps(i)) << i;
    EXPECT_TRUE(rows.Keeps(count - 1 - i)) << i;
  }
  for (size_t i : slow) {
    EXPECT_TRUE(rows.Keeps(i)) << i;
    EXPECT_TRUE(rows.KeepsNumber(static_cast<int64_t>(i) + 1)) << i;
  }
  // The sample spreads over the middle: no stretch of 20 middle steps goes unlisted.
  size_t run = 0, longest = 0;
  for (size_t i = kStepRowsAtEachEnd; i + kStepRowsAtEachEnd < count; ++i) {
    run = rows.Keeps(i) ? 0 : run + 1;
    longest = std::max(longest, run);
  }
  EXPECT_LT(longest, 20u);
  EXPECT_EQ(rows.kept_numbers.size(), kMaxStepRows);
  ReportRows all{rows, {}};
  EXPECT_TRUE(all.Capped());
  EXPECT_NE(all.Why().find("4000 of 5000 steps are not listed"), std::string::npos) << all.Why();
}

TEST(ReportRowsTest, ExcludedStepNumbersPastTheCapAreCounted) {
  StepBreakdownResult r = Steps(3);
  for (int64_t n = 0; n < static_cast<int64_t>(kMaxStepRows) + 7; ++n)
    r.extents.excluded.push_back(n);
  StepRows rows = SelectStepRows(r);
  EXPECT_EQ(rows.left_out, 0u);
  EXPECT_EQ(rows.excluded_left_out, 7u);
}

// `active` devices that ran GPU ops (device d busy d ms) and `idle` that ran none.
struct Devices {
  RankHeader header;
  TraceAnalysis analysis;
};
Devices MakeDevices(int32_t active, int32_t idle) {
  Devices d;
  for (int32_t id = 0; id < active + idle; ++id) {
    d.header.devices.push_back({id, "", kNoValue, id < active});
    if (id < active) {
      DeviceUtilization u;
      u.device = id;
      u.share.gpu_op_busy_ns = 1'000'000LL * id;
      d.analysis.utilization.per_device.push_back(u);
    }
  }
  return d;
}

TEST(ReportRowsTest, DevicesUnderTheCapAreAllListed) {
  Devices d = MakeDevices(8, 56);
  DeviceRows rows = SelectDeviceRows(d.header, d.analysis);
  EXPECT_EQ(rows.left_out, 0u);
  EXPECT_TRUE(rows.Keeps(63));
}

TEST(ReportRowsTest, PastTheCapIdleDevicesAreCountedNotListed) {
  Devices d = MakeDevices(10, 100);
  DeviceRows rows = SelectDeviceRows(d.header, d.analysis);
  EXPECT_EQ(rows.kept.size(), 10u);
  EXPECT_EQ(rows.left_out, 100u);
  EXPECT_EQ(rows.idle_left_out, 100u);
  EXPECT_TRUE(rows.Keeps(9));
  EXPECT_FALSE(rows.Keeps(10));
}

TEST(ReportRowsTest, PastTheCapTheBusiestAndLeastBusyAreListed) {
  Devices d = MakeDevices(1000, 5);
  ReportRows rows = SelectReportRows(d.header, d.analysis);
  EXPECT_EQ(rows.devices.kept.size(), kMaxDeviceRows);
  EXPECT_EQ(rows.devices.left_out, 1005 - kMaxDeviceRows);
  EXPECT_EQ(rows.devices.idle_left_out, 5u);
  EXPECT_TRUE(rows.devices.Keeps(0));
  EXPECT_TRUE(rows.devices.Keeps(999));
  EXPECT_FALSE(rows.devices.Keeps(500));
  Metric rank_wide{"util.kernel_pct", MetricScope::Rank(), 1, "%"};
  Metric listed{"util.kernel_pct", MetricScope::Device(999), 1, "%"};
  Metric not_listed{"util.kernel_pct", MetricScope::Device(500), 1, "%"};
  EXPECT_TRUE(rows.KeepsMetric(rank_wide));
  EXPECT_TRUE(rows.KeepsMetric(listed));
  EXPECT_FALSE(rows.KeepsMetric(not_listed));
}

}  // namespace report_rows_test
}  // namespace gpuwhy::report
