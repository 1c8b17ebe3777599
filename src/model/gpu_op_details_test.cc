#include "model/gpu_op_details.h"

#include <gtest/gtest.h>

#include "model/trace.h"

namespace gpuwhy {
namespace {

GpuOpDetail Kernel(int32_t grid_x, int32_t block_x) {
  GpuOpDetail d;
  d.launch.grid = {grid_x, 1, 1};
  d.launch.block = {block_x, 1, 1};
  d.launch.registers_per_thread = 32;
  return d;
}

TEST(GpuOpDetailPoolTest, EqualDetailsShareOneIndex) {
  GpuOpDetailPool pool;
  uint32_t a = pool.Intern(Kernel(80, 256));
  uint32_t b = pool.Intern(Kernel(40, 128));
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.Intern(Kernel(80, 256)), a);  // not the previous one: through the lookup
  EXPECT_EQ(pool.Intern(Kernel(80, 256)), a);  // the previous one again
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool[b].launch.grid[0], 40);
  EXPECT_EQ(pool[b].launch.block[0], 128);
}

TEST(GpuOpDetailPoolTest, NanFloatsAreEqualAndEveryFieldCounts) {
  GpuOpDetailPool pool;
  GpuOpDetail base;  // blocks_per_sm etc. are NaN: absent
  uint32_t a = pool.Intern(base);
  EXPECT_EQ(pool.Intern(GpuOpDetail{}), a);
  auto differs = [&](auto change) {
    GpuOpDetail d;
    change(d);
    return pool.Intern(d) != a;
  };
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.grid[2] = 2; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.block[1] = 2; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.shared_memory_bytes = 0; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.warps_per_sm = 1.5f; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.occupancy_pct = 50.f; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.graph_node_id = 3; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.launch.queued = 0; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.bytes = 4096; }));
  EXPECT_TRUE(differs([](GpuOpDetail& d) { d.dst_kind = MemoryKind::kPinned; }));
}

TEST(GpuOpDetailPoolTest, InternAfterDropIndexStillDeduplicates) {
  GpuOpDetailPool pool;
  uint32_t a = pool.Intern(Kernel(1, 32));
  uint32_t b = pool.Intern(Kernel(2, 32));
  pool.DropIndex();
  EXPECT_EQ(pool.Intern(Kernel(1, 32)), a);
  EXPECT_EQ(pool.Intern(Kernel(2, 32)), b);
  EXPECT_EQ(pool.size(), 2u);
}

// The table keeps each op's own launch and copy fields through the pool and the sort.
TEST(GpuOpDetailPoolTest, GpuOpTableReadsDetailsBackAfterFinalize) {
  Trace t;
  auto op = [&](TimeNs start, int32_t grid_x, int64_t bytes) {
    GpuOpTable::Row row;
    row.start = start;
    row.end = start + 5;
    row.name = t.strings.Intern("k");
    row.launch.grid = {grid_x, 1, 1};
    row.bytes = bytes;
    if (bytes >= 0) {
      row.kind = GpuOpKind::kMemcpy;
      row.copy_direction = CopyDirection::kHostToDevice;
      row.src_kind = MemoryKind::kPageable;
    }
    t.gpu_ops.Append(row);
  };
  for (int step = 0; step < 3; ++step) {  // appended out of time order
    op(300 - 100 * step, 80, kNoValue);
    op(350 - 100 * step, 40, kNoValue);
    op(360 - 100 * step, -1, 1 << 20);
  }
  EXPECT_EQ(t.gpu_ops.detail_pool.size(), 3u);
  t.Finalize();
  ASSERT_EQ(t.gpu_ops.size(), 9u);
  for (size_t i = 0; i < t.gpu_ops.size(); ++i) {
    TimeNs offset = t.gpu_ops.start[i] % 100;
    int32_t grid = t.gpu_ops.launch(i).grid[0];
    EXPECT_EQ(grid, offset == 0 ? 80 : offset == 50 ? 40 : -1) << i;
    EXPECT_EQ(t.gpu_ops.bytes(i), offset == 60 ? 1 << 20 : kNoValue) << i;
    EXPECT_EQ(t.gpu_ops.src_kind(i), offset == 60 ? MemoryKind::kPageable : MemoryKind::kUnknown);
    EXPECT_EQ(t.gpu_ops.Get(i).launch.grid[0], grid);
  }
}

}  // namespace
}  // namespace gpuwhy
