// CSV records as Nsight Compute writes them: every field quoted, quotes doubled inside, and a
// quoted field may hold commas (kernel names with template arguments) or, in principle, line
// breaks, so records are cut at line ends outside quotes only. Each record keeps the line it
// starts on for messages, and says whether the input ended inside a quoted field (a cut file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy {

struct CsvRecord {
  std::vector<std::string> fields;
  int64_t line = 0;           // 1-based line the record starts on
  uint64_t offset = 0;        // its first byte
  bool unterminated = false;  // the input ended inside a quoted field
};

class CsvRecordReader {
 public:
  explicit CsvRecordReader(std::string_view text) : text_(text) {}
  // The next record; false at the end of the input. Blank lines are skipped.
  bool Next(CsvRecord& record);

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

}  // namespace gpuwhy
