// A thin read-only view of an SQLite file: opened immutable (nothing is ever written, no
// journal or WAL is created), prepared statements, and the schema (tables and columns) read
// once, so importers ask "is this column here?" before they select it.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "ingest/nsys/sqlite_table_scan.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpuwhy {

// One prepared statement; the columns are read by index while Step() returns true.
class SqliteStatement {
 public:
  SqliteStatement() = default;
  // |path| names the file in errors: SQLite meets a damaged page only when a row is read.
  SqliteStatement(sqlite3_stmt* stmt, std::string sql, std::string path)
      : stmt_(stmt), sql_(std::move(sql)), path_(std::move(path)) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // True while a row is ready; false at the end or on error (then status() says why).
  bool Step();
  const Status& status() const { return status_; }

  bool IsNull(int column) const;
  int64_t Int(int column) const;
  // |fallback| for NULL (absent values in optional columns). NULL reads as 0, so the type is
  // asked only for a 0: one SQLite call per value instead of two on the hot path.
  int64_t IntOr(int column, int64_t fallback) const {
    int64_t value = Int(column);
    return value == 0 && IsNull(column) ? fallback : value;
  }
  double Double(int column) const;
  // Valid until the next Step(); empty for NULL.
  std::string_view Text(int column) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  std::string path_;
  Status status_;
};

// The rows of one table, some of its columns, in rowid order: read straight from the pages
// (TableScan) when the table allows it, else through an SQL SELECT. Same values either way.
class TableRows {
 public:
  TableRows() = default;
  explicit TableRows(std::unique_ptr<TableScan> scan) : scan_(std::move(scan)) {}
  explicit TableRows(SqliteStatement statement) : statement_(std::move(statement)) {}

  bool Step() { return scan_ ? scan_->Step() : statement_.Step(); }
  const Status& status() const { return scan_ ? scan_->status() : statement_.status(); }
  bool fast() const { return scan_ != nullptr; }

  bool IsNull(int column) const {
    return scan_ ? scan_->IsNull(column) : statement_.IsNull(column);
  }
  int64_t Int(int column) const { return scan_ ? scan_->Int(column) : statement_.Int(column); }
  int64_t IntOr(int column, int64_t fallback) const {
    return scan_ ? (scan_->IsNull(column) ? fallback : scan_->Int(column))
                 : statement_.IntOr(column, fallback);
  }
  double Double(int column) const {
    return scan_ ? scan_->Double(column) : statement_.Double(column);
  }
  std::string_view Text(int column) const {
    return scan_ ? scan_->Text(column) : statement_.Text(column);
  }

 private:
  std::unique_ptr<TableScan> scan_;
  SqliteStatement statement_;
};

class SqliteReader {
 public:
  // Opens |path| read-only and immutable; fails when it is not a readable SQLite database.
  static StatusOr<SqliteReader> Open(const std::string& path);
  // A second connection to the same file for another thread, sharing the schema and the
  // file's mapping (no second copy of its pages in memory).
  StatusOr<SqliteReader> OpenAnother() const;

  SqliteReader(SqliteReader&& other) noexcept;
  SqliteReader& operator=(SqliteReader&& other) noexcept;
  SqliteReader(const SqliteReader&) = delete;
  SqliteReader& operator=(const SqliteReader&) = delete;
  ~SqliteReader();

  bool HasTable(std::string_view table) const { return columns_.count(std::string(table)) > 0; }
  bool HasColumn(std::string_view table, std::string_view column) const;
  // The first of |candidates| present in |table| (schema drift renamed it), or "".
  std::string FirstColumn(std::string_view table,
                          std::initializer_list<std::string_view> candidates) const;
  const std::set<std::string>& tables() const { return tables_; }

  StatusOr<SqliteStatement> Prepare(const std::string& sql) const;
  // |columns| of |table| (a column the table lacks reads as NULL), every row in rowid order.
  StatusOr<TableRows> ReadColumns(std::string_view table,
                                  const std::vector<std::string>& columns) const;
  // Off: every ReadColumns goes through SQL (tests compare both paths).
  void set_page_scan(bool on) { page_scan_ = on; }
  // SELECT count(*) FROM table; 0 when the table is absent.
  StatusOr<int64_t> CountRows(std::string_view table) const;

  const std::string& path() const { return path_; }

 private:
  SqliteReader() = default;
  Status ReadSchema();

  // Where a table's rows are in the file: enough to scan it without SQL.
  struct TableLayout {
    uint32_t root_page = 0;  // 0: a view, a virtual table, or not scannable (WITHOUT ROWID, ...)
    std::vector<std::string> record_columns;  // in record order (PRAGMA table_info's cid)
    std::string rowid_alias;                  // the INTEGER PRIMARY KEY column, if any
  };

  sqlite3* db_ = nullptr;
  std::string path_;
  std::set<std::string> tables_;
  std::unordered_map<std::string, std::set<std::string>> columns_;
  std::unordered_map<std::string, TableLayout> layouts_;
  std::shared_ptr<const SqliteFile> file_;  // null when the file cannot be walked directly
  bool page_scan_ = true;
};

// "file:" URI of |path| with the characters URIs reserve escaped, plus ?immutable=1.
std::string ImmutableSqliteUri(std::string_view path);

}  // namespace gpuwhy
