// Number formatting and fixed-width tables for the text report. Every formatted number
// carries its unit, so a cell read on its own is never ambiguous.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/text_width.h"
#include "base/time.h"

namespace gpuwhy::report {

// Shortens a kernel name for a column: drops "void ", then the argument list, then
// template arguments ("<…>"), then namespace qualifiers, and finally cuts the end.
std::string ShortenKernelName(std::string_view name, size_t width);

// ShortenKernelName for a table's rows: names that would read the same show, after a short
// head and "…", the part where they differ.
std::vector<std::string> ShortenKernelNames(const std::vector<std::string>& names, size_t width);

// 1234567 -> "1,234,567".
inline std::string Count(int64_t value) { return GroupDigits(value); }
// "12.345 ms" / "1,234.6 ms": three decimals below 100 ms, one above.
std::string Ms(double ms);
inline std::string MsNs(DurationNs ns) { return Ms(NsToMs(ns)); }
// "850 ns", "12.3 µs", "45.67 ms", "1.234 s": the unit follows the magnitude.
std::string Duration(double ns);
// µs with one decimal: "12.3 µs".
std::string Us(double us);
// "47.6 %".
std::string Pct(double pct);
// "512 B", "1.50 KiB", "12.3 MiB".
std::string Bytes(double bytes);
// "12.3 GB/s".
std::string GBps(double gbps);
// Offset from the trace start in ms: "+1,234.567 ms".
std::string Offset(TimeNs t, TimeNs origin);

enum class Align { kLeft, kRight };

struct Column {
  std::string title;
  size_t max_width;  // cells are fitted to this; the column shrinks to its content
  Align align = Align::kRight;
};

// A table with a title row; columns are separated by two spaces (one when |tight|), and
// every line is indented and cut to the report width as a last guard.
class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns, size_t indent = 2, bool tight = false)
      : columns_(std::move(columns)), indent_(indent), tight_(tight) {}
  void AddRow(std::vector<std::string> cells);
  void Render(std::string& out) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  size_t indent_;
  bool tight_;
};

// Appends |text| as one line cut to the report width.
void Line(std::string& out, std::string_view text);
// Appends |text| wrapped at spaces into lines of the report width, the continuation lines
// indented by |indent| + 2, or by |hanging| when given (a labelled field's value column).
void Wrapped(std::string& out, std::string_view text, size_t indent);
void Wrapped(std::string& out, std::string_view text, size_t indent, size_t hanging);

}  // namespace gpuwhy::report
