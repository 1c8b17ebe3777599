// Catalog entries read from metric series (gpuwhy run/record, nvidia-smi and DCGM logs):
// utilization patterns, host pressure while the GPU waits, throttling and neighbours.
// KNOWLEDGE.md §0-2 and §7; evaluated by diagnose_signals.cc. memory.near_capacity and
// platform.pcie_downgraded are defined elsewhere and emitted from series too.
#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {
namespace {

constexpr const char* kNeedsSeries =
    "live GPU metrics over the run (gpuwhy run/record, nvidia-smi dmon or --query-gpu logs, "
    "dcgm-exporter text)";
constexpr const char* kNeedsHost =
    "host CPU, per-thread and disk series of the job (gpuwhy run records them)";
constexpr const char* kFromShare = "share of the run's time in the condition (severity bands of "
                                   "the diagnosis)";

const Fix kDataLoaderFix = {"Load batches in parallel worker processes and prefetch",
                            "DataLoader(ds, batch_size=B, num_workers=8, pin_memory=True, "
                            "persistent_workers=True, prefetch_factor=4)"};
const Fix kTraceFix = {"Capture a profiler trace to see what fills the gaps",
                       "gpuwhy run --trace-dir ./traces -- python train.py  (with "
                       "torch.profiler writing to ./traces)"};

RuleSpec Series(std::string id, BottleneckClass cls, ChecklistSection section) {
  RuleSpec spec;
  spec.id = std::move(id);
  spec.bottleneck_class = cls;
  spec.section = section;
  spec.default_severity = Severity::kMedium;
  spec.severity_logic = kFromShare;
  spec.recoverable_logic = "not estimated from series: no step time; a trace gives it";
  spec.needs = kNeedsSeries;
  spec.capture_command = kCaptureLiveMetrics;
  return spec;
}

std::vector<RuleSpec> UtilizationRules() {
  std::vector<RuleSpec> rules;
  RuleSpec low = Series("compute.low_gpu_utilization", BottleneckClass::kCompute,
                        ChecklistSection::kTimeline);
  low.severity_logic = "by how far mean utilization is below the threshold: the idle share";
  low.title_template = "GPU utilization {util:.0f}% on average over {gpus:.0f} GPU(s): the GPUs "
                       "are idle most of the time";
  low.params = {{"max_util_pct", 50, "%",
                 "DESIGN.md anchor: kernel utilization < 50%",
                 "mean NVML/nvidia-smi utilization below this fires"}};
  low.fixes = {kTraceFix, kDataLoaderFix,
               {"Give each GPU more work per step: a larger batch (scale the learning rate)", ""}};
  low.verify = "signals.util_mean_pct rises; throughput (samples/s) rises with it";
  rules.push_back(std::move(low));

  RuleSpec saw = Series("input.starvation_pattern", BottleneckClass::kInput,
                        ChecklistSection::kInputAndCpu);
  saw.title_template = "sawtooth utilization with period {period_s:.1f} s: below {low:.0f}% "
                       "{low_pct:.0f}% of the time, likely input-bound";
  saw.params = {{"low_util_pct", 20, "%", "issue 7: share of time below 20%",
                 "a collapse is utilization below this"},
                {"high_util_pct", 50, "%", "gpuwhy", "a cycle must rise above this between "
                 "collapses"},
                {"min_low_time_pct", 10, "%", "gpuwhy, after TensorFlow profiler: >= 5% "
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

  RuleSpec mis = Series("compute.util_misleading", BottleneckClass::kCompute,
                        ChecklistSection::kKernelsAndSync);
  mis.title_template = "utilization reads {util:.0f}% but SMs are active only {sm:.0f}% of the "
                       "time: the GPU is 'busy' with little work";
  mis.params = {{"min_util_pct", 80, "%", "KNOWLEDGE.md §0: one tiny kernel reads 100%",
                 "utilization above this is 'busy'"},
                {"max_sm_active_pct", 50, "%", "gpuwhy", "SM activity below this while busy "
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

std::vector<RuleSpec> HostPressureRules() {
  std::vector<RuleSpec> rules;
  RuleSpec io = Series("input.io_bound", BottleneckClass::kInput, ChecklistSection::kInputAndCpu);
  io.title_template = "the GPUs wait while the host waits on disk: iowait or a saturated disk "
                      "{io_pct:.0f}% of the time with the GPUs below {low:.0f}%";
  io.params = {{"iowait_pct", 10, "%", "gpuwhy", "iowait above this is waiting on storage"},
               {"disk_busy_pct", 90, "%", "gpuwhy: a disk busy > 90% is saturated",
                "disk utilization above this counts too"},
               {"min_time_pct", 10, "%", "gpuwhy", "fires above this share of the run"}};
  io.needs = kNeedsHost;
  io.fixes = {{"Cache the dataset on local NVMe or in memory", ""},
              {"Read large sequential shards instead of many small files",
               "WebDataset / TFRecord / memory-mapped arrays"},
              kDataLoaderFix};
  io.verify = "signals.io_wait_gpu_idle_pct falls";
  rules.push_back(std::move(io));

  RuleSpec gil = Series("host.gil_bound", BottleneckClass::kHost, ChecklistSection::kInputAndCpu);
  gil.title_template = "one thread of the job is pinned at >= {pinned:.0f}% of a core "
                       "{share:.0f}% of the time while the GPUs idle: Python (GIL) bound";
  gil.params = {{"pinned_thread_pct", 90, "%", "KNOWLEDGE.md §2: one CPU thread at 100%",
                 "a thread above this share of one core is pinned"},
                {"min_time_pct", 20, "%", "gpuwhy", "fires above this share of the run"}};
  gil.needs = kNeedsHost;
  gil.fixes = {{"See where the thread spends its time", "py-spy dump --pid PID; py-spy top"},
               {"Move Python work (tokenizing, collate loops, logging) out of the main loop "
                "into DataLoader workers or ahead of time", ""},
               kDataLoaderFix};
  gil.verify = "signals.thread_pinned_gpu_idle_pct falls";
  rules.push_back(std::move(gil));

  RuleSpec sat = Series("host.cpu_saturated", BottleneckClass::kHost,
                        ChecklistSection::kInputAndCpu);
  sat.title_template = "all {cores:.0f} CPU cores saturated (>= {busy:.0f}% busy) {share:.0f}% "
                       "of the time";
  sat.params = {{"saturated_cpu_pct", 95, "%", "gpuwhy", "all-core busy above this is "
                 "saturated"},
                {"min_time_pct", 20, "%", "gpuwhy", "fires above this share of the run"}};
  sat.needs = kNeedsHost;
  sat.fixes = {{"Keep cores for the main process: fewer DataLoader workers or pinned ones",
                "taskset / cgroups; num_workers = physical cores - 2"},
               {"Move CPU-heavy transforms offline or onto the GPU", "NVIDIA DALI"}};
  sat.verify = "signals.cpu_saturated_pct falls";
  rules.push_back(std::move(sat));
  return rules;
}

std::vector<RuleSpec> PlatformSeriesRules() {
  std::vector<RuleSpec> rules;
  RuleSpec thr = Series("platform.throttling", BottleneckClass::kPlatform,
                        ChecklistSection::kPlatform);
  thr.title_template = "GPU {device:.0f} clocks throttled {share:.0f}% of the time "
                       "({reasons})";
  thr.params = {{"min_time_pct", 5, "%", "gpuwhy", "a throttle reason active above this share "
                 "of samples fires"}};
  thr.fixes = {{"Read the clock-event reasons", "nvidia-smi -q -d PERFORMANCE"},
               {"Fix cooling or the power cap", "nvidia-smi -q -d POWER,TEMPERATURE"}};
  thr.verify = "clock-event reasons clear; SM clock at its maximum under load";
  rules.push_back(std::move(thr));

  RuleSpec con = Series("platform.contention", BottleneckClass::kPlatform,
                        ChecklistSection::kPlatform);
  con.title_template = "{processes:.0f} processes with a compute context share GPU "
                       "{device:.0f}";
  con.params = {{"min_processes", 2, "count", "KNOWLEDGE.md §7: other processes on the same GPU",
                 "this many compute processes on one GPU fires"}};
  con.fixes = {{"List processes on the GPU",
                "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"},
               {"Share deliberately (MPS, MIG) or not at all", ""}};
  con.verify = "one compute process per GPU";
  rules.push_back(std::move(con));
  return rules;
}

}  // namespace

std::vector<RuleSpec> SignalRules() {
  std::vector<RuleSpec> rules = UtilizationRules();
  for (RuleSpec& spec : HostPressureRules()) rules.push_back(std::move(spec));
  for (RuleSpec& spec : PlatformSeriesRules()) rules.push_back(std::move(spec));
  return rules;
}

}  // namespace gpuwhy
