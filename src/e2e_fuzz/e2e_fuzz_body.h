// The body shared by the end-to-end fuzzers (issue 37): the deterministic mutation test
// (e2e_fuzz_test.cc, in ctest) and the libFuzzer target (fuzz/, clang only). One input goes
// through what a user runs, in-process: the classifier, the matching importer, the analyses,
// the diagnosis (trace, signals, snapshot, platform; cross-rank when the input is given as two
// ranks) and every renderer, as `gpuwhy analyze --format text|json|md|html` and
// `gpuwhy doctor --from FILE --format text|json` do. The contract: no crash, no exception, no
// undefined behaviour (the sanitizers' part), and every JSON report parses and validates against
// docs/report-schema.json.
#pragma once

#include <string>
#include <string_view>

namespace gpuwhy {

class EndToEndFuzzer {
 public:
  // |schema_path|: docs/report-schema.json. |scratch_dir|: where each input is written as a file
  // (the pipeline reads paths), created when absent.
  EndToEndFuzzer(const std::string& schema_path, const std::string& scratch_dir);
  ~EndToEndFuzzer();
  EndToEndFuzzer(const EndToEndFuzzer&) = delete;
  EndToEndFuzzer& operator=(const EndToEndFuzzer&) = delete;

  // "" when the schema was read; otherwise why not (every Run then fails with it).
  const std::string& setup_error() const;

  // What broke the contract on |data|, or "" when it held.
  std::string Run(std::string_view data);

 private:
  struct State;
  State* state_;
};

}  // namespace gpuwhy
