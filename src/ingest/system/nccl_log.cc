// NCCL_DEBUG=INFO output. NCCL lines look like "host:pid:tid [dev] NCCL INFO message" (WARN
// lines start with "[date] "), often behind an srun " 0: " prefix and between the job's own
// output. What is read: the version, NCCL_* settings NCCL reports, the network it initialised
// ("NET/IB : Using …", "NET/Socket : Using …", "No device found"), "Using network X", every
// "Channel NN/M : a[d] -> b[d] via TRANSPORT" connection, ring and tree lines, the "GDR" flag,
// warnings, nccl-tests result rows with their average bus bandwidth, and the NICs' rate where a
// line states it ("speed=", the topology dump's "NET[25.0]") with the instance aws-ofi-nccl names.
#include <algorithm>
#include <cctype>

#include <limits>

#include <fmt/format.h>

#include "base/number_cast.h"
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

using system::TextLine;

// One launcher prefix at the start of |s|, removed; false when there is none:
//   " 0: "              srun --label
//   "[1,0]<stdout>:"    mpirun --tag-output (also <stderr>)
//   "[rank0]:" / "[default0]:"   torchrun / torch.distributed log prefixes
//   "[2026-01-01 12:08:32] " and "2024-05-01T10:00:00.123Z " / "2024-05-01 10:00:00 "
bool StripOnePrefix(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  size_t digits = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i > digits && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') {
    s.remove_prefix(i + 2);
    return true;
  }
  std::string_view t = s.substr(digits);
  if (t.starts_with("[")) {
    size_t close = t.find(']');
    if (close == std::string_view::npos || close > 40) return false;
    std::string_view inner = t.substr(1, close - 1);
    std::string_view after = t.substr(close + 1);
    if (after.starts_with("<stdout>:") || after.starts_with("<stderr>:")) {
      s = after.substr(9);
      return true;
    }
    bool rank =
        (inner.starts_with("rank") || inner.starts_with("default")) && after.starts_with(":");
    if (rank) {
      s = after.substr(1);
      return true;
    }
    // "[2026-01-01 12:08:32]": a date stamp.
    if (inner.size() >= 10 && inner[4] == '-' && inner[7] == '-' &&
        std::isdigit(static_cast<unsigned char>(inner[0]))) {
      s = after;
      return true;
    }
    return false;
  }
  // "2024-05-01T10:00:00.123Z " or "2024-05-01 10:00:00,123 ".
  if (t.size() > 19 && t[4] == '-' && t[7] == '-' && (t[10] == 'T' || t[10] == ' ') &&
      t[13] == ':' && std::isdigit(static_cast<unsigned char>(t[0]))) {
    size_t end = t.find(' ', 11);
    if (end == std::string_view::npos) return false;
    s = t.substr(end + 1);
    return true;
  }
  return false;
}

std::string_view StripLauncherPrefix(std::string_view s) {
  for (int i = 0; i < 4 && StripOnePrefix(s); ++i) {
  }
  return s;
}

// Lines that say a communicator failed (NCCL result names, the framework's wrappers, the
// watchdog).
bool FailureLine(std::string_view s) {
  for (std::string_view mark :
       {"ncclSystemError", "ncclRemoteError", "ncclInternalError", "ncclUnhandledCudaError",
        "ncclInvalidUsage", "ncclInvalidArgument", "Watchdog caught collective operation timeout",
        "NCCL communicator was aborted", "NCCL error in:", "NCCL Error "}) {
    if (system::Contains(s, mark)) return true;
  }
  return false;
}

NcclTransport TransportOf(std::string_view via) {
  if (via.starts_with("P2P")) return NcclTransport::kP2p;
  if (via.starts_with("SHM")) return NcclTransport::kShm;
  if (via.starts_with("NET/IB")) return NcclTransport::kNetIb;
  if (via.starts_with("NET/Socket")) return NcclTransport::kNetSocket;
  if (via.starts_with("NET/")) return NcclTransport::kNetPlugin;
  if (via.starts_with("CollNet") || via.starts_with("COLLNET")) return NcclTransport::kCollNet;
  if (via.starts_with("NVLS")) return NcclTransport::kNvls;
  return NcclTransport::kOther;
}

// "a[d] -> b[d]": the rank before '['.
std::optional<int> RankBefore(std::string_view s) {
  size_t bracket = s.find('[');
  std::optional<int64_t> rank = system::ParseInt(s.substr(0, bracket));
  if (!rank || *rank < 0 || *rank > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(*rank);
}

// "Channel 00/0 : 3[0] -> 0[0] [receive] via NET/Socket/0" (also "Channel 00 : …").
bool ReadConnection(std::string_view msg, NcclConnection& c) {
  size_t via = msg.find(" via ");
  size_t arrow = msg.find(" -> ");
  size_t colon = msg.find(" : ");
  if (via == std::string_view::npos || arrow == std::string_view::npos ||
      colon == std::string_view::npos || arrow < colon || via < arrow) {
    return false;
  }
  std::string_view channel = system::Trim(msg.substr(8, colon - 8));
  std::optional<double> read = system::LeadingNumber(channel);
  std::optional<int> number = read ? ToInteger<int>(*read) : std::nullopt;
  std::optional<int> from = RankBefore(system::Trim(msg.substr(colon + 3, arrow - colon - 3)));
  std::string_view after = system::Trim(msg.substr(arrow + 4, via - arrow - 4));
  std::optional<int> to = RankBefore(after.substr(0, after.find(' ')));
  if (!number || !from || !to) return false;
  c.channel = *number;
  c.from_rank = *from;
  c.to_rank = *to;
  c.via = std::string(system::Trim(msg.substr(via + 5)));
  c.transport = TransportOf(c.via);
  c.gdr = system::Contains(c.via, "/GDRDMA");
  return true;
}

// "NET/IB : Using [0]mlx5_0:1/IB …", "NET/IB : No device found.", "NET/OFI Selected Provider
// is efa (found 4 nics)", "NET/OFI No eligible providers were found".
bool ReadNet(std::string_view msg, NcclNetLine& net) {
  if (!msg.starts_with("NET/")) return false;
  std::string_view rest = msg.substr(4);
  size_t end = rest.find_first_of(" :");
  net.net = std::string(rest.substr(0, end));
  if (net.net == "Plugin") return false;
  std::string_view tail = end == std::string_view::npos ? "" : system::Trim(rest.substr(end));
  if (tail.starts_with(":")) tail = system::Trim(tail.substr(1));
  if (tail.starts_with("Using ")) {
    net.devices = std::string(tail.substr(6));
    return true;
  }
  if (system::Contains(tail, "No device found") ||
      system::Contains(tail, "No eligible providers")) {
    net.no_device = true;
    return true;
  }
  if (tail.starts_with("Selected Provider is ") || tail.starts_with("Selected provider is ")) {
    net.devices = std::string(tail.substr(21));
    return true;
  }
  return false;
}

// nccl-tests: "  1048576  262144  float  sum  -1  123.4  8.50  15.93  0  …".
bool ReadTestRow(std::string_view s, NcclTestRow& row) {
  std::vector<std::string_view> w = system::SplitWords(s);
  if (w.size() < 10) return false;
  std::optional<int64_t> size = system::ParseInt(w[0]);
  std::optional<int64_t> count = system::ParseInt(w[1]);
  if (!size || !count || std::isdigit(static_cast<unsigned char>(w[2][0]))) return false;
  std::vector<double> numbers;
  for (size_t i = 4; i < w.size(); ++i) {
    std::optional<double> v = system::LeadingNumber(w[i]);
    if (!v) {
      if (w[i] == "N/A") {
        numbers.push_back(0);
        continue;
      }
      return false;
    }
    numbers.push_back(*v);
  }
  // With a root column (nccl-tests ≥ 2.10) there are 9 numbers, without it 8.
  size_t base = numbers.size() >= 9 ? 1 : 0;
  if (numbers.size() < base + 7) return false;
  row.size_bytes = *size;
  row.count = *count;
  row.type = std::string(w[2]);
  row.redop = std::string(w[3]);
  row.time_us = numbers[base];
  row.algbw_gbs = numbers[base + 1];
  row.busbw_gbs = numbers[base + 2];
  row.in_place_busbw_gbs = numbers[base + 6];
  return true;
}

// A NIC's rate: "… speed=400000 …" on a NET line (Mb/s: NCCL's ncclIbDev speed), or the
// topology dump's "+ NET[25.0] - NET/0 (…)" (GB/s); Gb/s, nullopt when the line has neither.
std::optional<double> NicRateGbps(std::string_view msg) {
  if (size_t at = msg.find("speed="); at != std::string_view::npos && msg.starts_with("NET/")) {
    std::optional<double> mbps = system::LeadingNumber(msg.substr(at + 6));
    if (mbps && *mbps > 0 && *mbps < 1e8) return *mbps / 1000;
  }
  if (size_t at = msg.find("NET["); at != std::string_view::npos && system::Contains(msg, "NET/")) {
    std::optional<double> gbs = system::LeadingNumber(msg.substr(at + 4));
    if (gbs && *gbs > 0 && *gbs < 1e5) return *gbs * 8;
  }
  return std::nullopt;
}

// The instance aws-ofi-nccl runs on: "NET/OFI Running on p4d.24xlarge platform, …" or
// "… is not available for platform : p4d.24xlarge, …"; "" when the line names none.
std::string InstanceType(std::string_view msg) {
  if (!msg.starts_with("NET/OFI")) return "";
  std::string_view rest;
  if (size_t at = msg.find("Running on "); at != std::string_view::npos) {
    rest = msg.substr(at + 11);
  } else if (size_t p = msg.find("platform : "); p != std::string_view::npos) {
    rest = msg.substr(p + 11);
  } else {
    return "";
  }
  const size_t end = rest.find_first_of(" ,");
  std::string_view type = rest.substr(0, end);
  return type.find('.') == std::string_view::npos || type.size() > 40 ? "" : std::string(type);
}

// "nRanks 8": the count after |pos|; nullopt when absent or no int holds it.
std::optional<int> CountAfter(std::string_view msg, size_t pos) {
  std::optional<double> v = system::LeadingNumber(msg.substr(pos));
  return v ? ToInteger<int>(*v) : std::nullopt;
}

void ReadInfo(std::string_view msg, std::string_view path, const TextLine& line, NcclLog& log) {
  if (msg.starts_with("Channel ")) {
    NcclConnection c;
    if (ReadConnection(msg, c)) {
      c.quote = system::Quote(path, line);
      log.connections.push_back(std::move(c));
    } else if (system::Contains(msg, " : ") && !system::Contains(msg, " via ")) {
      ++log.ring_lines;
    }
    return;
  }
  if (msg.starts_with("Trees ")) {
    ++log.tree_lines;
    return;
  }
  if (std::optional<double> gbps = NicRateGbps(msg); gbps && !log.nic_gbps) {
    log.nic_gbps = gbps;
    log.nic_rate_quote = system::Quote(path, line);
  }
  if (log.instance_type.empty()) {
    log.instance_type = InstanceType(msg);
    if (!log.instance_type.empty()) log.instance_quote = system::Quote(path, line);
  }
  if (size_t set = msg.find(" set by environment to"); set != std::string_view::npos) {
    std::string_view name = msg.substr(0, set);
    std::string_view value = system::Trim(msg.substr(set + 22));
    log.env.push_back({std::string(name), std::string(value), system::Quote(path, line)});
    return;
  }
  if (msg.starts_with("Using network ")) {
    log.networks_used.push_back(
        {std::string(system::Trim(msg.substr(14))), "", system::Quote(path, line)});
    return;
  }
  // "NET/OFI Need to force simple protocol: GDR not supported", "NET/IB : GPU Direct RDMA
  // Disabled for HCA 0 'mlx5_0' (no module)": the platform or provider cannot do GPUDirect RDMA.
  if (system::Contains(msg, "GDR not supported") ||
      system::Contains(msg, "GPU Direct RDMA Disabled")) {
    log.gdr = false;
    log.gdr_lines.push_back(system::Quote(path, line));
    return;
  }
  if (size_t gdr = msg.find(" GDR ");
      gdr != std::string_view::npos && system::Contains(msg, "Connected all rings")) {
    std::optional<double> on = system::LeadingNumber(msg.substr(gdr + 5));
    if (on) log.gdr = log.gdr.value_or(false) || *on > 0;
    log.gdr_lines.push_back(system::Quote(path, line));
    return;
  }
  if (size_t nranks = msg.find(" nRanks "); nranks != std::string_view::npos) {
    if (auto v = CountAfter(msg, nranks + 8)) log.max_nranks = std::max(log.max_nranks, *v);
    if (size_t nnodes = msg.find(" nNodes "); nnodes != std::string_view::npos) {
      if (auto v = CountAfter(msg, nnodes + 8)) log.max_nnodes = std::max(log.max_nnodes, *v);
    }
    return;
  }
  if (size_t nranks = msg.find(" nranks "); nranks != std::string_view::npos) {
    if (auto v = CountAfter(msg, nranks + 8)) log.max_nranks = std::max(log.max_nranks, *v);
  }
  NcclNetLine net;
  if (ReadNet(msg, net)) {
    net.quote = system::Quote(path, line);
    log.nets.push_back(std::move(net));
  }
}

}  // namespace

Status ParseNcclLog(std::string_view text, std::string_view path, SystemFacts& facts) {
  NcclLog log;
  log.file = std::string(path);
  bool any = false;
  bool in_test_table = false;
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view s = StripLauncherPrefix(line.text);
    if (size_t v = s.find("NCCL version "); v != std::string_view::npos && log.version.empty()) {
      std::vector<std::string_view> w = system::SplitWords(s.substr(v + 13));
      if (!w.empty()) {
        log.version = std::string(w[0]);
        log.version_quote = system::Quote(path, line);
        any = true;
      }
    }
    if (size_t info = s.find("NCCL INFO "); info != std::string_view::npos) {
      any = true;
      ReadInfo(system::Trim(s.substr(info + 10)), path, line, log);
      continue;
    }
    if (size_t warn = s.find("NCCL WARN "); warn != std::string_view::npos) {
      any = true;
      log.warnings.push_back(system::Quote(path, line));
      continue;
    }
    if (FailureLine(s)) {
      any = true;
      log.errors.push_back(system::Quote(path, line));
      continue;
    }
    std::string_view t = system::Trim(s);
    if (t.starts_with("#") && system::Contains(t, " Rank ") && system::Contains(t, " on ") &&
        system::Contains(t, " device ")) {
      // "#  Rank  0 Group  0 Pid  77184 on HOST device  0 [0x10] NVIDIA A100-SXM4-40GB".
      std::vector<std::string_view> w = system::SplitWords(t.substr(t.find(" on ") + 4));
      size_t bus = t.find("] ");
      if (!w.empty() && bus != std::string_view::npos) {
        log.test_ranks.push_back({std::string(w[0]), std::string(system::Trim(t.substr(bus + 2))),
                                  system::Quote(path, line)});
        any = true;
      }
      continue;
    }
    if (t.starts_with("#")) {
      if (system::Contains(t, "size") && system::Contains(t, "busbw")) in_test_table = true;
      if (size_t avg = t.find("Avg bus bandwidth"); avg != std::string_view::npos) {
        size_t colon = t.find(':', avg);
        std::optional<double> value = colon == std::string_view::npos
                                          ? std::nullopt
                                          : system::LeadingNumber(t.substr(colon + 1));
        if (value) {
          log.avg_busbw_gbs = value;
          log.avg_busbw_quote = system::Quote(path, line);
          any = true;
        } else {
          facts.problems.Add(
              DataProblem::kUnparsedLine,
              system::LineError(path, line.number, "'Avg bus bandwidth' without a number"));
        }
        in_test_table = false;
      }
      continue;
    }
    if (!in_test_table) continue;
    NcclTestRow row;
    if (ReadTestRow(t, row)) {
      row.quote = system::Quote(path, line);
      log.test_rows.push_back(std::move(row));
      any = true;
    }
  }
  if (!any) return InvalidArgument("{}: no NCCL INFO/WARN line or nccl-tests result found", path);
  facts.nccl_logs.push_back(std::move(log));
  return Status::Ok();
}

}  // namespace gpuwhy
