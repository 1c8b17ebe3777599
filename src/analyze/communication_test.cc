#include "analyze/communication.h"

#include <gtest/gtest.h>

#include "analyze/launch_test_util.h"

namespace gpuwhy {
namespace communication_test {

using testing_util::TinyTrace;
constexpr TimeNs Us(int64_t us) { return UsToNs(us); }

TEST(CommunicationTest, OverlapExposedAndBandwidth) {
  TinyTrace t;
  t.Step(1, Us(0), Us(200));
  t.Kernel("volta_sgemm_128x64_nn", Us(0), Us(100));
  GpuOpId comm = t.Kernel("ncclKernel_AllReduce_RING_LL_Sum_float", Us(50), Us(150), kNoValue, 20);
  t.Kernel("elementwise_kernel", Us(140), Us(160));
  CollectiveTable::Row row;
  row.gpu_op = comm;
  row.collective_name = t.trace.strings.Intern("allreduce");
  row.in_nelems = 1000;
  row.out_nelems = 1000;
  row.group_size = 4;
  row.dtype = t.trace.strings.Intern("Float");
  t.trace.collectives.rows.push_back(row);
  MetricSet m;
  CommunicationResult r = ComputeCommunication(t.Input(), m);
  EXPECT_EQ(r.rank.kernel_count, 1);
  EXPECT_EQ(r.rank.comm_time, Us(100));
  EXPECT_EQ(r.rank.overlapped, Us(60));  // [50, 100) and [140, 150)
  EXPECT_EQ(r.rank.exposed, Us(40));
  EXPECT_DOUBLE_EQ(r.rank.overlap_pct, 60.0);
  ASSERT_EQ(r.per_step.size(), 1u);
  EXPECT_EQ(r.per_step[0].exposed, Us(40));
  EXPECT_DOUBLE_EQ(m.ValueOr("comm.exposed_step_pct", -1, MetricScope::Step(1)), 20.0);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].bytes, 4000);
  EXPECT_DOUBLE_EQ(r.collectives[0].algbw_gbps, 0.04);  // 4000 bytes in 100 µs
  EXPECT_DOUBLE_EQ(r.collectives[0].busbw_gbps, 0.06);  // × 2(n-1)/n = 1.5
  ASSERT_EQ(r.by_collective.size(), 1u);
  EXPECT_EQ(r.by_collective[0].count, 1);
  EXPECT_DOUBLE_EQ(m.ValueOr("comm.overlap_pct", -1), 60.0);
  EXPECT_DOUBLE_EQ(m.ValueOr("comm.busbw_gbps", -1), 0.06);
}

TEST(CommunicationTest, CollectiveOnTheLaunchingOp) {
  TinyTrace t;
  CpuSliceId op = t.Op("record_param_comms", Us(0), Us(20));
  t.Runtime("cudaLaunchKernel", Us(5), Us(10), 9);
  t.Kernel("ncclDevKernel_AllGather_RING_LL", Us(30), Us(80), 9);
  CollectiveTable::Row row;
  row.cpu_slice = op;
  row.collective_name = t.trace.strings.Intern("all_gather");
  row.in_nelems = 100;
  row.out_nelems = 800;
  row.group_size = 8;
  row.dtype = t.trace.strings.Intern("BFloat16");
  t.trace.collectives.rows.push_back(row);
  MetricSet m;
  CommunicationResult r = ComputeCommunication(t.Input(), m);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].bytes, 1600);
  EXPECT_DOUBLE_EQ(r.collectives[0].busbw_factor, 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(r.rank.overlap_pct, 0.0);
}

TEST(CommunicationTest, NotApplicableWithoutCollectives) {
  TinyTrace t;
  t.Kernel("volta_sgemm_128x64_nn", 0, 10);
  MetricSet m;
  CommunicationResult r = ComputeCommunication(t.Input(), m);
  EXPECT_EQ(r.rank.kernel_count, 0);
  EXPECT_FALSE(r.not_applicable.empty());
  EXPECT_TRUE(m.all().empty());
}

TEST(CommunicationTest, BusBandwidthFactorsAndDtypes) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("allreduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("all_reduce", 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("_reduce_scatter_base", 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("all_to_allv", 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("broadcast", 4), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("reduce", 4), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("allreduce", kNoValue), 0.0);
  EXPECT_EQ(DtypeBytes("Float"), 4);
  EXPECT_EQ(DtypeBytes("c10::BFloat16"), 2);
  EXPECT_EQ(DtypeBytes("Long"), 8);
  EXPECT_EQ(DtypeBytes("Byte"), 1);
  EXPECT_EQ(DtypeBytes("mystery"), 0);
}

}  // namespace communication_test
}  // namespace gpuwhy
