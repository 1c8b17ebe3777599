// Synthetic Kineto traces of a training loop with one known, injected bottleneck.
// They are the ground truth for analysis tests, the inputs of benchmarks and the
// built-in example of `gpuwhy demo`. Output mimics PyTorch 2.x profiler JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

// What WriteSyntheticTrace writes: PyTorch profiler JSON or an Nsight Systems SQLite
// export (docs/nsys.md) of the very same simulated run.
enum class SynthFormat { kKineto, kNsysSqlite };

struct SynthOptions {
  std::string scenario = "healthy";
  SynthFormat format = SynthFormat::kKineto;
  int steps = 20;
  // Files written: one per rank ("X.rank0.json" ... when ranks > 1).
  int ranks = 1;
  // 0 keeps `steps`; otherwise the step count grows (or shrinks) until each trace file
  // holds about size_mb MB of JSON (before compression). Per-step truth is unchanged.
  int64_t size_mb = 0;
  uint64_t seed = 1;
  // A straggler (ranks > 1): this rank's compute kernels take slow_by_pct % longer, and the
  // ranks are simulated in lock-step so collectives wait for it; each rank's clock then reads
  // true time + a known offset (truth: "straggler", per_rank "clock_offset_ns"). -1: none.
  int slow_rank = -1;
  double slow_by_pct = 0;
  // kNsysSqlite: also write GPU_METRICS sampled from the kernels, as
  // `nsys profile --gpu-metrics-devices=all` records them (synth_gpu_metrics.h).
  bool gpu_metrics = false;
  // "key=value" overrides of the scenario's shape (ApplyRecipeParams in scenarios.h lists the
  // keys: compile_ms, compile_step, profiler_steps, teardown_calls, upload_ms, ...); the truth
  // states what was injected with them.
  std::vector<std::string> params;
};

// What was written, for the CLI to print.
struct SynthSummary {
  std::vector<std::string> trace_paths;
  std::string truth_path;
  int steps = 0;
  uint64_t json_bytes = 0;  // uncompressed JSON bytes over all trace files
};

// Scenario names in a stable order ("healthy" first).
std::vector<std::string> ScenarioNames();

// One-line description of a scenario, or nullptr when the name is unknown.
const char* ScenarioDescription(std::string_view name);

// The finding id the diagnosis should rank first ("none" for healthy), or nullptr.
const char* ScenarioExpectedFinding(std::string_view name);

// Trace files WriteSyntheticTrace writes for these options: `out_path` itself for one
// rank, else "X.rank<r>.json[.gz]" for an out_path "X.json[.gz]" ("X.rank<r>.sqlite").
std::vector<std::string> SyntheticTracePaths(const SynthOptions& options,
                                             const std::string& out_path);

// Writes the trace file(s) and the ground truth at `out_path + ".truth.json"`. Output is
// gzip-compressed when the name ends in ".gz". Streams in bounded chunks, so memory
// stays flat for multi-GB traces. Deterministic for a given seed. Unknown scenarios or
// out-of-range options give kInvalidArgument; file errors give kIoError.
Status WriteSyntheticTrace(const SynthOptions& options, const std::string& out_path,
                           SynthSummary* summary = nullptr);

}  // namespace gpuwhy
