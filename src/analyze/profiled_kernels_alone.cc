#include "analyze/profiled_kernels_alone.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpuwhy {
namespace {

// The class decides first: an elementwise kernel is no matrix math whatever a tensor-pipe
// counter reads (older exports count a few instructions there for any kernel).
ProfiledMathPath MathPathOf(const ProfiledKernel& k, KernelClass c, const KernelRoofline& r) {
  if (UsesTensorCores(k.name)) return ProfiledMathPath::kTensorCores;
  if (!IsTensorCoreEligible(c)) return ProfiledMathPath::kNotMatrix;
  if (r.tensor_instructions && *r.tensor_instructions > 0) return ProfiledMathPath::kTensorCores;
  if (r.tensor_instructions) return ProfiledMathPath::kFp32Simt;  // measured: zero
  return k.name.find("sgemm") != std::string::npos ? ProfiledMathPath::kFp32Simt
                                                   : ProfiledMathPath::kUnknown;
}

// "Occupancy (WRN, est. speedup 37%): This kernel's theoretical occupancy …".
std::vector<std::string> RuleResults(const ProfiledKernel& k) {
  std::vector<std::string> out;
  for (const KernelMetric& m : k.metrics) {
    if (!m.name.starts_with("rule: ") || m.text.empty()) continue;
    std::string speedup = m.value ? fmt::format(", est. speedup {:.0f}%", *m.value) : "";
    std::string text = m.text.size() > 240 ? m.text.substr(0, 237) + "..." : m.text;
    out.push_back(fmt::format("{} ({}{}): {}", m.name.substr(6), m.unit, speedup, text));
  }
  return out;
}

}  // namespace

std::string_view ProfiledMathPathName(ProfiledMathPath p) {
  switch (p) {
    case ProfiledMathPath::kTensorCores: return "tensor cores";
    case ProfiledMathPath::kFp32Simt: return "FP32 SIMT (no tensor-pipe instruction)";
    case ProfiledMathPath::kNotMatrix: return "not matrix math";
    case ProfiledMathPath::kUnknown: return "unknown";
  }
  return "unknown";
}

std::optional<double> ProfiledDurationNs(const ProfiledKernel& kernel) {
  if (std::optional<double> d = kernel.Value({"Duration", "gpu__time_duration.sum"})) return d;
  std::optional<double> cycles = kernel.Value({"sm__cycles_elapsed.avg", "Elapsed Cycles"});
  std::optional<double> hz = kernel.Value({"sm__cycles_elapsed.avg.per_second", "SM Frequency"});
  if (!cycles || !hz || *hz <= 0) return std::nullopt;
  return *cycles / *hz * 1e9;
}

ProfileAloneResult AnalyzeProfileAlone(const KernelProfile& profile) {
  ProfileAloneResult out;
  out.path = profile.path;
  out.kernels = profile.kernels.size();
  out.timed = !profile.kernels.empty();
  std::map<std::string, size_t> index;
  std::vector<double> longest;
  for (const ProfiledKernel& k : profile.kernels) {
    out.support = LaterLowPrecision(out.support, LowPrecisionOfDevice(k.device));
    out.support = LaterLowPrecision(out.support, LowPrecisionOfKernel(k.name));
    KernelRoofline r = ClassifyProfiledKernel(k);
    std::optional<double> ns = ProfiledDurationNs(k);
    out.timed = out.timed && ns.has_value();
    auto [it, added] = index.try_emplace(k.name, out.groups.size());
    if (added) {
      ProfiledKernelGroup& g = out.groups.emplace_back();
      g.name = k.name;
      g.kernel_class = ClassifyKernel(GpuOpKind::kKernel, k.name);
      longest.push_back(-1);
    }
    ProfiledKernelGroup& g = out.groups[it->second];
    ++g.launches;
    g.total_ns += ns.value_or(0);
    out.total_ns += ns.value_or(0);
    if (ns.value_or(0) > longest[it->second]) {
      longest[it->second] = ns.value_or(0);
      g.roofline = r;
      g.math = MathPathOf(k, g.kernel_class, r);
      g.ncu_rules = RuleResults(k);
    }
  }
  double sm_weight = 0, occupancy_weight = 0;
  for (ProfiledKernelGroup& g : out.groups) {
    g.time_pct = out.total_ns > 0 ? 100.0 * g.total_ns / out.total_ns : 0;
    if (g.math != ProfiledMathPath::kFp32Simt) continue;
    out.fp32_simt_ns += g.total_ns;
    sm_weight += g.total_ns * g.roofline.sm_pct.value_or(0);
    occupancy_weight += g.total_ns * g.roofline.achieved_occupancy_pct.value_or(0);
  }
  if (out.total_ns > 0) out.fp32_simt_pct = 100.0 * out.fp32_simt_ns / out.total_ns;
  if (out.fp32_simt_ns > 0) {
    out.fp32_simt_sm_pct = sm_weight / out.fp32_simt_ns;
    out.fp32_simt_occupancy_pct = occupancy_weight / out.fp32_simt_ns;
  }
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [](const ProfiledKernelGroup& a, const ProfiledKernelGroup& b) {
                     return a.total_ns > b.total_ns;
                   });
  return out;
}

}  // namespace gpuwhy
