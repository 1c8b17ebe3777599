// Node logs (gpuwhy doctor's inputs: kernel logs, lspci, nvidia-smi, NCCL logs, support-bundle
// folders) in the pipeline: read into one SystemFacts, diagnosed by the platform rules, and
// either merged into every rank's diagnosis or reported on their own.
#pragma once

#include <string>
#include <vector>

#include "model/system_facts.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_inputs.h"

namespace gpuwhy {

// A report whose header names |source| and lists the GPUs nvidia-smi described; its diagnosis
// is DiagnoseSystemFacts plus a note naming the inputs read.
RankReport ReportNodeFacts(const SystemFacts& facts, const std::string& source,
                           const DiagnoseOptions& options);

// Reads the node-log inputs of |plan| (bundles, single node logs; skipped inputs become notes)
// and adds their platform diagnosis to |report|: merged into each rank, or as the one report
// when there is no rank. Nothing happens when |plan| holds no node input, unless the command
// reads node logs only (gpuwhy doctor), which always reports the platform.
void AddNodeLogs(const std::vector<PlannedInput>& plan, const PipelineOptions& options,
                 Report& report);

}  // namespace gpuwhy
