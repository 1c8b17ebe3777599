// The body shared by the deterministic mutation fuzzer (nsys_fuzz_test.cc, in ctest) and the
// libFuzzer target (fuzz/, clang only): the bytes of an SQLite file are written to |path| and
// read twice, by the importer (schema checks, the page scanner where it applies) and by SQLite
// itself (every column of every table through SQL, so its corruption errors are met too). The
// contract: no crash, no exception, no undefined behaviour (under the sanitizers), and an
// importer error names the file.
#pragma once

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/nsys/nsys_importer.h"
#include "ingest/nsys/sqlite_reader.h"

namespace gpuwhy {

// Every column of every table, by the page scanner (|page_scan|) or by SQL; rows are bounded so
// that a mutant stays cheap. False only when the contract is broken.
inline bool ScanEveryTable(const SqliteReader& reader, size_t max_rows) {
  for (const std::string& table : reader.tables()) {
    std::vector<std::string> columns;
    StatusOr<SqliteStatement> info = reader.Prepare("PRAGMA table_info(\"" + table + "\")");
    if (!info.ok()) continue;
    while (info->Step()) columns.emplace_back(info->Text(1));
    if (columns.empty()) continue;
    StatusOr<TableRows> rows = reader.ReadColumns(table, columns);
    if (!rows.ok()) continue;
    for (size_t n = 0; n < max_rows && rows->Step(); ++n) {
      for (int c = 0; c < static_cast<int>(columns.size()); ++c) {
        (void)rows->IsNull(c);
        (void)rows->Int(c);
        (void)rows->Double(c);
        (void)rows->Text(c).size();
      }
    }
  }
  return true;
}

inline bool FuzzNsysFile(const std::string& path, std::string_view bytes) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return true;  // nothing to test
  }
  StatusOr<std::vector<Trace>> traces = ImportNsysSqlite(path);
  if (!traces.ok() && !traces.status().message().starts_with(path)) return false;
  StatusOr<SqliteReader> reader = SqliteReader::Open(path);
  if (!reader.ok()) return true;
  if (!ScanEveryTable(*reader, 2000)) return false;
  reader->set_page_scan(false);
  return ScanEveryTable(*reader, 2000);
}

}  // namespace gpuwhy
