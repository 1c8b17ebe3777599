// An Nsight Compute export on its own, with no trace to join it to (issue 36): per kernel name
// its measured time, roofline class (roofline.h) and math path, the kernels by time, and Nsight
// Compute's own rule results ("rule: NAME" metrics the importer keeps) beside them.
#pragma once

#include <string>
#include <vector>

#include "analyze/kernel_class.h"
#include "analyze/roofline.h"
#include "model/kernel_profile.h"

namespace gpuwhy {

// How a kernel does its math, from its tensor-pipe instructions where measured, else its name.
enum class ProfiledMathPath : uint8_t {
  kTensorCores,  // tensor-pipe instructions > 0, or a tensor-core kernel name
  kFp32Simt,     // a GEMM or convolution with no tensor-pipe instruction (FP32 FFMA on SIMT)
  kNotMatrix,    // elementwise, reduction, copy…: no tensor-core path to take
  kUnknown,      // a GEMM whose export has neither the instruction count nor a telling name
};
std::string_view ProfiledMathPathName(ProfiledMathPath p);  // "tensor cores", "FP32 SIMT", …

struct ProfiledKernelGroup {
  std::string name;
  size_t launches = 0;
  double total_ns = 0;  // 0 when no launch has a duration
  double time_pct = 0;  // of the export's measured kernel time
  KernelClass kernel_class = KernelClass::kOther;
  ProfiledMathPath math = ProfiledMathPath::kUnknown;
  KernelRoofline roofline;  // of its longest launch
  // Nsight Compute's findings on that launch: "Occupancy (WRN, est. speedup 37%): …".
  std::vector<std::string> ncu_rules;
};

struct ProfileAloneResult {
  std::string path;
  size_t kernels = 0;   // profiled launches
  bool timed = false;   // every launch has a duration (Duration, or SM cycles / SM clock)
  double total_ns = 0;  // measured kernel time over the launches
  LowPrecisionSupport support = LowPrecisionSupport::kUnknown;  // from device and kernel names
  double fp32_simt_ns = 0;   // GEMM/convolution time on FP32 SIMT
  double fp32_simt_pct = 0;  // of total_ns
  // Time-weighted SM throughput and achieved occupancy of those FP32 GEMMs: how much of the
  // time tensor cores could shorten (they speed up the math, not the latency).
  double fp32_simt_sm_pct = 0;
  double fp32_simt_occupancy_pct = 0;
  std::vector<ProfiledKernelGroup> groups;  // longest total time first
};

ProfileAloneResult AnalyzeProfileAlone(const KernelProfile& profile);

// A launch's duration in ns: Duration / gpu__time_duration, else elapsed SM cycles over the
// SM clock (older exports given --metrics only); nullopt when neither.
std::optional<double> ProfiledDurationNs(const ProfiledKernel& kernel);

}  // namespace gpuwhy
