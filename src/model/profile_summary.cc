#include "model/profile_summary.h"

namespace gpuwhy {

std::string_view SummaryToolName(SummaryTool tool) {
  switch (tool) {
    case SummaryTool::kNsysKernelSummary: return "nsys stats kernel summary (cuda_gpu_kern_sum)";
    case SummaryTool::kDlprofSummary: return "DLProf summary (dlprof_summary.csv)";
    case SummaryTool::kDlprofKernels: return "DLProf kernel report (dlprof_kernel.csv)";
  }
  return "profiler summary";
}

}  // namespace gpuwhy
