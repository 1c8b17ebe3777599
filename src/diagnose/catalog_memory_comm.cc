// Catalog entries: memory (pressure that bends the work) and communication (collectives eat
// the step). Texts follow KNOWLEDGE.md §3-4.
#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {
namespace {

std::vector<RuleSpec> MemoryRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "memory.near_capacity",
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kMedium,
      .severity_logic = "fixed at medium (high above 97%): pressure bends the work (smaller "
                        "batches, recomputation) rather than adding idle time",
      .title_template = "peak memory {peak_pct:.0f}% of the {capacity_gb:.0f} GB on device "
                        "{device}",
      .recoverable_logic = "not estimated: memory pressure shows as smaller GEMMs and "
                           "recomputation, counted by those findings",
      .params = {{"peak_pct", 90, "%", "field rule: peak memory > 90% of capacity",
                  "peak allocated (or reserved) above this share of capacity fires"}},
      .fixes = {{"Halve activation memory with bf16 autocast",
                 "with torch.autocast('cuda', dtype=torch.bfloat16): loss = model(x)"},
                {"Shard optimizer state and gradients",
                 "FSDP(model) or DeepSpeed ZeRO stage 2/3"},
                {"Recompute only cheap layers (selective activation checkpointing)",
                 "torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)"},
                {"Avoid fragmentation", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"},
                {"Use gradient accumulation only when a larger batch does not fit", ""}},
      .verify = "memory.peak_allocated_pct falls below 90",
      .needs = "allocator [memory] events and the device's total memory",
      .capture_command = kCaptureProfileMemory,
  });
  rules.push_back(RuleSpec{
      .id = "memory.allocator_churn",
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step; low when not estimable",
      .title_template = "{calls:.0f} cudaMalloc/cudaFree calls per steady-state step "
                        "({alloc_ms:.1f} ms)",
      .recoverable_logic = "allocator call time per step, carved out of host_busy idle (never "
                           "more than it)",
      .params = {{"min_calls_per_step", 1, "count",
                  "gpuwhy: PyTorch's caching allocator makes steady-state steps allocation-free",
                  "alloc + free calls per steady-state step at or above this fire"}},
      .fixes = {{"Never call torch.cuda.empty_cache() inside the loop", ""},
                {"Let the allocator grow segments instead of splitting",
                 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"},
                {"Reuse preallocated buffers; keep shapes static (pad or bucket lengths)",
                 "out = torch.empty(...) once; torch.add(a, b, out=out)"},
                {"Inspect what the allocator holds", "print(torch.cuda.memory_summary())"}},
      .verify = "memory.alloc_calls_per_step falls to 0",
      .needs = "CUDA runtime calls over at least two ProfilerSteps",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "memory.small_batch_gemms",
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{share:.0f}% of GEMM/conv time runs in kernels with fewer thread blocks "
                        "than SMs",
      .recoverable_logic = "kernel-time estimate: each under-filled GEMM/conv x (1 - "
                           "blocks/SMs), per step (an upper bound: more work per kernel)",
      .params = {{"min_gemm_share_pct", 20, "%",
                  "gpuwhy: a fifth of GEMM time in under-filled kernels",
                  "under-filled share of GEMM/conv time above this fires"},
                 {"min_step_pct", 2, "%", "gpuwhy", "recoverable above this share of step"}},
      .fixes = {{"Use a larger per-GPU batch (memory permitting) or pack sequences",
                 "bf16 autocast / activation checkpointing frees memory for a bigger batch"},
                {"Pad matrix dimensions to multiples of 8 (16 for fp8)", ""},
                {"Batch many small matmuls into one", "torch.bmm / torch.baddbmm instead of a "
                 "Python loop of torch.mm"}},
      .verify = "kernels.class.gemm_pct falls per sample; step throughput (samples/s) rises",
      .needs = "kernel launch grids and the device's SM count (default torch.profiler, CUDA)",
      .capture_command = kCaptureProfilerSchedule,
  });
  return rules;
}

std::vector<RuleSpec> CommRules() {
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
                 "nvidia-smi topo -m"},
                {"Shard large models instead of replicating them",
                 "FSDP(model) / DeepSpeed ZeRO"}},
      .verify = "comm.exposed_ms and comm.exposed_step_pct fall; comm.overlap_pct rises",
      .needs = "communication kernels (NCCL/RCCL) in the trace",
      .capture_command = kCaptureEveryRank,
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
                {"Check GPU/NIC topology", "nvidia-smi topo -m  # NVLink/PIX, not SYS/NODE"},
                {"Benchmark the fabric alone", "all_reduce_perf -b 8M -e 1G -f 2 -g <gpus>"},
                {"Find a straggler rank (late arrivals look like slow collectives)",
                 "gpuwhy analyze on every rank's trace"}},
      .verify = "comm.busbw_gbps rises toward the link peak",
      .needs = "collective sizes (PyTorch >= 2.1 records them) and traces from every rank",
      .capture_command = kCaptureEveryRank,
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
                 {"min_step_pct", 5, "%", "gpuwhy", "communication time above this share of "
                  "step"}},
      .fixes = {{"Let DDP start all-reduce during backward",
                 "DDP(model, bucket_cap_mb=25)  # do not all-reduce manually after backward"},
                {"Do not synchronize between backward and the optimizer step",
                 "remove torch.cuda.synchronize() / .item() between loss.backward() and "
                 "optimizer.step()"}},
      .verify = "comm.overlap_pct rises",
      .needs = "communication kernels (NCCL/RCCL) in the trace",
      .capture_command = kCaptureEveryRank,
  });
  return rules;
}

}  // namespace

std::vector<RuleSpec> MemoryAndCommRules() {
  std::vector<RuleSpec> rules = MemoryRules();
  for (RuleSpec& spec : CommRules()) rules.push_back(std::move(spec));
  return rules;
}

}  // namespace gpuwhy
