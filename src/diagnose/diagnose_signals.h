// The diagnosis from metric series alone (gpuwhy run/record, recordings, nvidia-smi and DCGM
// logs): the rules of signal_rules/ plus memory.near_capacity and
// platform.pcie_downgraded from series. Combine with a trace's diagnosis by MergeDiagnosis.
#pragma once

#include "analyze/signals.h"
#include "diagnose/diagnose.h"
#include "model/metric_series.h"

namespace gpuwhy {

// The analysis thresholds the catalog owns (low/high utilization, pinned thread, iowait...).
SignalOptions SignalOptionsFromCatalog(const Catalog& catalog);

Diagnosis DiagnoseSignals(const MetricSeriesSet& set, const DiagnoseOptions& options = {});
Diagnosis DiagnoseSignals(const SignalAnalysis& analysis, const DiagnoseOptions& options = {});

}  // namespace gpuwhy
