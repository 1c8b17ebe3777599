#include "analyze/sync_copies.h"

#include <gtest/gtest.h>

#include "analyze/launch_test_util.h"

namespace gpuwhy {
namespace sync_copies_test {

using testing_util::TinyTrace;
constexpr TimeNs Us(int64_t us) { return UsToNs(us); }

void Build(TinyTrace& t) {
  t.Step(3, Us(0), Us(1000));
  // loss.item(): an async DtoH copy then a stream synchronize, both under the scalar read.
  t.Op("aten::item", Us(0), Us(100));
  t.Op("aten::_local_scalar_dense", Us(1), Us(99));
  t.Runtime("cudaMemcpyAsync", Us(2), Us(10), 1);
  t.Copy(CopyDirection::kDeviceToHost, MemoryKind::kDevice, MemoryKind::kPinned, 4, Us(5), Us(8),
         1);
  t.Runtime("cudaStreamSynchronize", Us(10), Us(90));
  // torch.cuda.synchronize() inside a record_function range.
  t.Slice(CpuSliceKind::kUserAnnotation, "my_region", Us(190), Us(260));
  t.Runtime("cudaDeviceSynchronize", Us(200), Us(250));
  // .cpu() into pageable memory: a synchronous cudaMemcpy.
  t.Op("aten::to", Us(300), Us(400));
  t.Runtime("cudaMemcpy", Us(301), Us(390), 3);
  t.Copy(CopyDirection::kDeviceToHost, MemoryKind::kDevice, MemoryKind::kPageable, 1000, Us(310),
         Us(380), 3);
  // A pageable host-to-device async copy: pageable, but the host does not wait for a result.
  t.Runtime("cudaMemcpyAsync", Us(500), Us(510), 4);
  t.Copy(CopyDirection::kHostToDevice, MemoryKind::kPageable, MemoryKind::kDevice, 2000, Us(505),
         Us(515), 4);
  t.trace.gpu_syncs.rows.push_back({0, 7, Us(600), Us(650), t.trace.strings.Intern("Stream Sync")});
}

TEST(SyncCopiesTest, BlockingCallsWithCallSites) {
  TinyTrace t;
  Build(t);
  MetricSet m;
  SyncCopiesResult r = ComputeSyncCopies(t.Input(), m);
  ASSERT_EQ(r.blocking.size(), 4u);
  EXPECT_EQ(r.blocking[0].kind, BlockingKind::kDtohStall);
  EXPECT_TRUE(r.blocking[0].scalar_read);
  EXPECT_EQ(r.blocking[0].issuer, "aten::_local_scalar_dense");
  EXPECT_EQ(r.blocking[1].kind, BlockingKind::kStreamSync);
  EXPECT_EQ(r.blocking[2].kind, BlockingKind::kDeviceSync);
  EXPECT_EQ(r.blocking[2].issuer, "my_region");
  EXPECT_EQ(r.blocking[3].kind, BlockingKind::kSyncMemcpy);
  EXPECT_EQ(r.blocking[3].issuer, "aten::to");
  EXPECT_EQ(r.blocking_count, 4);
  EXPECT_EQ(r.blocking_total, Us(8 + 80 + 50 + 89));
  EXPECT_EQ(r.scalar_reads, 2);
  ASSERT_EQ(r.issuers.size(), 3u);
  EXPECT_EQ(r.issuers[0].name, "aten::to");
  EXPECT_EQ(r.issuers[1].name, "aten::_local_scalar_dense");
  EXPECT_EQ(r.issuers[1].total, Us(88));
  ASSERT_EQ(r.per_step.size(), 1u);
  EXPECT_EQ(r.per_step[0].step, 3);
  EXPECT_EQ(r.per_step[0].count, 4);
  EXPECT_DOUBLE_EQ(m.ValueOr("sync.blocking_ms", -1), 0.227);
  EXPECT_DOUBLE_EQ(m.ValueOr("sync.blocking_pct", -1), 22.7);
  EXPECT_DOUBLE_EQ(m.ValueOr("sync.stream_sync_ms", -1), 0.08);
  EXPECT_DOUBLE_EQ(m.ValueOr("sync.blocking_calls", -1, MetricScope::Step(3)), 4);
  ASSERT_EQ(r.top_blocking.size(), 4u);
  EXPECT_EQ(r.top_blocking[0].label, "cudaMemcpy under aten::to");
}

TEST(SyncCopiesTest, GpuWaitsAndCopies) {
  TinyTrace t;
  Build(t);
  MetricSet m;
  SyncCopiesResult r = ComputeSyncCopies(t.Input(), m);
  ASSERT_EQ(r.gpu_waits.size(), 1u);
  EXPECT_EQ(r.gpu_waits[0].total, Us(50));
  ASSERT_EQ(r.copies.size(), 2u);  // ordered by direction: HtoD, then DtoH
  const CopyStats& htod = r.copies[0];
  EXPECT_EQ(htod.direction, CopyDirection::kHostToDevice);
  EXPECT_EQ(htod.bytes, 2000);
  EXPECT_EQ(htod.pageable_count, 1);
  EXPECT_DOUBLE_EQ(htod.gbps, 0.2);  // 2000 bytes in 10 µs
  const CopyStats& dtoh = r.copies[1];
  EXPECT_EQ(dtoh.count, 2);
  EXPECT_EQ(dtoh.bytes, 1004);
  EXPECT_EQ(dtoh.duration, Us(73));
  EXPECT_EQ(dtoh.pageable_bytes, 1000);
  EXPECT_DOUBLE_EQ(m.ValueOr("copy.htod_gbps", -1, MetricScope::Device(0)), 0.2);
  EXPECT_DOUBLE_EQ(m.ValueOr("copy.pageable_count", -1), 2);
  EXPECT_DOUBLE_EQ(m.ValueOr("sync.gpu_wait_ms", -1, MetricScope::Device(0)), 0.05);
}

TEST(SyncCopiesTest, EmptyTrace) {
  TinyTrace t;
  MetricSet m;
  SyncCopiesResult r = ComputeSyncCopies(t.Input(), m);
  EXPECT_EQ(r.blocking_count, 0);
  EXPECT_FALSE(r.not_applicable.empty());
}

}  // namespace sync_copies_test
}  // namespace gpuwhy
