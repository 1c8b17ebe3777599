// The not-applicable list: what each analysis could not assess, and why.
#include <string>

#include "report/report.h"

namespace gpuwhy {
namespace {

void AddLines(std::vector<NotApplicable>& out, std::string_view analysis,
              const std::vector<std::string>& reasons) {
  for (const std::string& reason : reasons) out.push_back({std::string(analysis), reason});
}

}  // namespace

std::vector<NotApplicable> CollectNotApplicable(const TraceAnalysis& a) {
  std::vector<NotApplicable> out;
  AddLines(out, "utilization", a.utilization.not_applicable);
  AddLines(out, "temporal", a.temporal.not_applicable);
  AddLines(out, "hta_idle_split", a.hta_idle_split.not_applicable);
  AddLines(out, "steps", a.steps.not_applicable);
  AddLines(out, "idle_gaps", a.idle_gaps.not_applicable);
  AddLines(out, "kernels", a.kernels.not_applicable);
  AddLines(out, "sm_efficiency", a.sm_efficiency.not_applicable);
  AddLines(out, "flops", a.flops.not_applicable);
  AddLines(out, "gpu_metrics", a.gpu_metrics.not_applicable);
  AddLines(out, "launch", a.launch.not_applicable);
  AddLines(out, "sync_copies", a.sync_copies.not_applicable);
  AddLines(out, "communication", a.communication.not_applicable);
  AddLines(out, "memory", a.memory.not_applicable);
  return out;
}

}  // namespace gpuwhy
