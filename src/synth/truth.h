// The ground-truth sidecar ("X.truth.json"): what was injected and what the trace
// holds, so analyses can be checked against exact numbers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "synth/kineto_writer.h"
#include "synth/rendezvous.h"
#include "synth/scenarios.h"

namespace gpuwhy {

struct RankTruth {
  int rank = 0;
  std::string file;  // base name of the trace file
  std::array<int64_t, kNumEventCats> counts{};
  MeasuredStep mean;  // per-step means over the file's steps
};

struct GroundTruth {
  const ScenarioInfo* scenario = nullptr;
  uint64_t seed = 0;
  int steps = 0;
  int world_size = 1;
  std::vector<std::string> params;  // SynthOptions::params the recipe was varied by
  std::vector<RankTruth> ranks;     // one per file written
  // synth --slow-rank only: the straggler and every rank's clock offset (rank 0 reads 0).
  int slow_rank = -1;
  double slow_by_pct = 0;
  LatenessTruth lateness;
  std::vector<TimeNs> clock_offsets;
};

// Renders the truth JSON; "counts" and the per-step numbers at top level are rank 0's.
std::string RenderTruthJson(const GroundTruth& truth);

}  // namespace gpuwhy
