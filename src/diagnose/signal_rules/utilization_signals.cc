// Utilization rules from metric series: low utilization, a starvation sawtooth, utilization
// that SM activity contradicts. docs/knowledge.md §0-1.
#include "diagnose/signal_rules/signal_rules.h"
#include "diagnose/signal_rules/signal_spec.h"

#include <array>

#include <fmt/ranges.h>

namespace gpuwhy {
namespace {

constexpr ParamRef kLowMaxUtilPct{"compute.low_gpu_utilization", "max_util_pct"};
constexpr ParamRef kStarvationMinLowTimePct{"input.starvation_pattern", "min_low_time_pct"};
constexpr ParamRef kStarvationMinCollapses{"input.starvation_pattern", "min_collapses"};
constexpr ParamRef kMisleadingMinUtilPct{"compute.util_misleading", "min_util_pct"};
constexpr ParamRef kMisleadingMaxSmActivePct{"compute.util_misleading", "max_sm_active_pct"};
constexpr std::array<const ParamRef*, 7> kUtilizationSignalsParams = {
    &kLowMaxUtilPct,           &kStarvationLowUtilPct,   &kStarvationHighUtilPct,
    &kStarvationMinLowTimePct, &kStarvationMinCollapses, &kMisleadingMinUtilPct,
    &kMisleadingMaxSmActivePct};

// A GPU whose video engines are this busy is encoding or decoding, not idle: its SM
// utilization says nothing about a training job's input.
constexpr double kMediaBusyPct = 10;
// Fewer samples than this are instants, not a run: they cannot say "most of the time".
constexpr size_t kMinSamplesForRun = 3;

void LowUtilization(SignalRuleContext& r) {
  const char* id = "compute.low_gpu_utilization";
  const RuleParam& max_util = r.P(kLowMaxUtilPct);
  double sum = 0;
  int gpus = 0;
  size_t samples = 0;
  std::vector<std::string> media;
  Finding f = r.Start(id);
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.util_mean_pct) continue;
    if (g.media_mean_pct && *g.media_mean_pct >= kMediaBusyPct) {
      media.push_back(
          fmt::format("GPU {} {} {:.0f}% busy", g.device, g.media_engine, *g.media_mean_pct));
      continue;
    }
    sum += *g.util_mean_pct;
    ++gpus;
    samples = std::max(samples, g.samples);
    if (*g.util_mean_pct < max_util.value) {
      SignalRuleContext::Evidence(f, "signals.util_mean_pct", g.device, *g.util_mean_pct, "%", "<",
                                  max_util.value, &max_util);
    }
  }
  std::string media_note =
      media.empty() ? "" : fmt::format("video engines busy (not idle): {}", fmt::join(media, ", "));
  if (gpus == 0) {
    r.Outcome(id, media.empty() ? AssessStatus::kNotAssessed : AssessStatus::kAssessed, false,
              media.empty() ? "no GPU utilization series" : media_note);
    return;
  }
  double mean = sum / gpus;
  if (f.evidence.empty()) {
    r.Outcome(id, AssessStatus::kAssessed, false, media_note);
    return;
  }
  if (samples < kMinSamplesForRun) {
    // One sample is one instant: it cannot say how the run used the GPU.
    f.severity = Severity::kLow;
    f.confidence = Confidence::kLow;
    f.title = fmt::format(
        "GPU utilization {:.0f}% at the {} sampled instant{} over {} GPU(s): cannot tell how the "
        "run uses the GPUs from {}; record a series over the run",
        mean, samples, samples == 1 ? "" : "s", gpus,
        samples == 1 ? "one sample" : "so few samples");
    r.EmitTitled(std::move(f));
    return;
  }
  f.severity = std::min(r.ForShare(100 - mean), Severity::kHigh);  // a symptom, not a cause
  r.Emit(std::move(f), {{"util", mean}, {"gpus", static_cast<double>(gpus)}});
}

void Starvation(SignalRuleContext& r) {
  const char* id = "input.starvation_pattern";
  const RuleParam& min_collapses = r.P(kStarvationMinCollapses);
  const RuleParam& min_low_time = r.P(kStarvationMinLowTimePct);
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.util_mean_pct) continue;
    any = true;
    const Sawtooth& st = g.sawtooth;
    if (!st.found || st.collapses < min_collapses.value || st.low_time_pct < min_low_time.value) {
      continue;
    }
    Finding f = r.Start(id);
    f.severity = r.ForShare(st.low_time_pct);
    if (f.confidence == Confidence::kMedium) f.confidence = Confidence::kHigh;
    SignalRuleContext::Evidence(f, "signals.util_low_pct", g.device, st.low_time_pct, "%", ">",
                                min_low_time.value, &min_low_time);
    SignalRuleContext::Evidence(f, "signals.sawtooth_period_s", g.device, st.period_s, "s", ">", 0,
                                &min_collapses);
    SignalRuleContext::Evidence(f, "signals.sawtooth_collapses", g.device, st.collapses, "count",
                                ">=", min_collapses.value, &min_collapses);
    r.Emit(std::move(f), {{"period_s", st.period_s},
                          {"low", r.P(kStarvationLowUtilPct).value},
                          {"low_pct", st.low_time_pct}});
  }
  if (!any) return r.Outcome(id, AssessStatus::kNotAssessed, false, "no GPU utilization series");
  r.Outcome(id, AssessStatus::kAssessed, false);
}

void Misleading(SignalRuleContext& r) {
  const char* id = "compute.util_misleading";
  const RuleParam& min_util = r.P(kMisleadingMinUtilPct);
  const RuleParam& max_sm = r.P(kMisleadingMaxSmActivePct);
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.util_mean_pct || !g.sm_active_mean_pct) continue;
    any = true;
    if (*g.util_mean_pct < min_util.value || *g.sm_active_mean_pct >= max_sm.value) continue;
    Finding f = r.Start(id);
    f.severity = r.ForShare(*g.util_mean_pct - *g.sm_active_mean_pct);
    SignalRuleContext::Evidence(f, "signals.util_mean_pct", g.device, *g.util_mean_pct, "%",
                                ">=", min_util.value, &min_util);
    SignalRuleContext::Evidence(f, "signals.sm_active_mean_pct", g.device, *g.sm_active_mean_pct,
                                "%", "<", max_sm.value, &max_sm);
    r.Emit(std::move(f), {{"util", *g.util_mean_pct}, {"sm", *g.sm_active_mean_pct}});
  }
  if (!any) {
    return r.Outcome(id, AssessStatus::kNotAssessed, false,
                     "SM activity (DCGM_FI_PROF_SM_ACTIVE) next to utilization");
  }
  r.Outcome(id, AssessStatus::kAssessed, false);
}

}  // namespace

// MIG instances with no SM or graphics-engine activity in any sample: named, at low severity,
// since an idle instance may simply have no job (or DCGM may not fill profiling fields for MIG
// on this driver): the operator decides.
void IdleMigInstances(SignalRuleContext& r) {
  const char* id = "compute.idle_mig_instances";
  size_t instances = 0, idle = 0;
  std::vector<std::string> names;
  for (const GpuSignals& g : r.a_.gpus) {
    instances += g.mig_instances;
    idle += g.idle_instances.size();
    for (const std::string& n : g.idle_instances)
      names.push_back(fmt::format("GPU {} {}", g.device, n));
  }
  if (instances == 0) {
    r.Outcome(id, AssessStatus::kNotAssessed, false,
              "per-instance SM or graphics-engine activity (dcgm-exporter on a MIG GPU)");
    return;
  }
  if (idle == 0) {
    r.Outcome(id, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(id);
  f.severity = Severity::kLow;
  f.confidence = Confidence::kLow;
  for (const GpuSignals& g : r.a_.gpus) {
    if (g.idle_instances.empty()) continue;
    SignalRuleContext::Evidence(f, "signals.idle_mig_instances", g.device,
                                static_cast<double>(g.idle_instances.size()), "count", ">", 0,
                                nullptr);
    f.evidence.back().threshold_source =
        "DCGM_FI_PROF_SM_ACTIVE / GR_ENGINE_ACTIVE 0 in every sample";
  }
  f.top_events = names;
  f.title = fmt::format(
      "{} of {} MIG instance(s) did no work in any sample ({}): a job placed there is not "
      "reaching the GPU, or the instance is unused (release it), or DCGM does not fill "
      "profiling fields for MIG on this driver",
      idle, instances,
      fmt::join(names.begin(), names.begin() + std::min<size_t>(names.size(), 6), ", "));
  r.EmitTitled(std::move(f));
}

void EvaluateUtilizationSignals(SignalRuleContext& r) {
  LowUtilization(r);
  IdleMigInstances(r);
  Starvation(r);
  Misleading(r);
}

std::span<const ParamRef* const> UtilizationSignalParams() { return kUtilizationSignalsParams; }

std::vector<RuleSpec> UtilizationSignalSpecs() {
  std::vector<RuleSpec> rules;
  RuleSpec low = Series("compute.low_gpu_utilization", BottleneckClass::kCompute,
                        ChecklistSection::kTimeline, "GPU utilization over the run");
  low.severity_logic = "by how far mean utilization is below the threshold: the idle share";
  low.title_template =
      "GPU utilization {util:.0f}% on average over {gpus:.0f} GPU(s): the GPUs "
      "are idle most of the time";
  low.params = {{"max_util_pct", 50, "%", "docs/design.md anchor: kernel utilization < 50%",
                 "mean NVML/nvidia-smi utilization below this fires"}};
  low.fixes = {kTraceFix,
               kDataLoaderFix,
               {"Give each GPU more work per step: a larger batch (scale the learning rate)", ""}};
  low.verify = "signals.util_mean_pct rises; throughput (samples/s) rises with it";
  rules.push_back(std::move(low));

  RuleSpec saw = Series("input.starvation_pattern", BottleneckClass::kInput,
                        ChecklistSection::kInputAndCpu, "input rhythm, I/O and host CPU");
  saw.title_template =
      "sawtooth utilization with period {period_s:.1f} s: below {low:.0f}% "
      "{low_pct:.0f}% of the time, likely input-bound";
  saw.params = {{"low_util_pct", 20, "%", "issue 7: share of time below 20%",
                 "a collapse is utilization below this"},
                {"high_util_pct", 50, "%", "gpuwhy",
                 "a cycle must rise above this between "
                 "collapses"},
                {"min_low_time_pct", 10, "%",
                 "gpuwhy, after TensorFlow profiler: >= 5% "
                 "moderately input-bound",
                 "fires when the share of time below low_util_pct is above this"},
                {"min_collapses", 3, "count", "gpuwhy: three regular collapses make a rhythm",
                 "fewer collapses are not a pattern"}};
  saw.fixes = {kDataLoaderFix,
               {"Move decoding and augmentation out of the loop or onto the GPU",
                "NVIDIA DALI or torchvision.transforms.v2 on CUDA tensors"},
               {"Pack small files into large sequential shards",
                "WebDataset / TFRecord shards on local NVMe"}};
  saw.verify = "signals.util_low_pct falls and the sawtooth disappears";
  rules.push_back(std::move(saw));

  RuleSpec mig = Series("compute.idle_mig_instances", BottleneckClass::kCompute,
                        ChecklistSection::kTimeline, "GPU utilization over the run");
  mig.default_severity = Severity::kLow;
  mig.severity_logic = "low: an idle instance may have no job";
  mig.title_template = "{count:.0f} MIG instances did no work in any sample";
  mig.fixes = {
      {"See which pods hold the instances and whether they run",
       "kubectl get pods -o wide --field-selector spec.nodeName=NODE; nvidia-smi mig -lgi"},
      {"Release unused instances or repartition the GPU",
       "sudo nvidia-smi mig -dci; sudo nvidia-smi mig -dgi"}};
  mig.verify = "every instance shows SM activity while its job runs";
  rules.push_back(std::move(mig));

  RuleSpec mis = Series("compute.util_misleading", BottleneckClass::kCompute,
                        ChecklistSection::kKernelsAndSync, "SM activity behind utilization");
  mis.title_template =
      "utilization reads {util:.0f}% but SMs are active only {sm:.0f}% of the "
      "time: the GPU is 'busy' with little work";
  mis.params = {{"min_util_pct", 80, "%", "docs/knowledge.md §0: one tiny kernel reads 100%",
                 "utilization above this is 'busy'"},
                {"max_sm_active_pct", 50, "%", "gpuwhy",
                 "SM activity below this while busy "
                 "fires"}};
  mis.needs = "DCGM profiling metrics (DCGM_FI_PROF_SM_ACTIVE) next to utilization";
  mis.capture_command = "dcgm-exporter, or: dcgmi dmon -e 203,1002,1004,1005 -d 1000";
  mis.fixes = {{"Fill the SMs: larger batches or fused kernels", "torch.compile(model)"},
               {"Use tensor cores: bf16 autocast",
                "with torch.autocast('cuda', dtype=torch.bfloat16): ..."}};
  mis.verify = "signals.sm_active_mean_pct rises";
  rules.push_back(std::move(mis));
  return rules;
}

}  // namespace gpuwhy
