// Test helper: a rank summary with every field of the --summary format set.
#pragma once

#include "ranks/rank_summary.h"

namespace gpuwhy::ranks_test {

inline RankSummary ExampleRankSummary() {
  RankSummary s;
  s.path = "/traces/rank3.json";
  s.rank = 3;
  s.rank_source = RankSource::kFileName;
  s.world_size = 8;
  s.device_name = "NVIDIA H100 \"SXM\"";
  s.metrics.push_back({"step.time_median_ms", {}, 12.5, "ms"});
  s.steps.push_back({7, 1'700'000'000'000'000'001, 1'700'000'000'012'500'000, 9'000'000, 250'000});
  RankCollectiveTiming c;
  c.step = 7;
  c.kind = "AllReduce";
  c.process_group = "0";
  c.device = 3;
  c.start = 1'700'000'000'010'000'000;
  c.end = 1'700'000'000'011'000'000;
  c.bytes = 26214400;
  c.group_size = 8;
  c.compute_before_ns = 8'000'000;
  c.input_wait_before_ns = 200'000;
  s.collectives.push_back(c);
  c.step = kNoValue;
  c.bytes = kNoValue;
  s.collectives.push_back(c);
  s.kernels.push_back({"ampere_bf16_gemm", 120, 4'000'000});
  s.findings.push_back({"input.dataloader_wait", "high", "62% of each step waits", 7'000'000});
  return s;
}

}  // namespace gpuwhy::ranks_test
