// The diagnosis of a profiler's summary report alone (nsys stats kernel summary, DLProf CSVs):
// what totals can decide (fp32 GEMMs on CUDA cores, a capture of one iteration), with every
// timeline rule left unassessed because the report has no timeline. summary_rules/.
#pragma once

#include "analyze/profile_summary_analysis.h"
#include "diagnose/diagnose.h"
#include "model/profile_summary.h"

namespace gpuwhy {

Diagnosis DiagnoseProfileSummary(const ProfileSummary& summary,
                                 const ProfileSummaryAnalysis& analysis,
                                 const DiagnoseOptions& options = {});

}  // namespace gpuwhy
