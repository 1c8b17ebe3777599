// The trace's top kernels joined to the Nsight Compute exports given beside it: by name, and by
// launch shape (total blocks and threads per block) where both the trace and the export have
// it, so a top kernel carries its measured roofline class (roofline.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/kernel_stats.h"
#include "analyze/roofline.h"
#include "model/kernel_profile.h"

namespace gpuwhy {

enum class ProfileMatch : uint8_t {
  kNameAndShape,  // same name, and the trace launched it with the profiled grid and block
  kName,          // same name; one side has no launch shape
};
std::string_view ProfileMatchName(ProfileMatch match);  // "name and launch shape", ...

struct ProfiledTopKernel {
  std::string trace_name;  // the top kernel's display name
  DurationNs total_ns = 0;
  double time_pct = 0;  // of kernel time
  std::string profile_path;
  int64_t profile_id = -1;  // the ncu launch ID
  ProfileMatch match = ProfileMatch::kName;
  KernelRoofline roofline;
};

struct ProfiledKernelsResult {
  size_t profiles = 0;                 // exports given
  size_t profiled_kernels = 0;         // kernels in them
  std::vector<ProfiledTopKernel> top;  // in top-kernel order; unmatched kernels are left out
  double classified_time_pct = 0;      // kernel time of the matched, classified top kernels
  std::vector<std::string> not_applicable;
};

// "void at::native::<unnamed>::k<float, (int)4>(T1)" and CUPTI's "void at::native::(anonymous
// namespace)::k<float, 4>(T1)" give one key: casts on literals, spaces and the anonymous
// namespace's spelling are set aside.
std::string NormalizeKernelName(std::string_view name);

ProfiledKernelsResult ComputeProfiledKernels(const AnalysisInput& input,
                                             const KernelStatsResult& kernels);

}  // namespace gpuwhy
