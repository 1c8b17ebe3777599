// Deterministic mutation fuzzing of the Nsight Systems importer and its SQLite page scanner,
// seeded from the real exports in ../shared/data/nsys_sqlite and a small export built here (so
// the test runs without the data). Mutants edit the file's bytes where SQLite keeps structure
// (page headers, cell pointers, record headers, varints), cut it at and inside pages and copy
// pages over others; each is read by the importer and by SQLite itself (nsys_fuzz_body.h).
// Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./nsys_fuzz_test
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "base/fuzz_mutator.h"
#include "base/gzip_test_util.h"
#include "ingest/nsys/nsys_fuzz_body.h"
#include "ingest/nsys/nsys_test_util.h"

namespace gpuwhy {
namespace nsys_fuzz_test {

namespace fs = std::filesystem;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A small export on 512-byte pages: many pages and interior b-tree pages for few rows.
std::string SmallExport(const nsys_test::ScratchDir& dir) {
  std::string sql = "PRAGMA page_size = 512;\n" + std::string(nsys_test::kBaseSchema) +
                    nsys_test::ActivitySchema() + R"sql(
INSERT INTO PROCESSES VALUES (281474976710756, 100, 'python3');
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
  INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1000 * i, 1000 * i + 300, 0, 281474976710756,
    i, 3, 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
  INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000 * i + 400, 1000 * i + 900, 0, 1, 7, i,
    281474976710756, 1, 2, 32, 80, 1, 1, 256, 1, 1, 1024, 512 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
  INSERT INTO NVTX_EVENTS SELECT 10000 * i, 10000 * i + 9999, 59, 'train_step ' || i,
    281474976710756, NULL, 0 FROM n;
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, sourceId INTEGER, typeName TEXT,
  metricId INTEGER, metricName TEXT);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES (1, 0, 'GPU', 0, 'SM Active [Throughput %]'),
  (1, 0, 'GPU', 1, 'GR Active [Throughput %]'), (1, 0, 'GPU', 2, 'GPC Clock Frequency [MHz]');
CREATE TABLE GPU_METRICS (rawTimestamp INTEGER, timestamp INTEGER, typeId INTEGER,
  metricId INTEGER, value INTEGER);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 90)
  INSERT INTO GPU_METRICS SELECT 100000 * i, 100000 * i, 1, i % 3, (i * 7) % 101 FROM n;
)sql";
  const std::string path = dir.File("small.sqlite");
  nsys_test::WriteDatabase(path, sql);
  return ReadBytes(path);
}

struct Seed {
  std::string bytes;
  size_t page_size;
};

size_t PageSize(const std::string& bytes) {
  if (bytes.size() < 100) return 4096;
  // Big-endian at offset 16; 1 means 65536.
  size_t size =
      (static_cast<unsigned char>(bytes[16]) << 8) | static_cast<unsigned char>(bytes[17]);
  return size == 1 ? 65536 : (size < 512 ? 4096 : size);
}

// Found by the fuzzer: a damaged page that SQLite meets while stepping a statement was an error
// without the file ("sqlite: database disk image is malformed (in: SELECT ...)"). Each table's
// root page damaged in turn: every refusal names the file.
TEST(NsysFuzzTest, ADamagedPageMetWhileReadingRowsNamesTheFile) {
  nsys_test::ScratchDir dir;
  const std::string good = SmallExport(dir);
  const std::string path = dir.File("damaged.sqlite");
  testing::WriteRawFile(path, good);
  std::vector<int64_t> roots;
  {
    StatusOr<SqliteReader> reader = SqliteReader::Open(path);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    StatusOr<SqliteStatement> q = reader->Prepare("SELECT rootpage FROM sqlite_master");
    ASSERT_TRUE(q.ok());
    while (q->Step()) roots.push_back(q->Int(0));
  }
  ASSERT_GT(roots.size(), 5u);
  const size_t page = PageSize(good);
  int refused = 0;
  for (int64_t root : roots) {
    if (root < 2) continue;
    std::string bad = good;
    bad[static_cast<size_t>(root - 1) * page] = '\x42';  // not a b-tree page type
    testing::WriteRawFile(path, bad);
    StatusOr<std::vector<Trace>> traces = ImportNsysSqlite(path);
    if (traces.ok()) continue;  // a table the importer does not need
    ++refused;
    EXPECT_TRUE(traces.status().message().starts_with(path + ": "))
        << "root page " << root << ": " << traces.status().message();
  }
  EXPECT_GT(refused, 0);
}

TEST(NsysFuzzTest, MutantsNeverBreakTheContract) {
  nsys_test::ScratchDir dir;
  std::vector<Seed> seeds;
  std::string small = SmallExport(dir);
  ASSERT_FALSE(small.empty());
  // A seed the importer reads through, so that mutants reach every table.
  StatusOr<std::vector<Trace>> imported = ImportNsysSqlite(dir.File("small.sqlite"));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  seeds.push_back({small, PageSize(small)});
  for (std::string& bytes : testing::SeedFiles(fs::path(GPUWHY_SHARED_DATA) / "nsys_sqlite",
                                               size_t{1} << 30, ReadBytes)) {
    size_t page = PageSize(bytes);
    seeds.push_back({std::move(bytes), page});
  }
  const std::string path = dir.File("mutant.sqlite");
  for (const Seed& seed : seeds) ASSERT_TRUE(FuzzNsysFile(path, seed.bytes));
  std::mt19937_64 rng(0x6e737973ULL);
  // The real exports are about 400 KB: a mutant costs milliseconds, so fewer of them.
  testing::FuzzBudget budget(240);
  while (budget.Next()) {
    const Seed& seed = seeds[rng() % seeds.size()];
    std::string mutant = testing::MutateBinary(seed.bytes, rng, seed.page_size);
    if (FuzzNsysFile(path, mutant)) continue;
    StatusOr<std::vector<Trace>> traces = ImportNsysSqlite(path);
    FAIL() << "run " << budget.runs() << ": contract broken for a file of " << mutant.size()
           << " bytes: " << (traces.ok() ? "" : traces.status().message());
  }
  RecordProperty("runs", std::to_string(budget.runs()));
}

}  // namespace nsys_fuzz_test
}  // namespace gpuwhy
