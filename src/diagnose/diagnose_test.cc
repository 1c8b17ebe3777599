// Hand-built traces: exact recoverable time for a DataLoader wait, nothing from a CPU-only
// trace, no tensor-core finding on AMD, severity bands.
#include <gtest/gtest.h>

#include "analyze/step_idle_test_util.h"
#include "diagnose/diagnose_test_util.h"

namespace gpuwhy {
namespace diagnose_test {

using step_idle_test::TinyTrace;

constexpr const char* kNext = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

constexpr const char* kBf16Gemm = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn";
constexpr const char* kFp32Gemm = "volta_sgemm_128x64_nn";

// Four 10 ms steps: 3 ms in DataLoader __next__ with the GPU idle, then a 6.5 ms GEMM.
void InputBoundSteps(TinyTrace& t, const char* gemm = kBf16Gemm) {
  for (int s = 0; s < 4; ++s) {
    TimeNs base = s * 10000;
    t.Step(s + 1, base, base + 10000);
    t.Op(kNext, base, base + 3000);
    t.Op("aten::mm", base + 3000, base + 3050);
    t.Launch(t.main(), "cudaLaunchKernel", base + 3010, base + 3040, GpuOpKind::kKernel, gemm,
             base + 3050, base + 9550);
  }
}

TEST(DiagnoseTest, DataLoaderWaitIsTheIdleItCauses) {
  TinyTrace t(kNsPerUs);
  InputBoundSteps(t);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  ASSERT_FALSE(d.findings.empty());
  const Finding& top = d.findings.front();
  EXPECT_EQ(top.id, "input.dataloader_wait");
  EXPECT_EQ(d.step_ns, 10 * kNsPerMs);
  EXPECT_EQ(top.step_ns, 10 * kNsPerMs);
  // The GPU idles from each step start to the kernel start: 3.05 ms, of which the
  // DataLoader covers 3 ms (the rest is the launch).
  EXPECT_NEAR(NsToMs(top.recoverable_ns_per_step), 3.0, 0.01);
  EXPECT_EQ(top.severity, Severity::kHigh);  // 30% of the step: TensorFlow "highly input-bound"
  EXPECT_NEAR(top.SpeedupUpperBound(), 10.0 / 7.0, 0.01);
  EXPECT_FALSE(top.ranges.empty());
  ASSERT_FALSE(top.top_events.empty());
  EXPECT_EQ(top.top_events.front(), kNext);
  bool threshold_fired = false;
  for (const FindingEvidence& e : top.evidence) {
    if (e.metric.id == "step.dataloader_pct") {
      threshold_fired = e.metric.value > e.threshold && e.comparison == ">" &&
                        e.threshold_source.find("TensorBoard") != std::string::npos;
    }
  }
  EXPECT_TRUE(threshold_fired);
  EXPECT_NE(top.title.find("3.0 ms"), std::string::npos) << top.title;
  ExpectNoIdleDoubleCount(d, "hand-built input-bound");
  for (const Finding& f : d.findings) EXPECT_NE(f.id.rfind("comm.", 0), 0u) << f.id;
  EXPECT_EQ(d.Find("memory.near_capacity"), nullptr);
}

TEST(DiagnoseTest, CpuOnlyTraceHasNoFindingAndSaysWhy) {
  TinyTrace t(kNsPerUs);
  t.Step(1, 0, 1000);
  t.Op("aten::add", 10, 900);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  EXPECT_TRUE(d.findings.empty());
  ASSERT_FALSE(d.checklist.empty());
  EXPECT_EQ(d.checklist.front().status, AssessStatus::kNotAssessed);
  EXPECT_FALSE(d.checklist.front().command.empty());
}

TEST(DiagnoseTest, NoTensorCoreFindingOnAmd) {
  TinyTrace t(kNsPerUs);
  InputBoundSteps(t, kFp32Gemm);
  t.trace().metadata.vendor = GpuVendor::kAmd;
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  EXPECT_EQ(d.Find("compute.no_tensor_cores"), nullptr);
  for (const RuleOutcome& o : d.outcomes) {
    if (o.rule_id == "compute.no_tensor_cores") {
      EXPECT_EQ(o.status, AssessStatus::kNotAssessed);
      EXPECT_FALSE(o.note.empty());
    }
  }
}

TEST(DiagnoseTest, Fp32GemmsOnNvidiaEstimateHalfTheirTime) {
  TinyTrace t(kNsPerUs);
  InputBoundSteps(t, kFp32Gemm);
  t.trace().metadata.vendor = GpuVendor::kNvidia;
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  const Finding* f = d.Find("compute.no_tensor_cores");
  ASSERT_NE(f, nullptr);
  // 6.5 ms of fp32 GEMM per step x (1 - 1/2).
  EXPECT_NEAR(NsToMs(f->recoverable_ns_per_step), 3.25, 0.001);
  EXPECT_EQ(f->idle_recoverable_ns_per_step, 0);
}

const RuleOutcome* OutcomeOf(const Diagnosis& d, std::string_view id) {
  for (const RuleOutcome& o : d.outcomes) {
    if (o.rule_id == id) return &o;
  }
  return nullptr;
}

// The input-bound steps of DataLoaderWaitIsTheIdleItCauses, but only the job's first iteration
// was captured: the verdict is that the capture shows no steady state, not a DataLoader cost.
// The profiler's first step alone, its GPU idle through most of it: initialisation the
// one-off events did not name; no steady state to judge.
TEST(DiagnoseTest, AWarmUpOnlyCaptureGetsTheQualityVerdictAndNoPerStepClaim) {
  TinyTrace t(kNsPerUs);
  t.Step(1, 0, 10000);
  t.Op(kNext, 0, 3000);
  t.Launch(t.main(), "cudaLaunchKernel", 3010, 3040, GpuOpKind::kKernel, kBf16Gemm, 3050, 3550);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings.front();
  EXPECT_EQ(f.id, "quality.warmup_dominated");
  EXPECT_EQ(f.bottleneck_class, BottleneckClass::kQuality);
  EXPECT_EQ(f.severity, Severity::kHigh);
  EXPECT_EQ(f.recoverable_ns_per_step, 0);
  EXPECT_NE(f.title.find("ProfilerStep#1"), std::string::npos) << f.title;
  ASSERT_FALSE(f.fixes.empty());
  EXPECT_NE(f.fixes.front().code.find("schedule(wait=2"), std::string::npos) << f.fixes[0].code;
  const RuleOutcome* input = OutcomeOf(d, "input.dataloader_wait");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->status, AssessStatus::kNotAssessed);
  EXPECT_NE(input->note.find("no steady state"), std::string::npos) << input->note;
}

// No verdict rests on a step's number: a capture of ProfilerStep#1 alone whose GPU is busy
// through it, with no one-off work, is a steady step (the DeepSeek-style capture).
TEST(DiagnoseTest, ABusyFirstStepAloneIsASteadyStep) {
  TinyTrace t(kNsPerUs);
  t.Step(1, 0, 10000);
  for (int k = 0; k < 40; ++k) {
    TimeNs at = 100 + 245 * k;
    t.Launch(t.main(), "cudaLaunchKernel", at, at + 5, GpuOpKind::kKernel, kBf16Gemm, at + 10,
             at + 245);
  }
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  EXPECT_TRUE(analysis.steps.extents.steady_state);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  EXPECT_EQ(d.Find("quality.warmup_dominated"), nullptr);
}

// HTA's trace_file_list fixture in miniature: 4 kernels in 1.6 ms, the first launch 1.4 ms
// long (a module load). Too little to judge, and no warm-up verdict either.
TEST(DiagnoseTest, AFixtureOfAFewKernelsInMillisecondsIsNoWarmUpCapture) {
  TinyTrace t(kNsPerUs);
  t.Step(1, 0, 1640);
  t.Kernel(0, 1414, 1420, 1425);
  for (int i = 0; i < 3; ++i) t.Kernel(1450 + 50 * i, 1460 + 50 * i, 1465 + 50 * i, 1470 + 50 * i);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings.front().id, "quality.too_little_gpu_work");
  const RuleOutcome* warmup = OutcomeOf(d, "quality.warmup_dominated");
  ASSERT_NE(warmup, nullptr);
  EXPECT_EQ(warmup->status, AssessStatus::kNotAssessed);
  EXPECT_NE(warmup->note.find("no warm-up to judge"), std::string::npos) << warmup->note;
}

// MTIA's device events are command-processor records, not kernel runs: nothing device-side
// is judged from them, however much the "idle" between them looks like a DataLoader wait.
TEST(DiagnoseTest, AnMtiaTraceIsNotJudgedFromItsDeviceEvents) {
  TinyTrace t(kNsPerUs);
  InputBoundSteps(t);
  t.trace().metadata.vendor = GpuVendor::kMtia;
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  EXPECT_TRUE(d.findings.empty()) << d.findings.front().id;
  for (const char* id : {"input.dataloader_wait", "quality.warmup_dominated"}) {
    const RuleOutcome* o = OutcomeOf(d, id);
    ASSERT_NE(o, nullptr) << id;
    EXPECT_EQ(o->status, AssessStatus::kNotAssessed) << id;
    EXPECT_NE(o->note.find("MTIA"), std::string::npos) << o->note;
  }
}

// The same steady steps with the rule's default threshold: four kernels are too few to judge.
TEST(DiagnoseTest, AHandfulOfKernelsIsTooLittleToJudge) {
  TinyTrace t(kNsPerUs);
  InputBoundSteps(t);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings.front().id, "quality.too_little_gpu_work");
  EXPECT_EQ(d.findings.front().severity, Severity::kLow);
  const RuleOutcome* input = OutcomeOf(d, "input.dataloader_wait");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->status, AssessStatus::kNotAssessed);
}

TEST(DiagnoseTest, SeverityBands) {
  SeverityBands bands;
  EXPECT_EQ(SeverityForShare(0.5, bands), Severity::kInfo);
  EXPECT_EQ(SeverityForShare(1, bands), Severity::kLow);
  EXPECT_EQ(SeverityForShare(5, bands), Severity::kMedium);
  EXPECT_EQ(SeverityForShare(20, bands), Severity::kHigh);
  EXPECT_EQ(SeverityForShare(40, bands), Severity::kCritical);
}

// Four 10 ms steps, each one aten::mm of |dims| (bf16) whose tensor-core GEMM runs |kernel_us|
// on an H100: the FLOP rate while the GEMM runs is FLOPs / kernel time.
const Trace& MatmulSteps(TinyTrace& t, const char* dims, TimeNs kernel_us) {
  t.trace().devices.rows.push_back({0, t.trace().strings.Intern("NVIDIA H100 80GB HBM3")});
  for (int s = 0; s < 4; ++s) {
    TimeNs base = s * 10000;
    t.Step(s + 1, base, base + 10000);
    CpuSliceTable::Row row;
    row.thread = t.main();
    row.name = t.trace().strings.Intern("aten::mm");
    row.kind = CpuSliceKind::kOp;
    row.start = (base + 100) * kNsPerUs;
    row.end = (base + 150) * kNsPerUs;
    row.input_dims = t.trace().strings.Intern(dims);
    row.input_types = t.trace().strings.Intern("[\"c10::BFloat16\", \"c10::BFloat16\"]");
    t.trace().cpu_slices.Append(row);
    t.Launch(t.main(), "cudaLaunchKernel", base + 110, base + 140, GpuOpKind::kKernel, kBf16Gemm,
             base + 200, base + 200 + kernel_us);
  }
  return t.Finish();
}

// 2·1024³ FLOPs in 6.5 ms is 0.33 TFLOP/s, 0.03% of the H100's bf16 dense peak: the GEMM
// itself is the problem, and fixing it to the 50% target gives back nearly all of its time.
// Four 10 ms steps: a 3.95 ms GEMM, then a 1.5 ms all-reduce queued behind it, then a GEMM
// that the host issued at +0.18 ms but that starts only at +8 ms: 2.5 ms of GPU idle with
// work queued, while the host runs CPU ops. With |stream_wait| the job orders streams by events.
void QueuedBehindCommunicationSteps(TinyTrace& t, bool stream_wait) {
  for (int s = 0; s < 4; ++s) {
    TimeNs base = s * 10000;
    t.Step(s + 1, base, base + 10000);
    t.Launch(t.main(), "cudaLaunchKernel", base + 10, base + 40, GpuOpKind::kKernel, kBf16Gemm,
             base + 50, base + 4000);
    t.Launch(t.main(), "cudaLaunchKernel", base + 100, base + 130, GpuOpKind::kKernel,
             "ncclKernel_AllReduce_RING_LL_Sum_float", base + 4000, base + 5500);
    if (stream_wait)
      t.Slice(t.main(), "cudaStreamWaitEvent", CpuSliceKind::kRuntime, base + 140, base + 145);
    t.Launch(t.main(), "cudaLaunchKernel", base + 150, base + 180, GpuOpKind::kKernel, kBf16Gemm,
             base + 8000, base + 9900);
    t.Op("aten::nonzero", base + 5500, base + 7900);
  }
}

TEST(DiagnoseTest, IdleWithWorkQueuedBehindStreamWaitsIsCommunication) {
  TinyTrace t(kNsPerUs);
  QueuedBehindCommunicationSteps(t, /*stream_wait=*/true);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  ASSERT_FALSE(d.findings.empty());
  const Finding& top = d.findings.front();
  EXPECT_EQ(top.id, "comm.exposed");
  // 1.5 ms of all-reduce under no compute + the 2.5 ms queued wait.
  EXPECT_NEAR(NsToMs(top.recoverable_ns_per_step), 4.0, 0.01);
  EXPECT_EQ(d.Find("host.cpu_bound_gaps"), nullptr);
  ExpectNoIdleDoubleCount(d, "queued behind stream waits");
}

TEST(DiagnoseTest, IdleWithWorkQueuedIsNeverHostBound) {
  TinyTrace t(kNsPerUs);
  QueuedBehindCommunicationSteps(t, /*stream_wait=*/false);
  const Trace& trace = t.Finish();
  TraceAnalysis analysis = AnalyzeTrace(trace);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  EXPECT_EQ(d.Find("host.cpu_bound_gaps"), nullptr);
  const Finding* comm = d.Find("comm.exposed");
  ASSERT_NE(comm, nullptr);
  EXPECT_NEAR(NsToMs(comm->recoverable_ns_per_step), 1.5, 0.01);  // the all-reduce only
  bool noted = false;
  for (const std::string& n : d.notes) noted |= n.find("already queued") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(DiagnoseTest, AGemmFarBelowThePeakWhileItRunsIsLowMatmulMfu) {
  TinyTrace t(kNsPerUs);
  const Trace& trace = MatmulSteps(t, "[[1024, 1024], [1024, 1024]]", 6500);
  TraceAnalysis analysis = AnalyzeTrace(trace);
  ASSERT_TRUE(analysis.flops.matmul_mfu_pct.has_value());
  const double mfu = *analysis.flops.matmul_mfu_pct;
  EXPECT_NEAR(analysis.flops.matmul_kernel_flops_per_s, 2.0 * 1024 * 1024 * 1024 / 6.5e-3, 1e3);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  const Finding* f = d.Find("compute.low_matmul_mfu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bottleneck_class, BottleneckClass::kCompute);
  EXPECT_NEAR(NsToMs(f->recoverable_ns_per_step), 6.5 * (1 - mfu / 50), 0.001);
  EXPECT_EQ(f->idle_recoverable_ns_per_step, 0);
  EXPECT_NE(f->title.find("0% of the dense peak"), std::string::npos) << f->title;
  bool fired = false;
  for (const FindingEvidence& e : f->evidence) {
    if (e.metric.id == "flops.matmul_mfu_pct") fired = e.metric.value < e.threshold;
  }
  EXPECT_TRUE(fired);
  ASSERT_FALSE(f->top_events.empty());
  EXPECT_EQ(f->top_events.front(), "aten::mm");
  ExpectNoIdleDoubleCount(d, "low matmul MFU");
}

// 2·8192³ FLOPs in 1.85 ms is about 594 TFLOP/s, 60% of the peak: healthy GEMMs, no finding.
TEST(DiagnoseTest, AGemmNearThePeakHasNoLowMfuFinding) {
  TinyTrace t(kNsPerUs);
  const Trace& trace = MatmulSteps(t, "[[8192, 8192], [8192, 8192]]", 1850);
  TraceAnalysis analysis = AnalyzeTrace(trace);
  ASSERT_TRUE(analysis.flops.matmul_mfu_pct.has_value());
  EXPECT_GT(*analysis.flops.matmul_mfu_pct, 50);
  Diagnosis d = Diagnose(trace, analysis, MiniatureOptions());
  EXPECT_EQ(d.Find("compute.low_matmul_mfu"), nullptr);
}

}  // namespace diagnose_test
}  // namespace gpuwhy
