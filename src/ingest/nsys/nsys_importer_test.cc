#include "ingest/nsys/nsys_importer.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "ingest/nsys/nsys_encoding.h"
#include "ingest/nsys/nsys_test_util.h"

namespace gpuwhy {
namespace nsys_importer_test {

using nsys_test::kBaseSchema;
using nsys_test::ScratchDir;
using nsys_test::WriteDatabase;

int64_t Tid(int64_t pid, int64_t tid) { return EncodeNsysGlobalTid(0, 1, pid, tid); }

using nsys_test::ActivitySchema;

// One process (pid 100): two kernels launched by two runtime calls, three NVTX steps.
std::string OneProcess() {
  return std::string(kBaseSchema) + ActivitySchema() +
         fmt::format(R"sql(
INSERT INTO PROCESSES VALUES ({0}, 100, 'python3');
INSERT INTO ThreadNames VALUES (5, 0, {1});
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 0, {1}, 11, 3, 0), (3000, 3500, 0, {1}, 12, 3, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1400, 2400, 0, 1, 7, 11, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 1024, 512),
  (3400, 9400, 0, 1, 7, 12, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 1024, 512);
INSERT INTO NVTX_EVENTS VALUES (900, 2900, 59, 'train_step 1', {1}, NULL, 0),
  (2900, 9900, 59, 'train_step 2', {1}, NULL, 0), (950, 1600, 59, 'aten::mm, seq = 3, sizes = [[2, 2]]', {1}, NULL, 0),
  (9950, 9990, 34, 'a mark', {1}, NULL, 0);
)sql",
                     Tid(100, 0), Tid(100, 100));
}

TEST(NsysImporterTest, ReadsKernelsLaunchesAndStepsOfOneProcess) {
  ScratchDir dir;
  std::string path = dir.File("one.sqlite");
  WriteDatabase(path, OneProcess());
  auto traces = ImportNsysSqlite(path);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->size(), 1u);
  const Trace& t = traces->front();
  EXPECT_EQ(t.metadata.format, "nsys-sqlite");
  EXPECT_EQ(t.metadata.trace_name, "python3");
  EXPECT_EQ(t.metadata.extra.at("nsys_version"), "2022.1.3.3");
  ASSERT_EQ(t.gpu_ops.size(), 2u);
  EXPECT_EQ(t.Str(t.gpu_ops.name[0]), "void gemm_kernel<float>(int)");
  EXPECT_EQ(t.gpu_ops.start[1], 3400);  // exact ns, no unit conversion
  EXPECT_EQ(t.gpu_ops.end[1], 9400);
  EXPECT_EQ(t.gpu_ops.launch(0).grid[0], 80);
  EXPECT_EQ(t.gpu_ops.launch(0).shared_memory_bytes, 1536);
  // The runtime call keeps its plain name and joins its kernel by correlation id.
  CpuSliceId launch = t.FindLaunch(12);
  ASSERT_TRUE(launch.valid());
  EXPECT_EQ(t.Str(t.cpu_slices.name[launch.value]), "cudaLaunchKernel");
  EXPECT_EQ(t.cpu_slices.kind[launch.value], CpuSliceKind::kRuntime);
  // globalTid -> (pid 100, tid 100), named from ThreadNames.
  ThreadId thread = t.cpu_slices.thread[launch.value];
  EXPECT_EQ(t.threads.pid[thread.value], 100);
  EXPECT_EQ(t.threads.tid[thread.value], 100);
  EXPECT_EQ(t.Str(t.threads.name[thread.value]), "pt_main_thread");
  // emit_nvtx op names lose their ", seq = ..." tail and become ops; marks are not slices.
  int ops = 0;
  int annotations = 0;
  for (size_t i = 0; i < t.cpu_slices.size(); ++i) {
    if (t.cpu_slices.kind[i] == CpuSliceKind::kOp) {
      ++ops;
      EXPECT_EQ(t.Str(t.cpu_slices.name[i]), "aten::mm");
    }
    annotations += t.cpu_slices.kind[i] == CpuSliceKind::kUserAnnotation;
  }
  EXPECT_EQ(ops, 1);
  EXPECT_EQ(annotations, 2);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_FALSE(t.steps.synthesized);
  EXPECT_EQ(t.steps.rows[0].number, 1);
  EXPECT_EQ(t.steps.rows[1].host_start, 2900);
  EXPECT_EQ(t.steps.rows[1].gpu_op_count, 1);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.Str(t.devices.rows[0].name), "Test GPU");
  EXPECT_EQ(t.devices.rows[0].sm_count, 40);
}

// Kernels, copies and memsets are merged by time while read: the ops come out in start
// order across tables, and a kernel without shared-memory values says so (it does not
// inherit the previous row's).
TEST(NsysImporterTest, GpuTablesMergeByTimeAndRowsDoNotLeak) {
  ScratchDir dir;
  std::string path = dir.File("merge.sqlite");
  WriteDatabase(path, OneProcess() + fmt::format(R"sql(
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER,
  srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (500, 600, 0, 7, NULL, {0}, 4096, 1, 0, 2),
  (2500, 2600, 0, 7, NULL, {0}, 4096, 1, 0, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (9500, 9600, 0, 1, 7, NULL, {0}, 1, 2, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL);
)sql",
                                                 Tid(100, 0)));
  auto traces = ImportNsysSqlite(path);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  const Trace& t = traces->front();
  ASSERT_EQ(t.gpu_ops.size(), 5u);
  std::vector<TimeNs> starts(t.gpu_ops.start.begin(), t.gpu_ops.start.end());
  EXPECT_EQ(starts, (std::vector<TimeNs>{500, 1400, 2500, 3400, 9500}));
  EXPECT_EQ(t.gpu_ops.kind[0], GpuOpKind::kMemcpy);
  EXPECT_EQ(t.gpu_ops.launch(3).shared_memory_bytes, 1536);
  EXPECT_EQ(t.gpu_ops.launch(4).shared_memory_bytes, -1);
  EXPECT_EQ(t.gpu_ops.launch(4).grid[0], -1);
}

TEST(NsysImporterTest, StepRangeRegexOverridesTheDefaultNames) {
  ScratchDir dir;
  std::string path = dir.File("one.sqlite");
  WriteDatabase(path, OneProcess());
  NsysImportOptions options;
  options.step_range = R"(aten::mm)";
  auto traces = ImportNsysSqlite(path, options);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->front().steps.size(), 1u);
  EXPECT_EQ(traces->front().steps.rows[0].host_start, 950);
  options.step_range = "no step is called this";
  traces = ImportNsysSqlite(path, options);
  ASSERT_TRUE(traces.ok());
  EXPECT_TRUE(traces->front().steps.synthesized);
  options.step_range = "(unclosed";
  traces = ImportNsysSqlite(path, options);
  ASSERT_FALSE(traces.ok());
  EXPECT_NE(traces.status().message().find("--step-range"), std::string::npos);
}

TEST(NsysImporterTest, OneTracePerProcessRankedByTheRecordedEnvironment) {
  ScratchDir dir;
  std::string path = dir.File("two.sqlite");
  // pid 200 is RANK 0 although pid 100 comes first; pid 300 is a launcher without GPU work.
  WriteDatabase(path, std::string(kBaseSchema) + ActivitySchema() +
                          fmt::format(R"sql(
CREATE TABLE PROCESS_ENV (globalPid INTEGER, name TEXT, value TEXT);
INSERT INTO PROCESS_ENV VALUES ({0}, 'LOCAL_RANK', '0'), ({0}, 'RANK', '1'), ({1}, 'RANK', '0'), ({1}, 'PATH', '/bin');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (100, 200, 0, 1, 7, 1, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 0, 0),
  (150, 250, 1, 1, 7, 1, {1}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 0, 0),
  (300, 350, 1, 1, 7, 2, {1}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 0, {2}, 5, 3, 0);
)sql",
                                      Tid(100, 0), Tid(200, 0), Tid(300, 300)));
  auto traces = ImportNsysSqlite(path);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->size(), 2u);
  EXPECT_EQ((*traces)[0].rank.rank, 0);
  EXPECT_EQ((*traces)[0].gpu_ops.size(), 2u);  // pid 200
  EXPECT_EQ((*traces)[0].metadata.extra.at("pid"), "200");
  EXPECT_EQ((*traces)[1].rank.rank, 1);  // RANK wins over LOCAL_RANK
  EXPECT_EQ((*traces)[1].gpu_ops.size(), 1u);
  EXPECT_EQ((*traces)[1].rank.world_size, 2);
  EXPECT_EQ((*traces)[1].rank.source, RankSource::kDistributedInfo);
}

TEST(NsysImporterTest, WithoutRanksProcessesAreRankedInPidOrder) {
  ScratchDir dir;
  std::string path = dir.File("two.sqlite");
  WriteDatabase(path, std::string(kBaseSchema) + ActivitySchema() +
                          fmt::format(R"sql(
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (100, 200, 0, 1, 7, 1, {1}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 0, 0),
  (150, 250, 1, 1, 7, 1, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 0, 0);
)sql",
                                      Tid(100, 0), Tid(200, 0)));
  auto traces = ImportNsysSqlite(path);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->size(), 2u);
  EXPECT_EQ((*traces)[0].metadata.extra.at("pid"), "100");
  EXPECT_EQ((*traces)[0].rank.rank, 0);
  EXPECT_EQ((*traces)[1].rank.rank, 1);
}

TEST(NsysImporterTest, OlderSchemaWithoutDemangledNamesAndWithEnumTables) {
  ScratchDir dir;
  std::string path = dir.File("old.sqlite");
  WriteDatabase(path, std::string(kBaseSchema) + fmt::format(R"sql(
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, globalPid INTEGER, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),
  (1, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device');
INSERT INTO StringIds VALUES (1, 'elementwise');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 30, 0, 7, {0}, 1), (40, 30, 0, 7, {0}, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (50, 90, 0, 7, {0}, 4096, 1, 0, 1);
)sql",
                                                             Tid(5, 0)));
  auto traces = ImportNsysSqlite(path);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  const Trace& t = traces->front();
  ASSERT_EQ(t.gpu_ops.size(), 2u);  // the kernel ending before it starts is skipped, counted
  EXPECT_EQ(t.problems.Get(DataProblem::kNegativeDuration), 1);
  EXPECT_EQ(t.Str(t.gpu_ops.name[0]), "elementwise");
  EXPECT_EQ(t.gpu_ops.correlation[0], kNoValue);
  EXPECT_EQ(t.gpu_ops.launch(0).grid[0], -1);
  EXPECT_EQ(t.gpu_ops.kind[1], GpuOpKind::kMemcpy);
  EXPECT_EQ(t.gpu_ops.src_kind(1), MemoryKind::kPinned);  // from the export's enum table
  EXPECT_EQ(t.Str(t.gpu_ops.name[1]), "Memcpy HtoD (Pinned -> Device)");
  EXPECT_TRUE(t.steps.synthesized);
}

TEST(NsysImporterTest, NotAnNsysExportNamesWhatIsMissing) {
  ScratchDir dir;
  std::string path = dir.File("other.sqlite");
  WriteDatabase(path, "CREATE TABLE users (id INTEGER); CREATE TABLE orders (id INTEGER);");
  auto traces = ImportNsysSqlite(path);
  ASSERT_FALSE(traces.ok());
  const std::string& m = traces.status().message();
  EXPECT_EQ(m.rfind(path + ": SQLite, but not an Nsight Systems export", 0), 0u) << m;
  EXPECT_NE(m.find("StringIds"), std::string::npos);
  EXPECT_NE(m.find("orders, users"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

TEST(NsysImporterTest, NoCudaActivitySaysHowToCaptureIt) {
  ScratchDir dir;
  std::string path = dir.File("nocuda.sqlite");
  WriteDatabase(path, kBaseSchema);
  auto traces = ImportNsysSqlite(path);
  ASSERT_FALSE(traces.ok());
  EXPECT_NE(traces.status().message().find("captured no CUDA activity"), std::string::npos);
  EXPECT_NE(traces.status().message().find("nsys profile --trace=cuda,nvtx,osrt"),
            std::string::npos);
}

TEST(NsysImporterTest, RuntimeWithoutKernelTableNamesTheTable) {
  ScratchDir dir;
  std::string path = dir.File("nokernels.sqlite");
  WriteDatabase(path, std::string(kBaseSchema) +
                          "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, "
                          "globalTid INTEGER, correlationId INTEGER, nameId INTEGER);");
  auto traces = ImportNsysSqlite(path);
  ASSERT_FALSE(traces.ok());
  EXPECT_NE(traces.status().message().find("no CUPTI_ACTIVITY_KIND_KERNEL table"),
            std::string::npos)
      << traces.status().message();
}

TEST(NsysImporterTest, NeverWritesTheFileOrCreatesJournals) {
  ScratchDir dir;
  std::string path = dir.File("report.sqlite");
  WriteDatabase(path, OneProcess());
  auto read_all = [&] {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  std::string before = read_all();
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);  // a read-only export must import too
  ASSERT_TRUE(ImportNsysSqlite(path).ok());
  EXPECT_EQ(read_all(), before);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);  // no -journal, -wal or -shm next to it
}

}  // namespace nsys_importer_test
}  // namespace gpuwhy
