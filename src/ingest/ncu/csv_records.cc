#include "ingest/ncu/csv_records.h"

namespace gpuwhy {
namespace {

bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

}  // namespace

bool CsvRecordReader::Next(CsvRecord& record) {
  while (pos_ < text_.size() && IsLineEnd(text_[pos_])) {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  if (pos_ >= text_.size()) return false;
  record.fields.assign(1, std::string());
  record.line = line_;
  record.offset = pos_;
  record.unterminated = false;
  bool quoted = false;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (quoted) {
      ++pos_;
      if (c == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          record.fields.back().push_back('"');
          ++pos_;
        } else {
          quoted = false;
        }
        continue;
      }
      if (c == '\n') ++line_;
      record.fields.back().push_back(c);
      continue;
    }
    if (IsLineEnd(c)) break;  // the line end is consumed by the next call
    ++pos_;
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.fields.emplace_back();
    } else {
      record.fields.back().push_back(c);
    }
  }
  record.unterminated = quoted;
  return true;
}

}  // namespace gpuwhy
