// SystemFacts: what a node's logs and state say about the platform under a job
// (docs/doctor.md): kernel-log Xid events, PCIe link state per device, `nvidia-smi topo -m`
// matrices, NCCL transport choices, GPU state from nvidia-smi, InfiniBand ports, NVLink
// links, environment and host settings. Importers in src/ingest/system fill it; the
// diagnosis (src/diagnose/diagnose_platform.cc) reads it. Values that a source did not give
// are std::nullopt or empty, never a fake zero. Every fact keeps the line it came from so a
// finding can quote it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/data_problems.h"
#include "model/source_quote.h"

namespace gpuwhy {

// "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s ...".
struct XidEvent {
  std::string pci;  // "0000:9b:00" as written inside "PCI:…"
  int code = 0;
  int64_t pid = -1;       // -1 when the log says '<unknown>'
  std::string process;    // "" when '<unknown>'
  std::string detail;     // the text after the process name
  std::string time_text;  // the timestamp as written, "" when the line had none
  // Wall-clock time (UTC) when the format carries a date; ctime stamps of `dmesg -T` are the
  // node's local time and are taken as UTC.
  std::optional<int64_t> epoch_ns;
  std::optional<int64_t> since_boot_ns;  // "[ 2.608284]" and /dev/kmsg stamps
  SourceQuote quote;
};

enum class PcieDeviceKind { kGpu, kNic, kBridge, kOther, kUnknown };

// A PCIe link's capability and current state (lspci LnkCap/LnkSta, sysfs, nvidia-smi -q).
struct PcieLink {
  std::string address;      // "19:00.0"; "" for an excerpt without its device line
  std::string description;  // "3D controller: NVIDIA Corporation Device 2330 (rev a1)"
  PcieDeviceKind kind = PcieDeviceKind::kUnknown;
  std::optional<double> max_speed_gts;  // GT/s per lane
  std::optional<int> max_width;         // lanes
  std::optional<double> speed_gts;
  std::optional<int> width;
  bool speed_downgraded = false;  // as the tool says ("(downgraded)") or current < capability
  bool width_downgraded = false;
  std::string source;                            // "lspci -vvv", "sysfs", "nvidia-smi -q"
  std::optional<std::string> performance_state;  // "P8" when known (idle GPUs lower the speed)
  bool data_link_inactive = false;               // lspci "DLActive-" under LnkSta: the link is idle
  SourceQuote cap_quote;
  SourceQuote sta_quote;
};

// How two devices of `nvidia-smi topo -m` talk (its legend).
enum class TopoLinkKind { kSelf, kNvLink, kPix, kPxb, kPhb, kNode, kSys, kOther, kEmpty };

struct TopoCell {
  std::string text;  // "NV18", "NODE", "OK", "" (not printed)
  TopoLinkKind kind = TopoLinkKind::kEmpty;
  int nvlinks = 0;  // the # of NV#
};

struct TopoRow {
  std::string name;             // "GPU0", "NIC1", "mlx5_0"
  std::vector<TopoCell> cells;  // one per device column, in column order
  std::string cpu_affinity;     // "0-23,48-71"
  std::string numa_affinity;    // "0", "N/A"
  std::string gpu_numa_id;      // "N/A"
  SourceQuote quote;
};

struct TopoMatrix {
  // "topo -m" (link types) or "topo -p2p" (OK, CNS, GNS, TNS, NS, U).
  std::string kind = "topo -m";
  std::vector<std::string> columns;  // device columns: "GPU0", …, "NIC0", …
  std::vector<TopoRow> rows;
  std::vector<std::pair<std::string, std::string>> legend;  // ("NV#", "Connection traversing…")
  std::vector<std::pair<std::string, std::string>> nic_names;  // ("NIC0", "mlx5_0")
  SourceQuote header;

  const TopoRow* Row(std::string_view name) const;
  int Column(std::string_view name) const;  // -1 when absent
};

enum class NcclTransport { kP2p, kShm, kNetIb, kNetSocket, kNetPlugin, kCollNet, kNvls, kOther };

// "Channel 00/0 : 3[0] -> 0[0] [receive] via NET/Socket/0".
struct NcclConnection {
  int channel = 0;
  int from_rank = -1;
  int to_rank = -1;
  std::string via;  // "NET/Socket/0", "P2P/IPC/read", "NET/AWS Libfabric/2/GDRDMA/Shared"
  NcclTransport transport = NcclTransport::kOther;
  bool gdr = false;  // GPU Direct RDMA on this connection ("/GDRDMA", "/GDRDMA/Shared")
  SourceQuote quote;
};

// "NET/IB : Using [0]mlx5_0:1/IB …", "NET/Socket : Using [0]eth0:10.0.4.51<0>", and the
// "NET/IB : No device found." lines.
struct NcclNetLine {
  std::string net;      // "IB", "Socket", "FastSocket", "OFI", "Plugin"
  std::string devices;  // the text after "Using", "" when no device was found
  bool no_device = false;
  SourceQuote quote;
};

// One size row of an nccl-tests run (out-of-place and in-place columns).
struct NcclTestRow {
  int64_t size_bytes = 0;
  int64_t count = 0;
  std::string type;
  std::string redop;
  double time_us = 0;
  double algbw_gbs = 0;
  double busbw_gbs = 0;
  double in_place_busbw_gbs = 0;
  SourceQuote quote;
};

struct NameValue {
  std::string name;
  std::string value;
  SourceQuote quote;
};

struct NcclLog {
  std::string file;
  std::string version;  // "2.27.3+cuda12.9"
  SourceQuote version_quote;
  std::vector<NameValue> env;  // "NCCL_SOCKET_IFNAME set by environment to ^docker0,lo"
  std::vector<NcclNetLine> nets;
  std::vector<NameValue> networks_used;  // "Using network Socket" (name, "")
  std::vector<NcclConnection> connections;
  std::vector<SourceQuote> warnings;  // NCCL WARN lines
  // Lines that say a communicator failed: "ncclSystemError", "ncclRemoteError",
  // "ncclInternalError", watchdog timeouts, "NCCL error …" from the framework.
  std::vector<SourceQuote> errors;
  // "Connected all rings, use ring PXN 0 GDR 0", and the lines that say GPUDirect RDMA cannot
  // be used ("GDR not supported", "GPU Direct RDMA Disabled for HCA …").
  std::vector<SourceQuote> gdr_lines;
  std::optional<bool> gdr;  // from those lines: any GDR 1
  int ring_lines = 0;       // "Channel 00/02 : 0 1 2 3" ring orders
  int tree_lines = 0;       // "Trees [0] 2/-1/-1->0->-1 …"
  int max_nranks = 0;
  int max_nnodes = 0;
  std::vector<NcclTestRow> test_rows;
  // nccl-tests' rank lines "#  Rank  0 Group  0 Pid  77184 on HOST device  0 [0x10] NAME":
  // (HOST, GPU NAME) per rank.
  std::vector<NameValue> test_ranks;
  std::optional<double> avg_busbw_gbs;  // "# Avg bus bandwidth : 20.2635"
  SourceQuote avg_busbw_quote;
  // A NIC's rate where the log states it, Gb/s: "speed=400000" (Mb/s) on a NET/IB line, or the
  // topology dump's "NET[25.0]" (GB/s). The cloud instance aws-ofi-nccl names ("Running on
  // p4d.24xlarge platform", "platform : p4d.24xlarge"), whose EFA rate is published.
  std::optional<double> nic_gbps;
  SourceQuote nic_rate_quote;
  std::string instance_type;
  SourceQuote instance_quote;
};

// A kernel-log or fabric-manager line about the node's health other than a GPU Xid:
// NVSwitch SXid errors, nvidia-peermem errors, GSP firmware errors, a process segfaulting
// inside a GPU library, host limits (VFS file-max).
struct NodeEvent {
  std::string kind;    // "sxid", "peermem", "gsp", "segfault", "file_max"
  int code = 0;        // the SXid code; 0 where the kind has none
  std::string device;  // "nvidia-nvswitch3 0000:05:00.0", "libnccl.so.2", "" when none
  std::string detail;  // the rest of the message ("Non-fatal, Link 46 …", "error 4")
  bool fatal = false;  // SXid: the line says fatal
  std::string time_text;
  SourceQuote quote;
};

struct GpuStateProcess {
  int64_t pid = -1;
  std::string name;
  std::string type;  // "C", "G", "C+G"
  std::optional<double> used_mib;
};

// One GPU as nvidia-smi describes it (-q text, -q -x XML, the default table, --query-gpu).
struct GpuState {
  std::string
      source;  // "nvidia-smi -q", "nvidia-smi -q -x", "nvidia-smi", "nvidia-smi --query-gpu"
  std::string file;
  std::string pci_bus_id;  // "00000000:07:00.0"
  std::string name;
  std::string uuid;
  std::string driver_version;
  std::string cuda_version;
  std::string persistence_mode;                   // "Enabled" / "Disabled"
  std::string mig_mode;                           // current: "Enabled", "Disabled", "N/A"
  std::string compute_mode;                       // "Default", "Exclusive_Process", "Prohibited"
  std::string performance_state;                  // "P0"
  std::vector<std::string> active_clock_reasons;  // "SW Power Cap", "HW Slowdown", …
  std::optional<double> temp_c;
  std::optional<double> slowdown_temp_c;
  std::optional<double> shutdown_temp_c;
  std::optional<double> max_operating_temp_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<double> sm_clock_mhz;
  std::optional<double> max_sm_clock_mhz;
  std::optional<double> memory_used_mib;
  std::optional<double> memory_total_mib;
  std::optional<double> util_pct;
  std::string ecc_mode;  // current
  std::optional<int64_t> ecc_volatile_uncorrectable;
  std::optional<int64_t> ecc_aggregate_uncorrectable;
  std::optional<int64_t> retired_pages_dbe;
  std::optional<bool> retired_pages_pending;
  std::optional<int64_t> remapped_rows_uncorrectable;
  std::optional<bool> remapped_rows_pending;
  std::optional<bool> remapped_rows_failure;
  std::optional<int> pcie_gen_current;
  std::optional<int> pcie_gen_max;  // the most this GPU in this slot can reach
  // The GPU's own maximum generation ("Device Max", max_device_link_gen, pcie.link.gen.gpumax):
  // above pcie_gen_max when the slot caps the link (a Gen5 GPU in a Gen4 slot).
  std::optional<int> pcie_gen_device_max;
  std::optional<int> pcie_width_current;
  std::optional<int> pcie_width_max;
  std::vector<GpuStateProcess> processes;
  std::vector<NameValue> quotes;  // field name -> the line it came from ("temp_c", …)

  const SourceQuote* Quote(std::string_view field) const;
};

// `ibstat` / `ibstatus` ports.
struct IbPort {
  std::string device;  // "mlx5_0"
  int port = 0;
  std::string state;           // "Active", "Down"
  std::string physical_state;  // "LinkUp", "Disabled"
  std::string link_layer;      // "InfiniBand", "Ethernet"
  std::optional<double> rate_gbps;
  SourceQuote quote;
};

// `nvidia-smi nvlink --status` / `-s`: "Link 0: 26.562 GB/s" or "Link 3: <inactive>".
struct NvLinkState {
  std::string gpu;  // "GPU 0: NVIDIA A100-SXM4-80GB (UUID: …)"
  int link = 0;
  std::optional<double> gbs;
  bool inactive = false;
  SourceQuote quote;
};

// Something that could not be checked, why, and the command that would capture it.
struct Unavailable {
  std::string what;     // "kernel log"
  std::string why;      // "permission denied reading /dev/kmsg"
  std::string command;  // "sudo dmesg -T > dmesg.txt"
};

// One input file and the format it was read as.
struct SystemInput {
  std::string path;
  std::string format;  // "kernel log", "lspci -vvv", "nvidia-smi topo -m", …
  int64_t lines = 0;
};

struct SystemFacts {
  std::string source;  // "this machine" or the bundle directory
  std::vector<SystemInput> inputs;
  DataProblems problems;  // details "PATH: line N: why" of records skipped or cut short
  std::vector<Unavailable> unavailable;
  int64_t kernel_log_lines = 0;  // lines read from kernel logs (0: none read)
  std::vector<XidEvent> xids;
  std::vector<NodeEvent> node_events;  // kernel-log and fabric-manager lines besides Xids
  std::vector<PcieLink> pcie_links;
  std::vector<TopoMatrix> topologies;
  std::vector<SourceQuote> tool_errors;  // "ERROR: Option -m is missing its value." in captures
  std::vector<NcclLog> nccl_logs;
  std::vector<GpuState> gpus;
  std::vector<IbPort> ib_ports;
  std::vector<NvLinkState> nvlinks;
  // Process environment (NCCL_*, CUDA_LAUNCH_BLOCKING, …) and host settings under names
  // "cpu.governor", "kernel.numa_balancing", "mm.transparent_hugepage".
  std::vector<NameValue> settings;

  bool HasInput(std::string_view format) const;
  const NameValue* Setting(std::string_view name) const;
};

std::string_view TopoLinkKindName(TopoLinkKind kind);         // "NV#", "PIX", …
std::string_view NcclTransportName(NcclTransport transport);  // "P2P", "NET/Socket", …
std::string_view PcieDeviceKindName(PcieDeviceKind kind);     // "GPU", "NIC", …

}  // namespace gpuwhy
