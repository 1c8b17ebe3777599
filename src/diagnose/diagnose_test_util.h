// Shared by the diagnosis tests: import, analyse and diagnose one trace file, and the
// invariant that idle-based recoverable times never count an idle interval twice.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {

struct Diagnosed {
  Trace trace;
  TraceAnalysis analysis;
  Diagnosis diagnosis;
};

inline std::unique_ptr<Diagnosed> DiagnoseFile(const std::string& path,
                                               const DiagnoseOptions& options = {}) {
  auto trace = ImportKinetoFile(path);
  if (!trace.ok()) {
    ADD_FAILURE() << path << ": " << trace.status().message();
    return nullptr;
  }
  auto out = std::make_unique<Diagnosed>();
  out->trace = std::move(trace).value();
  out->analysis = AnalyzeTrace(out->trace);
  out->diagnosis = Diagnose(out->trace, out->analysis, options);
  return out;
}

// Hand-built traces run a kernel or two per step: a miniature of a steady state, not a fixture
// too small to judge, so quality.too_little_gpu_work is switched off for them.
inline DiagnoseOptions MiniatureOptions() {
  DiagnoseOptions options;
  EXPECT_TRUE(options.catalog.ApplyOverride("quality.too_little_gpu_work.min_kernels=0").ok());
  return options;
}

// Idle-only rules take all their recoverable time from the idle attribution.
inline bool IsIdleOnlyRule(const std::string& id) {
  return id == "input.dataloader_wait" || id.rfind("host.", 0) == 0 ||
         id.rfind("launch.", 0) == 0 || id == "memory.allocator_churn";
}

inline void ExpectNoIdleDoubleCount(const Diagnosis& d, const std::string& what) {
  DurationNs idle_sum = 0;
  for (const Finding& f : d.findings) {
    idle_sum += f.idle_recoverable_ns_per_step;
    EXPECT_LE(f.idle_recoverable_ns_per_step, f.recoverable_ns_per_step) << what << " " << f.id;
    if (IsIdleOnlyRule(f.id)) {
      EXPECT_EQ(f.idle_recoverable_ns_per_step, f.recoverable_ns_per_step) << what << " " << f.id;
    }
    EXPECT_LE(f.recoverable_ns_per_step, f.step_ns) << what << " " << f.id;
  }
  // One ns of rounding per finding at most.
  EXPECT_LE(idle_sum, d.idle_ns_per_step + static_cast<DurationNs>(d.findings.size())) << what;
}

}  // namespace gpuwhy
