// `gpuwhy analyze traces/ bundle/`: support-bundle directories among the inputs are read as
// node logs, diagnosed by gpuwhy doctor's rules and merged into every rank's diagnosis (or
// reported alone when no trace is given).
#pragma once

#include <string>
#include <vector>

#include "cli/cli.h"
#include "diagnose/diagnose.h"
#include "model/system_facts.h"
#include "report/report.h"

namespace gpuwhy {

struct BundleInputs {
  std::vector<std::string> rest;     // the inputs that are not support bundles
  std::vector<std::string> bundles;  // directories read as bundles
  SystemFacts facts;
  std::vector<ReportFailure> failures;
  std::vector<std::string> unrecognised;
};

// A directory with no trace file that holds recognised node logs is a bundle.
BundleInputs SplitSupportBundles(const std::vector<std::string>& inputs);

// Merges the bundles' platform diagnosis into each rank (a doctor report when |ranks| is
// empty) and appends the bundles' failures.
void AddBundleDiagnosis(BundleInputs& bundles, const DiagnoseOptions& options,
                        std::vector<RankReport>& ranks, std::vector<ReportFailure>& failures);

}  // namespace gpuwhy
