// What each command reads (pipeline/pipeline_inputs.h): one constant per command, used both to
// run it and to write its --help (AcceptedInputsHelp), so the two cannot disagree.
#pragma once

#include "pipeline/pipeline_inputs.h"

namespace gpuwhy {

// analyze: everything with a role (traces, summaries, metric and node logs, snapshots, ncu).
inline constexpr InputPolicy kAnalyzeInputs{};
// info, diff and the traces `run` finds: traces and what joins them (snapshots, ncu exports).
inline constexpr InputPolicy kTraceInputs{
    .traces = true, .rank_summaries = false, .metric_logs = false, .node_logs = false};
// annotate: traces, and the rank summaries it explains it cannot merge.
inline constexpr InputPolicy kAnnotateInputs{
    .traces = true, .rank_summaries = true, .metric_logs = false, .node_logs = false};
// doctor: node logs and metric logs; a folder is a support bundle.
inline constexpr InputPolicy kDoctorInputs{
    .traces = false, .rank_summaries = false, .metric_logs = true, .node_logs = true};

}  // namespace gpuwhy
