// The page scanner against SQLite itself: every column of every row of every table, read both
// ways, must agree, on hand-made databases that exercise each part of the file format
// (multi-level b-trees, overflow chains, every integer width, doubles, NULLs, the rowid
// alias, columns added after rows were written, tables the scanner must leave to SQL) and on
// the real Nsight Systems exports. Damaged files end the scan with an error, never a crash.
#include "ingest/nsys/sqlite_table_scan.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "ingest/nsys/nsys_test_util.h"
#include "ingest/nsys/sqlite_reader.h"

namespace gpuwhy {
namespace sqlite_table_scan_test {

using nsys_test::ScratchDir;
using nsys_test::WriteDatabase;

// Every table's rows through the page scanner and through SQL; adds the rows compared.
void ExpectSameRows(const std::string& path, int64_t& compared) {
  StatusOr<SqliteReader> fast = SqliteReader::Open(path);
  StatusOr<SqliteReader> sql = SqliteReader::Open(path);
  ASSERT_TRUE(fast.ok() && sql.ok()) << path;
  sql->set_page_scan(false);
  for (const std::string& table : fast->tables()) {
    std::vector<std::string> columns;
    // All the table's columns, and one it does not have (reads as NULL).
    StatusOr<SqliteStatement> info =
        fast->Prepare("SELECT name FROM pragma_table_info('" + table + "')");
    EXPECT_TRUE(info.ok());
    while (info->Step()) columns.emplace_back(info->Text(0));
    columns.push_back("no_such_column");
    StatusOr<TableRows> a = fast->ReadColumns(table, columns);
    StatusOr<TableRows> b = sql->ReadColumns(table, columns);
    EXPECT_TRUE(a.ok() && b.ok()) << table;
    if (!a.ok() || !b.ok()) continue;
    // Text() is for text and blobs: the page path does not format numbers as SQLite would.
    std::string types_sql = "SELECT ";
    for (size_t c = 0; c + 1 < columns.size(); ++c)
      types_sql += (c ? ", typeof(\"" : "typeof(\"") + columns[c] + "\")";
    StatusOr<SqliteStatement> types = sql->Prepare(types_sql + " FROM \"" + table + "\"");
    ASSERT_TRUE(types.ok());
    int64_t rows = 0;
    while (true) {
      bool more_a = a->Step();
      bool more_b = b->Step();
      EXPECT_EQ(more_a, more_b) << table << " row " << rows;
      if (!more_a || !more_b) break;
      ASSERT_TRUE(types->Step());
      for (int c = 0; c < static_cast<int>(columns.size()); ++c) {
        ASSERT_EQ(a->IsNull(c), b->IsNull(c)) << table << "." << columns[c] << " row " << rows;
        ASSERT_EQ(a->Int(c), b->Int(c)) << table << "." << columns[c] << " row " << rows;
        std::string_view type = c + 1 < static_cast<int>(columns.size()) ? types->Text(c) : "null";
        if (type == "text" || type == "blob") {
          ASSERT_EQ(a->Text(c), b->Text(c)) << table << "." << columns[c] << " row " << rows;
        }
        double da = a->Double(c), db = b->Double(c);
        if (!(std::isnan(da) && std::isnan(db))) {
          ASSERT_EQ(da, db) << table << "." << columns[c];
        }
      }
      ++rows;
    }
    EXPECT_TRUE(a->status().ok()) << a->status().message();
    EXPECT_EQ(*fast->CountRows(table), *sql->CountRows(table)) << table;
    EXPECT_EQ(*fast->CountRows(table), rows) << table;
    compared += rows;
  }
}

// A database that needs every part of the format.
std::string FormatTorture(const ScratchDir& dir, int page_size) {
  std::string path = dir.File("torture" + std::to_string(page_size) + ".sqlite");
  std::string sql = "PRAGMA page_size = " + std::to_string(page_size) + R"sql(;
CREATE TABLE nums (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, n INTEGER);
CREATE TABLE wide (a, b, c, d, e, f, g, h, i, j, k, l);
CREATE TABLE notpk (id INTEGER, name TEXT, PRIMARY KEY (id, name));
CREATE TABLE norowid (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
CREATE VIEW v AS SELECT i FROM nums;
)sql";
  // Every integer width, both signs; doubles; NULLs; texts from empty to several pages long.
  const int64_t ints[] = {0,
                          1,
                          -1,
                          127,
                          -128,
                          32767,
                          -32768,
                          8388607,
                          -8388608,
                          2147483647,
                          -2147483648LL,
                          140737488355327LL,
                          -140737488355328LL,
                          9223372036854775807LL,
                          -9223372036854775807LL - 1};
  sql += "BEGIN;";
  for (int row = 0; row < 3000; ++row) {
    int64_t v = ints[row % std::size(ints)];
    std::string text(static_cast<size_t>(row % 7 == 0 ? row * 3 % 9000 : row % 40),
                     static_cast<char>('a' + row % 26));
    sql += "INSERT INTO nums (i, r, t, b, n) VALUES (" + std::to_string(v) + ", " +
           (row % 5 == 0 ? std::string("NULL") : std::to_string(row * 0.25 - 100)) + ", '" + text +
           "', " + (row % 3 == 0 ? "x'00ff10'" : "NULL") + ", " +
           (row % 2 == 0 ? "NULL" : "'12abc'") + ");";
    sql += "INSERT INTO wide VALUES (" + std::to_string(row) + ", 'x', 2.5, NULL, 1, 0, -7, " +
           std::to_string(v) + ", 'long " + std::string(static_cast<size_t>(row % 300), 'w') +
           "', 9, 10, 11);";
    sql += "INSERT INTO notpk VALUES (" + std::to_string(row * 7) + ", 'n" + std::to_string(row) +
           "');";
    sql +=
        "INSERT INTO norowid VALUES ('k" + std::to_string(row) + "', " + std::to_string(row) + ");";
  }
  sql += "COMMIT; ALTER TABLE wide ADD COLUMN added INTEGER;";
  sql += "INSERT INTO wide (a, added) VALUES (-1, 42);";
  sql += "DELETE FROM nums WHERE id % 11 = 0;";  // freeblocks and emptier pages
  WriteDatabase(path, sql);
  return path;
}

TEST(SqliteTableScanTest, AgreesWithSqliteOnEveryPartOfTheFormat) {
  ScratchDir dir;
  for (int page_size : {512, 4096, 65536}) {
    int64_t rows = 0;
    ExpectSameRows(FormatTorture(dir, page_size), rows);
    EXPECT_GT(rows, 9000) << "page size " << page_size;
  }
}

TEST(SqliteTableScanTest, UsesThePagesOnlyWhereTheFormatAllows) {
  ScratchDir dir;
  std::string path = FormatTorture(dir, 4096);
  StatusOr<SqliteReader> reader = SqliteReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE(reader->ReadColumns("nums", {"id"})->fast());
  EXPECT_FALSE(reader->ReadColumns("norowid", {"k"})->fast());  // an index b-tree
  EXPECT_FALSE(reader->ReadColumns("v", {"i"})->fast());        // a view
  // The rowid alias reads the rowid (its record field is NULL).
  StatusOr<TableRows> rows = reader->ReadColumns("nums", {"id"});
  ASSERT_TRUE(rows->Step());
  EXPECT_EQ(rows->Int(0), 1);
  EXPECT_FALSE(rows->IsNull(0));
}

TEST(SqliteTableScanTest, RealExportsReadTheSameBothWays) {
  const std::string dir = std::string(GPUWHY_SHARED_DATA) + "/nsys_sqlite";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " absent: real-data test skipped";
  int64_t rows = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".sqlite") ExpectSameRows(entry.path().string(), rows);
  }
  EXPECT_GT(rows, 5000);  // every row of both exports (5,689)
}

// Resident kilobytes of this process's mappings of |path| (/proc/self/smaps), -1 without one.
int64_t MappedRssKb(const std::string& path) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_file = false;
  int64_t rss = -1;
  while (std::getline(smaps, line)) {
    // A mapping's header line: "start-end perms offset dev inode   path".
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find('-') < line.find(' ')) {
      in_file = line.size() >= path.size() && line.ends_with(path);
      continue;
    }
    if (in_file && line.starts_with("Rss:")) {
      std::istringstream fields(line.substr(4));
      int64_t kb = 0;
      fields >> kb;
      rss = std::max<int64_t>(rss, 0) + kb;
    }
  }
  return rss;
}

// Mapped file pages count in peak RSS: a scan that has read its table leaves none resident
// (the import's peak comes after the scans, in Finalize).
TEST(SqliteTableScanTest, AFinishedScanLeavesNoFilePagesResident) {
  ScratchDir dir;
  std::string path = FormatTorture(dir, 4096);
  StatusOr<SqliteReader> reader = SqliteReader::Open(path);
  ASSERT_TRUE(reader.ok());
  StatusOr<TableRows> rows = reader->ReadColumns("wide", {"a", "i"});
  ASSERT_TRUE(rows.ok() && rows->fast());
  int64_t n = 0, resident_midway = -1;
  while (rows->Step()) {
    if (++n == 1500) resident_midway = MappedRssKb(path);
  }
  ASSERT_TRUE(rows->status().ok());
  EXPECT_EQ(n, 3001);
  EXPECT_GT(resident_midway, 0) << "the test does not see the mapping";
  EXPECT_EQ(MappedRssKb(path), 0);
  // The pages fault back in when read again: a second scan reads the same rows.
  StatusOr<TableRows> again = reader->ReadColumns("wide", {"a"});
  int64_t m = 0;
  while (again->Step()) ++m;
  EXPECT_EQ(m, n);
  EXPECT_EQ(*reader->CountRows("wide"), n);
  EXPECT_EQ(MappedRssKb(path), 0);
}

// Random damage to a database's pages: the scan may stop with an error, never crash or loop.
TEST(SqliteTableScanTest, DamagedPagesNeverCrashTheScan) {
  ScratchDir dir;
  std::string clean_path = FormatTorture(dir, 512);
  std::ifstream in(clean_path, std::ios::binary);
  std::string clean((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(clean.size(), 100000u);
  std::mt19937_64 random(7);
  std::string path = dir.File("damaged.sqlite");
  int errors = 0;
  for (int round = 0; round < 300; ++round) {
    std::string damaged = clean;
    int edits = 1 + static_cast<int>(random() % 16);
    for (int e = 0; e < edits; ++e) {
      // Past the schema page, so SQLite still opens the file and the scanner meets the damage.
      size_t at = 1024 + random() % (damaged.size() - 1024);
      damaged[at] = static_cast<char>(random() % 4 == 0 ? 0xff : random());
    }
    if (round % 10 == 0) damaged.resize(damaged.size() - random() % (damaged.size() / 2));
    std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
    StatusOr<SqliteReader> reader = SqliteReader::Open(path);
    if (!reader.ok()) continue;
    for (const char* table : {"nums", "wide", "notpk"}) {
      StatusOr<TableRows> rows =
          reader->ReadColumns(table, {"id", "i", "r", "t", "b", "n", "a", "l", "name"});
      if (!rows.ok()) continue;
      int64_t n = 0;
      while (rows->Step()) {
        for (int c = 0; c < 9; ++c) (void)rows->Text(c).size(), (void)rows->Int(c);
        ASSERT_LT(++n, 100000) << "the scan does not end";
      }
      if (!rows->status().ok()) {
        ++errors;
        EXPECT_NE(rows->status().message().find("page"), std::string::npos)
            << rows->status().message();
      }
      (void)reader->CountRows(table);
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace sqlite_table_scan_test
}  // namespace gpuwhy
