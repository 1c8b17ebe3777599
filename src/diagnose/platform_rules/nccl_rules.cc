// Platform rules that read an NCCL log as an operator does: a communicator that failed (the
// NCCL result it returned, the peer that refused or stopped answering, what an InfiniBand
// completion error means) and the bandwidth an nccl-tests run measured against the transport
// the same log shows. Both are the communication class: what they cost is collective time.
#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "base/text.h"
#include "diagnose/platform_rules/platform_rules.h"
#include "diagnose/platform_rules/platform_spec.h"

namespace gpuwhy {
namespace {

constexpr const char* kFailure = "platform.nccl_failure";
constexpr const char* kTests = "platform.nccl_tests_bandwidth";
// The fix that presumes a slow transport: left out where the plateau cannot be judged.
constexpr const char* kRdmaFix =
    "Run the collectives over the RDMA fabric: load its NCCL network plugin and provider";

struct Meaning {
  std::string_view mark;
  std::string_view meaning;
};

// ncclResult_t names (nccl.h) and the framework's own wording.
constexpr std::array<Meaning, 8> kResults = {{
    {"ncclRemoteError", "ncclRemoteError (6): a peer process exited or the network failed"},
    {"ncclSystemError", "ncclSystemError (2): a system call (socket, connect, memory) failed"},
    {"ncclInternalError",
     "ncclInternalError (3): an NCCL internal check failed (often a "
     "version mismatch or memory corruption)"},
    {"ncclUnhandledCudaError", "ncclUnhandledCudaError (1): a CUDA call failed inside NCCL"},
    {"ncclInvalidUsage",
     "ncclInvalidUsage (5): the program called NCCL wrongly (mismatched "
     "collectives across ranks)"},
    {"ncclInvalidArgument", "ncclInvalidArgument (4): a bad argument to an NCCL call"},
    {"Watchdog caught collective operation timeout",
     "a collective did not complete within the watchdog timeout: a rank hung, died or waits "
     "on a different collective"},
    {"NCCL communicator was aborted", "the communicator was aborted after an earlier error"},
}};

// ibv_wc_status values NCCL prints in "NET/IB : Got completion from peer … error N".
std::string_view IbCompletionMeaning(int status) {
  switch (status) {
    case 4: return "local protection error (memory registration; GPUDirect RDMA setup)";
    case 5:
      return "work request flushed (the queue pair had already failed: read the first "
             "error, often a peer that exited)";
    case 10: return "remote access error (the peer's memory registration)";
    case 11: return "remote operation error at the peer";
    case 12:
      return "transport retry count exceeded (the peer or the link stopped answering: a "
             "link flap, a dead node, a congested or misconfigured fabric)";
    case 13: return "receiver-not-ready retries exceeded (the peer did not post receives)";
    default: return "an InfiniBand completion error (ibv_wc_status)";
  }
}

// "… error 12, …" after "Got completion from peer": the status number.
std::optional<int> CompletionStatus(std::string_view text) {
  size_t at = text.find("Got completion from peer");
  if (at == std::string_view::npos) return std::nullopt;
  size_t err = text.find("error ", at);
  if (err == std::string_view::npos) return std::nullopt;
  int v = 0;
  size_t i = err + 6, digits = 0;
  while (i < text.size() && digits < 4 && text[i] >= '0' && text[i] <= '9') {
    v = v * 10 + (text[i++] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  return v;
}

// "Connect to 10.148.3.247<56821> failed : Connection refused": the peer's address.
std::string RefusedPeer(std::string_view text) {
  if (text.find("Connection refused") == std::string_view::npos) return "";
  size_t at = text.find("Connect to ");
  if (at == std::string_view::npos) return "a peer";
  std::string_view rest = text.substr(at + 11);
  return std::string(rest.substr(0, rest.find_first_of("< ")));
}

void FailureRule(PlatformContext& ctx) {
  if (ctx.facts.nccl_logs.empty()) {
    ctx.Outcome(kFailure, AssessStatus::kNotAssessed, false, "no NCCL_DEBUG=INFO log");
    return;
  }
  std::vector<std::string> causes;
  std::vector<const SourceQuote*> quotes;
  auto add = [&](std::string cause, const SourceQuote& q) {
    if (std::find(causes.begin(), causes.end(), cause) == causes.end())
      causes.push_back(std::move(cause));
    quotes.push_back(&q);
  };
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    for (const SourceQuote& e : log.errors) {
      for (const Meaning& m : kResults) {
        if (e.text.find(m.mark) != std::string::npos) add(std::string(m.meaning), e);
      }
    }
    for (const SourceQuote& w : log.warnings) {
      if (std::string peer = RefusedPeer(w.text); !peer.empty()) {
        add(fmt::format("{} refused the connection: its NCCL process is gone or a firewall "
                        "blocks the port; find that node and exclude it",
                        peer),
            w);
      } else if (std::optional<int> status = CompletionStatus(w.text)) {
        add(fmt::format("InfiniBand completion error {}: {}", *status,
                        IbCompletionMeaning(*status)),
            w);
      } else if (w.text.find("Unresponsive receiver") != std::string::npos) {
        add("EFA peer reachable but did not answer the handshake (peer crashed or started "
            "late, or the security group lacks its self-rule)",
            w);
      }
    }
  }
  if (causes.empty()) {
    ctx.Outcome(kFailure, AssessStatus::kAssessed, false);
    return;
  }
  std::string list;
  for (const std::string& c : causes) list += (list.empty() ? "" : "; ") + c;
  Finding& f =
      ctx.AddFinding(kFailure, Severity::kHigh, fmt::format("NCCL communication failed: {}", list));
  AddPlatformEvidence(f, "doctor.nccl_failure_lines", static_cast<double>(quotes.size()), "count",
                      ">", 0, "NCCL: a non-success ncclResult_t or a failed connection");
  for (const SourceQuote* q : quotes) AddQuote(f, *q, 6);
  ctx.Outcome(kFailure, AssessStatus::kAssessed, true);
}

// The transport the log says carried inter-process traffic.
std::string TransportOf(const NcclLog& log, bool& socket) {
  socket = false;
  size_t net_socket = 0, net_fast = 0, p2p = 0, shm = 0;
  std::string fast;
  for (const NcclConnection& c : log.connections) {
    if (c.transport == NcclTransport::kNetSocket) ++net_socket;
    if (c.transport == NcclTransport::kNetIb || c.transport == NcclTransport::kNetPlugin) {
      ++net_fast;
      if (fast.empty()) fast = c.via.substr(0, c.via.find('/', 4));
    }
    p2p += c.transport == NcclTransport::kP2p || c.transport == NcclTransport::kNvls;
    shm += c.transport == NcclTransport::kShm;
  }
  std::string network;
  for (const NameValue& n : log.networks_used) network = n.name;
  if (net_fast > 0) return fast;
  if (net_socket > 0 || (network == "Socket" && log.connections.empty())) {
    socket = true;
    return net_socket > 0 ? "NET/Socket (TCP)"
                          : "TCP sockets (the log's only network; no connection lines)";
  }
  if (!network.empty() && log.connections.empty()) return "NET/" + network;
  if (p2p > 0) return "P2P inside one node (NVLink or PCIe)";
  if (shm > 0) return "SHM inside one node (host memory)";
  return "";
}

// NVLink's rate per GPU and direction by part (NVIDIA's per-GPU NVLink bandwidth, halved: V100
// 300 GB/s both ways, A100 600, H100/H200 900, B200 1800). nccl-tests' busbw is a per-GPU
// one-way figure, and inside one node its all-reduce plateau comes to about 80% of it.
struct NvlinkPart {
  std::string_view mark;
  std::string_view link;
  double gbs;
};
constexpr std::array<NvlinkPart, 6> kNvlinkParts = {{
    {"B200", "NVLink 5", 900},
    {"H200", "NVLink 4", 450},
    {"H100 80GB HBM3", "NVLink 4", 450},
    {"H100-SXM", "NVLink 4", 450},
    {"A100-SXM", "NVLink 3", 300},
    {"V100-SXM", "NVLink 2", 150},
}};
// nccl-tests inside one node reaches about this share of the link's rate.
constexpr double kNvlinkPlateauShare = 0.8;
// Below this share of what the transport carries the plateau is slow: far enough below that
// no algorithm choice or protocol overhead explains it.
constexpr double kSlowShare = 0.5;
// busbw levels off only at large messages: a sweep that stops below this has no plateau.
constexpr int64_t kPlateauBytes = int64_t{64} << 20;

const NvlinkPart* NvlinkPartOf(const NcclLog& log) {
  for (const NameValue& r : log.test_ranks) {
    for (const NvlinkPart& p : kNvlinkParts) {
      if (r.value.find(p.mark) != std::string::npos) return &p;
    }
  }
  return nullptr;
}

// EFA per instance type as AWS publishes it (network interfaces x Gb/s each).
struct EfaInstance {
  std::string_view type;
  int nics;
  double nic_gbps;
};
constexpr std::array<EfaInstance, 7> kEfaInstances = {{
    {"p4d.24xlarge", 4, 100},
    {"p4de.24xlarge", 4, 100},
    {"p5.48xlarge", 32, 100},
    {"p5e.48xlarge", 32, 100},
    {"p5en.48xlarge", 16, 200},
    {"p6-b200.48xlarge", 8, 400},
    {"trn1.32xlarge", 8, 100},
}};

// Ranks and hosts of the run: nccl-tests' rank lines, else NCCL's nRanks/nNodes.
struct RunShape {
  int ranks = 0;
  int nodes = 0;
};

RunShape ShapeOf(const NcclLog& log) {
  RunShape shape;
  std::vector<std::string> hosts;
  for (const NameValue& r : log.test_ranks) {
    if (std::find(hosts.begin(), hosts.end(), r.name) == hosts.end()) hosts.push_back(r.name);
  }
  shape.ranks = log.test_ranks.empty() ? log.max_nranks : static_cast<int>(log.test_ranks.size());
  shape.nodes = hosts.empty() ? log.max_nnodes : static_cast<int>(hosts.size());
  return shape;
}

// The network between nodes and what it carries per node, where the log (or, in a bundle, the
// node's ibstat) says.
struct NetworkRate {
  std::string name;  // "InfiniBand (NET/IB)", "RoCE (NET/IB)", "EFA (aws-ofi-nccl)"
  int nics = 0;
  double nic_gbps = 0;  // 0: not stated
  std::string rate_source;
  const SourceQuote* quote = nullptr;
  double NodeGBs() const { return nics * nic_gbps / 8; }
};

// "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB …": the NICs listed before the OOB interface.
int CountNics(std::string_view devices, bool& roce) {
  devices = devices.substr(0, devices.find(';'));
  int n = 0;
  size_t ib = 0, roce_n = 0;
  for (size_t at = devices.find('['); at != std::string_view::npos;
       at = devices.find('[', at + 1)) {
    if (at + 1 < devices.size() && std::isdigit(static_cast<unsigned char>(devices[at + 1]))) ++n;
  }
  for (size_t at = devices.find("/IB"); at != std::string_view::npos;
       at = devices.find("/IB", at + 1)) {
    ++ib;
  }
  for (size_t at = devices.find("/RoCE"); at != std::string_view::npos;
       at = devices.find("/RoCE", at + 1)) {
    ++roce_n;
  }
  roce = roce_n > 0 && ib == 0;
  return n;
}

// "efa (found 4 nics)": the count; 0 when not printed.
int FoundNics(std::string_view devices) {
  const size_t at = devices.find("found ");
  if (at == std::string_view::npos) return 0;
  std::optional<double> n = text::LeadingNumber(devices.substr(at + 6));
  return n && *n > 0 && *n < 1000 ? static_cast<int>(*n) : 0;
}

std::optional<NetworkRate> NetworkOf(const NcclLog& log, const SystemFacts& facts) {
  bool ib_used = false, ofi_used = false;
  for (const NcclConnection& c : log.connections) {
    ib_used |= c.transport == NcclTransport::kNetIb;
    ofi_used |= c.transport == NcclTransport::kNetPlugin;
  }
  for (const NameValue& u : log.networks_used) {
    ib_used |= u.name == "IB";
    ofi_used |= u.name.find("Libfabric") != std::string::npos || u.name == "AWS" ||
                u.name.find("OFI") != std::string::npos;
  }
  const NcclNetLine* ib = nullptr;
  const NcclNetLine* ofi = nullptr;
  for (const NcclNetLine& n : log.nets) {
    if (n.no_device) continue;
    if (n.net == "IB") ib = &n;
    if (n.net == "OFI" && n.devices.find("efa") != std::string::npos) ofi = &n;
  }
  NetworkRate out;
  if (ofi != nullptr && !ib_used) {
    out.name = "EFA (aws-ofi-nccl)";
    out.nics = FoundNics(ofi->devices);
    out.quote = &ofi->quote;
    for (const EfaInstance& e : kEfaInstances) {
      if (log.instance_type != e.type) continue;
      if (out.nics == 0) out.nics = e.nics;
      out.nic_gbps = e.nic_gbps;
      out.rate_source = fmt::format("{}'s published EFA rate", e.type);
      out.quote = &log.instance_quote;
    }
    return out;
  }
  if (ib == nullptr || ofi_used) return std::nullopt;
  bool roce = false;
  out.nics = CountNics(ib->devices, roce);
  out.name = roce ? "RoCE (NET/IB)" : "InfiniBand (NET/IB)";
  out.quote = &ib->quote;
  if (log.nic_gbps) {
    out.nic_gbps = *log.nic_gbps;
    out.rate_source = "the NIC speed NCCL printed";
    out.quote = &log.nic_rate_quote;
    return out;
  }
  // A bundle's ibstat: the rate of an active port NCCL lists.
  for (const IbPort& p : facts.ib_ports) {
    if (!p.rate_gbps || (p.state != "Active" && p.state != "ACTIVE") ||
        ib->devices.find(p.device + ":") == std::string::npos) {
      continue;
    }
    out.nic_gbps = std::max(out.nic_gbps, *p.rate_gbps);
    out.rate_source = "ibstat's Rate of the ports NCCL uses";
    out.quote = &p.quote;
  }
  return out;
}

struct Plateau {
  double peak = 0;
  double plateau = 0;
  const NcclTestRow* peak_row = nullptr;
  const NcclTestRow* largest = nullptr;
};

// The peak, and the plateau: the mean busbw of the three largest sizes (a doubling sweep's
// last octaves, where latency no longer matters).
Plateau PlateauOf(const NcclLog& log) {
  std::vector<const NcclTestRow*> rows;
  for (const NcclTestRow& r : log.test_rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const NcclTestRow* a, const NcclTestRow* b) {
    return a->size_bytes < b->size_bytes;
  });
  Plateau p;
  p.peak_row = rows.front();
  p.largest = rows.back();
  for (const NcclTestRow* r : rows) {
    double bw = std::max(r->busbw_gbs, r->in_place_busbw_gbs);
    if (bw > p.peak) {
      p.peak = bw;
      p.peak_row = r;
    }
  }
  size_t n = std::min<size_t>(3, rows.size());
  for (size_t i = rows.size() - n; i < rows.size(); ++i) p.plateau += rows[i]->busbw_gbs;
  p.plateau /= static_cast<double>(n);
  return p;
}

// One host in the rank lines and no network connection: the run stayed inside a node.
bool SingleNode(const NcclLog& log) {
  if (log.test_ranks.empty() || log.max_nnodes > 1) return false;
  for (const NameValue& r : log.test_ranks) {
    if (r.name != log.test_ranks.front().name) return false;
  }
  return std::none_of(log.connections.begin(), log.connections.end(), [](const NcclConnection& c) {
    return c.transport == NcclTransport::kNetIb || c.transport == NcclTransport::kNetSocket ||
           c.transport == NcclTransport::kNetPlugin;
  });
}

// A plateau that cannot be judged: low, with what would decide.
void CannotTell(PlatformContext& ctx, const NcclLog& log, const Plateau& p, std::string what,
                std::string decide, const std::string& avg) {
  Finding& f = ctx.AddFinding(
      kTests, Severity::kLow,
      fmt::format("nccl-tests bus bandwidth reaches {:.1f} GB/s at its largest sizes (peak "
                  "{:.1f} GB/s) over {}; whether that is slow cannot be told: {}{}",
                  p.plateau, p.peak, what, decide, avg));
  f.confidence = Confidence::kLow;
  for (auto it = f.fixes.begin(); it != f.fixes.end();) {
    if (it->action != kRdmaFix) {
      ++it;
      continue;
    }
    f.fixes_left_out.push_back({it->action, "the plateau is not known to be slow"});
    it = f.fixes.erase(it);
  }
  AddPlatformEvidence(f, "doctor.nccl_tests_plateau_busbw_gbs", p.plateau, "GB/s");
  AddPlatformEvidence(f, "doctor.nccl_tests_peak_busbw_gbs", p.peak, "GB/s");
  AddQuote(f, p.largest->quote);
  if (!log.avg_busbw_quote.file.empty()) AddQuote(f, log.avg_busbw_quote);
}

// Between nodes: the network carries nics x rate per node each way. A ring all-reduce reaches
// about that in busbw; a hierarchical one over M nodes of N ranks up to that x ((N-1)/N) /
// ((M-1)/M) (it sends only (M-1)/M of the data off the node). Below half the ring figure is slow.
// Returns false when the rate is not known (the caller says cannot tell).
bool JudgeNetwork(PlatformContext& ctx, const NcclLog& log, const Plateau& p,
                  const NetworkRate& net, const RunShape& shape, const std::string& avg,
                  std::string& note) {
  if (net.nics <= 0 || net.nic_gbps <= 0) return false;
  const double ring = net.NodeGBs();
  double bound = ring;
  if (shape.nodes >= 2 && shape.ranks > shape.nodes) {
    bound = ring * (shape.ranks - 1.0) / shape.ranks / ((shape.nodes - 1.0) / shape.nodes);
  }
  const std::string carries = fmt::format(
      "{} x {:.0f} Gb/s per node ({}) carry {:.1f} GB/s each way: a ring all-reduce reaches about "
      "that, a hierarchical one{} up to {:.1f} GB/s",
      net.nics, net.nic_gbps, net.rate_source, ring,
      shape.nodes >= 2 ? fmt::format(" over {} nodes of {} ranks", shape.nodes, shape.ranks)
                       : std::string(),
      bound);
  if (p.plateau >= kSlowShare * ring) {
    note += fmt::format("{}{}: busbw plateau {:.1f} GB/s (peak {:.1f}) over {}, {:.0f}% of what {}",
                        note.empty() ? "" : "; ", log.file, p.plateau, p.peak, net.name,
                        100 * p.plateau / ring, carries);
    return true;
  }
  Finding& f = ctx.AddFinding(
      kTests, Severity::kMedium,
      fmt::format("nccl-tests bus bandwidth plateaus at {:.1f} GB/s (peak {:.1f} GB/s) over {}, "
                  "{:.0f}% of what the network carries: {}; a NIC down or slow, GPUDirect RDMA "
                  "off, or traffic not on these NICs (check ibstat, NCCL_IB_HCA, the GDR lines){}",
                  p.plateau, p.peak, net.name, 100 * p.plateau / ring, carries, avg));
  f.confidence = Confidence::kMedium;
  AddPlatformEvidence(f, "doctor.nccl_tests_plateau_busbw_gbs", p.plateau, "GB/s", "<",
                      kSlowShare * ring, "half what the NICs carry per node each way");
  AddPlatformEvidence(f, "doctor.nccl_tests_network_gbs", ring, "GB/s");
  AddPlatformEvidence(f, "doctor.nccl_tests_peak_busbw_gbs", p.peak, "GB/s");
  if (net.quote != nullptr) AddQuote(f, *net.quote);
  AddQuote(f, p.largest->quote);
  return true;
}

// nccl-tests prints "Avg bus bandwidth" as the mean over every size down to 0 B: the
// numbers to judge are the peak and the large-message plateau, against what the transport the
// same log shows can carry (NVLink inside a node, the network between nodes, TCP sockets).
void TestsRule(PlatformContext& ctx) {
  bool any = false, fired = false;
  std::string note;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    if (log.test_rows.empty()) continue;
    any = true;
    const Plateau p = PlateauOf(log);
    bool socket = false;
    std::string transport = TransportOf(log, socket);
    std::string avg = log.avg_busbw_gbs
                          ? fmt::format(
                                "; the printed 'Avg bus bandwidth' {:.2f} GB/s averages "
                                "every size down to the smallest",
                                *log.avg_busbw_gbs)
                          : "";
    const size_t before = ctx.diagnosis.findings.size();
    const NvlinkPart* part = NvlinkPartOf(log);
    const RunShape shape = ShapeOf(log);
    const std::optional<NetworkRate> net = socket ? std::nullopt : NetworkOf(log, ctx.facts);
    if (p.largest->size_bytes < kPlateauBytes) {
      CannotTell(ctx, log, p, transport.empty() ? "an unnamed transport" : transport,
                 fmt::format("the sweep stops at {} bytes, below where busbw levels off (run "
                             "with -e 8G)",
                             p.largest->size_bytes),
                 avg);
    } else if (!socket && part != nullptr && SingleNode(log) && log.test_ranks.size() > 1) {
      // Inside one node of NVLink parts the plateau should be near the link's rate: far below
      // it, P2P is off or a link is down.
      const double expected = kNvlinkPlateauShare * part->gbs;
      if (p.plateau < kSlowShare * part->gbs) {
        Finding& f = ctx.AddFinding(
            kTests, Severity::kMedium,
            fmt::format("nccl-tests bus bandwidth plateaus at {:.1f} GB/s (peak {:.1f} GB/s) on {} "
                        "GPUs of one node, {:.0f}% of the {:.0f} GB/s per GPU each way {} "
                        "carries (about {:.0f} GB/s expected): peer-to-peer is off or a link is "
                        "down (check NCCL_P2P_DISABLE, nvidia-smi nvlink -s, topo -m){}",
                        p.plateau, p.peak, log.test_ranks.size(), 100 * p.plateau / part->gbs,
                        part->gbs, part->link, expected, avg));
        f.confidence = Confidence::kMedium;
        AddPlatformEvidence(f, "doctor.nccl_tests_plateau_busbw_gbs", p.plateau, "GB/s", "<",
                            kSlowShare * part->gbs,
                            "half NVLink's rate per GPU each way on these parts");
        AddPlatformEvidence(f, "doctor.nccl_tests_peak_busbw_gbs", p.peak, "GB/s");
        AddQuote(f, log.test_ranks.front().quote);
        AddQuote(f, p.largest->quote);
      } else {
        note += fmt::format(
            "{}{}: busbw plateau {:.1f} GB/s (peak {:.1f}) over {} ({:.0f} GB/s per GPU each way, "
            "about {:.0f} expected){}",
            note.empty() ? "" : "; ", log.file, p.plateau, p.peak, part->link, part->gbs, expected,
            avg);
      }
    } else if (socket) {
      Finding& f = ctx.AddFinding(
          kTests, Severity::kMedium,
          fmt::format("nccl-tests bus bandwidth plateaus at {:.2f} GB/s (peak {:.2f} GB/s at {} "
                      "bytes) over {}: TCP sockets bound every inter-node collective; an RDMA "
                      "fabric (InfiniBand, RoCE, EFA with aws-ofi-nccl) carries several times "
                      "more{}",
                      p.plateau, p.peak, p.peak_row->size_bytes, transport, avg));
      f.confidence = Confidence::kMedium;
      AddPlatformEvidence(f, "doctor.nccl_tests_plateau_busbw_gbs", p.plateau, "GB/s");
      AddPlatformEvidence(f, "doctor.nccl_tests_peak_busbw_gbs", p.peak, "GB/s");
      for (const NameValue& u : log.networks_used) AddQuote(f, u.quote, 2);
      AddQuote(f, p.peak_row->quote);
      AddQuote(f, p.largest->quote);
      if (log.avg_busbw_gbs) AddQuote(f, log.avg_busbw_quote);
    } else if (net) {
      if (!JudgeNetwork(ctx, log, p, *net, shape, avg, note)) {
        CannotTell(ctx, log, p, net->name,
                   net->name.starts_with("EFA")
                       ? "the log names no instance type with a published EFA rate (aws-ofi-nccl's "
                         "'Running on … platform' line, or the NIC count and rate) to compare with"
                       : "the log states no NIC rate: ibstat (Rate) on a node, or "
                         "NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH (its NET[...] lines) would decide",
                   avg);
      }
    } else if (SingleNode(log) && !transport.empty()) {
      note += fmt::format("{}{}: busbw peak {:.1f} GB/s, plateau {:.1f} GB/s over {}{}",
                          note.empty() ? "" : "; ", log.file, p.peak, p.plateau, transport, avg);
    } else {
      CannotTell(ctx, log, p, transport.empty() ? "a transport the log does not name" : transport,
                 "the log shows neither the transport's kind nor its rate: rerun with "
                 "NCCL_DEBUG=INFO (NET/IB or NET/OFI lines, 'Using network') beside ibstat or "
                 "the instance type",
                 avg);
    }
    fired |= ctx.diagnosis.findings.size() > before;
  }
  if (!any) {
    ctx.Outcome(kTests, AssessStatus::kNotAssessed, false, "no nccl-tests result table");
    return;
  }
  ctx.Outcome(kTests, AssessStatus::kAssessed, fired, note);
}

}  // namespace

void EvaluateNcclRules(PlatformContext& ctx) {
  FailureRule(ctx);
  TestsRule(ctx);
}

std::vector<RuleSpec> NcclRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(PlatformSpec(
      {kFailure,
       Severity::kHigh,
       "high: the communicator failed and the job stops",
       "NCCL communication failed: {causes}",
       {},
       {{"Find the first failing rank and node: the first error is the cause, the rest follow",
         "grep -n -E 'NCCL WARN|ncclRemoteError|ncclSystemError|Watchdog' *.log | head"},
        {"Check the peer node named in the error (network, NCCL process, firewall)",
         "ibstat; ping PEER; journalctl -k | grep -i -E 'mlx5|efa|link'"}},
       "the job's NCCL log has no error and every collective completes",
       "an NCCL_DEBUG=INFO log of the failing job",
       kNccl,
       "NCCL transport, interface and GPUDirect RDMA",
       {},
       BottleneckClass::kCommunication}));
  rules.push_back(PlatformSpec(
      {kTests,
       Severity::kMedium,
       "medium when the measured plateau is bound by TCP sockets, inside one node of NVLink "
       "parts below half what the link carries, or across nodes below half what the network's "
       "stated NICs carry per node; low (cannot tell) when that rate is not stated or the sweep "
       "has no plateau; otherwise the peak and plateau are a note",
       "nccl-tests bus bandwidth plateaus at {plateau} GB/s over {transport}",
       {},
       {{kRdmaFix,
         "NCCL_DEBUG=INFO; expect 'Using network IB' or the plugin (aws-ofi-nccl for EFA)"},
        {"Compare with the fabric's rate: busbw plateau near the NIC line rate per GPU",
         "ibstat (Rate); nccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g 1"}},
       "the busbw plateau reaches the fabric's rate",
       "an nccl-tests run with NCCL_DEBUG=INFO",
       "NCCL_DEBUG=INFO mpirun … all_reduce_perf -b 8 -e 8G -f 2 -g 1 | tee nccl-tests.txt",
       "NCCL transport, interface and GPUDirect RDMA",
       {},
       BottleneckClass::kCommunication}));
  return rules;
}

}  // namespace gpuwhy
