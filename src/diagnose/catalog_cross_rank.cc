// Rules that need every rank's trace: evaluated by DiagnoseCrossRank (rules_cross_rank.cc)
// over the cross-rank analysis, never by the single-rank Diagnose.
#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {

std::vector<RuleSpec> CrossRankRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "comm.straggler",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kMedium,
      .severity_logic = "recoverable share of step",
      .title_template = "rank {rank:.0f} arrives last at {late_pct:.0f}% of collectives, "
                        "{late_ms:.3f} ms after the others' median; the other ranks lose "
                        "{wait_ms:.3f} ms per step waiting",
      .recoverable_logic = "per step, what the late rank's lateness over the second-latest rank "
                           "adds to every collective it delays (the job's step shrinks by it "
                           "when the rank keeps pace)",
      .params = {{"min_late_pct", 50, "%",
                  "gpuwhy: by chance a rank is last at 1/N of the collectives",
                  "the rank arrives decisively last at at least this share of its collectives"},
                 {"min_wait_step_pct", 2, "%", "gpuwhy",
                  "the other ranks' wait for it, per rank and step, above this share of step"}},
      .fixes = {{"If its computation is slower on the same kernels: check that GPU",
                 "nvidia-smi -q -d CLOCK,PERFORMANCE,TEMPERATURE -i <gpu>  # throttling, a "
                 "lower clock, ECC errors; swap the node out"},
                {"If it waits longer for input: give its loader the same resources",
                 "DataLoader(ds, num_workers=8, pin_memory=True)  # and a local copy of its shard"},
                {"If it starts steps late or its host is busier: look at that host",
                 "top -H -p <pid>  # another process, CPU frequency, NUMA placement"},
                {"If the work is uneven across ranks: balance it",
                 "equal-sized shards / bucket sequence lengths so each rank does the same work"}},
      .verify = "the rank's late share and the others' wait per step fall; step time spread "
                "narrows",
      .needs = "the traces (or summaries) of at least two ranks with matching collectives",
      .capture_command = kCaptureEveryRank,
  });
  rules.push_back(RuleSpec{
      .id = "comm.poor_scaling",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kMedium,
      .severity_logic = "high below min_efficiency, else medium",
      .title_template = "{ranks:.0f} GPUs run {speedup:.2f}x one GPU's throughput: {eff:.0f}% "
                        "scaling efficiency",
      .recoverable_logic = "step time above single-GPU step time × N / (N × min_efficiency), per step",
      .params = {{"min_efficiency", 0.7, "ratio",
                  "field rule: data-parallel scaling below 70% needs a look",
                  "scaling efficiency below this fires"},
                 {"four_gpu_min_speedup", 2.5, "ratio",
                  "field rule: 4 GPUs below 2.5x points at communication",
                  "with 4 GPUs, a speed-up below this points at communication"}},
      .fixes = {{"Hide communication under backward", "DDP(model, bucket_cap_mb=25)"},
                {"Communicate less often", "gradient accumulation; larger per-GPU batch"},
                {"Check the fabric", "NCCL_DEBUG=INFO; all_reduce_perf -b 8M -e 1G -f 2"}},
      .verify = "scaling efficiency rises toward 1",
      .needs = "--baseline-single TRACE: a one-GPU run of the same model and per-GPU batch",
      .capture_command = "profile the same script on one GPU and pass it with --baseline-single",
  });
  return rules;
}

}  // namespace gpuwhy
