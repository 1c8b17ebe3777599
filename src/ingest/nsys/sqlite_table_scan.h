// Reads the rows of one rowid table straight from an SQLite database file's pages, without
// SQLite's virtual machine: the big activity tables of an Nsight Systems export are scanned
// five times faster this way (SQLite's row decoding was most of the import). Follows the
// published file format (sqlite.org/fileformat2.html: b-tree pages, cells, overflow
// chains, records and serial types). The bytes are untrusted: every page number, offset,
// varint and length is checked, a page is never visited twice, and a broken structure ends
// the scan with a one-line error naming the page. SqliteReader decides when this path applies
// (UTF-8 database, ordinary rowid table) and falls back to SQL otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

// The database file, mapped read-only.
class SqliteFile {
 public:
  // Fails when |path| is not an SQLite 3 file this reader can walk (the caller then uses SQL).
  static StatusOr<SqliteFile> Open(const std::string& path);
  SqliteFile(SqliteFile&& other) noexcept;
  SqliteFile& operator=(SqliteFile&& other) noexcept;
  SqliteFile(const SqliteFile&) = delete;
  SqliteFile& operator=(const SqliteFile&) = delete;
  ~SqliteFile();

  uint32_t page_count() const { return page_count_; }
  uint32_t usable_size() const { return usable_size_; }
  // Page |number| (1-based), or nullptr outside the file.
  const uint8_t* Page(uint32_t number) const {
    return number >= 1 && number <= page_count_ ? data_ + size_t{number - 1} * page_size_ : nullptr;
  }
  const std::string& path() const { return path_; }
  // Takes the mapped pages out of the process's resident set (they stay in the page cache and
  // fault back in when read again), so a scan of a file larger than memory allows does not
  // hold all of it: a mapped page counts towards peak RSS like the model's own columns.
  void DropResidentPages() const;
  size_t page_size() const { return page_size_; }

 private:
  SqliteFile() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint32_t page_size_ = 0;
  uint32_t usable_size_ = 0;
  uint32_t page_count_ = 0;
};

// Where an output column's value comes from in the table's records.
inline constexpr int kScanNull = -1;   // the table has no such column: always NULL
inline constexpr int kScanRowid = -2;  // an INTEGER PRIMARY KEY: the row's rowid

// A scan drops the file's resident pages after this many bytes of b-tree pages (madvise), and
// again when it ends: mapped file pages count in peak RSS like the model's own columns, and
// two scans run at once (GPU and host tables). At 64 MiB they held ~120 MB of a 198 MB export
// at the import's peak (gpuwhy info: 313 MB peak RSS, 194 MB at 8 MiB); the extra drops cost
// ~9k minor faults on that file (a page faults in again after a drop), lost in the noise.
inline constexpr size_t kScanResidentBytes = size_t{8} << 20;

class TableScan {
 public:
  // |record_columns[i]|: the record field (the column's position in the table) that output
  // column i reads, or kScanNull / kScanRowid.
  TableScan(const SqliteFile& file, uint32_t root_page, std::vector<int> record_columns,
            std::string table);

  // True while a row is ready; false at the end or on a broken structure (status() says).
  bool Step();
  const Status& status() const { return status_; }
  // The rows left, counted from the leaf pages' cell counts without reading a row.
  StatusOr<int64_t> CountRows();

  bool IsNull(int column) const { return values_[column].type == 0; }
  int64_t Int(int column) const;
  double Double(int column) const;
  // A text's (or blob's) bytes, valid until the next Step(); empty for NULL and for numbers
  // (SQLite would format a number as text: no reader here asks for that).
  std::string_view Text(int column) const;

 private:
  struct Value {
    uint64_t type = 0;  // SQLite serial type; 0 is NULL
    const uint8_t* data = nullptr;
    int64_t rowid = 0;  // for kScanRowid columns (type kRowidType)
  };
  struct Frame {
    uint32_t page = 0;
    const uint8_t* header = nullptr;  // the b-tree page header
    uint16_t cells = 0;
    uint16_t next = 0;  // next cell to visit
    bool leaf = false;
    bool right_done = false;
  };

  bool Fail(uint32_t page, std::string_view what);
  bool Push(uint32_t page);
  // Moves to a leaf page with a cell left to read; false at the end or on a broken structure.
  bool NextLeaf();
  bool ReadCell(const Frame& leaf, uint16_t cell);
  bool DecodeRecord(const uint8_t* payload, uint64_t size, int64_t rowid, uint32_t page);

  const SqliteFile& file_;
  std::vector<int> record_columns_;
  int max_record_column_ = -1;
  std::string table_;
  std::vector<Frame> stack_;
  uint64_t pages_visited_ = 0;
  std::vector<Value> values_;
  std::vector<uint64_t> field_types_;  // per record field up to max_record_column_
  std::vector<uint64_t> field_offsets_;
  std::string overflow_;  // a payload assembled from its overflow chain
  Status status_;
  bool done_ = false;
};

}  // namespace gpuwhy
