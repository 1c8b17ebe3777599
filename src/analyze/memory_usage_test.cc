#include "analyze/memory_usage.h"

#include <gtest/gtest.h>

#include "analyze/launch_test_util.h"

namespace gpuwhy {
namespace memory_usage_test {

using testing_util::TinyTrace;
constexpr TimeNs Us(int64_t us) { return UsToNs(us); }

void AddMemory(TinyTrace& t, TimeNs ts, int32_t device_type, int64_t allocated, int64_t reserved) {
  MemoryEventTable::Row row;
  row.ts = ts;
  row.device_type = device_type;
  row.device_id = 0;
  row.total_allocated = allocated;
  row.total_reserved = reserved;
  t.trace.memory_events.rows.push_back(row);
}

TEST(MemoryUsageTest, PeaksVsCapacityAndChurn) {
  TinyTrace t;
  AddMemory(t, Us(1), 1, 100, 200);
  AddMemory(t, Us(2), 1, 300, 400);
  AddMemory(t, Us(3), 1, 50, 400);
  AddMemory(t, Us(4), 0, 5000, 5000);  // host memory: ignored
  DeviceTable::Row device;
  device.id = 0;
  device.total_memory_bytes = 1000;
  t.trace.devices.rows.push_back(device);
  t.Step(1, Us(0), Us(100));
  t.Step(2, Us(100), Us(200));
  t.Step(3, Us(200), Us(300));
  t.Runtime("cudaMalloc", Us(10), Us(20));  // warm-up step: not churn
  t.Runtime("cudaMalloc", Us(110), Us(115));
  t.Runtime("cudaFree", Us(120), Us(121));
  t.Runtime("hipFree", Us(250), Us(252));
  MetricSet m;
  MemoryUsageResult r = ComputeMemoryUsage(t.Input(), m);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemoryStats& d = r.devices[0];
  EXPECT_EQ(d.peak_allocated, 300);
  EXPECT_EQ(d.peak_allocated_ts, Us(2));
  EXPECT_EQ(d.peak_reserved, 400);
  EXPECT_EQ(d.max_unused_reserved, 350);
  EXPECT_DOUBLE_EQ(d.peak_allocated_pct, 30.0);
  EXPECT_DOUBLE_EQ(d.peak_reserved_pct, 40.0);
  EXPECT_DOUBLE_EQ(d.reserved_to_allocated, 400.0 / 300.0);
  EXPECT_EQ(r.steady_alloc_calls, 1);
  EXPECT_EQ(r.steady_free_calls, 2);
  EXPECT_EQ(r.steady_alloc_time, Us(8));
  EXPECT_DOUBLE_EQ(r.alloc_calls_per_step, 1.5);
  ASSERT_EQ(r.per_step.size(), 2u);
  EXPECT_DOUBLE_EQ(m.ValueOr("memory.alloc_calls", -1, MetricScope::Step(2)), 2);
  EXPECT_DOUBLE_EQ(m.ValueOr("memory.alloc_calls", -1, MetricScope::Step(3)), 1);
  EXPECT_DOUBLE_EQ(m.ValueOr("memory.peak_allocated_pct", -1, MetricScope::Device(0)), 30.0);
  EXPECT_TRUE(r.not_applicable.empty());
}

TEST(MemoryUsageTest, NotApplicableWithoutEventsOrSteps) {
  TinyTrace t;
  t.Runtime("cudaMalloc", Us(10), Us(20));
  MetricSet m;
  MemoryUsageResult r = ComputeMemoryUsage(t.Input(), m);
  ASSERT_EQ(r.not_applicable.size(), 2u);
  EXPECT_NE(r.not_applicable[0].find("profile_memory=True"), std::string::npos);
  EXPECT_TRUE(m.all().empty());
}

}  // namespace memory_usage_test
}  // namespace gpuwhy
