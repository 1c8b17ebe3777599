// The importer on real Nsight Systems exports from ../shared/data/nsys_sqlite, checked
// against SQL over the same file (the expected values never go through the importer).
#include <sqlite3.h>

#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "ingest/nsys/nsys_importer.h"

namespace gpuwhy {
namespace nsys_real_data_test {

namespace fs = std::filesystem;

fs::path DataDir() { return fs::path(GPUWHY_SHARED_DATA) / "nsys_sqlite"; }

class DlprofExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (DataDir() / "dlprof_no_relu_nsys_profile.sqlite").string();
    if (!fs::exists(path_)) GTEST_SKIP() << path_ << " is absent (needs ../shared/data)";
    ASSERT_EQ(sqlite3_open_v2(("file:" + path_ + "?immutable=1").c_str(), &db_,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
              SQLITE_OK);
  }
  void TearDown() override { sqlite3_close(db_); }

  // Runs |sql| and returns (text of column 0 -> integer column 1) for every row.
  std::map<std::string, int64_t> Query(const std::string& sql) {
    std::map<std::string, int64_t> out;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      const unsigned char* key = sqlite3_column_text(stmt, 0);
      out[key ? reinterpret_cast<const char*>(key) : ""] += sqlite3_column_int64(stmt, 1);
    }
    sqlite3_finalize(stmt);
    return out;
  }
  int64_t Count(const std::string& table, const std::string& where = "") {
    return Query("SELECT 'n', count(*) FROM " + table +
                 (where.empty() ? "" : " WHERE " + where))["n"];
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

TEST_F(DlprofExportTest, CountsEqualSqlCountsOfTheSameTables) {
  auto traces = ImportNsysSqlite(path_);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->size(), 1u);  // python3 is the only process with GPU work
  const Trace& t = traces->front();
  std::map<GpuOpKind, int64_t> ops;
  for (GpuOpKind kind : t.gpu_ops.kind) ++ops[kind];
  EXPECT_EQ(ops[GpuOpKind::kKernel], Count("CUPTI_ACTIVITY_KIND_KERNEL"));
  EXPECT_EQ(ops[GpuOpKind::kMemcpy], Count("CUPTI_ACTIVITY_KIND_MEMCPY"));
  EXPECT_EQ(ops[GpuOpKind::kMemset], Count("CUPTI_ACTIVITY_KIND_MEMSET"));
  std::map<CpuSliceKind, int64_t> slices;
  for (CpuSliceKind kind : t.cpu_slices.kind) ++slices[kind];
  EXPECT_EQ(slices[CpuSliceKind::kRuntime], Count("CUPTI_ACTIVITY_KIND_RUNTIME"));
  EXPECT_EQ(slices[CpuSliceKind::kOp] + slices[CpuSliceKind::kUserAnnotation],
            Count("NVTX_EVENTS", "eventType IN (59, 60) AND end IS NOT NULL"));
  EXPECT_EQ(static_cast<int64_t>(t.gpu_syncs.size()), Count("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
  // The counts the manifest recorded for this file, as a second, human-made witness.
  EXPECT_EQ(ops[GpuOpKind::kKernel], 46);
  EXPECT_EQ(ops[GpuOpKind::kMemcpy], 12);
  EXPECT_EQ(ops[GpuOpKind::kMemset], 4);
  EXPECT_EQ(slices[CpuSliceKind::kRuntime], 279);
  EXPECT_EQ(t.gpu_syncs.size(), 68u);
}

TEST_F(DlprofExportTest, PerKernelGpuTimeEqualsSqlSums) {
  auto traces = ImportNsysSqlite(path_);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  const Trace& t = traces->front();
  std::map<std::string, int64_t> got;
  for (size_t i = 0; i < t.gpu_ops.size(); ++i) {
    if (t.gpu_ops.kind[i] != GpuOpKind::kKernel) continue;
    got[std::string(t.Str(t.gpu_ops.name[i]))] += t.gpu_ops.end[i] - t.gpu_ops.start[i];
  }
  std::map<std::string, int64_t> want = Query(
      "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
      "JOIN StringIds s ON s.id = k.demangledName");
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.size(), 26u);  // distinct demangled names (21 distinct short names)
}

TEST_F(DlprofExportTest, ExactNanosecondsDevicesAndLaunchJoins) {
  auto traces = ImportNsysSqlite(path_);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  const Trace& t = traces->front();
  auto first = Query("SELECT 'start', min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_EQ(
      t.gpu_ops.start[0],
      std::min<int64_t>(first["start"],
                        Query("SELECT 'm', min(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY")["m"]));
  EXPECT_EQ(t.metadata.base_time_ns, 1674695591359662545);
  EXPECT_EQ(t.metadata.trace_name, "python3");
  ASSERT_GE(t.devices.size(), 1u);
  EXPECT_EQ(t.Str(t.devices.rows[0].name), "NVIDIA GeForce RTX 2070 SUPER");
  EXPECT_EQ(t.devices.rows[0].sm_count, 40);
  EXPECT_EQ(t.devices.rows[0].compute_major, 7);
  EXPECT_EQ(t.devices.rows[0].compute_minor, 5);
  // Every kernel's launch is a runtime call on the python3 main thread (9908, 9908).
  int64_t joined = 0;
  for (size_t i = 0; i < t.gpu_ops.size(); ++i) {
    CpuSliceId launch = t.FindLaunch(t.gpu_ops.correlation[i]);
    if (!launch.valid()) continue;
    ++joined;
    ThreadId thread = t.cpu_slices.thread[launch.value];
    EXPECT_EQ(t.threads.pid[thread.value], 9908);
    EXPECT_EQ(t.threads.tid[thread.value], 9908);
  }
  EXPECT_EQ(joined, Count("CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                          "ON r.correlationId = k.correlationId") +
                        Count("CUPTI_ACTIVITY_KIND_MEMCPY k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                              "ON r.correlationId = k.correlationId") +
                        Count("CUPTI_ACTIVITY_KIND_MEMSET k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                              "ON r.correlationId = k.correlationId"));
  // Copies: HtoD from pageable memory, as srcKind 0 / dstKind 2 say.
  for (size_t i = 0; i < t.gpu_ops.size(); ++i) {
    if (t.gpu_ops.kind[i] != GpuOpKind::kMemcpy) continue;
    EXPECT_EQ(t.gpu_ops.copy_direction(i), CopyDirection::kHostToDevice);
    EXPECT_EQ(t.gpu_ops.src_kind(i), MemoryKind::kPageable);
  }
  // No NVTX range is a step here: one step spans the capture.
  EXPECT_TRUE(t.steps.synthesized);
}

TEST(DynamicVitExportTest, NoCudaActivityIsExplainedWithTheCaptureCommand) {
  std::string path = (DataDir() / "dynamicvit_nsys_profile.sqlite").string();
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (needs ../shared/data)";
  auto traces = ImportNsysSqlite(path);
  ASSERT_FALSE(traces.ok());
  const std::string& m = traces.status().message();
  EXPECT_EQ(m.rfind(path + ": this Nsight Systems export captured no CUDA activity", 0), 0u) << m;
  EXPECT_NE(m.find("TARGET_INFO_GPU"), std::string::npos) << m;
  EXPECT_NE(m.find("nsys profile --trace=cuda,nvtx,osrt"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

}  // namespace nsys_real_data_test
}  // namespace gpuwhy
