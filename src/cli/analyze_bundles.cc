#include "cli/analyze_bundles.h"

#include <filesystem>

#include "cli/doctor_report.h"
#include "diagnose/diagnose_platform.h"
#include "diagnose/merge.h"
#include "ingest/importer.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {

BundleInputs SplitSupportBundles(const std::vector<std::string>& inputs) {
  BundleInputs out;
  for (const std::string& input : inputs) {
    std::error_code ec;
    bool bundle = false;
    if (std::filesystem::is_directory(input, ec)) {
      StatusOr<std::vector<std::string>> traces = ExpandInputPaths({input});
      // ExpandInputPaths reports a folder without traces as an error.
      bundle = (!traces.ok() || traces->empty()) && LooksLikeSupportBundle(input);
    }
    if (!bundle) {
      out.rest.push_back(input);
      continue;
    }
    out.bundles.push_back(input);
    BundleReadResult read = ReadSupportBundle(input, out.facts);
    for (const BundleFailure& f : read.failures) out.failures.push_back({f.path, f.message});
    out.unrecognised.insert(out.unrecognised.end(), read.unrecognised.begin(),
                            read.unrecognised.end());
  }
  return out;
}

void AddBundleDiagnosis(BundleInputs& bundles, const DiagnoseOptions& options,
                        std::vector<RankReport>& ranks, std::vector<ReportFailure>& failures) {
  for (ReportFailure& f : bundles.failures) failures.push_back(std::move(f));
  if (bundles.bundles.empty()) return;
  std::string source = "doctor: ";
  for (size_t i = 0; i < bundles.bundles.size(); ++i) {
    source += (i > 0 ? ", " : "") + bundles.bundles[i];
  }
  RankReport platform = DoctorReport(bundles.facts, source, options);
  for (const std::string& file : bundles.unrecognised) {
    platform.diagnosis.notes.push_back(file + ": not a recognised log or command output, skipped");
  }
  if (ranks.empty()) {
    ranks.push_back(std::move(platform));
    return;
  }
  for (RankReport& rank : ranks) MergeDiagnosis(rank.diagnosis, platform.diagnosis);
}

}  // namespace gpuwhy
