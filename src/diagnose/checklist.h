// The field engineer's checklist (baseline -> timeline -> input and CPU -> communication ->
// kernels and sync -> memory and model -> platform): what this trace let us assess, and for
// everything else the missing data and the exact command that captures it.
#pragma once

#include <vector>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"

namespace gpuwhy {

// Reads the rule outcomes and findings already in |diagnosis|.
std::vector<ChecklistItem> BuildChecklist(const Trace& trace, const TraceAnalysis& analysis,
                                          const Catalog& catalog, const Diagnosis& diagnosis);

}  // namespace gpuwhy
