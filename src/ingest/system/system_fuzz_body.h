// The body shared by the deterministic mutation fuzzer (system_fuzz_test.cc, in ctest) and
// the libFuzzer targets (fuzz/, clang only): parse |data| as |format| and check the contract:
// no crash, no hang, and every reported problem or error names the input ("PATH: …").
#pragma once

#include <cstdlib>
#include <string_view>

#include "ingest/system/system_parsers.h"

namespace gpuwhy {

inline constexpr std::string_view kFuzzPath = "fuzz.txt";

// Returns false when the contract is broken (the caller reports or aborts).
inline bool FuzzSystemParser(SystemFormat format, std::string_view data) {
  SystemFacts facts;
  Status status = ParseSystemText(format, data, kFuzzPath, facts);
  if (!status.ok() && !status.message().starts_with(kFuzzPath)) return false;
  for (DataProblem kind : facts.problems.Kinds()) {
    for (const std::string& problem : facts.problems.Details(kind)) {
      if (!problem.starts_with(kFuzzPath)) return false;
    }
  }
  // Quotes point into the input by line number: never past its end.
  int64_t lines = 1;
  for (char c : data) lines += c == '\n';
  for (const XidEvent& x : facts.xids) {
    if (x.quote.line < 1 || x.quote.line > lines) return false;
  }
  for (const NodeEvent& e : facts.node_events) {
    if (e.quote.line < 1 || e.quote.line > lines) return false;
  }
  for (const NcclLog& log : facts.nccl_logs) {
    for (const NcclConnection& c : log.connections) {
      if (c.quote.line < 1 || c.quote.line > lines) return false;
    }
    for (const NcclTestRow& r : log.test_rows) {
      if (r.quote.line < 1 || r.quote.line > lines) return false;
    }
    for (const SourceQuote& q : log.errors) {
      if (q.line < 1 || q.line > lines) return false;
    }
  }
  return true;
}

}  // namespace gpuwhy
