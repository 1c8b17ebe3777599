// Platform rules that read an NCCL log as an operator does: a communicator that failed (the
// NCCL result it returned, the peer that refused or stopped answering, what an InfiniBand
// completion error means) and the bandwidth an nccl-tests run measured against the transport
// the same log shows. Both are the communication class: what they cost is collective time.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "diagnose/platform_rules/platform_rules.h"
#include "diagnose/platform_rules/platform_spec.h"

namespace gpuwhy {
namespace {

constexpr const char* kFailure = "platform.nccl_failure";
constexpr const char* kTests = "platform.nccl_tests_bandwidth";

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

// The all-reduce bus bandwidth nccl-tests reaches inside one node of NVLink parts (the
// plateau of published runs, about 80% of the link's one-way rate), by GPU name.
struct NvlinkPart {
  std::string_view mark;
  std::string_view link;
  double busbw_gbs;
};
constexpr std::array<NvlinkPart, 6> kNvlinkParts = {{
    {"B200", "NVLink 5", 800},
    {"H200", "NVLink 4", 450},
    {"H100 80GB HBM3", "NVLink 4", 450},
    {"H100-SXM", "NVLink 4", 450},
    {"A100-SXM", "NVLink 3", 230},
    {"V100-SXM", "NVLink 2", 130},
}};

const NvlinkPart* NvlinkPartOf(const NcclLog& log) {
  for (const NameValue& r : log.test_ranks) {
    for (const NvlinkPart& p : kNvlinkParts) {
      if (r.value.find(p.mark) != std::string::npos) return &p;
    }
  }
  return nullptr;
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

// nccl-tests prints "Avg bus bandwidth" as the mean over every size down to 0 B: the
// numbers to judge are the peak and the large-message plateau.
void TestsRule(PlatformContext& ctx) {
  bool any = false, fired = false;
  std::string note;
  for (const NcclLog& log : ctx.facts.nccl_logs) {
    if (log.test_rows.empty()) continue;
    any = true;
    std::vector<const NcclTestRow*> rows;
    for (const NcclTestRow& r : log.test_rows) rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(), [](const NcclTestRow* a, const NcclTestRow* b) {
      return a->size_bytes < b->size_bytes;
    });
    double peak = 0;
    const NcclTestRow* peak_row = rows.front();
    for (const NcclTestRow* r : rows) {
      double bw = std::max(r->busbw_gbs, r->in_place_busbw_gbs);
      if (bw > peak) {
        peak = bw;
        peak_row = r;
      }
    }
    // The plateau: the mean busbw of the three largest sizes (a doubling sweep's last
    // octaves, where latency no longer matters).
    size_t n = std::min<size_t>(3, rows.size());
    double plateau = 0;
    for (size_t i = rows.size() - n; i < rows.size(); ++i) plateau += rows[i]->busbw_gbs;
    plateau /= static_cast<double>(n);
    bool socket = false;
    std::string transport = TransportOf(log, socket);
    std::string avg = log.avg_busbw_gbs
                          ? fmt::format(
                                "; the printed 'Avg bus bandwidth' {:.2f} GB/s averages "
                                "every size down to the smallest",
                                *log.avg_busbw_gbs)
                          : "";
    const NvlinkPart* part = NvlinkPartOf(log);
    if (!socket && part != nullptr && SingleNode(log) && log.test_ranks.size() > 1 &&
        plateau < part->busbw_gbs / 2) {
      // Inside one node of NVLink parts the plateau should be near the link's rate: far below
      // it, P2P is off or a link is down.
      Finding& f = ctx.AddFinding(
          kTests, Severity::kMedium,
          fmt::format("nccl-tests bus bandwidth plateaus at {:.1f} GB/s (peak {:.1f} GB/s) on {} "
                      "GPUs of one node, {:.0f}% of what {} carries on these parts (about "
                      "{:.0f} GB/s): peer-to-peer is off or a link is down (check "
                      "NCCL_P2P_DISABLE, nvidia-smi nvlink -s, topo -m){}",
                      plateau, peak, log.test_ranks.size(), 100 * plateau / part->busbw_gbs,
                      part->link, part->busbw_gbs, avg));
      f.confidence = Confidence::kMedium;
      AddPlatformEvidence(f, "doctor.nccl_tests_plateau_busbw_gbs", plateau, "GB/s", "<",
                          part->busbw_gbs / 2,
                          "half the all-reduce busbw nccl-tests reaches on these NVLink parts");
      AddPlatformEvidence(f, "doctor.nccl_tests_peak_busbw_gbs", peak, "GB/s");
      AddQuote(f, log.test_ranks.front().quote);
      AddQuote(f, rows.back()->quote);
      fired = true;
      continue;
    }
    if (!socket) {
      if (part != nullptr && SingleNode(log)) {
        transport = fmt::format("{} (about {:.0f} GB/s expected on these parts)", part->link,
                                part->busbw_gbs);
      }
      note += fmt::format("{}{}: busbw peak {:.1f} GB/s, plateau {:.1f} GB/s over {}{}",
                          note.empty() ? "" : "; ", log.file, peak, plateau,
                          transport.empty() ? "a transport the log does not name" : transport, avg);
      continue;
    }
    Finding& f = ctx.AddFinding(
        kTests, Severity::kMedium,
        fmt::format("nccl-tests bus bandwidth plateaus at {:.2f} GB/s (peak {:.2f} GB/s at {} "
                    "bytes) over {}: TCP sockets bound every inter-node collective; an RDMA "
                    "fabric (InfiniBand, RoCE, EFA with aws-ofi-nccl) carries several times "
                    "more{}",
                    plateau, peak, peak_row->size_bytes, transport, avg));
    f.confidence = Confidence::kMedium;
    AddPlatformEvidence(f, "doctor.nccl_tests_plateau_busbw_gbs", plateau, "GB/s");
    AddPlatformEvidence(f, "doctor.nccl_tests_peak_busbw_gbs", peak, "GB/s");
    for (const NameValue& u : log.networks_used) AddQuote(f, u.quote, 2);
    AddQuote(f, peak_row->quote);
    AddQuote(f, rows.back()->quote);
    if (log.avg_busbw_gbs) AddQuote(f, log.avg_busbw_quote);
    fired = true;
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
       "medium when the measured plateau is bound by TCP sockets, or inside one node of NVLink "
       "parts below half what the link carries; otherwise the peak and plateau are a note",
       "nccl-tests bus bandwidth plateaus at {plateau} GB/s over {transport}",
       {},
       {{"Run the collectives over the RDMA fabric: load its NCCL network plugin and provider",
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
