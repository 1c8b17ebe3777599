#include "analyze/flops.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analyze/conv_flops.h"
#include "analyze/step_breakdown.h"
#include "model/op_shapes.h"

namespace gpuwhy {
namespace {

using Dims = std::vector<std::vector<int64_t>>;

enum class OpKind : uint8_t {
  kNone,
  kShapes,       // a formula from the input dims
  kConvolution,  // a formula from the input dims and the Concrete Inputs (conv_flops.h)
};

OpKind KindOf(std::string_view name) {
  static const std::unordered_map<std::string_view, OpKind> kinds = {
      {"aten::mm", OpKind::kShapes},
      {"aten::addmm", OpKind::kShapes},
      {"aten::bmm", OpKind::kShapes},
      {"aten::baddbmm", OpKind::kShapes},
      {"aten::addbmm", OpKind::kShapes},
      {"aten::scaled_dot_product_attention", OpKind::kShapes},
      {"aten::_scaled_dot_product_flash_attention", OpKind::kShapes},
      {"aten::_scaled_dot_product_efficient_attention", OpKind::kShapes},
      {"aten::_scaled_dot_product_cudnn_attention", OpKind::kShapes},
      {"aten::_flash_attention_forward", OpKind::kShapes},
      {"aten::_scaled_dot_product_flash_attention_backward", OpKind::kShapes},
      {"aten::_scaled_dot_product_efficient_attention_backward", OpKind::kShapes},
      {"aten::_scaled_dot_product_cudnn_attention_backward", OpKind::kShapes},
      {"aten::_flash_attention_backward", OpKind::kShapes},
  };
  if (IsConvolutionOp(name)) return OpKind::kConvolution;
  auto it = kinds.find(name);
  return it == kinds.end() ? OpKind::kNone : it->second;
}

bool Rank(const std::vector<int64_t>& d, size_t n) {
  return d.size() == n && std::all_of(d.begin(), d.end(), [](int64_t x) { return x >= 0; });
}

double F(int64_t v) { return static_cast<double>(v); }

// 2·M·K·N of a [M,K] x [K,N] product (batched: ·B).
std::optional<double> Gemm(const Dims& d, size_t a, size_t b) {
  if (d.size() <= std::max(a, b)) return std::nullopt;
  const auto& x = d[a];
  const auto& y = d[b];
  if (Rank(x, 2) && Rank(y, 2) && x[1] == y[0]) return 2 * F(x[0]) * F(x[1]) * F(y[1]);
  if (Rank(x, 3) && Rank(y, 3) && x[0] == y[0] && x[2] == y[1])
    return 2 * F(x[0]) * F(x[1]) * F(x[2]) * F(y[2]);
  return std::nullopt;
}

// Attention forward over q [B,H,Lq,D], k [B,H,Lk,D], v [B,H,Lk,Dv]: Q·Kᵀ and P·V, the full
// square (a causal mask halves the work; the shapes do not say whether one was used).
std::optional<double> Attention(const Dims& d, size_t q) {
  if (d.size() < q + 3) return std::nullopt;
  const auto& qd = d[q];
  const auto& kd = d[q + 1];
  const auto& vd = d[q + 2];
  if (!Rank(qd, 4) || !Rank(kd, 4) || !Rank(vd, 4) || qd[3] != kd[3] || kd[2] != vd[2])
    return std::nullopt;
  double bh_lq_lk = F(qd[0]) * F(qd[1]) * F(qd[2]) * F(kd[2]);
  return 2 * bh_lq_lk * F(qd[3]) + 2 * bh_lq_lk * F(vd[3]);
}

std::optional<Precision> PrecisionOfType(std::string_view type) {
  if (type == "float") return Precision::kFp32;
  if (type == "double") return Precision::kFp64;
  if (type == "c10::Half" || type == "Half") return Precision::kFp16;
  if (type == "c10::BFloat16" || type == "BFloat16") return Precision::kBf16;
  if (type.find("Float8") != std::string_view::npos) return Precision::kFp8;
  return std::nullopt;
}

std::optional<Precision> FirstTensorPrecision(std::string_view types_json) {
  auto types = ParseInputTypes(types_json);
  if (!types) return std::nullopt;
  for (const std::string& t : *types) {
    if (auto p = PrecisionOfType(t)) return p;
  }
  return std::nullopt;
}

// Op slice |i|'s FLOPs from its recorded shapes (and, for a convolution, its Concrete Inputs).
std::optional<double> FlopsOfShapes(const Trace& trace, size_t i, OpKind kind) {
  const CpuSliceTable& ops = trace.cpu_slices;
  auto dims = ParseInputDims(trace.Str(ops.input_dims[i]));
  if (!dims) return std::nullopt;
  if (kind == OpKind::kShapes) return FlopsFromShapes(trace.Str(ops.name[i]), *dims);
  if (!ops.concrete_inputs[i].valid()) return std::nullopt;
  auto concrete = ParseConcreteInputs(trace.Str(ops.concrete_inputs[i]));
  if (!concrete) return std::nullopt;
  return ConvolutionFlops(trace.Str(ops.name[i]), *dims, *concrete);
}

// GPU time of the kernels one runtime call launched (a graph launch may run many).
DurationNs LaunchedKernelTime(const Trace& trace, int64_t correlation) {
  if (correlation == kNoValue) return 0;
  DurationNs ns = 0;
  for (const CorrelatedGpuOp& c : trace.FindGpuOps(correlation)) {
    if (trace.gpu_ops.kind[c.op.value] != GpuOpKind::kKernel) continue;
    ns += trace.gpu_ops.end[c.op.value] - trace.gpu_ops.start[c.op.value];
  }
  return ns;
}

// GPU time of the kernels that start inside |window|: the share's denominator over the same
// steady-state window the counted ops come from (not the whole capture, warm-up included).
DurationNs KernelTimeIn(const Trace& trace, Interval window) {
  const GpuOpTable& ops = trace.gpu_ops;
  DurationNs ns = 0;
  for (size_t i = 0; i < ops.kind.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel || ops.start[i] < window.start ||
        ops.start[i] >= window.end) {
      continue;
    }
    ns += ops.end[i] - ops.start[i];
  }
  return ns;
}

// The steady-state steps when the trace has steps (the step extents leave warm-up and a
// partial tail out), else the utilization window; a trace without GPU ops still has its FLOPs,
// over its span.
void SetWindow(const Trace& trace, const UtilizationResult& util, const StepExtents* steps,
               FlopsResult& result) {
  result.window = util.valid ? util.window : trace.span();
  if (steps == nullptr || steps->synthesized || steps->steps.empty()) return;
  result.window = steps->Window();
  result.window_from_steps = true;
  for (const StepExtent& s : steps->steps) result.per_step.push_back({s.number, s.window});
}

// The step whose extent holds |t| (the extents are sorted and disjoint), or null.
StepFlops* StepOf(std::vector<StepFlops>& steps, TimeNs t) {
  auto it = std::upper_bound(steps.begin(), steps.end(), t,
                             [](TimeNs v, const StepFlops& s) { return v < s.window.start; });
  if (it == steps.begin()) return nullptr;
  --it;
  return t < it->window.end ? &*it : nullptr;
}

double Rate(double flops, Interval window, double devices) {
  const double seconds = static_cast<double>(window.length()) / 1e9;
  return seconds > 0 ? flops / (seconds * devices) : 0;
}

void AddStepMfu(double peak, FlopsResult& result, MetricSet& metrics) {
  if (result.per_step.empty()) return;
  double sum = 0;
  for (StepFlops& s : result.per_step) {
    s.mfu_pct = 100.0 * s.achieved_flops_per_s / peak;
    sum += *s.mfu_pct;
    metrics.Add(metric::kFlopsMfuPct, MetricScope::Step(s.step), *s.mfu_pct);
  }
  result.mfu_step_mean_pct = sum / static_cast<double>(result.per_step.size());
  metrics.Add(metric::kFlopsMfuStepMeanPct, MetricScope::Rank(), *result.mfu_step_mean_pct);
}

}  // namespace

std::optional<double> FlopsFromShapes(std::string_view op_name, const Dims& dims) {
  if (op_name == "aten::mm" || op_name == "aten::bmm") return Gemm(dims, 0, 1);
  if (op_name == "aten::addmm" || op_name == "aten::baddbmm" || op_name == "aten::addbmm")
    return Gemm(dims, 1, 2);
  if (op_name.ends_with("_backward")) {
    // Inputs start with grad_out, then q, k, v; backward recomputes P and runs four more
    // GEMMs: 2.5x the forward (FlashAttention's accounting).
    auto forward = Attention(dims, 1);
    return forward ? std::optional<double>(2.5 * *forward) : std::nullopt;
  }
  if (op_name.find("attention") != std::string_view::npos) return Attention(dims, 0);
  return std::nullopt;
}

FlopsResult ComputeFlops(const AnalysisInput& input, const UtilizationResult& util,
                         const KernelStatsResult& kernels, MetricSet& metrics,
                         const StepExtents* steps) {
  FlopsResult result;
  const Trace& trace = input.trace;
  SetWindow(trace, util, steps, result);
  const Interval window = result.window;
  const CpuSliceTable& ops = trace.cpu_slices;
  std::unordered_map<StringId, OpKind> kind_of;
  // Parents come before their children (Trace::Finalize), so one pass knows whether an
  // ancestor was already counted: aten::linear's addmm, conv2d's convolution.
  std::vector<char> covered(ops.size(), 0);
  std::map<std::string, OpFlops> by_name;
  std::map<Precision, double> by_precision;
  // counted_root[i]: the counted op slice i is (or is nested in), or -1; its kernels are those
  // launched by the runtime calls nested in it (by correlation).
  std::vector<int64_t> counted_root(ops.size(), -1);
  std::vector<char> root_in_window(ops.size(), 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    CpuSliceId parent = i < ops.parent.size() ? ops.parent[i] : CpuSliceId();
    if (parent.valid() && parent.value < i && covered[parent.value]) {
      covered[i] = 1;
      counted_root[i] = counted_root[parent.value];
      if (counted_root[i] >= 0 && root_in_window[counted_root[i]] &&
          ops.kind[i] == CpuSliceKind::kRuntime)
        result.matmul_kernel_ns += LaunchedKernelTime(trace, ops.correlation[i]);
      continue;
    }
    if (ops.kind[i] != CpuSliceKind::kOp) continue;
    auto [it, inserted] = kind_of.try_emplace(ops.name[i], OpKind::kNone);
    if (inserted) it->second = KindOf(trace.Str(ops.name[i]));
    if (it->second == OpKind::kNone) continue;
    std::optional<double> flops;
    bool recorded = ops.flops[i] != kNoValue && ops.flops[i] > 0;
    if (recorded) {
      flops = static_cast<double>(ops.flops[i]);
    } else if (ops.input_dims[i].valid()) {
      flops = FlopsOfShapes(trace, i, it->second);
    }
    if (!flops) {
      if (!ops.input_dims[i].valid()) ++result.ops_without_shapes;
      continue;
    }
    covered[i] = 1;
    counted_root[i] = static_cast<int64_t>(i);
    if (ops.start[i] < window.start || ops.start[i] >= window.end) continue;
    root_in_window[i] = 1;
    ++result.ops;
    result.total_flops += *flops;
    if (StepFlops* step = StepOf(result.per_step, ops.start[i])) step->flops += *flops;
    if (recorded) result.recorded_flops += *flops;
    OpFlops& o = by_name[std::string(trace.Str(ops.name[i]))];
    ++o.count;
    o.flops += *flops;
    if (ops.input_types[i].valid()) {
      if (auto p = FirstTensorPrecision(trace.Str(ops.input_types[i]))) by_precision[*p] += *flops;
    }
  }
  if (result.ops == 0) {
    result.not_applicable.push_back(
        result.ops_without_shapes > 0
            ? "FLOPs: matrix-multiply ops carry neither shapes nor flops (profile with "
              "record_shapes=True or with_flops=True)"
            : "FLOPs: no matrix-multiply op (mm, addmm, bmm, attention, convolution) in the "
              "window");
    return result;
  }
  result.valid = true;
  for (auto& [name, o] : by_name) {
    o.name = name;
    result.by_op.push_back(o);
  }
  std::sort(result.by_op.begin(), result.by_op.end(),
            [](const OpFlops& a, const OpFlops& b) { return a.flops > b.flops; });
  result.steps = result.window_from_steps ? std::max<int64_t>(1, result.per_step.size()) : 1;
  result.per_step_flops = result.total_flops / static_cast<double>(result.steps);
  metrics.Add(metric::kFlopsTotalTflop, MetricScope::Rank(), result.total_flops / 1e12);
  metrics.Add(metric::kFlopsPerStepTflop, MetricScope::Rank(), result.per_step_flops / 1e12);
  for (const StepFlops& s : result.per_step)
    metrics.Add(metric::kFlopsTotalTflop, MetricScope::Step(s.step), s.flops / 1e12);
  metrics.Add(metric::kFlopsRecordedPct, MetricScope::Rank(),
              100.0 * result.recorded_flops / result.total_flops);
  if (!util.valid || window.length() <= 0) {
    result.not_applicable.push_back("MFU: the trace ran nothing on a GPU");
    return result;
  }
  const double devices = std::max<double>(1, input.timelines.by_device.size());
  result.achieved_flops_per_s = Rate(result.total_flops, window, devices);
  for (StepFlops& s : result.per_step) {
    s.achieved_flops_per_s = Rate(s.flops, s.window, devices);
    metrics.Add(metric::kFlopsAchievedTflops, MetricScope::Step(s.step),
                s.achieved_flops_per_s / 1e12);
  }
  metrics.Add(metric::kFlopsAchievedTflops, MetricScope::Rank(),
              result.achieved_flops_per_s / 1e12);
  if (!by_precision.empty()) {
    result.precision =
        std::max_element(by_precision.begin(), by_precision.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; })
            ->first;
    // fp32 inputs on tensor-core kernels run as TF32 (allow_tf32).
    if (*result.precision == Precision::kFp32 && kernels.tensor_core_ns > 0)
      result.precision = Precision::kTf32;
  }
  if (result.matmul_kernel_ns > 0) {
    result.matmul_kernel_flops_per_s =
        result.total_flops / (static_cast<double>(result.matmul_kernel_ns) / 1e9);
    metrics.Add(metric::kFlopsMatmulKernelTflops, MetricScope::Rank(),
                result.matmul_kernel_flops_per_s / 1e12);
    if (const DurationNs in_window = KernelTimeIn(trace, window); in_window > 0) {
      result.matmul_kernel_time_pct =
          std::min(100.0, 100.0 * static_cast<double>(result.matmul_kernel_ns) /
                              static_cast<double>(in_window));
      metrics.Add(metric::kFlopsMatmulKernelTimePct, MetricScope::Rank(),
                  result.matmul_kernel_time_pct);
    }
  }
  const DevicePeak* peak = nullptr;
  for (const DeviceTable::Row& d : trace.devices.rows) {
    result.device_name = std::string(trace.Str(d.name));
    if ((peak = FindDevicePeak(result.device_name)) != nullptr) break;
  }
  if (peak == nullptr) {
    result.not_applicable.push_back(
        result.device_name.empty() ? "MFU: the trace names no device (deviceProperties absent)"
                                   : "MFU: gpuwhy has no peak for \"" + result.device_name + "\"");
  } else if (!result.precision) {
    result.not_applicable.push_back("MFU: the ops' input types do not give a precision");
  } else if (auto p = peak->Flops(*result.precision)) {
    result.peak_flops_per_s = *p;
    result.mfu_pct = 100.0 * result.achieved_flops_per_s / *p;
    metrics.Add(metric::kFlopsMfuPct, MetricScope::Rank(), *result.mfu_pct);
    AddStepMfu(*p, result, metrics);
    if (result.matmul_kernel_flops_per_s > 0) {
      result.matmul_mfu_pct = 100.0 * result.matmul_kernel_flops_per_s / *p;
      metrics.Add(metric::kFlopsMatmulMfuPct, MetricScope::Rank(), *result.matmul_mfu_pct);
    }
  } else {
    result.not_applicable.push_back("MFU: no " + std::string(PrecisionName(*result.precision)) +
                                    " peak for " + std::string(peak->name));
  }
  return result;
}

}  // namespace gpuwhy
