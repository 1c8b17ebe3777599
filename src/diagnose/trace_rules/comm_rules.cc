// Communication rules. comm.exposed owns the exposed time (communication kernels not under
// computation, plus comm_wait idle); comm.low_bus_bandwidth and comm.no_overlap explain it
// and carry no recoverable time of their own, so nothing counts twice.
#include <array>
#include <numeric>

#include "diagnose/capture.h"
#include "diagnose/shared_params.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kExposed = "comm.exposed";
constexpr const char* kBusBw = "comm.low_bus_bandwidth";
constexpr const char* kNoOverlap = "comm.no_overlap";

constexpr ParamRef kNoOverlapMaxOverlapPct{kNoOverlap, "max_overlap_pct"};
constexpr ParamRef kNoOverlapMinStepPct{kNoOverlap, "min_step_pct"};
constexpr std::array<const ParamRef*, 6> kCommRulesParams = {
    &kExposedMinStepPct,    &kExposedDominantPct,     &kBusBwMinBusbwGbps,
    &kBusBwMinMessageBytes, &kNoOverlapMaxOverlapPct, &kNoOverlapMinStepPct};

double ExposedPerStep(const RuleContext& ctx) {
  const CommunicationResult& comm = ctx.analysis.communication;
  if (comm.per_step.empty()) return ctx.PerStep(static_cast<double>(comm.rank.exposed));
  double sum = 0;
  for (const CommStepStats& s : comm.per_step) sum += static_cast<double>(s.exposed);
  return sum / static_cast<double>(comm.per_step.size());
}

double CommPerStep(const RuleContext& ctx) {
  const CommunicationResult& comm = ctx.analysis.communication;
  if (comm.per_step.empty()) return ctx.PerStep(static_cast<double>(comm.rank.comm_time));
  double sum = 0;
  for (const CommStepStats& s : comm.per_step) sum += static_cast<double>(s.comm_time);
  return sum / static_cast<double>(comm.per_step.size());
}

void AddCollectiveEvidence(const RuleContext& ctx, Finding& f) {
  std::vector<const CollectiveRecord*> longest;
  for (const CollectiveRecord& c : ctx.analysis.communication.collectives) longest.push_back(&c);
  std::stable_sort(longest.begin(), longest.end(), [](const auto* a, const auto* b) {
    return a->end - a->start > b->end - b->start;
  });
  for (size_t i = 0; i < longest.size() && i < ctx.options.max_ranges; ++i) {
    const CollectiveRecord& c = *longest[i];
    f.ranges.push_back({"collective", c.device, -1, c.start, c.end, c.name});
  }
  for (const CollectiveSummary& s : ctx.analysis.communication.by_collective) {
    f.top_events.push_back(s.name);
  }
}

// GPU idle with work already queued is a wait on something other than the host. When the
// job orders its streams by events (cudaStreamWaitEvent) and runs collectives, the waited-on
// work is most likely communication (TorchRec's splits, FSDP's all-gathers); the event's
// producer is not in the trace, so this stays an inference (docs/findings.md).
bool QueuedOnCommunication(const RuleContext& ctx) {
  return ctx.analysis.idle_gaps.stream_wait_calls > 0 &&
         ctx.analysis.communication.rank.comm_time > 0;
}

void Exposed(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kExposed);
  const RuleParam& min_pct = ctx.catalog.Get(kExposedMinStepPct);
  const RuleParam& dominant = ctx.catalog.Get(kExposedDominantPct);
  double exposed = ExposedPerStep(ctx);
  double wait = ctx.IdleLeft(IdleCause::kCommWait);
  double queued = QueuedOnCommunication(ctx) ? ctx.IdleLeft(IdleCause::kQueuedWait) : 0;
  double pct = ctx.PctOfStep(exposed + wait + queued);
  if (pct <= min_pct.value) {
    ctx.Outcome(kExposed, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(exposed + ctx.ClaimIdle(IdleCause::kCommWait, wait) +
                              ctx.ClaimIdle(IdleCause::kQueuedWait, queued));
  RuleContext::AddEvidence(f, "diagnose.comm_exposed_step_pct", pct, unit::kPercent, ">",
                           min_pct.value, &min_pct);
  ctx.AddMetricEvidence(f, "comm.exposed_ms", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "comm.overlap_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "idle.comm_wait_pct", ">=", 0, nullptr);
  if (queued > 0) {
    ctx.AddMetricEvidence(f, "idle.queued_wait_pct", ">=", 0, nullptr);
    RuleContext::AddEvidence(f, "diagnose.stream_wait_calls",
                             static_cast<double>(ctx.analysis.idle_gaps.stream_wait_calls),
                             unit::kCount, ">", 0, nullptr);
  }
  AddCollectiveEvidence(ctx, f);
  ctx.AddIdleEvidence(f, IdleCause::kCommWait);
  if (queued > 0) ctx.AddIdleEvidence(f, IdleCause::kQueuedWait);
  ctx.Emit(std::move(f), {}, pct >= dominant.value ? Severity::kHigh : Severity::kInfo);
}

void BusBandwidth(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kBusBw);
  const RuleParam& min_bw = ctx.catalog.Get(kBusBwMinBusbwGbps);
  const RuleParam& min_bytes = ctx.catalog.Get(kBusBwMinMessageBytes);
  double bus_bytes = 0;
  double seconds = 0;
  double bytes = 0;
  int64_t sized = 0;
  for (const CollectiveRecord& c : ctx.analysis.communication.collectives) {
    if (c.bytes < min_bytes.value || c.busbw_factor <= 0 || c.end <= c.start) continue;
    ++sized;
    bytes += static_cast<double>(c.bytes);
    bus_bytes += static_cast<double>(c.bytes) * c.busbw_factor;
    seconds += NsToSec(c.end - c.start);
  }
  if (sized == 0 || seconds <= 0) {
    ctx.Outcome(kBusBw, AssessStatus::kNotAssessed, false,
                "no collective with a recorded size >= min_message_bytes (sizes need PyTorch >= "
                "2.1)");
    return;
  }
  double busbw = bus_bytes / seconds / 1e9;
  if (busbw >= min_bw.value) {
    ctx.Outcome(kBusBw, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.confidence = Confidence::kMedium;  // no link peak in a trace; a straggler looks the same
  RuleContext::AddEvidence(f, "diagnose.large_collective_busbw_gbps", busbw, unit::kGBps, "<",
                           min_bw.value, &min_bw);
  ctx.AddMetricEvidence(f, "comm.busbw_gbps", "<", min_bw.value, &min_bw);
  AddCollectiveEvidence(ctx, f);
  double bytes_mb = ctx.PerStep(bytes) * ctx.device_count / 1e6;
  ctx.Emit(std::move(f), {{"busbw", busbw}, {"bytes_mb", bytes_mb}});
}

void NoOverlap(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kNoOverlap);
  const RuleParam& max_overlap = ctx.catalog.Get(kNoOverlapMaxOverlapPct);
  const RuleParam& min_pct = ctx.catalog.Get(kNoOverlapMinStepPct);
  double overlap = ctx.analysis.communication.rank.overlap_pct;
  double comm_pct = ctx.PctOfStep(CommPerStep(ctx));
  if (overlap >= max_overlap.value || comm_pct < min_pct.value) {
    ctx.Outcome(kNoOverlap, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  ctx.AddMetricEvidence(f, "comm.overlap_pct", "<", max_overlap.value, &max_overlap);
  RuleContext::AddEvidence(f, "diagnose.comm_step_pct", comm_pct, unit::kPercent,
                           ">=", min_pct.value, &min_pct);
  AddCollectiveEvidence(ctx, f);
  ctx.Emit(std::move(f), {{"overlap", overlap}});
}

}  // namespace

void EvaluateCommRules(RuleContext& ctx) {
  const CommunicationResult& comm = ctx.analysis.communication;
  if (comm.rank.kernel_count == 0) {
    std::string why = "no communication kernels in the trace";
    if (ctx.trace.rank.world_size > 1) {
      why += " although world size is " + std::to_string(ctx.trace.rank.world_size) +
             " (NCCL kernels not traced?)";
    } else {
      why += " (single-GPU job, or NCCL not traced)";
    }
    for (const char* id : {kExposed, kBusBw, kNoOverlap}) {
      ctx.Outcome(id, AssessStatus::kNotAssessed, false, why);
    }
    return;
  }
  Exposed(ctx);
  BusBandwidth(ctx);
  NoOverlap(ctx);
}

std::span<const ParamRef* const> CommRuleParams() { return kCommRulesParams; }

// comm.*: collectives eat the step (docs/knowledge.md §4). comm.exposed and comm.low_bus_bandwidth
// are also evaluated over all ranks (cross_rank_rules/).

std::vector<RuleSpec> CommRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "comm.exposed",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kMedium,
      .severity_logic = "recoverable share of step; at least high above dominant_pct",
      .title_template = "{ms:.1f} ms per step ({pct:.0f}%) of communication is not hidden "
                        "behind compute",
      .recoverable_logic = "communication kernel time not overlapped with computation "
                           "(comm.exposed_ms) plus comm_wait idle, per step",
      .params = {{"min_step_pct", 10, "%", "field rule: communication > 10% of step",
                  "exposed communication above this share of step fires"},
                 {"dominant_pct", 30, "%", "field rule: communication > 30% of step dominates",
                  "severity is at least high above this share"}},
      .fixes = {{"Overlap gradient all-reduce with backward (DDP buckets)",
                 "DDP(model, bucket_cap_mb=25, gradient_as_bucket_view=True)"},
                {"Communicate less often: larger per-GPU batch or gradient accumulation",
                 "with model.no_sync(): loss.backward()  # on all but the last micro-batch"},
                {"Make sure NCCL uses the fast transport",
                 "NCCL_DEBUG=INFO python ...  # expect NET/IB, not NET/Socket; "
                 "nvidia-smi topo -m",
                 FixNeeds{.vendor = GpuVendor::kNvidia}},
                {"Make sure RCCL uses the fast transport",
                 "NCCL_DEBUG=INFO python ...  # expect NET/IB, not NET/Socket; rocm-smi "
                 "--showtopo",
                 FixNeeds{.vendor = GpuVendor::kAmd}},
                {"Shard large models instead of replicating them", "FSDP(model) / DeepSpeed ZeRO"}},
      .verify = "comm.exposed_ms and comm.exposed_step_pct fall; comm.overlap_pct rises",
      .needs = "communication kernels (NCCL/RCCL) in the trace",
      .capture_command = kCaptureEveryRank,
      .checklist = {{Checklist::kTrace, "exposed communication, overlap and bus bandwidth"}},
  });
  rules.push_back(RuleSpec{
      .id = "comm.no_overlap",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kLow,
      .severity_logic = "fixed at low: its time is counted in comm.exposed",
      .title_template = "only {overlap:.0f}% of communication overlaps computation",
      .recoverable_logic = "not counted separately: the time is in comm.exposed",
      .params = {{"max_overlap_pct", 20, "%",
                  "gpuwhy: DDP bucketing normally hides most gradient all-reduce under backward",
                  "overlap below this fires"},
                 {"min_step_pct", 5, "%", "gpuwhy",
                  "communication time above this share of "
                  "step"}},
      .fixes = {{"Let DDP start all-reduce during backward",
                 "DDP(model, bucket_cap_mb=25)  # do not all-reduce manually after backward"},
                {"Do not synchronize between backward and the optimizer step",
                 "remove torch.cuda.synchronize() / .item() between loss.backward() and "
                 "optimizer.step()"}},
      .verify = "comm.overlap_pct rises",
      .needs = "communication kernels (NCCL/RCCL) in the trace",
      .capture_command = kCaptureEveryRank,
      .checklist = {{Checklist::kTrace, "exposed communication, overlap and bus bandwidth"}},
  });
  rules.push_back(RuleSpec{
      .id = "comm.low_bus_bandwidth",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kMedium,
      .severity_logic = "fixed at medium: its time is counted in comm.exposed",
      .title_template = "collectives reach {busbw:.1f} GB/s bus bandwidth on {bytes_mb:.0f} MB "
                        "per step",
      .recoverable_logic = "not counted separately: slow collectives' time is in comm.exposed",
      .params = {{"min_busbw_gbps", 20, "GB/s",
                  "nccl-tests busbw; ~20 GB/s is below PCIe Gen4 x16 and far below NVLink",
                  "aggregate bus bandwidth below this fires"},
                 {"min_message_bytes", 1048576, "bytes",
                  "nccl-tests: messages under ~1 MiB are latency-bound",
                  "only collectives at least this large count"}},
      .fixes = {{"Check the transport and interface NCCL picked",
                 "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET python ...  # NET/IB expected; "
                 "set NCCL_SOCKET_IFNAME, keep NCCL_IB_DISABLE unset"},
                {"Check GPU/NIC topology", "nvidia-smi topo -m  # NVLink/PIX, not SYS/NODE",
                 FixNeeds{.vendor = GpuVendor::kNvidia}},
                {"Check GPU/NIC topology", "rocm-smi --showtopo  # XGMI between GPUs",
                 FixNeeds{.vendor = GpuVendor::kAmd}},
                {"Benchmark the fabric alone", "all_reduce_perf -b 8M -e 1G -f 2 -g <gpus>"},
                {"Find a straggler rank (late arrivals look like slow collectives)",
                 "gpuwhy analyze on every rank's trace"}},
      .verify = "comm.busbw_gbps rises toward the link peak",
      .needs = "collective sizes (PyTorch >= 2.1 records them) and traces from every rank",
      .capture_command = kCaptureEveryRank,
      .checklist = {{Checklist::kTrace, "exposed communication, overlap and bus bandwidth"}},
  });
  return rules;
}

}  // namespace gpuwhy
