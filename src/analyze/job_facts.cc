#include "analyze/job_facts.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "analyze/kernel_table.h"

namespace gpuwhy {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Has(const std::string& lower, std::string_view needle) {
  return lower.find(needle) != std::string::npos;
}

// What one name says about the job. Names repeat (millions of slices, thousands of names),
// so each distinct name is read once.
struct NameSignals {
  bool backward = false;   // an autograd node, a backward op or kernel: gradients are computed
  bool optimizer = false;  // an optimizer's step
  bool adam = false;       // ... of the Adam family
  // For kernel names: the precision of matrix math, read once (kUnread until then).
  enum class Matmul : int8_t { kUnread, kNone, kLow, kFull } matmul = Matmul::kUnread;
};

NameSignals ReadName(std::string_view name) {
  NameSignals s;
  // Names can be megabytes long in hostile input: the signals sit in the first few hundred
  // bytes of every real name (op, autograd node or kernel template head).
  std::string lower = Lower(name.substr(0, 512));
  // Autograd nodes ("AddmmBackward0", "autograd::engine::evaluate_function: ..."), ATen
  // backward ops ("aten::convolution_backward") and backward kernels ("flash_bwd_kernel",
  // cuDNN "wgrad"/"dgrad" engines, "batch_norm_backward_kernel").
  s.backward = Has(lower, "backward") || Has(lower, "autograd::engine") || Has(lower, "_bwd") ||
               Has(lower, "bwd_") || Has(lower, "wgrad") || Has(lower, "dgrad");
  // "Optimizer.step#AdamW.step", fused optimizer kernels ("FusedAdamMathFunctor",
  // "multi_tensor_apply_kernel<...AdamFunctor...>", "fused_adam"), "Optimizer.step#SGD.step".
  s.optimizer = Has(lower, "optimizer.step") || Has(lower, "optimizer.zero_grad") ||
                Has(lower, "adamfunctor") || Has(lower, "fused_adam") || Has(lower, "fusedadam") ||
                Has(lower, "sgdfunctor") || Has(lower, "fused_sgd");
  s.adam = s.optimizer && (Has(lower, "adam") || Has(lower, "lamb"));
  return s;
}

// The GPU's tensor-core generation: its device name, else the newest architecture its kernels
// were compiled for (kernels built for an older GPU run on a newer one, never the reverse).
LowPrecisionSupport TensorCoresOf(const Trace& trace) {
  for (const DeviceTable::Row& d : trace.devices.rows) {
    LowPrecisionSupport s = LowPrecisionOfDevice(trace.Str(d.name));
    if (s != LowPrecisionSupport::kUnknown) return s;
  }
  const GpuOpTable& ops = trace.gpu_ops;
  LowPrecisionSupport seen = LowPrecisionSupport::kUnknown;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel) continue;
    seen = LaterLowPrecision(seen, LowPrecisionOfKernel(trace.Str(ops.name[i])));
    if (seen == LowPrecisionSupport::kBf16AndTf32) break;
  }
  return seen;
}

bool IsLowPrecision(KernelDtype d) {
  return d == KernelDtype::kFp16 || d == KernelDtype::kBf16 || d == KernelDtype::kFp8 ||
         d == KernelDtype::kFp4 || d == KernelDtype::kInt8;
}

bool IsMatrixMath(KernelClass c) {
  return c == KernelClass::kGemm || c == KernelClass::kConvolution || c == KernelClass::kAttention;
}

// A kernel's matrix-math precision from the kernel table, once per distinct name (the table's
// patterns cost far more than a lookup, and a 1 GB trace launches millions of kernels).
NameSignals::Matmul MatmulOf(std::string_view kernel_name) {
  KernelInfo info = DescribeKernel(GpuOpKind::kKernel, kernel_name);
  if (!info.recognised || !IsMatrixMath(info.kernel_class)) return NameSignals::Matmul::kNone;
  if (IsLowPrecision(info.dtype)) return NameSignals::Matmul::kLow;
  if (info.dtype == KernelDtype::kFp32 || info.dtype == KernelDtype::kTf32)
    return NameSignals::Matmul::kFull;
  return NameSignals::Matmul::kNone;
}

}  // namespace

JobFacts ComputeJobFacts(const Trace& trace) {
  JobFacts f;
  f.vendor = trace.metadata.vendor;
  f.tensor_cores =
      f.vendor == GpuVendor::kAmd ? LowPrecisionSupport::kUnknown : TensorCoresOf(trace);

  // One reading per distinct name, cached by string id.
  std::vector<int8_t> read(trace.strings.size(), -1);
  std::vector<NameSignals> signals(trace.strings.size());
  NameSignals out_of_pool;  // an id past the pool (never in a finalized trace): no signal
  auto signals_of = [&](StringId id) -> NameSignals& {
    if (id.value >= read.size()) return out_of_pool = NameSignals{};
    if (read[id.value] < 0) {
      signals[id.value] = ReadName(trace.Str(id));
      read[id.value] = 1;
    }
    return signals[id.value];
  };
  bool backward = false, optimizer = false, adam = false, any_op = false;
  const CpuSliceTable& s = trace.cpu_slices;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != CpuSliceKind::kOp && s.kind[i] != CpuSliceKind::kUserAnnotation) continue;
    any_op = true;
    const NameSignals& n = signals_of(s.name[i]);
    backward |= n.backward;
    optimizer |= n.optimizer;
    adam |= n.adam;
  }
  DurationNs low = 0, full = 0;
  const GpuOpTable& ops = trace.gpu_ops;
  bool any_kernel = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel) continue;
    any_kernel = true;
    NameSignals& n = signals_of(ops.name[i]);
    backward |= n.backward;
    optimizer |= n.optimizer;
    adam |= n.adam;
    if (n.matmul == NameSignals::Matmul::kUnread) n.matmul = MatmulOf(trace.Str(ops.name[i]));
    DurationNs d = std::max<DurationNs>(0, ops.end[i] - ops.start[i]);
    if (n.matmul == NameSignals::Matmul::kLow) low += d;
    if (n.matmul == NameSignals::Matmul::kFull) full += d;
  }
  if (backward || optimizer) {
    f.kind = JobKind::kTraining;
  } else if (any_op && any_kernel) {
    // Host ops were recorded and none computes a gradient or steps an optimizer. A GPU-only
    // capture without backward kernels cannot tell (a forward-only slice of training looks
    // the same).
    f.kind = JobKind::kInference;
  }
  if (optimizer) f.optimizer = adam ? OptimizerKind::kAdamFamily : OptimizerKind::kOther;
  if (low + full > 0) {
    f.low_precision_matmul_pct = 100.0 * static_cast<double>(low) / static_cast<double>(low + full);
    f.matmul_precision = low >= full ? MatmulPrecision::kLowPrecision : MatmulPrecision::kFp32;
  }
  return f;
}

std::string_view JobKindName(JobKind k) {
  switch (k) {
    case JobKind::kTraining: return "training";
    case JobKind::kInference: return "inference";
    case JobKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view OptimizerKindName(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::kAdamFamily: return "adam_family";
    case OptimizerKind::kOther: return "other";
    case OptimizerKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view MatmulPrecisionName(MatmulPrecision p) {
  switch (p) {
    case MatmulPrecision::kFp32: return "fp32";
    case MatmulPrecision::kLowPrecision: return "low_precision";
    case MatmulPrecision::kUnknown: break;
  }
  return "unknown";
}

std::string_view LowPrecisionSupportName(LowPrecisionSupport s) {
  switch (s) {
    case LowPrecisionSupport::kFp16Only: return "fp16_only";
    case LowPrecisionSupport::kBf16AndTf32: return "bf16_and_tf32";
    case LowPrecisionSupport::kUnknown: break;
  }
  return "unknown";
}

}  // namespace gpuwhy
