// Platform rules over the job's environment and the host's settings: each says why it matters.
#include <fmt/format.h>

#include "diagnose/platform_rules/platform_rules.h"
#include "diagnose/platform_rules/platform_spec.h"

namespace gpuwhy {
namespace {

constexpr const char* kBlocking = "platform.launch_blocking";
constexpr const char* kGovernor = "platform.cpu_governor";
constexpr const char* kMemory = "platform.host_memory_settings";
constexpr const char* kThreads = "platform.thread_settings";

bool HaveEnvironment(const SystemFacts& facts) {
  return facts.HasInput("environment") || facts.HasInput("process environment");
}

void LaunchBlockingRule(PlatformContext& ctx) {
  const NameValue* v = ctx.facts.Setting("CUDA_LAUNCH_BLOCKING");
  if (v == nullptr && !HaveEnvironment(ctx.facts)) {
    ctx.Outcome(kBlocking, AssessStatus::kNotAssessed, false, "the job's environment was not read");
    return;
  }
  if (v == nullptr || v->value != "1") {
    ctx.Outcome(kBlocking, AssessStatus::kAssessed, false);
    return;
  }
  Finding& f = ctx.AddFinding(
      kBlocking, Severity::kHigh,
      "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for the GPU to finish, so the CPU "
      "never runs ahead and the GPU idles between kernels");
  AddPlatformEvidence(f, "doctor.cuda_launch_blocking", 1, "flag", ">=", 1,
                      "CUDA: launches are synchronous when CUDA_LAUNCH_BLOCKING=1");
  AddQuote(f, v->quote);
  ctx.Outcome(kBlocking, AssessStatus::kAssessed, true);
}

void GovernorRule(PlatformContext& ctx) {
  const NameValue* v = ctx.facts.Setting("cpu.governor");
  if (v == nullptr) {
    ctx.Outcome(kGovernor, AssessStatus::kNotAssessed, false,
                "no /sys/devices/system/cpu/cpu*/cpufreq (VM or not collected)");
    return;
  }
  if (v->value == "performance") {
    ctx.Outcome(kGovernor, AssessStatus::kAssessed, false);
    return;
  }
  const NameValue* count = ctx.facts.Setting("cpu.governor_cpus");
  Finding& f = ctx.AddFinding(
      kGovernor, Severity::kMedium,
      fmt::format("CPU frequency governor '{}' on {} CPUs: cores ramp up only under sustained "
                  "load, so launch-heavy and data-loading threads run slower",
                  v->value, count ? count->value : "the"));
  AddPlatformEvidence(f, "doctor.cpu_governor_performance", 0, "flag", "<", 1,
                      "gpuwhy: GPU hosts run the performance governor");
  AddQuote(f, v->quote);
  ctx.Outcome(kGovernor, AssessStatus::kAssessed, true);
}

void MemoryRule(PlatformContext& ctx) {
  const NameValue* numa = ctx.facts.Setting("kernel.numa_balancing");
  const NameValue* thp = ctx.facts.Setting("mm.transparent_hugepage");
  if (numa == nullptr && thp == nullptr) {
    ctx.Outcome(kMemory, AssessStatus::kNotAssessed, false, "/proc and /sys settings not read");
    return;
  }
  std::vector<std::string> bad;
  std::vector<const NameValue*> quoted;
  if (numa != nullptr && numa->value != "0") {
    bad.push_back("kernel.numa_balancing=" + numa->value +
                  " (the kernel migrates the job's pages between sockets while it runs)");
    quoted.push_back(numa);
  }
  if (thp != nullptr && thp->value.find("[always]") != std::string::npos) {
    bad.push_back("transparent_hugepage " + thp->value +
                  " (memory compaction can stall allocating threads)");
    quoted.push_back(thp);
  }
  if (bad.empty()) {
    ctx.Outcome(kMemory, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const std::string& b : bad) list += (list.empty() ? "" : "; ") + b;
  Finding& f =
      ctx.AddFinding(kMemory, Severity::kLow, "host memory settings that add latency: " + list);
  AddPlatformEvidence(f, "doctor.host_memory_settings", static_cast<double>(bad.size()), "count",
                      ">", 0, "gpuwhy: numa_balancing 0, THP madvise on GPU hosts");
  for (const NameValue* v : quoted) AddQuote(f, v->quote);
  ctx.Outcome(kMemory, AssessStatus::kAssessed, true);
}

void ThreadsRule(PlatformContext& ctx) {
  const NameValue* omp = ctx.facts.Setting("OMP_NUM_THREADS");
  if (omp == nullptr && !HaveEnvironment(ctx.facts)) {
    ctx.Outcome(kThreads, AssessStatus::kNotAssessed, false, "the job's environment was not read");
    return;
  }
  if (omp == nullptr || omp->value != "1") {
    ctx.Outcome(
        kThreads, AssessStatus::kAssessed, false,
        omp == nullptr ? "OMP_NUM_THREADS unset: each rank may start one thread per core" : "");
    return;
  }
  Finding& f = ctx.AddFinding(
      kThreads, Severity::kLow,
      "thread settings: OMP_NUM_THREADS=1 (torchrun's default) runs CPU-side tensor work, "
      "collation and augmentation in the main process on one core");
  AddPlatformEvidence(f, "doctor.omp_num_threads", 1, "count", "<=", 1,
                      "PyTorch: torchrun sets OMP_NUM_THREADS=1 unless told otherwise");
  AddQuote(f, omp->quote);
  ctx.Outcome(kThreads, AssessStatus::kAssessed, true);
}

}  // namespace

void EvaluateEnvironmentRules(PlatformContext& ctx) {
  LaunchBlockingRule(ctx);
  GovernorRule(ctx);
  MemoryRule(ctx);
  ThreadsRule(ctx);
}

std::vector<RuleSpec> EnvironmentRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(
      PlatformSpec({"platform.launch_blocking",
                    Severity::kHigh,
                    "high",
                    "CUDA_LAUNCH_BLOCKING=1 serialises every kernel launch with the host",
                    {},
                    {{"Unset it outside debugging sessions", "unset CUDA_LAUNCH_BLOCKING"}},
                    "launch.* metrics: CPU and GPU overlap again",
                    "the job's environment",
                    kEnv,
                    "environment and host settings"}));
  rules.push_back(
      PlatformSpec({"platform.cpu_governor",
                    Severity::kMedium,
                    "medium",
                    "CPU frequency governor '{governor}' on {cpus} CPUs",
                    {},
                    {{"Run the host CPUs at full speed during training",
                      "sudo cpupower frequency-set -g performance"}},
                    "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor: performance",
                    "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
                    kEnv,
                    "environment and host settings"}));
  rules.push_back(PlatformSpec(
      {"platform.host_memory_settings",
       Severity::kLow,
       "low",
       "host memory settings that add latency: {settings}",
       {},
       {{"Turn automatic NUMA balancing off on GPU nodes (it migrates pages under the job)",
         "sudo sysctl kernel.numa_balancing=0"},
        {"Use transparent huge pages on request only (compaction stalls)",
         "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"}},
       "kernel.numa_balancing = 0; transparent_hugepage [madvise]",
       "/proc/sys/kernel/numa_balancing, /sys/kernel/mm/transparent_hugepage/enabled",
       kEnv,
       "environment and host settings"}));
  rules.push_back(PlatformSpec({"platform.thread_settings",
                                Severity::kLow,
                                "low",
                                "thread settings: {settings}",
                                {},
                                {{"Give each rank its share of cores, not 1 and not all of them",
                                  "OMP_NUM_THREADS=$(( $(nproc) / GPUS_PER_NODE ))"}},
                                "OMP_NUM_THREADS set to cores / ranks per node",
                                "the job's environment",
                                kEnv,
                                "environment and host settings"}));
  return rules;
}

}  // namespace gpuwhy
