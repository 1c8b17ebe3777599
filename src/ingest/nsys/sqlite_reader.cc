#include "ingest/nsys/sqlite_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

namespace gpuwhy {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      sql_(std::move(other.sql_)),
      path_(std::move(other.path_)),
      status_(std::move(other.status_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    sql_ = std::move(other.sql_);
    path_ = std::move(other.path_);
    status_ = std::move(other.status_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

bool SqliteStatement::Step() {
  if (stmt_ == nullptr || !status_.ok()) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) {
    status_ = InvalidArgument("{}: sqlite: {} (in: {})", path_,
                              sqlite3_errmsg(sqlite3_db_handle(stmt_)), sql_);
  }
  return false;
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t SqliteStatement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

double SqliteStatement::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string_view SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

std::string ImmutableSqliteUri(std::string_view path) {
  std::string uri = "file:";
  for (char c : path) {
    // '?' and '#' end the path part of a URI; '%' starts an escape.
    if (c == '?' || c == '#' || c == '%') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  // immutable=1: SQLite assumes nobody changes the file, takes no locks and never writes
  // (not even a -journal or -wal next to it); mode=ro as a second guard.
  uri += "?mode=ro&immutable=1";
  return uri;
}

namespace {

StatusOr<sqlite3*> OpenConnection(const std::string& path) {
  sqlite3* db = nullptr;
  std::string uri = ImmutableSqliteUri(path);
  // NOMUTEX: one thread per connection, so SQLite's per-call locking is pure cost.
  int rc = sqlite3_open_v2(uri.c_str(), &db,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return InvalidArgument("{}: cannot open as SQLite: {}", path, message);
  }
  return db;
}

}  // namespace

StatusOr<SqliteReader> SqliteReader::Open(const std::string& path) {
  SqliteReader reader;
  reader.path_ = path;
  ASSIGN_OR_RETURN(reader.db_, OpenConnection(path));
  RETURN_IF_ERROR(reader.ReadSchema());
  // The big tables are read from the pages directly when the file allows (UTF-8, a sane
  // header); otherwise everything goes through SQL.
  StatusOr<SqliteFile> file = SqliteFile::Open(path);
  if (file.ok()) reader.file_ = std::make_shared<const SqliteFile>(std::move(*file));
  return reader;
}

StatusOr<SqliteReader> SqliteReader::OpenAnother() const {
  SqliteReader reader;
  reader.path_ = path_;
  ASSIGN_OR_RETURN(reader.db_, OpenConnection(path_));
  reader.tables_ = tables_;
  reader.columns_ = columns_;
  reader.layouts_ = layouts_;
  reader.file_ = file_;
  reader.page_scan_ = page_scan_;
  return reader;
}

SqliteReader::SqliteReader(SqliteReader&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      tables_(std::move(other.tables_)),
      columns_(std::move(other.columns_)),
      layouts_(std::move(other.layouts_)),
      file_(std::move(other.file_)),
      page_scan_(other.page_scan_) {}

SqliteReader& SqliteReader::operator=(SqliteReader&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    tables_ = std::move(other.tables_);
    columns_ = std::move(other.columns_);
    layouts_ = std::move(other.layouts_);
    file_ = std::move(other.file_);
    page_scan_ = other.page_scan_;
  }
  return *this;
}

SqliteReader::~SqliteReader() { sqlite3_close_v2(db_); }

namespace {

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Status SqliteReader::ReadSchema() {
  ASSIGN_OR_RETURN(
      SqliteStatement tables,
      Prepare(
          "SELECT name, type, rootpage, sql FROM sqlite_master WHERE type IN ('table', 'view')"));
  while (tables.Step()) {
    std::string name(tables.Text(0));
    tables_.insert(name);
    TableLayout& layout = layouts_[name];
    std::string sql = Upper(tables.Text(3));
    // Records of these do not hold the columns in table_info order (or are not rowid b-trees).
    bool scannable = tables.Text(1) == "table" && sql.find("WITHOUT ROWID") == std::string::npos &&
                     sql.find("GENERATED") == std::string::npos &&
                     sql.find("VIRTUAL TABLE") == std::string::npos;
    int64_t root = tables.Int(2);
    layout.root_page =
        scannable && root > 0 && root <= UINT32_MAX ? static_cast<uint32_t>(root) : 0;
  }
  if (!tables.status().ok()) return tables.status();
  for (const std::string& table : tables_) {
    // table_info takes an identifier: quote it, doubling embedded quotes.
    std::string quoted = "\"";
    for (char c : table) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    quoted += '"';
    ASSIGN_OR_RETURN(SqliteStatement info, Prepare("PRAGMA table_info(" + quoted + ")"));
    std::set<std::string>& columns = columns_[table];
    TableLayout& layout = layouts_[table];
    std::vector<std::string> primary_key;
    std::string primary_key_type;
    while (info.Step()) {  // cid, name, type, notnull, dflt_value, pk: rows in cid order
      columns.emplace(info.Text(1));
      layout.record_columns.emplace_back(info.Text(1));
      if (info.Int(5) > 0) {
        primary_key.emplace_back(info.Text(1));
        primary_key_type = Upper(info.Text(2));
      }
    }
    if (!info.status().ok()) return info.status();
    // A lone INTEGER PRIMARY KEY is the rowid: its record field holds NULL.
    if (primary_key.size() == 1 && primary_key_type == "INTEGER")
      layout.rowid_alias = primary_key.front();
  }
  return Status::Ok();
}

StatusOr<TableRows> SqliteReader::ReadColumns(std::string_view table,
                                              const std::vector<std::string>& columns) const {
  auto layout = layouts_.find(std::string(table));
  if (layout == layouts_.end()) return InvalidArgument("{}: no table {}", path_, table);
  if (page_scan_ && file_ != nullptr && layout->second.root_page != 0) {
    std::vector<int> fields;
    const std::vector<std::string>& record = layout->second.record_columns;
    for (const std::string& column : columns) {
      auto at = std::find(record.begin(), record.end(), column);
      fields.push_back(column == layout->second.rowid_alias ? kScanRowid
                       : at == record.end()                 ? kScanNull
                                            : static_cast<int>(at - record.begin()));
    }
    return TableRows(std::make_unique<TableScan>(*file_, layout->second.root_page,
                                                 std::move(fields), std::string(table)));
  }
  std::string sql = "SELECT ";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += HasColumn(table, columns[i]) ? "\"" + columns[i] + "\"" : std::string("NULL");
  }
  sql += fmt::format(" FROM \"{}\"", table);
  ASSIGN_OR_RETURN(SqliteStatement statement, Prepare(sql));
  return TableRows(std::move(statement));
}

bool SqliteReader::HasColumn(std::string_view table, std::string_view column) const {
  auto it = columns_.find(std::string(table));
  return it != columns_.end() && it->second.count(std::string(column)) > 0;
}

std::string SqliteReader::FirstColumn(std::string_view table,
                                      std::initializer_list<std::string_view> candidates) const {
  for (std::string_view column : candidates) {
    if (HasColumn(table, column)) return std::string(column);
  }
  return {};
}

StatusOr<SqliteStatement> SqliteReader::Prepare(const std::string& sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    // A file that only starts like SQLite fails here ("file is not a database").
    return InvalidArgument("{}: sqlite: {}", path_, sqlite3_errmsg(db_));
  }
  return SqliteStatement(stmt, sql, path_);
}

StatusOr<int64_t> SqliteReader::CountRows(std::string_view table) const {
  if (!HasTable(table)) return int64_t{0};
  auto layout = layouts_.find(std::string(table));
  if (page_scan_ && file_ != nullptr && layout != layouts_.end() && layout->second.root_page != 0) {
    return TableScan(*file_, layout->second.root_page, {}, std::string(table)).CountRows();
  }
  ASSIGN_OR_RETURN(SqliteStatement count,
                   Prepare(fmt::format("SELECT count(*) FROM \"{}\"", table)));
  int64_t n = count.Step() ? count.Int(0) : 0;
  RETURN_IF_ERROR(count.status());
  return n;
}

}  // namespace gpuwhy
