// Ids an export may hold that no real capture writes (issue 37): correlation ids at both ends
// of int64, and a string id far past the rows. They import, and size nothing by their value.
#include <limits>

#include <gtest/gtest.h>

#include "ingest/nsys/nsys_encoding.h"
#include "ingest/nsys/nsys_importer.h"
#include "ingest/nsys/nsys_test_util.h"

namespace gpuwhy {
namespace nsys_wild_ids_test {

using nsys_test::ActivitySchema;
using nsys_test::kBaseSchema;
using nsys_test::ScratchDir;
using nsys_test::WriteDatabase;

constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();

// The minimised reproducer: two runtime rows (and their kernels) with correlationId -2^63 and
// 2^63 (SQLite stores the latter as a REAL, read back clamped to 2^63 - 1). Their span wrapped
// to 0 ids and the launch index wrote past a table of 0 rows: info, analyze and annotate
// crashed with signal 11.
std::string ExtremeCorrelations() {
  const int64_t pid = EncodeNsysGlobalTid(0, 1, 100, 0);
  const int64_t tid = EncodeNsysGlobalTid(0, 1, 100, 100);
  return std::string(kBaseSchema) + ActivitySchema() +
         fmt::format(R"sql(
INSERT INTO PROCESSES VALUES ({0}, 100, 'python3');
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 0, {1}, -9223372036854775808, 3, 0),
  (3000, 3500, 0, {1}, 9223372036854775808, 3, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1400, 2400, 0, 1, 7, -9223372036854775808, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 1024, 512),
  (3400, 9400, 0, 1, 7, 9223372036854775808, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 1024, 512);
)sql",
                     pid, tid);
}

TEST(NsysWildIdsTest, CorrelationIdsAtBothEndsOfInt64JoinTheirLaunches) {
  ScratchDir dir;
  std::string path = dir.File("extreme_correlations.sqlite");
  WriteDatabase(path, ExtremeCorrelations());
  auto traces = ImportNsysSqlite(path);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->size(), 1u);
  const Trace& t = traces->front();
  ASSERT_EQ(t.gpu_ops.size(), 2u);
  for (int64_t id : {kLow, kHigh}) {
    CpuSliceId launch = t.FindLaunch(id);
    ASSERT_TRUE(launch.valid()) << id;
    EXPECT_EQ(t.cpu_slices.start[launch.value], id == kLow ? 1000 : 3000);
    ASSERT_EQ(t.FindGpuOps(id).size(), 1u) << id;
    EXPECT_EQ(t.gpu_ops.start[t.FindGpuOps(id)[0].op.value], id == kLow ? 1400 : 3400);
  }
  EXPECT_FALSE(t.FindLaunch(0).valid());
}

// One StringIds row with id 2^31 sized an 8.4 GB vector; ids far past the rows are kept in a
// map instead (one entry per row), and still name what refers to them.
TEST(NsysWildIdsTest, AStringIdFarPastTheRowsNamesItsKernelWithoutSizingATable) {
  const int64_t pid = EncodeNsysGlobalTid(0, 1, 100, 0);
  const int64_t tid = EncodeNsysGlobalTid(0, 1, 100, 100);
  for (int64_t wild : {int64_t{1} << 31, int64_t{1} << 62, kHigh}) {
    ScratchDir dir;
    std::string path = dir.File("wild_string_id.sqlite");
    WriteDatabase(path, std::string(kBaseSchema) + ActivitySchema() +
                            fmt::format(R"sql(
INSERT INTO StringIds VALUES ({2}, 'far_kernel');
INSERT INTO PROCESSES VALUES ({0}, 100, 'python3');
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 0, {1}, 11, 3, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1400, 2400, 0, 1, 7, 11, {0}, {2}, {2}, 32, 80, 1, 1, 256, 1, 1, 1024, 512);
)sql",
                                        pid, tid, wild));
    auto traces = ImportNsysSqlite(path);
    ASSERT_TRUE(traces.ok()) << traces.status().message();
    const Trace& t = traces->front();
    ASSERT_EQ(t.gpu_ops.size(), 1u);
    EXPECT_EQ(t.Str(t.gpu_ops.name[0]), "far_kernel") << wild;
    ASSERT_TRUE(t.FindLaunch(11).valid());
    EXPECT_EQ(t.Str(t.cpu_slices.name[t.FindLaunch(11).value]), "cudaLaunchKernel");
  }
}

}  // namespace nsys_wild_ids_test
}  // namespace gpuwhy
