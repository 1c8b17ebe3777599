// When a rank summary and a trace are one rank: `gpuwhy.profile` (python/gpuwhy/_torch.py)
// writes each trace's summary beside it (`analyze --summary -o X.summary.json -- X.json`), so
// `gpuwhy analyze DIR` on its folder finds both. A summary describes a trace present when it
// lies in the trace's folder and its "path" names the trace's file; when both state a rank, the
// ranks agree too. Anything else (a summary of a trace elsewhere, as the Slurm epilogue
// collects them; a summary of another rank) is a rank of its own. docs/rank-summary.md.
#pragma once

#include <string>

#include "ranks/rank_summary.h"

namespace gpuwhy {

// |summary| was read from |summary_file|; |trace| was made from the trace |trace_file|.
bool SummaryDescribesTrace(const RankSummary& summary, const std::string& summary_file,
                           const RankSummary& trace, const std::string& trace_file);

}  // namespace gpuwhy
