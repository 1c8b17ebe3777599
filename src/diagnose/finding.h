// A finding: one named bottleneck with its evidence, what fixing it is worth, and how.
// docs/design.md "Diagnosis". Findings are data; renderers in src/report only render them.
#pragma once

#include <string>
#include <vector>

#include "analyze/metric.h"
#include "base/time.h"
#include "diagnose/fix_needs.h"
#include "model/source_quote.h"

namespace gpuwhy {

// The seven places a GPU's time goes missing (docs/knowledge.md), and kQuality: what the capture
// itself cannot show (warm-up instead of steady state), said before any per-step claim.
enum class BottleneckClass {
  kInput,
  kHost,
  kMemory,
  kCommunication,
  kLaunch,
  kCompute,
  kPlatform,
  kQuality,
};

enum class Severity { kInfo, kLow, kMedium, kHigh, kCritical };

enum class Confidence { kLow, kMedium, kHigh };

// One metric that supports a finding, with the threshold that fired.
struct FindingEvidence {
  Metric metric;
  std::string comparison;  // ">", ">=", "<", "<="
  double threshold = 0;
  std::string threshold_source;  // "TensorBoard plugin: DataLoader > 5% of step"
};

struct Fix {
  std::string action;   // "Load batches in worker processes"
  std::string code;     // "DataLoader(ds, num_workers=8, pin_memory=True, persistent_workers=True)"
  FixNeeds needs = {};  // when it applies; the builder drops it where the job's facts say not
};

// A fix the job's facts ruled out, kept so the report can say why it is not offered.
struct FixLeftOut {
  std::string action;
  std::string why;  // "the GPU has fp16 tensor cores only (Volta/Turing): no bf16 or TF32"
};

struct Finding {
  std::string id;  // "input.dataloader_wait"
  BottleneckClass bottleneck_class = BottleneckClass::kInput;
  Severity severity = Severity::kInfo;
  std::string title;  // one line, with the key number
  std::vector<FindingEvidence> evidence;
  std::vector<EvidenceRange> ranges;    // the top time ranges behind it
  std::vector<std::string> top_events;  // op / kernel names behind it
  std::vector<SourceQuote> quotes;      // log lines behind it (gpuwhy doctor), file and line
  // Time per step that fixing this would give back, attributed so that no idle interval
  // counts for two findings. Upper-bound speed-up = step / (step - recoverable).
  DurationNs recoverable_ns_per_step = 0;
  // The part of recoverable_ns_per_step taken from the idle-gap attribution (the rest is a
  // busy-time estimate: exposed copies or communication, kernel-time savings).
  DurationNs idle_recoverable_ns_per_step = 0;
  DurationNs step_ns = 0;
  // The step saving the replay predicts for this finding's fix (src/replay: the fix family's
  // what-if replayed on the rank's dependency graph); -1 where no what-if covers the fix.
  // Shown beside recoverable_ns_per_step, the upper bound; the ranking stays on the bound.
  DurationNs replayed_saving_ns_per_step = -1;
  Confidence confidence = Confidence::kMedium;
  std::vector<Fix> fixes;  // ordered: try the first first
  std::vector<FixLeftOut> fixes_left_out;
  std::string verify;  // which number should move, and where
  int64_t rank = -1;

  double SpeedupUpperBound() const {
    if (step_ns <= 0 || recoverable_ns_per_step <= 0 || recoverable_ns_per_step >= step_ns)
      return 1.0;
    return static_cast<double>(step_ns) / static_cast<double>(step_ns - recoverable_ns_per_step);
  }
};

std::string_view BottleneckClassName(BottleneckClass c);
std::string_view SeverityName(Severity s);
std::string_view ConfidenceName(Confidence c);

}  // namespace gpuwhy
