// The platform part of the checklist: one item per kind of fact, assessed when its rules
// could run, with what was found (versions, groups, bandwidth) and, when not, why and the
// exact command that captures it.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/diagnose_platform.h"
#include "diagnose/platform_rules/platform_rules.h"

namespace gpuwhy {
namespace {

void Join(std::string& into, std::string_view part, std::string_view sep = "; ") {
  if (part.empty()) return;
  if (!into.empty()) into += sep;
  into += part;
}

// An item backed by the catalog rules that name it in gpuwhy doctor's checklist.
ChecklistItem Item(PlatformContext& ctx, std::string title,
                   std::vector<std::string_view> unavailable_keys) {
  std::vector<std::string> rules = ctx.catalog.ChecklistRules(Checklist::kDoctor, title);
  ChecklistItem item;
  item.section = ChecklistSection::kPlatform;
  item.title = std::move(title);
  item.rule_ids = rules;
  size_t assessed = 0, partly = 0, fired = 0;
  for (const RuleOutcome& o : ctx.diagnosis.outcomes) {
    if (std::find(rules.begin(), rules.end(), o.rule_id) == rules.end()) continue;
    assessed += o.status == AssessStatus::kAssessed;
    partly += o.status == AssessStatus::kPartly;
    fired += o.fired;
    if (o.status != AssessStatus::kAssessed) {
      const RuleSpec* spec = ctx.catalog.Find(o.rule_id);
      if (spec != nullptr && item.command.find(spec->capture_command) == std::string::npos) {
        Join(item.missing, spec->needs);
        Join(item.command, spec->capture_command);
      }
    }
  }
  item.status = assessed == rules.size() ? AssessStatus::kAssessed
                : assessed + partly > 0  ? AssessStatus::kPartly
                                         : AssessStatus::kNotAssessed;
  for (const Unavailable& u : ctx.facts.unavailable) {
    for (std::string_view key : unavailable_keys) {
      if (u.what.find(key) == std::string::npos) continue;
      Join(item.missing, fmt::format("{}: {}", u.what, u.why));
      if (!u.command.empty() && item.command.find(u.command) == std::string::npos) {
        Join(item.command, u.command);
      }
      break;
    }
  }
  if (item.status != AssessStatus::kNotAssessed) {
    item.detail = fired == 0 ? "nothing found" : fmt::format("{} finding(s)", fired);
  }
  return item;
}

std::string XidDetail(const SystemFacts& f) {
  if (f.kernel_log_lines == 0) return "";
  return fmt::format("{} kernel-log lines read, {} Xid events", f.kernel_log_lines, f.xids.size());
}

std::string TopologyDetail(const SystemFacts& f) {
  std::string out;
  for (const TopoMatrix& m : f.topologies) {
    if (m.kind != "topo -m") continue;
    std::vector<CommunicationGroup> groups = FindCommunicationGroups(m);
    std::string text;
    for (const CommunicationGroup& g : groups) {
      std::string names;
      for (const std::string& n : g.gpus) Join(names, n, ",");
      Join(text, fmt::format("{{{}}} over {}", names, g.link), ", ");
    }
    // GPUs per NUMA node, for matrices without fast pairs.
    std::map<std::string, std::string> numa;
    for (const TopoRow& row : m.rows) {
      if (row.name.starts_with("GPU") && !row.numa_affinity.empty() && row.numa_affinity != "N/A") {
        Join(numa[row.numa_affinity], row.name, ",");
      }
    }
    std::string numa_text;
    for (const auto& [node, names] : numa)
      Join(numa_text, fmt::format("NUMA {}: {}", node, names), ", ");
    Join(out, fmt::format("{}: communication groups {}{}",
                          m.header.file.substr(m.header.file.rfind('/') + 1),
                          text.empty() ? "none (no NVLink or PCIe-switch pair)" : text,
                          numa_text.empty() ? "" : "; " + numa_text));
  }
  return out;
}

std::string NcclDetail(const SystemFacts& f) {
  std::string out;
  for (const NcclLog& log : f.nccl_logs) {
    std::map<std::string, size_t> transports;
    for (const NcclConnection& c : log.connections)
      ++transports[std::string(NcclTransportName(c.transport))];
    std::string t;
    for (const auto& [name, n] : transports) Join(t, fmt::format("{} x{}", name, n), ", ");
    std::string nets;
    for (const NameValue& n : log.networks_used) {
      if (nets.find(n.name) == std::string::npos) Join(nets, n.name, ",");
    }
    std::string part = fmt::format("{}: NCCL {}", log.file.substr(log.file.rfind('/') + 1),
                                   log.version.empty() ? "?" : log.version);
    if (!nets.empty()) part += ", network " + nets;
    if (!t.empty()) part += ", connections " + t;
    if (log.gdr) part += fmt::format(", GDR {}", *log.gdr ? "on" : "off");
    if (log.ring_lines + log.tree_lines > 0) {
      part += fmt::format(", {} ring and {} tree lines", log.ring_lines, log.tree_lines);
    }
    if (log.avg_busbw_gbs) {
      double best = 0;
      for (const NcclTestRow& r : log.test_rows) best = std::max(best, r.busbw_gbs);
      part += fmt::format(
          ", nccl-tests average bus bandwidth {:.2f} GB/s (peak {:.2f} GB/s over "
          "{} sizes)",
          *log.avg_busbw_gbs, best, log.test_rows.size());
    }
    Join(out, part);
  }
  return out;
}

std::string GpuDetail(const SystemFacts& f) {
  std::set<std::string> drivers, cudas;
  std::string out;
  size_t mig = 0, processes = 0;
  std::set<std::string> modes;
  for (const GpuState& g : f.gpus) {
    if (!g.driver_version.empty()) drivers.insert(g.driver_version);
    if (!g.cuda_version.empty()) cudas.insert(g.cuda_version);
    mig += g.mig_mode == "Enabled";
    processes += g.processes.size();
    if (!g.compute_mode.empty()) modes.insert(g.compute_mode);
  }
  if (f.gpus.empty()) return "";
  std::string d, c, m;
  for (const std::string& v : drivers) Join(d, v, ",");
  for (const std::string& v : cudas) Join(c, v, ",");
  for (const std::string& v : modes) Join(m, v, ",");
  out = fmt::format(
      "{} GPU records; driver {}; CUDA {}; compute mode {}; MIG on {} GPUs; {} "
      "processes listed",
      f.gpus.size(), d.empty() ? "?" : d, c.empty() ? "?" : c, m.empty() ? "?" : m, mig, processes);
  return out;
}

std::string EnvDetail(const SystemFacts& f) {
  std::string out;
  for (const NameValue& v : f.settings) {
    if (v.name.starts_with("PYTORCH_CUDA_ALLOC_CONF")) {
      Join(out, fmt::format("PYTORCH_CUDA_ALLOC_CONF={} (expandable_segments:True limits "
                            "fragmentation)",
                            v.value));
    } else if (v.name.starts_with("NCCL_") || v.name == "OMP_NUM_THREADS" ||
               v.name.starts_with("cpu.") || v.name.starts_with("kernel.") ||
               v.name.starts_with("mm.")) {
      Join(out, v.name + "=" + v.value, ", ");
    }
  }
  if (f.Setting("PYTORCH_CUDA_ALLOC_CONF") == nullptr && !f.settings.empty()) {
    Join(out,
         "PYTORCH_CUDA_ALLOC_CONF unset (consider expandable_segments:True against "
         "fragmentation)");
  }
  return out;
}

}  // namespace

void BuildPlatformChecklist(PlatformContext& ctx) {
  const SystemFacts& f = ctx.facts;
  std::vector<ChecklistItem>& list = ctx.diagnosis.checklist;
  auto add = [&](ChecklistItem item, std::string detail) {
    if (!detail.empty() && item.status != AssessStatus::kNotAssessed) Join(item.detail, detail);
    list.push_back(std::move(item));
  };
  add(Item(ctx, "driver Xid errors in the kernel log", {"kernel log"}), XidDetail(f));
  add(Item(ctx, "PCIe link speed and width", {"PCIe", "lspci"}), "");
  add(Item(ctx, "GPU topology, NUMA placement and communication groups", {"topology"}),
      TopologyDetail(f));
  add(Item(ctx, "NCCL transport, interface and GPUDirect RDMA", {"NCCL"}), NcclDetail(f));
  add(Item(ctx, "GPU state: driver, clocks, temperature, power, ECC, MIG, processes",
           {"GPU", "nvidia-smi"}),
      GpuDetail(f));
  add(Item(ctx, "InfiniBand ports", {"InfiniBand"}), "");
  add(Item(ctx, "environment and host settings", {"environment", "cpu", "host"}), EnvDetail(f));
}

}  // namespace gpuwhy
