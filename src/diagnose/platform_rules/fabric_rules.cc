// Platform rules over the fabric: GPU-to-GPU paths of `nvidia-smi topo -m`, GPU-NIC NUMA
// placement, the transport NCCL chose and the settings that force it, InfiniBand ports.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "diagnose/diagnose_platform.h"
#include "diagnose/platform_rules/platform_rules.h"
#include "diagnose/platform_rules/platform_spec.h"

namespace gpuwhy {
namespace {

constexpr const char* kSlowPairs = "platform.topology_slow_pairs";
constexpr const char* kNuma = "platform.numa_mismatch";
constexpr const char* kP2p = "platform.p2p_unsupported";
constexpr const char* kSocket = "platform.nccl_socket_fallback";
constexpr const char* kEnv = "platform.nccl_env";
constexpr const char* kWarnings = "platform.nccl_warnings";
constexpr const char* kNoGdr = "platform.nccl_no_gdr";
constexpr const char* kIb = "platform.ib_ports_down";

// PIX best … SYS worst; NVLink best of all.
int LinkRank(TopoLinkKind kind) {
  switch (kind) {
    case TopoLinkKind::kSelf: return 0;
    case TopoLinkKind::kNvLink: return 1;
    case TopoLinkKind::kPix: return 2;
    case TopoLinkKind::kPxb: return 3;
    case TopoLinkKind::kPhb: return 4;
    case TopoLinkKind::kNode: return 5;
    case TopoLinkKind::kSys: return 6;
    case TopoLinkKind::kOther:
    case TopoLinkKind::kEmpty: return 7;
  }
  return 7;
}

std::vector<size_t> GpuColumns(const TopoMatrix& m) {
  std::vector<size_t> cols;
  for (size_t i = 0; i < m.columns.size(); ++i) {
    if (m.columns[i].starts_with("GPU") && m.Row(m.columns[i]) != nullptr) cols.push_back(i);
  }
  return cols;
}

const TopoCell* Cell(const TopoMatrix& m, size_t row_col, size_t col) {
  const TopoRow* row = m.Row(m.columns[row_col]);
  if (row == nullptr || col >= row->cells.size()) return nullptr;
  return &row->cells[col];
}

bool IsNvlinkPart(const SystemFacts& facts) {
  for (const GpuState& g : facts.gpus) {
    for (std::string_view mark : {"SXM", "HBM3", "H200", "B200", "GB200", "GH200"}) {
      if (g.name.find(mark) != std::string::npos) return true;
    }
  }
  return false;
}

bool Slow(TopoLinkKind k) {
  return k == TopoLinkKind::kPhb || k == TopoLinkKind::kNode || k == TopoLinkKind::kSys;
}

void SlowPairsRule(PlatformContext& ctx) {
  size_t matrices = 0, pairs_total = 0;
  struct Hit {
    const TopoMatrix* m;
    size_t slow = 0, sys = 0;
    TopoLinkKind worst = TopoLinkKind::kPhb;
    bool nvlink_elsewhere = false;
  };
  std::vector<Hit> hits;
  for (const TopoMatrix& m : ctx.facts.topologies) {
    if (m.kind != "topo -m") continue;
    std::vector<size_t> gpus = GpuColumns(m);
    if (gpus.size() < 2) continue;
    ++matrices;
    Hit hit{&m};
    for (size_t a = 0; a < gpus.size(); ++a) {
      for (size_t b = a + 1; b < gpus.size(); ++b) {
        const TopoCell* c = Cell(m, gpus[a], gpus[b]);
        if (c == nullptr) continue;
        ++pairs_total;
        hit.nvlink_elsewhere |= c->kind == TopoLinkKind::kNvLink;
        if (!Slow(c->kind)) continue;
        ++hit.slow;
        hit.sys += c->kind == TopoLinkKind::kSys;
        if (LinkRank(c->kind) > LinkRank(hit.worst)) hit.worst = c->kind;
      }
    }
    if (hit.slow > 0) hits.push_back(hit);
  }
  if (matrices == 0) {
    ctx.Outcome(kSlowPairs, AssessStatus::kNotAssessed, false,
                "no nvidia-smi topo -m matrix with two or more GPUs");
    return;
  }
  if (hits.empty()) {
    ctx.Outcome(kSlowPairs, AssessStatus::kAssessed, false);
    return;
  }
  bool expected = IsNvlinkPart(ctx.facts);
  size_t slow = 0, sys = 0;
  TopoLinkKind worst = TopoLinkKind::kPhb;
  for (const Hit& h : hits) {
    expected |= h.nvlink_elsewhere;
    slow += h.slow;
    sys += h.sys;
    if (LinkRank(h.worst) > LinkRank(worst)) worst = h.worst;
  }
  std::string why = expected
                        ? "NVLink is present on other pairs or the GPUs are NVLink parts: a link "
                          "or the fabric manager is likely down"
                        : "no NVLink between them: peer-to-peer copies and all-reduce run over "
                          "PCIe through the CPU's host bridges (expect SHM or PCIe P2P in NCCL)";
  // Either way the pairs' collectives are bound by PCIe through the host: a platform limit
  // a job should be placed around (tensor parallelism across them is slow).
  Finding& f =
      ctx.AddFinding(kSlowPairs, Severity::kMedium,
                     fmt::format("{} of {} GPU pairs talk over {} ({} across CPU sockets): {}",
                                 slow, pairs_total, TopoLinkKindName(worst), sys, why));
  AddPlatformEvidence(f, "doctor.gpu_pairs_over_pcie_host", static_cast<double>(slow), "count", ">",
                      0, "nvidia-smi topo -m legend: PHB/NODE/SYS traverse host bridges");
  AddPlatformEvidence(f, "doctor.gpu_pairs_cross_socket", static_cast<double>(sys), "count");
  for (const Hit& h : hits) {
    AddQuote(f, h.m->header);
    for (const TopoRow& row : h.m->rows) {
      if (row.name.starts_with("GPU")) AddQuote(f, row.quote, 6);
    }
  }
  ctx.Outcome(kSlowPairs, AssessStatus::kAssessed, true);
}

// `nvidia-smi topo -p2p r|w`: a GPU pair whose status is not OK (CNS chipset, GNS GPU, TNS
// topology, NS not supported) has no PCIe peer-to-peer: NCCL and cudaMemcpyPeer go through
// host memory.
void P2pRule(PlatformContext& ctx) {
  size_t matrices = 0, pairs = 0;
  std::vector<std::string> bad;
  std::vector<const TopoMatrix*> quoted;
  for (const TopoMatrix& m : ctx.facts.topologies) {
    if (m.kind == "topo -m") continue;
    std::vector<size_t> gpus = GpuColumns(m);
    if (gpus.size() < 2) continue;
    ++matrices;
    size_t before = bad.size();
    for (size_t a = 0; a < gpus.size(); ++a) {
      for (size_t b = a + 1; b < gpus.size(); ++b) {
        const TopoCell* c = Cell(m, gpus[a], gpus[b]);
        if (c == nullptr || c->text.empty()) continue;
        ++pairs;
        if (c->text == "OK" || c->text == "X") continue;
        bad.push_back(fmt::format("{}-{} {}", m.columns[gpus[a]], m.columns[gpus[b]], c->text));
      }
    }
    if (bad.size() > before) quoted.push_back(&m);
  }
  if (matrices == 0) {
    ctx.Outcome(kP2p, AssessStatus::kNotAssessed, false,
                "no nvidia-smi topo -p2p matrix with two or more GPUs");
    return;
  }
  if (bad.empty()) {
    ctx.Outcome(kP2p, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (size_t i = 0; i < bad.size() && i < 6; ++i) list += (i ? ", " : "") + bad[i];
  if (bad.size() > 6) list += fmt::format(", +{} more", bad.size() - 6);
  Finding& f = ctx.AddFinding(
      kP2p, Severity::kMedium,
      fmt::format("{} of {} GPU pairs have no PCIe peer-to-peer ({}): NCCL falls back to "
                  "shared host memory (SHM) and peer copies stage through the CPU",
                  bad.size(), pairs, list));
  AddPlatformEvidence(f, "doctor.gpu_pairs_without_p2p", static_cast<double>(bad.size()), "count",
                      ">", 0, "nvidia-smi topo -p2p legend: OK = peer-to-peer supported");
  for (const TopoMatrix* m : quoted) {
    AddQuote(f, m->header);
    for (const TopoRow& row : m->rows) AddQuote(f, row.quote, 6);
  }
  ctx.Outcome(kP2p, AssessStatus::kAssessed, true);
}

void NumaRule(PlatformContext& ctx) {
  bool any = false;
  std::vector<const TopoRow*> far;
  for (const TopoMatrix& m : ctx.facts.topologies) {
    std::vector<size_t> nics;
    for (size_t i = 0; i < m.columns.size(); ++i) {
      if (!m.columns[i].starts_with("GPU")) nics.push_back(i);
    }
    if (nics.empty()) continue;
    for (size_t g : GpuColumns(m)) {
      const TopoRow* row = m.Row(m.columns[g]);
      int best = 99;
      for (size_t n : nics) {
        if (n < row->cells.size()) best = std::min(best, LinkRank(row->cells[n].kind));
      }
      if (best == 99) continue;
      any = true;
      if (best >= LinkRank(TopoLinkKind::kSys)) far.push_back(row);
    }
  }
  if (!any) {
    ctx.Outcome(kNuma, AssessStatus::kNotAssessed, false, "no topology matrix with NIC columns");
    return;
  }
  if (far.empty()) {
    ctx.Outcome(kNuma, AssessStatus::kAssessed, false);
    return;
  }
  Finding& f = ctx.AddFinding(
      kNuma, Severity::kMedium,
      fmt::format("{} GPU{} reach every NIC only over SYS (another CPU socket): their network "
                  "traffic crosses the inter-socket link",
                  far.size(), far.size() == 1 ? "" : "s"));
  AddPlatformEvidence(f, "doctor.gpus_without_local_nic", static_cast<double>(far.size()), "count",
                      ">", 0, "nvidia-smi topo -m legend: SYS crosses NUMA nodes");
  for (const TopoRow* row : far) AddQuote(f, row->quote);
  ctx.Outcome(kNuma, AssessStatus::kAssessed, true);
}

// A fast fabric NCCL could have used: a network plugin (NET/OFI for EFA, or another
// plugin) that was tried, even if it failed; IB devices NCCL listed; or an Active IB port.
// "NET/IB : No device found" alone is a node without IB, not evidence of one.
bool FabricPresent(const SystemFacts& facts, const NcclLog& log, std::string& what,
                   std::vector<const SourceQuote*>& quotes) {
  for (const NcclNetLine& n : log.nets) {
    if (n.net == "Socket" || n.net == "FastSocket") continue;
    if (n.net == "IB" && (n.no_device || n.devices.find("[0]") == std::string::npos)) continue;
    quotes.push_back(&n.quote);
    if (!what.empty()) continue;
    if (n.net == "OFI") {
      what = n.no_device ? "the EFA/libfabric plugin (NET/OFI) was tried and failed to initialise"
                         : "the EFA/libfabric plugin (NET/OFI) is loaded";
    } else {
      what = fmt::format("NET/{} lists devices ({})", n.net, n.devices);
    }
  }
  for (const NcclNetLine& n : log.nets) {
    if (n.net == "OFI" && n.no_device && what.find("failed") == std::string::npos) {
      what = "the EFA/libfabric plugin (NET/OFI) was tried and failed to initialise";
    }
  }
  for (const IbPort& p : facts.ib_ports) {
    if (p.state != "Active" && p.state != "ACTIVE") continue;
    if (what.empty()) what = fmt::format("InfiniBand port {}:{} is Active", p.device, p.port);
    quotes.push_back(&p.quote);
    break;
  }
  return !quotes.empty();
}

// Connections of |log| over a network (between nodes), and over P2P and SHM inside a node.
struct ConnectionCounts {
  size_t socket = 0, fast_net = 0, p2p = 0, shm = 0;
};
ConnectionCounts CountConnections(const NcclLog& log) {
  ConnectionCounts n;
  for (const NcclConnection& c : log.connections) {
    n.socket += c.transport == NcclTransport::kNetSocket;
    n.fast_net += c.transport == NcclTransport::kNetIb ||
                  c.transport == NcclTransport::kNetPlugin ||
                  c.transport == NcclTransport::kCollNet;
    n.p2p += c.transport == NcclTransport::kP2p || c.transport == NcclTransport::kNvls;
    n.shm += c.transport == NcclTransport::kShm;
  }
  return n;
}

bool UsesSocketNetwork(const NcclLog& log) {
  return std::any_of(log.networks_used.begin(), log.networks_used.end(),
                     [](const NameValue& n) { return n.name == "Socket"; });
}

// NCCL names its network "Socket" on every node, even one whose ranks never leave it: the
// sockets carry collectives only when a connection goes "via NET/Socket" or the
// communicator spans nodes.
void SocketRule(PlatformContext& ctx) {
  if (ctx.facts.nccl_logs.empty()) {
    ctx.Outcome(kSocket, AssessStatus::kNotAssessed, false, "no NCCL_DEBUG=INFO log");
    return;
  }
  bool fired = false;
  std::string note;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    ConnectionCounts n = CountConnections(log);
    const NcclConnection* first = nullptr;
    for (const NcclConnection& c : log.connections) {
      if (c.transport == NcclTransport::kNetSocket && first == nullptr) first = &c;
    }
    const NameValue* using_socket = nullptr;
    for (const NameValue& u : log.networks_used) {
      if (u.name == "Socket") using_socket = &u;
    }
    if (n.socket == 0 && using_socket == nullptr) continue;
    const bool inter_node = n.socket > 0 || log.max_nnodes > 1;
    std::string what;
    std::vector<const SourceQuote*> quotes;
    const bool fabric = FabricPresent(ctx.facts, log, what, quotes);
    if (!inter_node && !log.connections.empty()) {
      note = "NET/Socket initialised but every connection stays inside the node (P2P/SHM)";
      continue;
    }
    if (!inter_node) {
      // The log stops before any connection: whether the ranks span nodes cannot be told.
      Finding& f = ctx.AddFinding(
          kSocket, Severity::kLow,
          fmt::format("NCCL's network is TCP sockets ({}) but the log shows no connection: "
                      "cannot tell whether ranks span nodes; if they do, every collective "
                      "crosses the TCP link (an NCCL_DEBUG=INFO log past the first collective, "
                      "with its 'Channel … via' lines, would decide)",
                      fabric ? what : "no RDMA fabric found"));
      f.confidence = Confidence::kLow;
      AddPlatformEvidence(f, "doctor.nccl_socket_connections", 0, "count");
      AddQuote(f, using_socket->quote);
      for (const NcclNetLine& net : log.nets) AddQuote(f, net.quote, 4);
      fired = true;
      continue;
    }
    std::string nodes = log.max_nnodes > 1 ? fmt::format(", {} nodes", log.max_nnodes) : "";
    Finding& f =
        fabric ? ctx.AddFinding(
                     kSocket, Severity::kHigh,
                     fmt::format("NCCL runs over TCP sockets ({} connections{}) although a faster "
                                 "fabric exists: {}; collectives run at a fraction of its "
                                 "bandwidth",
                                 n.socket, nodes, what))
               : ctx.AddFinding(
                     kSocket, Severity::kMedium,
                     fmt::format("NCCL between nodes runs over TCP sockets ({} connections{}) and "
                                 "the log shows no RDMA fabric: every collective crosses the TCP "
                                 "NIC (a few GB/s at most), so multi-node data parallelism is "
                                 "network-bound",
                                 n.socket, nodes));
    if (!fabric) f.confidence = Confidence::kMedium;
    AddPlatformEvidence(f, "doctor.nccl_socket_connections", static_cast<double>(n.socket), "count",
                        ">", 0, "docs/knowledge.md §4: NET/Socket instead of NET/IB or the plugin");
    if (using_socket) AddQuote(f, using_socket->quote);
    if (first) AddQuote(f, first->quote);
    for (const SourceQuote* q : quotes) AddQuote(f, *q);
    for (const SourceQuote& w : log.warnings) AddQuote(f, w);
    fired = true;
  }
  ctx.Outcome(kSocket, AssessStatus::kAssessed, fired, note);
}

bool ManagementInterface(std::string_view value) {
  if (value.empty() || value.starts_with("^")) return false;
  for (std::string_view prefix : {"eth", "eno", "em", "enp", "ens", "docker", "lo", "bond"}) {
    if (value.starts_with(prefix)) return true;
  }
  return false;
}

// "1." (NCCL prints "set by environment to 1.") is "1".
std::string_view SettingValue(const NameValue& v) {
  std::string_view s = v.value;
  while (s.ends_with(".")) s.remove_suffix(1);
  return s;
}

bool AnyFabric(const SystemFacts& facts) {
  for (const NcclLog& log : facts.nccl_logs) {
    std::string what;
    std::vector<const SourceQuote*> quotes;
    if (FabricPresent(facts, log, what, quotes)) return true;
  }
  return std::any_of(facts.ib_ports.begin(), facts.ib_ports.end(),
                     [](const IbPort& p) { return p.state == "Active" || p.state == "ACTIVE"; });
}

// InfiniBand/RoCE that NCCL_IB_DISABLE would turn off: devices NCCL listed under NET/IB, or
// an Active port in ibstat (EFA goes through the OFI plugin, which the setting does not touch).
bool IbPresent(const SystemFacts& facts) {
  for (const NcclLog& log : facts.nccl_logs) {
    for (const NcclNetLine& n : log.nets) {
      if (n.net == "IB" && !n.no_device && !n.devices.empty()) return true;
    }
  }
  return std::any_of(facts.ib_ports.begin(), facts.ib_ports.end(),
                     [](const IbPort& p) { return p.state == "Active" || p.state == "ACTIVE"; });
}

// Settings read in context: disabling InfiniBand matters only where there is an RDMA fabric
// to disable, a plain Ethernet interface name is a "management NIC" only when a faster fabric
// exists beside it, and NCCL_P2P_LEVEL=NVL matters when the GPUs have no NVLink (every
// intra-node connection then goes through host memory).
void EnvRule(PlatformContext& ctx) {
  std::vector<const NameValue*> settings;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    for (const NameValue& v : log.env) settings.push_back(&v);
  }
  for (const NameValue& v : ctx.facts.settings) settings.push_back(&v);
  if (ctx.facts.nccl_logs.empty() && !ctx.facts.HasInput("environment") &&
      ctx.facts.Setting("NCCL_DEBUG") == nullptr && settings.empty()) {
    ctx.Outcome(kEnv, AssessStatus::kNotAssessed, false, "no NCCL log and no job environment");
    return;
  }
  bool socket_used = false;
  ConnectionCounts all;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    ConnectionCounts n = CountConnections(log);
    all.socket += n.socket;
    all.p2p += n.p2p;
    all.shm += n.shm;
    all.fast_net += n.fast_net;
    socket_used |= n.socket > 0 || UsesSocketNetwork(log);
  }
  const bool fabric = AnyFabric(ctx.facts);
  std::vector<std::string> bad;
  std::vector<std::string> harmless;
  std::vector<const NameValue*> quoted;
  Severity severity = Severity::kMedium;
  std::set<std::string> seen;
  for (const NameValue* v : settings) {
    std::string_view value = SettingValue(*v);
    std::string key = v->name + "=" + std::string(value);
    if (seen.contains(key)) continue;
    seen.insert(key);
    if (v->name == "NCCL_IB_DISABLE" && value == "1") {
      if (!IbPresent(ctx.facts)) {
        harmless.push_back(key + " (no InfiniBand/RoCE device found: nothing to disable)");
        continue;
      }
      bad.push_back(key + " (turns off InfiniBand/RoCE)");
      quoted.push_back(v);
      severity = Severity::kHigh;
    } else if ((v->name == "NCCL_P2P_DISABLE" || v->name == "NCCL_SHM_DISABLE") && value == "1") {
      bad.push_back(fmt::format(
          "{} (turns off {})", key,
          v->name == "NCCL_P2P_DISABLE" ? "NVLink/PCIe peer-to-peer" : "shared-memory transport"));
      quoted.push_back(v);
      severity = Severity::kHigh;
    } else if (v->name == "NCCL_P2P_LEVEL" && all.p2p == 0 && all.shm > 0 &&
               (value == "NVL" || value == "LOC" || value == "0")) {
      bad.push_back(fmt::format(
          "{} with no P2P connection and {} via SHM (peer-to-peer restricted to {}, which these "
          "GPUs do not share: every intra-node transfer goes through host memory; unset it to "
          "allow PCIe P2P)",
          key, all.shm, value == "NVL" ? "NVLink" : "the same GPU"));
      quoted.push_back(v);
    } else if (v->name == "NCCL_SOCKET_IFNAME" && ManagementInterface(value) && fabric &&
               (socket_used || value.starts_with("lo") || value.starts_with("docker"))) {
      bad.push_back(
          fmt::format("{} (a host Ethernet interface carries the traffic while an RDMA "
                      "fabric is present)",
                      key));
      quoted.push_back(v);
    }
  }
  std::string note;
  for (const std::string& h : harmless) note += (note.empty() ? "" : "; ") + h;
  if (bad.empty()) {
    ctx.Outcome(kEnv, AssessStatus::kAssessed, false, note);
    return;
  }
  std::string list;
  for (const std::string& b : bad) list += (list.empty() ? "" : "; ") + b;
  Finding& f = ctx.AddFinding(kEnv, severity, "NCCL settings that slow collectives: " + list);
  AddPlatformEvidence(f, "doctor.nccl_disabling_settings", static_cast<double>(bad.size()), "count",
                      ">", 0, "docs/knowledge.md §4: NCCL_IB_DISABLE unset or 0");
  for (const NameValue* v : quoted) AddQuote(f, v->quote);
  ctx.Outcome(kEnv, AssessStatus::kAssessed, true, note);
}

// A network plugin that failed to load is harmless where no connection needs the network.
bool PluginInitWarning(std::string_view text) {
  bool plugin = text.find("NET/OFI") != std::string_view::npos ||
                text.find("plugin") != std::string_view::npos ||
                text.find("Plugin") != std::string_view::npos;
  bool init = text.find("nitializ") != std::string_view::npos ||
              text.find("No eligible providers") != std::string_view::npos ||
              text.find("load") != std::string_view::npos;
  return plugin && init;
}

void WarningsRule(PlatformContext& ctx) {
  if (ctx.facts.nccl_logs.empty()) {
    ctx.Outcome(kWarnings, AssessStatus::kNotAssessed, false, "no NCCL_DEBUG=INFO log");
    return;
  }
  std::vector<const SourceQuote*> warnings;
  bool failure = false, plugin_only = true;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    ConnectionCounts n = CountConnections(log);
    const bool network_in_use = n.socket + n.fast_net > 0 || log.max_nnodes > 1;
    for (const SourceQuote& w : log.warnings) {
      warnings.push_back(&w);
      const std::string& t = w.text;
      bool says_failed = t.find("fail") != std::string::npos ||
                         t.find("error") != std::string::npos ||
                         t.find("Fail") != std::string::npos;
      bool harmless_plugin = PluginInitWarning(t) && !network_in_use;
      plugin_only &= harmless_plugin;
      if (says_failed && !harmless_plugin) failure = true;
    }
  }
  if (warnings.empty()) {
    ctx.Outcome(kWarnings, AssessStatus::kAssessed, false);
    return;
  }
  std::string first = warnings.front()->text;
  size_t at = first.find("NCCL WARN ");
  if (at != std::string::npos) first = first.substr(at + 10);
  Finding& f = ctx.AddFinding(
      kWarnings,
      failure       ? Severity::kHigh
      : plugin_only ? Severity::kLow
                    : Severity::kMedium,
      fmt::format(
          "{} NCCL warning{}; first: {}{}", warnings.size(), warnings.size() == 1 ? "" : "s", first,
          plugin_only ? " (a network plugin that did not load; no connection needs it)" : ""));
  AddPlatformEvidence(f, "doctor.nccl_warnings", static_cast<double>(warnings.size()), "count", ">",
                      0, "NCCL: WARN lines report a failed or degraded transport");
  for (const SourceQuote* q : warnings) AddQuote(f, *q, 5);
  ctx.Outcome(kWarnings, AssessStatus::kAssessed, true);
}

// A line saying GPUDirect RDMA cannot be used here (the provider or the HCA says so).
bool GdrUnsupportedLine(const SourceQuote& q) {
  return q.text.find("GDR not supported") != std::string::npos ||
         q.text.find("GPU Direct RDMA Disabled") != std::string::npos;
}

void GdrRule(PlatformContext& ctx) {
  size_t off = 0, unsupported = 0;
  std::vector<const SourceQuote*> quotes;
  bool any = false;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    bool net = false, gdr_conn = false;
    for (const NcclConnection& c : log.connections) {
      bool fast_net =
          c.transport == NcclTransport::kNetIb || c.transport == NcclTransport::kNetPlugin;
      net |= fast_net;
      gdr_conn |= fast_net && c.gdr;
    }
    if (!net) continue;
    any = true;
    if (gdr_conn || (log.gdr.value_or(false))) continue;
    ++off;
    const SourceQuote* says = nullptr;
    for (const SourceQuote& q : log.gdr_lines) {
      if (GdrUnsupportedLine(q)) says = &q;
    }
    unsupported += says != nullptr;
    if (says != nullptr) {
      quotes.push_back(says);
    } else if (!log.gdr_lines.empty()) {
      quotes.push_back(&log.gdr_lines.front());
    }
  }
  if (!any) {
    // Sockets never use GPUDirect RDMA: nothing to check when NCCL only used them.
    bool logs = !ctx.facts.nccl_logs.empty();
    ctx.Outcome(kNoGdr, logs ? AssessStatus::kAssessed : AssessStatus::kNotAssessed, false,
                logs ? "no NCCL connection over IB or a network plugin" : "no NCCL_DEBUG=INFO log");
    return;
  }
  if (off == 0) {
    ctx.Outcome(kNoGdr, AssessStatus::kAssessed, false);
    return;
  }
  // Where the provider or HCA says GPUDirect RDMA is not supported, loading nvidia_peermem
  // cannot help: the platform stages through host memory by design.
  const bool all_unsupported = unsupported == off;
  Finding& f = ctx.AddFinding(
      kNoGdr, all_unsupported ? Severity::kLow : Severity::kMedium,
      all_unsupported
          ? fmt::format("NCCL moves network data through host memory in {} log{}: the network "
                        "provider says GPUDirect RDMA is not supported on this platform, so host "
                        "staging is expected (no module to load)",
                        off, off == 1 ? "" : "s")
          : fmt::format("NCCL moves network data through host memory (no GPUDirect RDMA) in {} "
                        "log{}",
                        off, off == 1 ? "" : "s"));
  if (all_unsupported) {
    std::erase_if(f.fixes, [](const Fix& fix) {
      return fix.code.find("nvidia_peermem") != std::string::npos;
    });
    f.fixes.push_back(
        {"Use an instance or HCA with GPUDirect RDMA support where the inter-node "
         "bandwidth matters",
         ""});
  }
  AddPlatformEvidence(f, "doctor.nccl_logs_without_gdr", static_cast<double>(off), "count", ">", 0,
                      "NCCL: 'GDR 1' / 'via NET/…/GDRDMA' when GPUDirect RDMA is used");
  for (const SourceQuote* q : quotes) AddQuote(f, *q);
  ctx.Outcome(kNoGdr, AssessStatus::kAssessed, true);
}

void IbRule(PlatformContext& ctx) {
  if (ctx.facts.ib_ports.empty()) {
    ctx.Outcome(kIb, AssessStatus::kNotAssessed, false, "no ibstat/ibstatus output");
    return;
  }
  std::vector<const IbPort*> down;
  for (const IbPort& p : ctx.facts.ib_ports) {
    if (p.state != "Active" && p.state != "ACTIVE") down.push_back(&p);
  }
  if (down.empty()) {
    ctx.Outcome(kIb, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const IbPort* p : down) {
    list += fmt::format("{}{}:{} {}/{}", list.empty() ? "" : ", ", p->device, p->port, p->state,
                        p->physical_state);
  }
  Finding& f = ctx.AddFinding(kIb, Severity::kMedium,
                              fmt::format("{} of {} InfiniBand ports not Active: {}", down.size(),
                                          ctx.facts.ib_ports.size(), list));
  AddPlatformEvidence(f, "doctor.ib_ports_down", static_cast<double>(down.size()), "count", ">", 0,
                      "ibstat: State Active, Physical state LinkUp");
  for (const IbPort* p : down) AddQuote(f, p->quote);
  ctx.Outcome(kIb, AssessStatus::kAssessed, true);
}

}  // namespace

std::vector<CommunicationGroup> FindCommunicationGroups(const TopoMatrix& m) {
  std::vector<size_t> gpus = GpuColumns(m);
  auto fast_one_way = [&](size_t a, size_t b) {
    const TopoCell* c = Cell(m, a, b);
    return c != nullptr && (c->kind == TopoLinkKind::kNvLink || c->kind == TopoLinkKind::kPix ||
                            c->kind == TopoLinkKind::kPxb);
  };
  // A link is read from both GPUs' rows: a table cut short (a row missing or short, issue 37)
  // shows no fast link, and every pair of a group has both cells for the link count below.
  auto fast = [&](size_t a, size_t b) { return fast_one_way(a, b) && fast_one_way(b, a); };
  std::vector<std::vector<size_t>> groups;
  for (size_t g : gpus) {
    bool placed = false;
    for (auto& group : groups) {
      if (std::all_of(group.begin(), group.end(), [&](size_t o) { return fast(g, o); })) {
        group.push_back(g);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({g});
  }
  std::vector<CommunicationGroup> out;
  for (const auto& group : groups) {
    if (group.size() < 2) continue;
    CommunicationGroup cg;
    int min_nv = 1 << 30;
    bool all_nv = true;
    for (size_t a : group) {
      cg.gpus.push_back(m.columns[a]);
      for (size_t b : group) {
        if (a == b) continue;
        const TopoCell* c = Cell(m, a, b);  // present: fast() checked every pair of the group
        if (c != nullptr && c->kind == TopoLinkKind::kNvLink) {
          min_nv = std::min(min_nv, c->nvlinks);
        } else {
          all_nv = false;
        }
      }
    }
    cg.link = all_nv ? fmt::format("NV{}", min_nv) : "PCIe switch (PIX/PXB)";
    out.push_back(std::move(cg));
  }
  return out;
}

void EvaluateFabricRules(PlatformContext& ctx) {
  SlowPairsRule(ctx);
  P2pRule(ctx);
  NumaRule(ctx);
  SocketRule(ctx);
  EnvRule(ctx);
  WarningsRule(ctx);
  GdrRule(ctx);
  IbRule(ctx);
}

std::vector<RuleSpec> FabricRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(PlatformSpec(
      {"platform.topology_slow_pairs",
       Severity::kMedium,
       "medium: pairs over PCIe host bridges bound P2P and all-reduce (a missing NVLink when other "
       "pairs or the parts have it)",
       "{pairs} GPU pairs talk over {worst} (PCIe through host bridges or across CPU sockets)",
       {},
       {{"Place tensor/pipeline-parallel groups on GPUs that share NVLink or a PCIe switch",
         "CUDA_VISIBLE_DEVICES=0,1,2,3 torchrun --nproc-per-node 4 train.py"},
        {"If NVLink is expected: check the fabric manager and link state",
         "systemctl status nvidia-fabricmanager; nvidia-smi nvlink -s"}},
       "nvidia-smi topo -m shows NV# (or PIX/PXB) between the GPUs of each group",
       "nvidia-smi topo -m",
       kTopo,
       "GPU topology, NUMA placement and communication groups"}));
  rules.push_back(PlatformSpec(
      {"platform.p2p_unsupported",
       Severity::kMedium,
       "medium",
       "{count} GPU pairs have no PCIe peer-to-peer",
       {},
       {{"Check the BIOS (ACS, IOMMU, Above 4G decoding) and the chipset's P2P support",
         "nvidia-smi topo -p2p r; sudo lspci -vvv | grep -i acsctl"},
        {"Expect NCCL over SHM; place communicating ranks on GPUs with P2P",
         "NCCL_DEBUG=INFO: look for 'via P2P' vs 'via SHM'"}},
       "nvidia-smi topo -p2p r shows OK for every GPU pair",
       "nvidia-smi topo -p2p r",
       "nvidia-smi topo -p2p r > p2p.txt",
       "GPU topology, NUMA placement and communication groups"}));
  rules.push_back(PlatformSpec(
      {"platform.numa_mismatch",
       Severity::kMedium,
       "medium",
       "{count} GPUs have no NIC on their NUMA node (nearest NIC over SYS)",
       {},
       {{"Bind each rank to the NIC and CPU cores of its GPU's NUMA node",
         "NCCL_IB_HCA=<nic of the GPU's socket>; numactl --cpunodebind=N --membind=N"},
        {"Check where each NIC sits", "nvidia-smi topo -m; cat /sys/class/net/*/device/numa_node"}},
       "every GPU reaches a NIC over PIX/PXB/NODE",
       "nvidia-smi topo -m with NIC columns",
       kTopo,
       "GPU topology, NUMA placement and communication groups"}));
  rules.push_back(PlatformSpec(
      {"platform.nccl_socket_fallback",
       Severity::kHigh,
       "high when a faster fabric (IB, EFA) is present; medium between nodes with no RDMA "
       "fabric; low when the log shows no connection (cannot tell whether ranks span nodes)",
       "NCCL runs over TCP sockets ({socket} connections) although {fabric} is present",
       {},
       {{"Make the IB/EFA transport load: the network plugin and its provider must initialise",
         "NCCL_DEBUG=INFO; check 'NET/OFI', 'NET/IB : Using' lines; fi_info -p efa; ibstat"},
        {"Do not disable IB and do not point NCCL_SOCKET_IFNAME at a slow NIC",
         "unset NCCL_IB_DISABLE; NCCL_NET=IB (or the plugin's name)"}},
       "NCCL log shows 'Using network IB' (or the plugin) and 'via NET/IB' connections",
       "an NCCL_DEBUG=INFO log",
       kNccl,
       "NCCL transport, interface and GPUDirect RDMA",
       {},
       BottleneckClass::kCommunication}));
  rules.push_back(PlatformSpec(
      {"platform.nccl_env",
       Severity::kHigh,
       "high for NCCL_IB_DISABLE=1 where an RDMA fabric exists or NCCL_P2P_DISABLE=1, medium "
       "for NCCL_P2P_LEVEL=NVL on GPUs without NVLink (SHM) or an Ethernet NCCL_SOCKET_IFNAME "
       "beside an RDMA fabric",
       "NCCL settings that slow collectives: {settings}",
       {},
       {{"Remove settings that disable fast transports", "unset NCCL_IB_DISABLE NCCL_P2P_DISABLE"},
        {"Point NCCL_SOCKET_IFNAME at the data-plane interface (or exclude only lo/docker)",
         "NCCL_SOCKET_IFNAME=^lo,docker0"}},
       "NCCL log: P2P/NVLink inside the node, NET/IB between nodes",
       "an NCCL_DEBUG=INFO log or the job's environment",
       kNccl,
       "NCCL transport, interface and GPUDirect RDMA",
       {},
       BottleneckClass::kCommunication}));
  rules.push_back(
      PlatformSpec({"platform.nccl_warnings",
                    Severity::kMedium,
                    "high when a warning says a transport in use failed; low when the only "
                    "warnings are a network plugin that did not load and no connection needs "
                    "the network; else medium",
                    "{count} NCCL warnings: {first}",
                    {},
                    {{"Read the first warning: it names the transport that failed",
                      "grep 'NCCL WARN' nccl.log"}},
                    "no NCCL WARN line",
                    "an NCCL_DEBUG=INFO log",
                    kNccl,
                    "NCCL transport, interface and GPUDirect RDMA",
                    {},
                    BottleneckClass::kCommunication}));
  rules.push_back(
      PlatformSpec({"platform.nccl_no_gdr",
                    Severity::kMedium,
                    "medium",
                    "NCCL moves network data through host memory (GDR 0) on {count} communicators",
                    {},
                    {{"Load the GPUDirect RDMA module and check the NIC-GPU path",
                      "sudo modprobe nvidia_peermem; NCCL_NET_GDR_LEVEL=PHB"}},
                    "'Connected all rings … GDR 1' and connections 'via NET/…/GDRDMA'",
                    "an NCCL_DEBUG=INFO log",
                    kNccl,
                    "NCCL transport, interface and GPUDirect RDMA",
                    {},
                    BottleneckClass::kCommunication}));
  rules.push_back(
      PlatformSpec({"platform.ib_ports_down",
                    Severity::kMedium,
                    "medium",
                    "{count} InfiniBand ports not Active: {ports}",
                    {},
                    {{"Check cables, switch ports and the subnet manager", "ibstat; iblinkinfo"}},
                    "ibstat: every port State Active, Physical state LinkUp",
                    "ibstat or ibstatus",
                    "ibstat > ibstat.txt",
                    "InfiniBand ports"}));
  return rules;
}

}  // namespace gpuwhy
