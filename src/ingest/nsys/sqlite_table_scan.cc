#include "ingest/nsys/sqlite_table_scan.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

namespace gpuwhy {
namespace {

constexpr uint8_t kInteriorTablePage = 0x05;
constexpr uint8_t kLeafTablePage = 0x0d;
constexpr size_t kMaxDepth = 64;  // SQLite itself stops at 20 levels
constexpr uint64_t kRowidType = ~uint64_t{0};

uint32_t Be16(const uint8_t* p) { return uint32_t{p[0]} << 8 | p[1]; }
uint32_t Be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

// An SQLite varint at |p|, not reading at or past |end|; advances |p|. False when cut.
bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t& value) {
  value = 0;
  for (int i = 0; i < 8; ++i) {
    if (p >= end) return false;
    uint8_t byte = *p++;
    value = value << 7 | (byte & 0x7f);
    if ((byte & 0x80) == 0) return true;
  }
  if (p >= end) return false;
  value = value << 8 | *p++;  // the ninth byte contributes all eight bits
  return true;
}

// Bytes of content a serial type stores; false for the reserved types 10 and 11.
bool ContentSize(uint64_t type, uint64_t& size) {
  static constexpr uint8_t kFixed[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  if (type < 10) {
    size = kFixed[type];
    return true;
  }
  if (type < 12) return false;
  size = (type - 12) / 2;
  return true;
}

int64_t BigEndianInt(const uint8_t* p, int bytes) {
  uint64_t v = (p[0] & 0x80) ? ~uint64_t{0} : 0;  // sign extension
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return static_cast<int64_t>(v);
}

double BigEndianDouble(const uint8_t* p) {
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = bits << 8 | p[i];
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// SQLite's REAL -> INTEGER: toward zero, clamped to the int64 range, NaN is 0.
int64_t DoubleToInt(double d) {
  if (std::isnan(d)) return 0;
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(d);
}

// SQLite's TEXT -> INTEGER: the leading integer, 0 when there is none.
int64_t TextToInt(std::string_view text) {
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    ++i;
  bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  uint64_t v = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (uint64_t{1} << 63) / 10)
      return negative ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    v = v * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  if (negative)
    return v >= (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                    : -static_cast<int64_t>(v);
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(v);
}

}  // namespace

StatusOr<SqliteFile> SqliteFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument("{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 512) {
    ::close(fd);
    return InvalidArgument("{}: too short for an SQLite database", path);
  }
  size_t size = static_cast<size_t>(st.st_size);
  // Not MAP_POPULATE: that makes the whole file resident at once, and a mapped page counts
  // towards the process's peak RSS; pages fault in as the scan reaches them and
  // TableScan drops them again every kScanResidentBytes (DropResidentPages).
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED)
    return InvalidArgument("{}: cannot map: {}", path, std::strerror(errno));
  ::madvise(mapped, size, MADV_WILLNEED);  // read-ahead into the page cache, not into RSS
  SqliteFile file;
  file.path_ = path;
  file.data_ = static_cast<const uint8_t*>(mapped);
  file.size_ = size;
  const uint8_t* h = file.data_;
  if (std::memcmp(h, "SQLite format 3", 16) != 0)
    return InvalidArgument("{}: not an SQLite 3 file", path);
  uint32_t page_size = Be16(h + 16);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    return InvalidArgument("{}: byte 16: page size {} is not a power of two from 512 to 65536",
                           path, page_size);
  }
  uint32_t reserved = h[20];
  if (page_size - reserved < 480)
    return InvalidArgument("{}: byte 20: {} reserved bytes per page", path, reserved);
  if (Be32(h + 56) != 1) return InvalidArgument("{}: byte 56: text is not UTF-8", path);
  file.page_size_ = page_size;
  file.usable_size_ = page_size - reserved;
  uint64_t pages = size / page_size;
  file.page_count_ =
      static_cast<uint32_t>(std::min<uint64_t>(pages, std::numeric_limits<uint32_t>::max()));
  return file;
}

SqliteFile::SqliteFile(SqliteFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      page_size_(other.page_size_),
      usable_size_(other.usable_size_),
      page_count_(std::exchange(other.page_count_, 0)) {}

SqliteFile& SqliteFile::operator=(SqliteFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    page_size_ = other.page_size_;
    usable_size_ = other.usable_size_;
    page_count_ = std::exchange(other.page_count_, 0);
  }
  return *this;
}

void SqliteFile::DropResidentPages() const {
  // The mapping is private and never written, so dropping it loses nothing: a later read of a
  // page maps it again from the page cache.
  if (data_ != nullptr) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
}

SqliteFile::~SqliteFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

TableScan::TableScan(const SqliteFile& file, uint32_t root_page, std::vector<int> record_columns,
                     std::string table)
    : file_(file), record_columns_(std::move(record_columns)), table_(std::move(table)) {
  for (int c : record_columns_) max_record_column_ = std::max(max_record_column_, c);
  values_.resize(record_columns_.size());
  field_types_.resize(static_cast<size_t>(max_record_column_ + 1));
  field_offsets_.resize(static_cast<size_t>(max_record_column_ + 1));
  Push(root_page);
}

bool TableScan::Fail(uint32_t page, std::string_view what) {
  status_ = InvalidArgument("{}: table {}: page {}: {} (the file is damaged)", file_.path(), table_,
                            page, what);
  return false;
}

bool TableScan::Push(uint32_t page_number) {
  const uint8_t* page = file_.Page(page_number);
  if (page == nullptr) return Fail(page_number, "page number outside the file");
  // A valid tree visits each page once; more visits mean a cycle.
  if (++pages_visited_ > file_.page_count() || stack_.size() >= kMaxDepth) {
    return Fail(page_number, "the b-tree loops");
  }
  if ((pages_visited_ * file_.page_size()) % kScanResidentBytes < file_.page_size())
    file_.DropResidentPages();
  Frame f;
  f.page = page_number;
  f.header = page + (page_number == 1 ? 100 : 0);
  uint8_t type = f.header[0];
  if (type != kInteriorTablePage && type != kLeafTablePage)
    return Fail(page_number, "not a table b-tree page");
  f.leaf = type == kLeafTablePage;
  f.cells = static_cast<uint16_t>(Be16(f.header + 3));
  size_t header_end =
      static_cast<size_t>(f.header - page) + (f.leaf ? 8 : 12) + size_t{2} * f.cells;
  if (header_end > file_.usable_size()) return Fail(page_number, "cell count overruns the page");
  stack_.push_back(f);
  return true;
}

bool TableScan::NextLeaf() {
  if (done_ || !status_.ok()) return false;
  for (;;) {
    if (stack_.empty()) {
      done_ = true;
      file_.DropResidentPages();  // the table is read: its pages need not stay in RSS
      return false;
    }
    Frame& top = stack_.back();
    if (top.leaf) {
      if (top.next < top.cells) return true;
      stack_.pop_back();
      continue;
    }
    uint32_t child = 0;
    if (top.next < top.cells) {
      const uint8_t* page = file_.Page(top.page);
      uint32_t offset = Be16(top.header + 12 + size_t{2} * top.next++);
      if (offset + 4 > file_.usable_size()) return Fail(top.page, "cell offset outside the page");
      child = Be32(page + offset);
    } else if (!top.right_done) {
      top.right_done = true;
      child = Be32(top.header + 8);
    } else {
      stack_.pop_back();
      continue;
    }
    if (!Push(child)) return false;
  }
}

bool TableScan::Step() {
  if (!NextLeaf()) return false;
  Frame& leaf = stack_.back();
  return ReadCell(leaf, leaf.next++);
}

StatusOr<int64_t> TableScan::CountRows() {
  int64_t rows = 0;
  while (NextLeaf()) {
    Frame& leaf = stack_.back();
    rows += leaf.cells - leaf.next;
    leaf.next = leaf.cells;
  }
  if (!status_.ok()) return status_;
  return rows;
}

bool TableScan::ReadCell(const Frame& leaf, uint16_t cell) {
  const uint8_t* page = file_.Page(leaf.page);
  const uint32_t usable = file_.usable_size();
  uint32_t offset = Be16(leaf.header + 8 + size_t{2} * cell);
  if (offset >= usable) return Fail(leaf.page, "cell offset outside the page");
  const uint8_t* p = page + offset;
  const uint8_t* page_end = page + usable;
  uint64_t payload_size = 0, rowid = 0;
  if (!ReadVarint(p, page_end, payload_size) || !ReadVarint(p, page_end, rowid)) {
    return Fail(leaf.page, "cell cut by the page end");
  }
  // How much of the payload the page holds (fileformat2 "Cell Payload Overflow Pages").
  const uint64_t max_local = usable - 35;
  uint64_t local = payload_size;
  if (payload_size > max_local) {
    uint64_t min_local = (uint64_t{usable} - 12) * 32 / 255 - 23;
    uint64_t k = min_local + (payload_size - min_local) % (usable - 4);
    local = k <= max_local ? k : min_local;
  }
  if (local > static_cast<uint64_t>(page_end - p) ||
      (local < payload_size && local + 4 > static_cast<uint64_t>(page_end - p))) {
    return Fail(leaf.page, "payload cut by the page end");
  }
  if (local == payload_size)
    return DecodeRecord(p, payload_size, static_cast<int64_t>(rowid), leaf.page);
  // Rare for activity rows (a long name or NVTX text): assemble the chain.
  if (payload_size > (uint64_t{1} << 31)) return Fail(leaf.page, "payload larger than 2 GiB");
  overflow_.assign(reinterpret_cast<const char*>(p), local);
  uint32_t next = Be32(p + local);
  uint64_t chain = 0;
  while (overflow_.size() < payload_size) {
    const uint8_t* over = file_.Page(next);
    if (over == nullptr || ++chain > file_.page_count())
      return Fail(leaf.page, "overflow chain leaves the file or loops");
    size_t take =
        static_cast<size_t>(std::min<uint64_t>(payload_size - overflow_.size(), usable - 4));
    overflow_.append(reinterpret_cast<const char*>(over + 4), take);
    next = Be32(over);
  }
  return DecodeRecord(reinterpret_cast<const uint8_t*>(overflow_.data()), payload_size,
                      static_cast<int64_t>(rowid), leaf.page);
}

bool TableScan::DecodeRecord(const uint8_t* payload, uint64_t size, int64_t rowid, uint32_t page) {
  const uint8_t* end = payload + size;
  const uint8_t* p = payload;
  uint64_t header_size = 0;
  if (!ReadVarint(p, end, header_size) || header_size > size ||
      header_size < static_cast<uint64_t>(p - payload)) {
    return Fail(page, "record header size");
  }
  const uint8_t* header_end = payload + header_size;
  uint64_t body = header_size;
  int fields = 0;
  while (fields <= max_record_column_ && p < header_end) {
    uint64_t type = 0, bytes = 0;
    if (*p < 0x80) {
      type = *p++;  // one byte: every serial type below 128 (integers, short texts)
    } else if (!ReadVarint(p, header_end, type)) {
      return Fail(page, "record header");
    }
    if (!ContentSize(type, bytes)) return Fail(page, "record header");
    if (bytes > size - body) return Fail(page, "record field past the payload");
    field_types_[fields] = type;
    field_offsets_[fields] = body;
    body += bytes;
    ++fields;
  }
  for (size_t i = 0; i < record_columns_.size(); ++i) {
    int c = record_columns_[i];
    Value& v = values_[i];
    if (c == kScanRowid) {
      v.type = kRowidType;
      v.rowid = rowid;
    } else if (c < 0 || c >= fields) {
      v.type = 0;  // absent column, or a row written before the column was added
    } else {
      v.type = field_types_[c];
      v.data = payload + field_offsets_[c];
    }
  }
  return true;
}

int64_t TableScan::Int(int column) const {
  const Value& v = values_[column];
  switch (v.type) {
    case 0: return 0;
    case 1: return BigEndianInt(v.data, 1);
    case 2: return BigEndianInt(v.data, 2);
    case 3: return BigEndianInt(v.data, 3);
    case 4: return BigEndianInt(v.data, 4);
    case 5: return BigEndianInt(v.data, 6);
    case 6: return BigEndianInt(v.data, 8);
    case 7: return DoubleToInt(BigEndianDouble(v.data));
    case 8: return 0;
    case 9: return 1;
    case kRowidType: return v.rowid;
    default: return v.type % 2 == 1 ? TextToInt(Text(column)) : 0;
  }
}

namespace {

// SQLite's TEXT -> REAL (sqlite3AtoF): the longest leading decimal number, after spaces:
// sign, digits, a point, digits, an exponent. No "inf", "nan" or hex, which strtod would take
// ("Info" is 0 to SQLite, inf to strtod).
double SqliteTextToDouble(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r'))) ++i;
  const size_t begin = i;
  auto digits = [&] {
    size_t n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++n;
    return n;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return 0;
  size_t end = i;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() > 0) end = i;
  }
  std::string number(text.substr(begin, end - begin));
  return std::strtod(number.c_str(), nullptr);
}

}  // namespace

double TableScan::Double(int column) const {
  const Value& v = values_[column];
  if (v.type == 7) return BigEndianDouble(v.data);
  if (v.type >= 13 && v.type % 2 == 1 && v.type != kRowidType) {
    return SqliteTextToDouble(Text(column));
  }
  if (v.type >= 12 && v.type != kRowidType) return 0;
  return static_cast<double>(Int(column));
}

std::string_view TableScan::Text(int column) const {
  const Value& v = values_[column];
  if (v.type < 12 || v.type == kRowidType) return {};
  return {reinterpret_cast<const char*>(v.data),
          static_cast<size_t>((v.type - 12) / 2)};  // text or blob bytes
}

}  // namespace gpuwhy
