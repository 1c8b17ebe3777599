// Catalog entries: input (the GPU waits for data) and host (the CPU cannot keep up).
// Texts follow KNOWLEDGE.md §1-2; thresholds name their source.
#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {

std::vector<RuleSpec> InputAndHostRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "input.dataloader_wait",
      .bottleneck_class = BottleneckClass::kInput,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kMedium,
      .severity_logic = "recoverable share of step; at least high when the DataLoader takes "
                        ">= high_pct of the step",
      .title_template = "GPU idles {ms:.1f} ms per step ({pct:.0f}%) waiting for the DataLoader",
      .recoverable_logic = "idle time attributed to input_wait (idle.input_wait_*)",
      .params = {{"min_step_pct", 5, "%", "TensorBoard plugin: DataLoader > 5% of step",
                  "DataLoader time or input-wait idle above this share of step fires"},
                 {"high_pct", 20, "%",
                  "TensorFlow profiler: input >= 20% of step is highly input-bound",
                  "severity is at least high above this share"}},
      .fixes = {{"Load batches in worker processes (4-8 per GPU; never 0), keep them alive and "
                 "prefetching",
                 "DataLoader(ds, batch_size=..., num_workers=8, pin_memory=True, "
                 "persistent_workers=True, prefetch_factor=4)"},
                {"Copy pinned batches asynchronously",
                 "x = x.to(device, non_blocking=True); y = y.to(device, non_blocking=True)"},
                {"Move decoding/tokenization/resizing offline, into workers or onto the GPU",
                 "pre-tokenize to id files; NVIDIA DALI or torchvision.transforms.v2 on GPU tensors"},
                {"Pack small files into large sequential shards or cache on local NVMe",
                 "WebDataset / TFRecord shards, numpy.memmap; read each rank's shard from local "
                 "disk"}},
      .verify = "idle.input_wait_pct and step.dataloader_pct fall toward 0; util.kernel_pct and "
                "step.time_ms improve",
      .needs = "ProfilerStep markers and the DataLoader's __next__ spans (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "input.pageable_copies",
      .bottleneck_class = BottleneckClass::kInput,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{ms:.1f} ms per step ({pct:.0f}%) of host-to-device copies from pageable "
                        "memory, not overlapped with compute",
      .recoverable_logic = "host-to-device copies from pageable memory not overlapped with "
                           "computation or communication kernels, per step",
      .params = {{"min_step_pct", 1, "%",
                  "gpuwhy: exposed pageable copies >= 1% of step (pageable async copies are "
                  "synchronous, KNOWLEDGE.md §1)",
                  "exposed pageable copy time above this share of step fires"}},
      .fixes = {{"Pin host buffers so copies run asynchronously at full PCIe speed",
                 "DataLoader(..., pin_memory=True)  # or tensor.pin_memory()"},
                {"Issue the copy without blocking and overlap it with the previous step",
                 "x = x.to(device, non_blocking=True)"},
                {"Prefetch the next batch on a side stream",
                 "with torch.cuda.stream(copy_stream): nxt = next(it).to(device, "
                 "non_blocking=True)"}},
      .verify = "copy.htod_pageable_bytes falls to 0 and copy.htod_gbps rises",
      .needs = "GPU memcpy records with their memory kinds (default torch.profiler, CUDA)",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "input.h2d_in_critical_path",
      .bottleneck_class = BottleneckClass::kInput,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{ms:.1f} ms per step ({pct:.0f}%) of host-to-device copies run while no "
                        "kernel does",
      .recoverable_logic = "pinned (or unknown-kind) host-to-device copies not overlapped with "
                           "computation or communication kernels, per step",
      .params = {{"min_step_pct", 2, "%", "gpuwhy: exposed host-to-device copies >= 2% of step",
                  "exposed copy time above this share of step fires"}},
      .fixes = {{"Overlap the copy with compute: copy the next batch while this one trains",
                 "with torch.cuda.stream(copy_stream): nxt = batch.to(device, non_blocking=True)"},
                {"Send less: keep data uint8/bf16 on the host and convert on the GPU",
                 "x = x_uint8.to(device, non_blocking=True).float().div_(255)"},
                {"Keep static tensors (embeddings tables, masks) resident on the GPU", ""}},
      .verify = "copy.htod_ms inside steps stays, but idle and step.memcpy_pct fall",
      .needs = "GPU memcpy records (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "host.cpu_bound_gaps",
      .bottleneck_class = BottleneckClass::kHost,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "GPU idles {ms:.1f} ms per step ({pct:.0f}%) while the host runs Python "
                        "or CPU ops",
      .recoverable_logic = "idle time attributed to host_busy, minus what host.periodic_stall and "
                           "memory.allocator_churn claim",
      .params = {{"min_step_pct", 5, "%",
                  "gpuwhy: same 5% floor as the TensorBoard plugin's DataLoader rule",
                  "host-busy idle above this share of step fires"}},
      .fixes = {{"Find the hot spot on the main thread", "py-spy dump --pid <PID>  # or "
                 "torch.profiler(..., with_stack=True)"},
                {"Tokenize ahead of time; fill preallocated tensors in collate instead of Python "
                 "loops", ""},
                {"Move logging/upload and checkpoint serialization to a background thread, and "
                 "do them less often", ""},
                {"Keep DataLoader workers off the main process's cores",
                 "taskset -c 0-3 python train.py  # or worker_init_fn with os.sched_setaffinity"}},
      .verify = "idle.host_busy_pct falls; step.cpu_exec_pct falls",
      .needs = "CPU ops on the launching threads (default torch.profiler); with_stack=True names "
               "the Python frames",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "host.periodic_stall",
      .bottleneck_class = BottleneckClass::kHost,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{slow} of {steps} steps take >= {factor:.1f}x the median step: "
                        "{ms:.1f} ms per step lost to periodic stalls",
      .recoverable_logic = "excess of the slow steps over the median, averaged over all steps, "
                           "capped by step_boundary then host_busy idle time",
      .params = {{"slow_factor", 1.5, "ratio", "gpuwhy: a step >= 1.5x the median is a stall",
                  "a step this much slower than the median is slow"},
                 {"max_slow_share_pct", 34, "%",
                  "gpuwhy: stalls hit a few steps; when more are slow the job is just slow",
                  "fires only when at most this share of steps is slow"},
                 {"min_step_pct", 3, "%", "gpuwhy: excess >= 3% of the mean step",
                  "the slow steps' excess, averaged per step, above this share fires"},
                 {"long_gap_ms", 500, "ms", "field rule: idle gaps > 500 ms",
                  "an idle gap longer than this is a stall even with few steps"}},
      .fixes = {{"Move checkpoint saving to a background thread or process",
                 "torch.distributed.checkpoint.async_save(...)  # or a thread writing a CPU "
                 "state_dict copy"},
                {"Log and upload asynchronously and less often",
                 "if step % 100 == 0: wandb.log(metrics)  # metrics kept on GPU until then"},
                {"Evaluate outside the training loop or in another process", ""}},
      .verify = "step.time_max_ms approaches step.time_median_ms",
      .needs = "at least 3 ProfilerSteps, including a slow one (longer active window)",
      .capture_command = kCaptureProfilerLongSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "host.dataparallel",
      .bottleneck_class = BottleneckClass::kHost,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kMedium,
      .severity_logic = "fixed at medium: the cost is spread over host and idle causes",
      .title_template = "torch.nn.DataParallel drives {devices} GPUs from one process",
      .recoverable_logic = "not estimated: its cost shows as host_busy and launch_bound idle, "
                           "counted by those findings",
      .params = {{"min_devices", 2, "count",
                  "PyTorch docs: DistributedDataParallel is recommended over DataParallel",
                  "fires when one process drives at least this many GPUs with DataParallel"}},
      .fixes = {{"Use one process per GPU with DistributedDataParallel",
                 "torchrun --nproc_per_node=N train.py; model = DDP(model.to(rank), "
                 "device_ids=[rank])"}},
      .verify = "util.kernel_pct rises on every device; one trace per rank",
      .needs = "CPU ops of the training process",
      .capture_command = kCaptureProfilerSchedule,
  });
  return rules;
}

}  // namespace gpuwhy
