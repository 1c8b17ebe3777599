// Platform rules over the hardware and driver facts: Xid errors, PCIe links, ECC and row
// remapping, clock limits (reasons, temperature, power), persistence mode, driver versions.
#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/platform_rules/platform_rules.h"
#include "diagnose/platform_rules/platform_spec.h"
#include "diagnose/platform_rules/xid_catalog.h"

namespace gpuwhy {
namespace {

constexpr const char* kXid = "platform.xid_errors";
constexpr const char* kPcie = "platform.pcie_downgraded";
constexpr const char* kEcc = "platform.ecc_errors";
constexpr const char* kClocks = "platform.gpu_clocks_limited";
constexpr const char* kPersistence = "platform.persistence_off";
constexpr const char* kDriver = "platform.driver_mismatch";
constexpr const char* kBusyNoPower = "platform.gpu_busy_without_power";
constexpr const char* kSensor = "platform.gpu_sensor_error";

constexpr ParamRef kXidMinCount{kXid, "min_count"};
constexpr ParamRef kClocksTempMarginC{kClocks, "temp_margin_c"};
constexpr ParamRef kClocksPowerPct{kClocks, "power_pct"};
constexpr ParamRef kPcieMaxRatio{kPcie, "max_ratio"};
constexpr std::array<const ParamRef*, 4> kHardwareRulesParams = {&kXidMinCount, &kClocksTempMarginC,
                                                    &kClocksPowerPct, &kPcieMaxRatio};

std::string GpuLabel(const GpuState& g) {
  std::string label = g.pci_bus_id.empty() ? g.name : g.pci_bus_id;
  return g.name.empty() || label == g.name ? label : fmt::format("{} ({})", label, g.name);
}

std::string Duration(int64_t ns) {
  int64_t s = ns / 1'000'000'000;
  if (s < 120) return fmt::format("{} s", s);
  if (s < 7200) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{:.1f} h", s / 3600.0);
}

void XidRule(PlatformContext& ctx) {
  const SystemFacts& facts = ctx.facts;
  if (facts.kernel_log_lines == 0 && facts.xids.empty()) {
    ctx.Outcome(kXid, AssessStatus::kNotAssessed, false, "no kernel log was read");
    return;
  }
  struct Group {
    std::vector<const XidEvent*> events;
  };
  std::map<std::pair<int, std::string>, Group> groups;  // (code, pci)
  std::set<std::string> gpus;
  for (const XidEvent& x : facts.xids) {
    groups[{x.code, x.pci}].events.push_back(&x);
    gpus.insert(x.pci);
  }
  double min_count = ctx.catalog.Get(kXidMinCount).value;
  if (facts.xids.empty() || static_cast<double>(facts.xids.size()) < min_count) {
    ctx.Outcome(kXid, AssessStatus::kAssessed, false);
    return;
  }
  // Worst first: catalog severity, then count.
  std::vector<std::pair<const std::pair<int, std::string>*, const Group*>> order;
  for (const auto& [key, group] : groups) order.push_back({&key, &group});
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    Severity sa = LookupXid(a.first->first).severity, sb = LookupXid(b.first->first).severity;
    if (sa != sb) return sa > sb;
    return a.second->events.size() > b.second->events.size();
  });
  Severity worst = LookupXid(order.front().first->first).severity;
  std::string codes;
  for (size_t i = 0; i < order.size() && i < 3; ++i) {
    const auto& [code, pci] = *order[i].first;
    codes += fmt::format("{}Xid {} {} x{} on {}", i ? "; " : "", code, LookupXid(code).meaning,
                         order[i].second->events.size(), pci.empty() ? "?" : pci);
  }
  if (order.size() > 3) codes += fmt::format("; +{} more", order.size() - 3);
  Finding& f = ctx.AddFinding(kXid, worst,
                              fmt::format("{} Xid error{} on {} GPU{}: {}", facts.xids.size(),
                                          facts.xids.size() == 1 ? "" : "s", gpus.size(),
                                          gpus.size() == 1 ? "" : "s", codes));
  std::vector<Fix> actions;
  std::set<int> seen_codes;
  for (const auto& [key, group] : order) {
    const auto& [code, pci] = *key;
    const XidInfo& info = LookupXid(code);
    AddPlatformEvidence(
        f, fmt::format("doctor.xid_{}_count", code), group->events.size(), "count", ">=", min_count,
        fmt::format("NVIDIA Xid {}: {} (cause: {})", code, info.meaning, XidCauseName(info.cause)));
    const XidEvent& first = *group->events.front();
    const XidEvent& last = *group->events.back();
    std::string span;
    if (first.epoch_ns && last.epoch_ns) {
      span = fmt::format(", over {}", Duration(*last.epoch_ns - *first.epoch_ns));
    } else if (first.since_boot_ns && last.since_boot_ns) {
      span = fmt::format(", over {}", Duration(*last.since_boot_ns - *first.since_boot_ns));
    }
    f.top_events.push_back(
        fmt::format("Xid {} on {}: {} events, first {}, last {}{}", code, pci.empty() ? "?" : pci,
                    group->events.size(), first.time_text.empty() ? "(no time)" : first.time_text,
                    last.time_text.empty() ? "(no time)" : last.time_text, span));
    AddQuote(f, first.quote);
    if (&last != &first) AddQuote(f, last.quote);
    if (seen_codes.insert(code).second) {
      actions.push_back(
          {fmt::format("Xid {} ({} cause): {}", code, XidCauseName(info.cause), info.action), ""});
    }
  }
  actions.insert(actions.end(), f.fixes.begin(), f.fixes.end());
  f.fixes = std::move(actions);
  ctx.Outcome(kXid, AssessStatus::kAssessed, true);
}

// nvidia-smi reports the PCIe generation; its per-lane rate in GT/s.
std::optional<double> GenToGts(std::optional<int> gen) {
  if (!gen) return std::nullopt;
  static constexpr double kRates[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (*gen < 1 || *gen > 6) return std::nullopt;
  return kRates[*gen];
}

// "P8" and deeper performance states are idle.
bool IdleState(const std::optional<std::string>& pstate) {
  if (!pstate || pstate->size() < 2 || (*pstate)[0] != 'P') return false;
  int n = 0;
  for (char c : pstate->substr(1)) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  return n >= 8;
}

// A NIC that carries the job's traffic: RDMA/EFA parts or a link of 8 lanes or more; an
// on-board 1 GbE management NIC at x1 of x2 is not worth a finding.
bool DataPlaneNic(const PcieLink& l) {
  for (std::string_view mark : {"Mellanox", "ConnectX", "Infiniband", "Elastic Fabric", "EFA"}) {
    if (l.description.find(mark) != std::string::npos) return true;
  }
  return l.max_width.value_or(0) >= 8;
}

// Current over capable bandwidth of a link (speed x width), from what is known of each; 1 when
// neither the speed nor the width pair is known (a marked downgrade alone keeps it).
double LinkRatio(const PcieLink& l) {
  double ratio = 1;
  if (l.speed_gts && l.max_speed_gts && *l.max_speed_gts > 0)
    ratio *= *l.speed_gts / *l.max_speed_gts;
  if (l.width && l.max_width && *l.max_width > 0)
    ratio *= static_cast<double>(*l.width) / *l.max_width;
  return ratio;
}

void PcieRule(PlatformContext& ctx) {
  std::vector<PcieLink> links;
  size_t other_down = 0, idle_down = 0, idle_narrow = 0;
  for (const PcieLink& l : ctx.facts.pcie_links) {
    if (!l.speed_downgraded && !l.width_downgraded) continue;
    if (l.kind == PcieDeviceKind::kBridge || l.kind == PcieDeviceKind::kOther ||
        (l.kind == PcieDeviceKind::kNic && !DataPlaneNic(l))) {
      ++other_down;
      continue;
    }
    // lspci shows no load: a link at a lower speed (full width) whose data link reports
    // inactive (DLActive-) is an idle link saving power, to be checked under load.
    if (l.data_link_inactive && l.speed_downgraded && !l.width_downgraded) {
      ++idle_down;
      continue;
    }
    links.push_back(l);
  }
  for (const GpuState& g : ctx.facts.gpus) {
    PcieLink l;
    l.address = g.pci_bus_id;
    l.description = g.name;
    l.kind = PcieDeviceKind::kGpu;
    l.source = g.source;
    l.speed_gts = GenToGts(g.pcie_gen_current);
    l.max_speed_gts = GenToGts(g.pcie_gen_max);
    l.width = g.pcie_width_current;
    l.max_width = g.pcie_width_max;
    l.speed_downgraded = l.speed_gts && l.max_speed_gts && *l.speed_gts < *l.max_speed_gts;
    l.width_downgraded = l.width && l.max_width && *l.width < *l.max_width;
    if (!g.performance_state.empty()) l.performance_state = g.performance_state;
    if (const SourceQuote* q = g.Quote("pcie_gen_current")) l.sta_quote = *q;
    if (const SourceQuote* q = g.Quote("pcie_gen_max")) l.cap_quote = *q;
    if (l.width_downgraded) {
      if (const SourceQuote* q = g.Quote("pcie_width_current")) l.sta_quote = *q;
    }
    // An idle GPU (P8+) drops its link to a lower generation on purpose, and a link in that
    // power-saving state says nothing about its width under load either: check under load.
    // At full speed a width cut is not power saving and counts even at idle.
    if (l.speed_downgraded && IdleState(l.performance_state)) {
      ++idle_down;
      if (l.width_downgraded) ++idle_narrow;
      continue;
    }
    if (l.speed_downgraded || l.width_downgraded) links.push_back(std::move(l));
  }
  // A GPU whose own maximum is above what the slot reaches is capped by the slot, not degraded.
  std::string capped;
  for (const GpuState& g : ctx.facts.gpus) {
    if (!g.pcie_gen_device_max || !g.pcie_gen_max || *g.pcie_gen_device_max <= *g.pcie_gen_max)
      continue;
    capped += fmt::format("{}{}: a Gen{} GPU in a Gen{} slot", capped.empty() ? "" : "; ",
                          GpuLabel(g), *g.pcie_gen_device_max, *g.pcie_gen_max);
  }
  bool any_source = !ctx.facts.pcie_links.empty() ||
                    std::any_of(ctx.facts.gpus.begin(), ctx.facts.gpus.end(),
                                [](const GpuState& g) { return g.pcie_gen_current.has_value(); });
  std::string note;
  if (other_down > 0) {
    note = fmt::format(
        "{} bridge/other links below capability ignored (empty slots, switches, "
        "management NICs)",
        other_down);
  }
  if (idle_down > 0) {
    note += fmt::format(
        "{}{} idle links (P8+ or DLActive-) at a lower PCIe speed: normal power saving{}",
        note.empty() ? "" : "; ", idle_down,
        idle_narrow > 0 ? fmt::format(" ({} also below full width: check under load)", idle_narrow)
                        : "");
  }
  if (!capped.empty()) {
    note += fmt::format("{}capped by the slot (host-device copies at the slot's rate): {}",
                        note.empty() ? "" : "; ", capped);
  }
  if (!any_source) {
    ctx.Outcome(kPcie, AssessStatus::kNotAssessed, false, "no lspci -vvv, sysfs or nvidia-smi -q");
    return;
  }
  if (links.empty()) {
    ctx.Outcome(kPcie, AssessStatus::kAssessed, false, note);
    return;
  }
  // --set platform.pcie_downgraded.max_ratio=0.5: only links at under half their bandwidth.
  const double max_ratio = ctx.catalog.Get(kPcieMaxRatio).value;
  std::erase_if(links, [&](const PcieLink& l) {
    double ratio = LinkRatio(l);
    return ratio < 1 && ratio >= max_ratio;
  });
  if (links.empty()) {
    ctx.Outcome(kPcie, AssessStatus::kAssessed, false, note);
    return;
  }
  Severity severity = Severity::kMedium;
  std::string list;
  for (const PcieLink& l : links) {
    bool halved = (l.speed_gts && l.max_speed_gts && *l.speed_gts * 2 <= *l.max_speed_gts) ||
                  (l.width && l.max_width && *l.width * 2 <= *l.max_width);
    if (halved && l.kind != PcieDeviceKind::kNic) severity = Severity::kHigh;
    if (list.size() < 200) {
      list += fmt::format("{}{} {} {}GT/s x{} of {}GT/s x{}", list.empty() ? "" : "; ",
                          PcieDeviceKindName(l.kind), l.address.empty() ? "(excerpt)" : l.address,
                          l.speed_gts.value_or(0), l.width.value_or(0), l.max_speed_gts.value_or(0),
                          l.max_width.value_or(0));
    }
  }
  Finding& f = ctx.AddFinding(
      kPcie, severity,
      fmt::format("{} PCIe link{} below capability: {} (host-device copies slow by the same "
                  "factor; idle GPUs lower the speed, check under load)",
                  links.size(), links.size() == 1 ? "" : "s", list));
  for (const PcieLink& l : links) {
    std::string who = l.address.empty() ? "link" : l.address;
    if (l.speed_gts && l.max_speed_gts) {
      bool slow = *l.speed_gts < *l.max_speed_gts;
      AddPlatformEvidence(f, fmt::format("doctor.pcie_speed_gts[{}]", who), *l.speed_gts, "GT/s",
                          slow ? "<" : "", *l.max_speed_gts,
                          slow ? "LnkCap / max PCIe generation of the device" : "");
    }
    if (l.width && l.max_width) {
      AddPlatformEvidence(f, fmt::format("doctor.pcie_width[{}]", who), *l.width, "lanes",
                          l.width_downgraded ? "<" : "", *l.max_width,
                          l.width_downgraded ? "LnkCap width" : "");
    }
    AddQuote(f, l.cap_quote);
    AddQuote(f, l.sta_quote);
  }
  ctx.Outcome(kPcie, AssessStatus::kAssessed, true, note);
}

void EccRule(PlatformContext& ctx) {
  std::vector<std::string> what;
  Severity severity = Severity::kLow;
  std::vector<const GpuState*> bad;
  bool any = false;
  for (const GpuState& g : ctx.facts.gpus) {
    any |= g.ecc_volatile_uncorrectable || g.remapped_rows_pending || g.retired_pages_pending;
    std::vector<std::string> parts;
    if (g.remapped_rows_failure.value_or(false)) {
      parts.push_back("row remapping failed");
      severity = Severity::kCritical;
    }
    if (g.remapped_rows_pending.value_or(false)) {
      parts.push_back("row remap pending (reset needed)");
      severity = std::max(severity, Severity::kHigh);
    }
    if (g.retired_pages_pending.value_or(false)) {
      parts.push_back("page retirement pending");
      severity = std::max(severity, Severity::kHigh);
    }
    if (g.ecc_volatile_uncorrectable.value_or(0) > 0) {
      parts.push_back(
          fmt::format("{} uncorrectable ECC errors since boot", *g.ecc_volatile_uncorrectable));
      severity = std::max(severity, Severity::kHigh);
    }
    if (g.remapped_rows_uncorrectable.value_or(0) > 0) {
      parts.push_back(
          fmt::format("{} rows remapped for uncorrectable errors", *g.remapped_rows_uncorrectable));
    }
    if (g.ecc_aggregate_uncorrectable.value_or(0) > 0) {
      parts.push_back(fmt::format("{} uncorrectable ECC errors in its lifetime",
                                  *g.ecc_aggregate_uncorrectable));
    }
    if (parts.empty()) continue;
    std::string joined;
    for (const std::string& p : parts) joined += (joined.empty() ? "" : ", ") + p;
    what.push_back(fmt::format("{}: {}", GpuLabel(g), joined));
    bad.push_back(&g);
  }
  if (!any) {
    ctx.Outcome(kEcc, AssessStatus::kNotAssessed, false, "no nvidia-smi -q ECC section");
    return;
  }
  if (bad.empty()) {
    ctx.Outcome(kEcc, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const std::string& w : what) list += (list.empty() ? "" : "; ") + w;
  Finding& f = ctx.AddFinding(kEcc, severity,
                              fmt::format("GPU memory errors on {} GPU{}: {}", bad.size(),
                                          bad.size() == 1 ? "" : "s", list));
  for (const GpuState* g : bad) {
    AddPlatformEvidence(f, "doctor.remapped_rows_uncorrectable",
                        static_cast<double>(g->remapped_rows_uncorrectable.value_or(0)), "count");
    if (g->ecc_volatile_uncorrectable.value_or(0) > 0) {
      AddPlatformEvidence(f, "doctor.ecc_volatile_uncorrectable",
                          static_cast<double>(*g->ecc_volatile_uncorrectable), "count", ">", 0,
                          "NVIDIA: any uncorrectable ECC error needs a GPU reset");
    }
    for (const char* field :
         {"remapped_rows_pending", "remapped_rows_failure", "remapped_rows_uncorrectable",
          "ecc_volatile_uncorrectable", "retired_pages_pending"}) {
      if (const SourceQuote* q = g->Quote(field)) AddQuote(f, *q);
    }
  }
  ctx.Outcome(kEcc, AssessStatus::kAssessed, true);
}

std::string NormalReason(std::string_view reason) {
  std::string out;
  for (char c : reason) out += c == ' ' ? '_' : static_cast<char>(std::tolower(c));
  return out;
}

// "P8" and deeper, or under 10% utilization with no power near the limit: idle at capture.
bool GpuIdle(const GpuState& g, double power_pct) {
  if (IdleState(g.performance_state.empty() ? std::nullopt
                                            : std::optional<std::string>(g.performance_state))) {
    return true;
  }
  bool near_limit = g.power_w && g.power_limit_w && *g.power_limit_w > 0 &&
                    *g.power_w >= *g.power_limit_w * power_pct / 100;
  return g.util_pct && *g.util_pct < 10 && !near_limit;
}

// The clock-event reasons read as an operator reads them: a hardware slowdown, a power brake
// or a thermal reason is a fault even at idle (the signal is asserted from outside the GPU or
// the GPU is hot); the software power cap is how a GPU at full load holds its power budget
// (normal, low), and set on an idle GPU it is a reporting artefact (ignored).
void ClocksRule(PlatformContext& ctx) {
  static const std::set<std::string> kFaults = {"hw_slowdown", "hw_thermal_slowdown",
                                                "hw_power_brake_slowdown", "sw_thermal_slowdown"};
  double margin = ctx.catalog.Get(kClocksTempMarginC).value;
  double power_pct = ctx.catalog.Get(kClocksPowerPct).value;
  std::vector<std::string> why;
  Severity severity = Severity::kLow;
  bool any = false;
  size_t budget_only = 0;
  std::vector<std::pair<const GpuState*, std::vector<std::string>>> hits;
  std::vector<bool> power_fired;
  for (const GpuState& g : ctx.facts.gpus) {
    any |= g.temp_c.has_value() || !g.active_clock_reasons.empty() || g.power_w.has_value();
    const bool idle = GpuIdle(g, power_pct);
    std::vector<std::string> parts;
    std::vector<std::string> quote_fields;
    bool at_budget = false;
    for (const std::string& reason : g.active_clock_reasons) {
      std::string norm = NormalReason(reason);
      if (norm == "sw_power_cap") {
        at_budget |= !idle;
        if (!idle) quote_fields.push_back("clock_reason:" + reason);
        continue;
      }
      if (!kFaults.contains(norm)) continue;
      parts.push_back(norm + (idle ? " (active while idle)" : ""));
      quote_fields.push_back("clock_reason:" + reason);
      severity = Severity::kHigh;
    }
    if (g.temp_c && g.slowdown_temp_c && *g.temp_c >= *g.slowdown_temp_c - margin) {
      parts.push_back(fmt::format("{:.0f} C, slowdown at {:.0f} C", *g.temp_c, *g.slowdown_temp_c));
      quote_fields.push_back("temp_c");
      severity = std::max(severity, Severity::kMedium);
    }
    bool power_near = g.power_w && g.power_limit_w && *g.power_limit_w > 0 &&
                      *g.power_w >= *g.power_limit_w * power_pct / 100;
    if (power_near || at_budget) {
      parts.push_back(power_near ? fmt::format("{:.0f} W of a {:.0f} W limit (at its power budget)",
                                               *g.power_w, *g.power_limit_w)
                                 : std::string("software power cap under load"));
      if (power_near) quote_fields.push_back("power_w");
      budget_only += parts.size() == 1 ? 1 : 0;
    }
    if (parts.empty()) continue;
    hits.push_back({&g, quote_fields});
    power_fired.push_back(power_near);
    std::string joined;
    for (const std::string& p : parts) joined += (joined.empty() ? "" : ", ") + p;
    why.push_back(fmt::format("{}: {}", GpuLabel(g), joined));
  }
  if (!any) {
    ctx.Outcome(kClocks, AssessStatus::kNotAssessed, false, "no nvidia-smi GPU state");
    return;
  }
  if (hits.empty()) {
    ctx.Outcome(kClocks, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const std::string& w : why) list += (list.empty() ? "" : "; ") + w;
  std::string tail = budget_only == hits.size()
                         ? " (a GPU at full load holding its power budget is normal power "
                           "management; raise the limit only where the board allows)"
                         : "";
  Finding& f = ctx.AddFinding(kClocks, severity,
                              fmt::format("GPU clocks held back on {} GPU{} at capture: {}{}",
                                          hits.size(), hits.size() == 1 ? "" : "s", list, tail));
  for (size_t i = 0; i < hits.size(); ++i) {
    const auto& [g, fields] = hits[i];
    if (g->temp_c && g->slowdown_temp_c) {
      bool hot = *g->temp_c >= *g->slowdown_temp_c - margin;
      AddPlatformEvidence(f, "doctor.gpu_temp_c", *g->temp_c, "C", hot ? ">=" : "",
                          *g->slowdown_temp_c - margin,
                          hot ? "nvidia-smi GPU Slowdown Temp minus temp_margin_c" : "");
    }
    if (g->power_w && g->power_limit_w && *g->power_limit_w > 0) {
      AddPlatformEvidence(f, "doctor.power_pct_of_limit", 100 * *g->power_w / *g->power_limit_w,
                          "%", power_fired[i] ? ">=" : "", power_pct,
                          power_fired[i] ? "NVML: the SW Power Cap engages at the limit" : "");
    }
    for (const std::string& field : fields) {
      if (const SourceQuote* q = g->Quote(field)) AddQuote(f, *q);
    }
  }
  ctx.Outcome(kClocks, AssessStatus::kAssessed, true);
}

// GPU-Util is the share of time a kernel was resident, not how hard the SMs work: near 100%
// with the board drawing little more than idle power is a kernel that spins or hangs
// (a collective waiting for a peer that never comes, a deadlock).
constexpr double kBusyUtilPct = 90;
constexpr double kIdlePowerPct = 35;

void BusyWithoutPowerRule(PlatformContext& ctx) {
  std::vector<const GpuState*> hits;
  bool any = false;
  for (const GpuState& g : ctx.facts.gpus) {
    if (!g.util_pct || !g.power_w || !g.power_limit_w || *g.power_limit_w <= 0) continue;
    any = true;
    if (*g.util_pct >= kBusyUtilPct && 100 * *g.power_w / *g.power_limit_w < kIdlePowerPct)
      hits.push_back(&g);
  }
  if (!any) {
    ctx.Outcome(kBusyNoPower, AssessStatus::kNotAssessed, false,
                "no GPU utilization with power draw and limit");
    return;
  }
  if (hits.empty()) {
    ctx.Outcome(kBusyNoPower, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const GpuState* g : hits) {
    list += fmt::format("{}{} at {:.0f}% util, {:.0f} W of {:.0f} W", list.empty() ? "" : "; ",
                        GpuLabel(*g), *g->util_pct, *g->power_w, *g->power_limit_w);
  }
  Finding& f = ctx.AddFinding(
      kBusyNoPower, Severity::kMedium,
      fmt::format("{} GPU{} read busy but draw near-idle power: {} (a kernel is resident but "
                  "doing almost no work: spinning or hung, e.g. a collective waiting for a peer)",
                  hits.size(), hits.size() == 1 ? "" : "s", list));
  for (const GpuState* g : hits) {
    AddPlatformEvidence(f, "doctor.gpu_util_pct", *g->util_pct, "%", ">=", kBusyUtilPct,
                        "nvidia-smi GPU-Util: share of time a kernel was running");
    AddPlatformEvidence(f, "doctor.power_pct_of_limit", 100 * *g->power_w / *g->power_limit_w, "%",
                        "<", kIdlePowerPct,
                        "gpuwhy: a GPU doing work draws well above its idle power");
    if (const SourceQuote* q = g->Quote("power_w")) AddQuote(f, *q);
  }
  ctx.Outcome(kBusyNoPower, AssessStatus::kAssessed, true);
}

// nvidia-smi prints "ERR!" for a sensor it could not read: a failed fan or sensor, or a GPU
// whose management interface is failing.
void SensorErrorRule(PlatformContext& ctx) {
  std::vector<std::pair<const GpuState*, const NameValue*>> hits;
  for (const GpuState& g : ctx.facts.gpus) {
    for (const NameValue& q : g.quotes) {
      if (q.name == "sensor_error") hits.push_back({&g, &q});
    }
  }
  if (ctx.facts.gpus.empty()) {
    ctx.Outcome(kSensor, AssessStatus::kNotAssessed, false, "no nvidia-smi output");
    return;
  }
  if (hits.empty()) {
    ctx.Outcome(kSensor, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const auto& [g, q] : hits) {
    list += fmt::format("{}{}: {}", list.empty() ? "" : "; ", GpuLabel(*g), q->value);
  }
  Finding& f = ctx.AddFinding(
      kSensor, Severity::kMedium,
      fmt::format("nvidia-smi could not read {} sensor{} (ERR!): {}; a fan that cannot be read "
                  "may not be spinning",
                  hits.size(), hits.size() == 1 ? "" : "s", list));
  AddPlatformEvidence(f, "doctor.sensor_read_errors", static_cast<double>(hits.size()), "count",
                      ">", 0, "nvidia-smi: ERR! marks a value the driver could not read");
  for (const auto& [g, q] : hits) AddQuote(f, q->quote);
  ctx.Outcome(kSensor, AssessStatus::kAssessed, true);
}

void PersistenceRule(PlatformContext& ctx) {
  std::vector<const GpuState*> off;
  bool any = false;
  for (const GpuState& g : ctx.facts.gpus) {
    any |= !g.persistence_mode.empty();
    if (g.persistence_mode == "Disabled") off.push_back(&g);
  }
  if (!any) {
    ctx.Outcome(kPersistence, AssessStatus::kNotAssessed, false, "no nvidia-smi output");
    return;
  }
  if (off.empty()) {
    ctx.Outcome(kPersistence, AssessStatus::kAssessed, false);
    return;
  }
  Finding& f = ctx.AddFinding(
      kPersistence, Severity::kLow,
      fmt::format("persistence mode off on {} GPU{}: the driver tears down and re-initialises "
                  "the GPU between processes (seconds at every job start)",
                  off.size(), off.size() == 1 ? "" : "s"));
  AddPlatformEvidence(f, "doctor.gpus_persistence_off", static_cast<double>(off.size()), "count",
                      ">", 0, "docs/knowledge.md §7: persistence mode on for compute nodes");
  for (const GpuState* g : off) {
    if (const SourceQuote* q = g->Quote("persistence_mode")) AddQuote(f, *q);
  }
  ctx.Outcome(kPersistence, AssessStatus::kAssessed, true);
}

void DriverRule(PlatformContext& ctx) {
  std::map<std::string, const GpuState*> versions;
  for (const GpuState& g : ctx.facts.gpus) {
    if (!g.driver_version.empty()) versions.emplace(g.driver_version, &g);
  }
  if (versions.empty()) {
    ctx.Outcome(kDriver, AssessStatus::kNotAssessed, false, "no driver version in the inputs");
    return;
  }
  if (versions.size() == 1) {
    ctx.Outcome(kDriver, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const auto& [version, g] : versions) {
    list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", version, g->file);
  }
  Finding& f = ctx.AddFinding(
      kDriver, Severity::kLow,
      fmt::format("{} different driver versions across the inputs: {}", versions.size(), list));
  AddPlatformEvidence(f, "doctor.driver_versions", static_cast<double>(versions.size()), "count",
                      ">", 1, "docs/knowledge.md §7: same driver and CUDA across nodes");
  ctx.Outcome(kDriver, AssessStatus::kAssessed, true,
              "inputs may come from different nodes on purpose");
}

}  // namespace

void EvaluateHardwareRules(PlatformContext& ctx) {
  XidRule(ctx);
  PcieRule(ctx);
  EccRule(ctx);
  ClocksRule(ctx);
  BusyWithoutPowerRule(ctx);
  SensorErrorRule(ctx);
  PersistenceRule(ctx);
  DriverRule(ctx);
}

std::span<const ParamRef* const> HardwareRuleParams() { return kHardwareRulesParams; }

std::vector<RuleSpec> HardwareRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(PlatformSpec(
      {"platform.xid_errors",
       Severity::kHigh,
       "the worst Xid's catalog severity: hardware ECC/bus errors critical, GSP and NVLink high, "
       "application faults medium",
       "{count} Xid errors on {gpus} GPUs: {codes}",
       {{"min_count", 1, "count", "NVIDIA: every Xid is an event the driver logged", "Xid events"}},
       {{"Read the kernel log around the first Xid", "sudo dmesg -T | grep -i -B2 -A5 'NVRM: Xid'"},
        {"Drain the node on repeated hardware Xids (48, 63/64, 74, 79, 94/95, 140)",
         "scontrol update nodename=$(hostname) state=drain reason='Xid'"},
        {"Test the GPU before returning it to service", "dcgmi diag -r 3"}},
       "no new 'NVRM: Xid' line in dmesg after the fix",
       "a kernel log (dmesg, journalctl -k, /var/log/kern.log)",
       kKernelLog,
       "driver Xid errors in the kernel log",
       {{Checklist::kSignals, kPlatformChecklistItem, 4}}}));
  rules.push_back(PlatformSpec(
      {"platform.pcie_downgraded",
       Severity::kMedium,
       "high when a GPU link runs at under half its lanes or speed, else medium; NICs medium",
       "{count} PCIe links below their capability: {links}",
       {{"max_ratio", 1, "ratio", "lspci: LnkSta below LnkCap is marked (downgraded)",
         "current speed x width over capability below this fires"}},
       {{"Compare the link state with its capability under load (idle GPUs lower the speed)",
         "sudo lspci -vvv -s BUS | grep -E 'LnkCap|LnkSta'; nvidia-smi -q -d PCI"},
        {"Reseat the card, replace the riser or move it to a full x16 slot; check the BIOS PCIe "
         "generation setting",
         ""}},
       "LnkSta equals LnkCap; host-to-device copy bandwidth at the link's rate",
       "lspci -vvv, nvidia-smi -q or /sys/bus/pci/devices/*/current_link_speed",
       kLspci,
       "PCIe link speed and width",
       {{Checklist::kSignals, kPlatformChecklistItem, 2}}}));
  rules.push_back(PlatformSpec(
      {"platform.ecc_errors",
       Severity::kHigh,
       "critical on a remapping failure; high on uncorrectable errors or pending remaps",
       "GPU memory errors on {gpus} GPUs: {what}",
       {},
       {{"Reset the GPU to apply pending row remaps / page retirements",
         "sudo nvidia-smi -r -i INDEX  (when no process uses it)"},
        {"Drain and replace a GPU whose remapping failed", "nvidia-smi -q -d ROW_REMAPPER,ECC"}},
       "Remapped Rows Pending: No; volatile uncorrectable ECC 0",
       "nvidia-smi -q (ECC Errors, Retired Pages, Remapped Rows)",
       kQuery,
       "GPU state: driver, clocks, temperature, power, ECC, MIG, processes"}));
  rules.push_back(PlatformSpec(
      {"platform.gpu_clocks_limited",
       Severity::kMedium,
       "high on hardware slowdown, power brake or thermal reasons (even at idle), medium on a "
       "temperature near the slowdown threshold, low for a GPU at full load holding its power "
       "budget (SW Power Cap); the SW Power Cap flag on an idle GPU is ignored",
       "GPU clocks held back on {gpus} GPUs: {why}",
       {{"temp_margin_c", 5, "C", "nvidia-smi: GPU Slowdown Temp is where clocks drop",
         "a GPU this close to its slowdown temperature fires"},
        {"power_pct", 95, "%", "NVML: the SW Power Cap reason engages at the power limit",
         "power draw at or above this share of the limit fires"}},
       {{"Read the clock-event reasons and temperatures under load",
         "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER"},
        {"Fix airflow / fan curves; check the power limit has not been lowered",
         "nvidia-smi -q -d POWER | grep -E 'Current Power Limit|Default Power Limit'"}},
       "no active clock-event reason except Idle under load; temperature below slowdown - 5 C",
       "nvidia-smi -q or -q -x",
       kQuery,
       "GPU state: driver, clocks, temperature, power, ECC, MIG, processes"}));
  rules.push_back(
      PlatformSpec({"platform.gpu_busy_without_power",
                    Severity::kMedium,
                    "medium",
                    "{gpus} GPUs read busy but draw near-idle power",
                    {},
                    {{"See where the process is waiting (a hung collective, a spin loop)",
                      "py-spy dump --pid PID; cuda-gdb -p PID; NCCL_DEBUG=INFO for collectives"},
                     {"Compare with SM activity, which GPU-Util does not measure",
                      "dcgmi dmon -e 1002,1003 -d 1000"}},
                    "power draw rises with utilization, or utilization falls when the job is idle",
                    "nvidia-smi (utilization and power)",
                    kQuery,
                    "GPU state: driver, clocks, temperature, power, ECC, MIG, processes"}));
  rules.push_back(PlatformSpec(
      {"platform.gpu_sensor_error",
       Severity::kMedium,
       "medium",
       "nvidia-smi could not read {count} sensors (ERR!)",
       {},
       {{"Check the fan and sensors; reset the GPU or reseat the card",
         "nvidia-smi -q -d TEMPERATURE,POWER,PERFORMANCE; sudo dmesg -T | grep -i nvrm"},
        {"Drain the node if a fan has failed", ""}},
       "no ERR! in nvidia-smi",
       "nvidia-smi",
       kQuery,
       "GPU state: driver, clocks, temperature, power, ECC, MIG, processes"}));
  rules.push_back(
      PlatformSpec({"platform.persistence_off",
                    Severity::kLow,
                    "low",
                    "persistence mode off on {gpus} GPUs",
                    {},
                    {{"Keep the driver loaded between jobs",
                      "sudo nvidia-smi -pm 1  (or enable nvidia-persistenced)"}},
                    "Persistence Mode: Enabled",
                    "nvidia-smi -q or the nvidia-smi table",
                    kQuery,
                    "GPU state: driver, clocks, temperature, power, ECC, MIG, processes"}));
  rules.push_back(
      PlatformSpec({"platform.driver_mismatch",
                    Severity::kLow,
                    "low",
                    "{count} different driver versions across the inputs: {versions}",
                    {},
                    {{"Run every node of a job on the same driver and CUDA version",
                      "nvidia-smi --query-gpu=driver_version --format=csv"}},
                    "one driver version across nodes",
                    "nvidia-smi output from each node",
                    kQuery,
                    "GPU state: driver, clocks, temperature, power, ECC, MIG, processes"}));
  return rules;
}

}  // namespace gpuwhy
