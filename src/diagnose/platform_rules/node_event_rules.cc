// Platform rules over the kernel-log and fabric-manager lines that are not GPU Xids
// (NodeEvent): NVSwitch SXid errors, a process crashing inside a GPU library, host limits,
// nvidia-peermem errors, a GPU fallen off the bus without its Xid 79.
#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/platform_rules/platform_rules.h"
#include "diagnose/platform_rules/platform_spec.h"

namespace gpuwhy {
namespace {

constexpr const char* kSxid = "platform.nvswitch_errors";
constexpr const char* kCrash = "platform.gpu_library_crash";
constexpr const char* kHostLimit = "platform.host_limits";
constexpr const char* kPeermem = "platform.peermem_errors";
constexpr const char* kOffBus = "platform.gpu_off_bus";

// A few SXids operators meet; the rest are named by NVIDIA's Fabric Manager guide.
struct SxidInfo {
  int code;
  std::string_view meaning;
};
constexpr std::array<SxidInfo, 5> kSxids = {{
    {11004,
     "ingress invalid ACL (a request to an address the fabric does not route: fabric "
     "manager partition or GPU reset state)"},
    {12028, "egress non-posted PRIV error"},
    {19084, "AN1 heartbeat timeout"},
    {20034, "LTSSM fault: an NVLink went down"},
    {22013, "MINION link DLREQ (link training or state change)"},
}};

std::string_view SxidMeaning(int code) {
  for (const SxidInfo& s : kSxids) {
    if (s.code == code) return s.meaning;
  }
  return "see NVIDIA's Fabric Manager user guide (SXid errors)";
}

std::vector<const NodeEvent*> EventsOf(const SystemFacts& facts, std::string_view kind) {
  std::vector<const NodeEvent*> out;
  for (const NodeEvent& e : facts.node_events) {
    if (e.kind == kind) out.push_back(&e);
  }
  return out;
}

bool ReadKernelOrFabricLog(const SystemFacts& facts) {
  return facts.kernel_log_lines > 0 || facts.HasInput("fabric manager log");
}

// Repeated non-fatal errors across many ports are a fabric to watch (correlate with GPU
// Xid 74 before an RMA); a single one is noise; any fatal one stops the NVLink traffic.
constexpr size_t kRepeatedSxids = 10;
constexpr size_t kManyPorts = 3;

void SxidRule(PlatformContext& ctx) {
  if (!ReadKernelOrFabricLog(ctx.facts)) {
    ctx.Outcome(kSxid, AssessStatus::kNotAssessed, false, "no kernel or fabric manager log");
    return;
  }
  std::vector<const NodeEvent*> events = EventsOf(ctx.facts, "sxid");
  if (events.empty()) {
    ctx.Outcome(kSxid, AssessStatus::kAssessed, false);
    return;
  }
  std::map<int, size_t> codes;
  std::set<std::string> places, switches;
  size_t fatal = 0;
  for (const NodeEvent* e : events) {
    ++codes[e->code];
    places.insert(e->device + " " + e->detail);
    switches.insert(e->device);
    fatal += e->fatal;
  }
  Severity severity = fatal > 0 ? Severity::kHigh
                      : events.size() >= kRepeatedSxids || places.size() >= kManyPorts
                          ? Severity::kMedium
                          : Severity::kLow;
  std::string list;
  for (const auto& [code, n] : codes) {
    list += fmt::format("{}SXid {} x{} ({})", list.empty() ? "" : "; ", code, n, SxidMeaning(code));
  }
  Finding& f = ctx.AddFinding(
      kSxid, severity,
      fmt::format("{} NVSwitch error{} ({} fatal) at {} place{} on {} switch{}: {}{}",
                  events.size(), events.size() == 1 ? "" : "s", fatal, places.size(),
                  places.size() == 1 ? "" : "s", switches.size(), switches.size() == 1 ? "" : "es",
                  list,
                  fatal > 0 ? "" : "; non-fatal: monitor the rate and correlate with GPU Xid 74"));
  // The reason line is the condition that set the severity; the others are context.
  const bool repeated = events.size() >= kRepeatedSxids;
  const bool spread = places.size() >= kManyPorts;
  AddPlatformEvidence(f, "doctor.nvswitch_fatal_errors", static_cast<double>(fatal), "count",
                      fatal > 0 ? ">" : "", 0,
                      fatal > 0 ? "NVIDIA Fabric Manager: a fatal SXid stops NVLink traffic" : "");
  const bool events_reason = fatal == 0 && (repeated || !spread);
  AddPlatformEvidence(f, "doctor.nvswitch_errors", static_cast<double>(events.size()), "count",
                      events_reason ? (repeated ? ">=" : ">") : "",
                      repeated ? static_cast<double>(kRepeatedSxids) : 0,
                      events_reason ? "NVIDIA Fabric Manager: SXid errors" : "");
  const bool places_reason = fatal == 0 && !repeated && spread;
  AddPlatformEvidence(f, "doctor.nvswitch_error_places", static_cast<double>(places.size()),
                      "count", places_reason ? ">=" : "", static_cast<double>(kManyPorts),
                      places_reason ? "gpuwhy: errors at several ports are not one bad link" : "");
  AddQuote(f, events.front()->quote);
  AddQuote(f, events.back()->quote);
  ctx.Outcome(kSxid, AssessStatus::kAssessed, true);
}

// "error 4" of a user-space segfault: the x86 page-fault error code's bits.
std::string PageFaultMeaning(std::string_view detail) {
  size_t at = detail.find("error ");
  if (at == std::string_view::npos) return "";
  int code = 0;
  for (size_t i = at + 6; i < detail.size() && detail[i] >= '0' && detail[i] <= '9'; ++i)
    code = code * 10 + (detail[i] - '0');
  std::string what = (code & 4) ? "user-mode " : "kernel-mode ";
  what += (code & 16) ? "instruction fetch" : (code & 2) ? "write" : "read";
  what += (code & 1) ? " violating page protection" : " of an unmapped page";
  return fmt::format("error {} = {}", code, what);
}

void CrashRule(PlatformContext& ctx) {
  if (ctx.facts.kernel_log_lines == 0) {
    ctx.Outcome(kCrash, AssessStatus::kNotAssessed, false, "no kernel log was read");
    return;
  }
  static constexpr std::string_view kGpuLibs[] = {"libnccl",   "libcuda",       "libcudnn",
                                                  "libcublas", "libtorch_cuda", "libnvidia"};
  std::vector<const NodeEvent*> hits;
  bool nccl = false;
  for (const NodeEvent* e : EventsOf(ctx.facts, "segfault")) {
    bool gpu = std::any_of(std::begin(kGpuLibs), std::end(kGpuLibs),
                           [&](std::string_view lib) { return e->device.starts_with(lib); });
    if (!gpu) continue;
    hits.push_back(e);
    nccl |= e->device.starts_with("libnccl");
  }
  if (hits.empty()) {
    ctx.Outcome(kCrash, AssessStatus::kAssessed, false);
    return;
  }
  const NodeEvent& first = *hits.front();
  Finding& f = ctx.AddFinding(
      kCrash, Severity::kMedium,
      fmt::format("{} segfault{} inside {} ({}; {}){}", hits.size(), hits.size() == 1 ? "" : "s",
                  first.device, first.detail.substr(0, first.detail.find(' ')),
                  PageFaultMeaning(first.detail),
                  nccl ? ": NCCL crashed, not the GPU: check that NCCL, CUDA and the driver "
                         "match, rerun with NCCL_DEBUG=INFO"
                       : ": a GPU library crashed: check library and driver versions"));
  // A crash in NCCL is the communication path failing; the GPU itself is not at fault.
  if (nccl) f.bottleneck_class = BottleneckClass::kCommunication;
  AddPlatformEvidence(f, "doctor.gpu_library_segfaults", static_cast<double>(hits.size()), "count",
                      ">", 0, "kernel log: 'segfault at … in LIB'");
  for (const NodeEvent* e : hits) AddQuote(f, e->quote, 3);
  ctx.Outcome(kCrash, AssessStatus::kAssessed, true);
}

void HostLimitRule(PlatformContext& ctx) {
  if (ctx.facts.kernel_log_lines == 0) {
    ctx.Outcome(kHostLimit, AssessStatus::kNotAssessed, false, "no kernel log was read");
    return;
  }
  std::vector<const NodeEvent*> hits = EventsOf(ctx.facts, "file_max");
  if (hits.empty()) {
    ctx.Outcome(kHostLimit, AssessStatus::kAssessed, false);
    return;
  }
  Finding& f = ctx.AddFinding(
      kHostLimit, Severity::kMedium,
      fmt::format("the host ran out of file handles {} time{} (VFS file-max reached): DataLoader "
                  "workers, NCCL sockets and checkpoint writes fail to open files",
                  hits.size(), hits.size() == 1 ? "" : "s"));
  AddPlatformEvidence(f, "doctor.file_max_reached", static_cast<double>(hits.size()), "count", ">",
                      0, "kernel: 'VFS: file-max limit N reached'");
  for (const NodeEvent* e : hits) AddQuote(f, e->quote, 3);
  ctx.Outcome(kHostLimit, AssessStatus::kAssessed, true);
}

void PeermemRule(PlatformContext& ctx) {
  if (ctx.facts.kernel_log_lines == 0) {
    ctx.Outcome(kPeermem, AssessStatus::kNotAssessed, false, "no kernel log was read");
    return;
  }
  std::vector<const NodeEvent*> hits = EventsOf(ctx.facts, "peermem");
  if (hits.empty()) {
    ctx.Outcome(kPeermem, AssessStatus::kAssessed, false);
    return;
  }
  // "nv_get_p2p_free_callback … invalid context": GPU memory freed while still registered for
  // GPUDirect RDMA, logged at process exit; harmless unless jobs fail with it.
  Finding& f = ctx.AddFinding(
      kPeermem, Severity::kLow,
      fmt::format("{} nvidia-peermem error{} ({}): GPU memory released while registered for "
                  "GPUDirect RDMA, usually at process exit; if RDMA jobs fail at the same time, "
                  "update nvidia-peermem with the driver and MOFED",
                  hits.size(), hits.size() == 1 ? "" : "s", hits.front()->detail.substr(0, 80)));
  AddPlatformEvidence(f, "doctor.peermem_errors", static_cast<double>(hits.size()), "count");
  AddQuote(f, hits.front()->quote);
  ctx.Outcome(kPeermem, AssessStatus::kAssessed, true);
}

void OffBusRule(PlatformContext& ctx) {
  std::vector<const NodeEvent*> hits = EventsOf(ctx.facts, "fell_off_bus");
  bool xid79 = std::any_of(ctx.facts.xids.begin(), ctx.facts.xids.end(),
                           [](const XidEvent& x) { return x.code == 79; });
  if (ctx.facts.kernel_log_lines == 0) {
    ctx.Outcome(kOffBus, AssessStatus::kNotAssessed, false, "no kernel log was read");
    return;
  }
  if (hits.empty() || xid79) {
    ctx.Outcome(kOffBus, AssessStatus::kAssessed, false,
                xid79 ? "reported with its Xid 79 (platform.xid_errors)" : "");
    return;
  }
  Finding& f = ctx.AddFinding(kOffBus, Severity::kCritical,
                              "a GPU has fallen off the bus: the host lost it (power, PCIe "
                              "seating, cooling); drain the node and reboot before reuse");
  AddPlatformEvidence(f, "doctor.gpu_off_bus_lines", static_cast<double>(hits.size()), "count", ">",
                      0, "NVRM: 'GPU has fallen off the bus'");
  AddQuote(f, hits.front()->quote);
  ctx.Outcome(kOffBus, AssessStatus::kAssessed, true);
}

PlatformRuleText KernelLogRule(std::string id, Severity severity, std::string logic,
                               std::string title, std::vector<Fix> fixes, std::string verify) {
  return {std::move(id),
          severity,
          std::move(logic),
          std::move(title),
          {},
          std::move(fixes),
          std::move(verify),
          "a kernel log (dmesg, journalctl -k, /var/log/kern.log)",
          kKernelLog,
          "driver Xid errors in the kernel log"};
}

}  // namespace

void EvaluateNodeEventRules(PlatformContext& ctx) {
  SxidRule(ctx);
  CrashRule(ctx);
  HostLimitRule(ctx);
  PeermemRule(ctx);
  OffBusRule(ctx);
}

std::vector<RuleSpec> NodeEventRuleSpecs() {
  std::vector<RuleSpec> rules;
  PlatformRuleText sxid = KernelLogRule(
      kSxid, Severity::kMedium,
      "high on a fatal SXid; medium on repeated non-fatal ones (10 or more, or at 3 or more "
      "places); low on a few",
      "{count} NVSwitch errors: {codes}",
      {{"Read the fabric manager log and the SXids in dmesg; correlate with GPU Xid 74",
        "grep -E 'SXid|NVSwitch' /var/log/fabricmanager.log; sudo dmesg -T | grep -i sxid"},
       {"On fatal or growing errors: drain the node and reset the NVSwitch tray/GPUs",
        "nvidia-smi -r; systemctl restart nvidia-fabricmanager"}},
      "no new SXid over a day of jobs");
  sxid.needs = "a kernel log or the fabric manager log";
  sxid.capture = "sudo dmesg -T > dmesg.txt; cp /var/log/fabricmanager.log .";
  rules.push_back(PlatformSpec(std::move(sxid)));
  rules.push_back(PlatformSpec(KernelLogRule(
      kCrash, Severity::kMedium, "medium: the process died", "{count} segfaults inside {library}",
      {{"Check that NCCL, CUDA and the driver match; rerun with NCCL_DEBUG=INFO",
        "python -c 'import torch; print(torch.version.cuda, torch.cuda.nccl.version())'; "
        "nvidia-smi"},
       {"Get a core dump of the crash", "ulimit -c unlimited; gdb python core"}},
      "no new segfault line in the kernel log")));
  rules.push_back(PlatformSpec(KernelLogRule(
      kHostLimit, Severity::kMedium, "medium: opening files fails",
      "the host ran out of file handles {count} times",
      {{"Raise the limit, or find the process leaking descriptors",
        "sysctl fs.file-max; sudo sysctl -w fs.file-max=4000000; ls /proc/*/fd | wc -l"}},
      "no 'file-max limit' line")));
  rules.push_back(PlatformSpec(
      KernelLogRule(kPeermem, Severity::kLow, "low: logged at process exit, rarely a fault",
                    "{count} nvidia-peermem errors",
                    {{"Update nvidia-peermem together with the driver and MOFED if RDMA jobs fail",
                      "modinfo nvidia_peermem; ofed_info -s"}},
                    "no nvidia-peermem error while jobs run")));
  rules.push_back(PlatformSpec(
      KernelLogRule(kOffBus, Severity::kCritical, "critical: the GPU is gone until a reboot",
                    "a GPU has fallen off the bus",
                    {{"Drain the node; check power, PCIe seating and cooling; reboot",
                      "scontrol update nodename=$(hostname) state=drain reason='GPU off bus'"}},
                    "the GPU is listed by nvidia-smi after the reboot")));
  return rules;
}

}  // namespace gpuwhy
