// The platform rules that `gpuwhy doctor` evaluates over SystemFacts (diagnose_platform.cc):
// driver Xid errors, PCIe links, topology, NCCL transport, GPU state and environment.
// Texts follow KNOWLEDGE.md §4 and §7. platform.throttling and platform.contention (live
// metrics) stay in catalog_launch_compute.cc.
#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {
namespace {

struct PlatformRuleText {
  std::string id;
  Severity severity;
  std::string severity_logic;
  std::string title;
  std::vector<RuleParam> params;
  std::vector<Fix> fixes;
  std::string verify;
  std::string needs;
  std::string capture;
};

RuleSpec Make(PlatformRuleText t) {
  return RuleSpec{
      .id = std::move(t.id),
      .bottleneck_class = BottleneckClass::kPlatform,
      .section = ChecklistSection::kPlatform,
      .default_severity = t.severity,
      .severity_logic = std::move(t.severity_logic),
      .title_template = std::move(t.title),
      .recoverable_logic = "not estimated: a platform problem slows or stops every step",
      .params = std::move(t.params),
      .fixes = std::move(t.fixes),
      .verify = std::move(t.verify),
      .needs = std::move(t.needs),
      .capture_command = std::move(t.capture),
  };
}

const char* kKernelLog = "sudo dmesg -T > dmesg.txt  (or: journalctl -k -o short-iso > kern.txt)";
const char* kLspci = "sudo lspci -vvv > lspci.txt";
const char* kTopo = "nvidia-smi topo -m > topo.txt";
const char* kNccl = "NCCL_DEBUG=INFO python train.py 2>&1 | tee nccl.log";
const char* kQuery = "nvidia-smi -q > nvidia-smi-q.txt  (or -q -x for XML)";
const char* kEnv = "env > env.txt (in the job's shell); gpuwhy doctor on the node reads /proc and /sys";

std::vector<RuleSpec> HardwareRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(Make({
      "platform.xid_errors", Severity::kHigh,
      "the worst Xid's catalog severity: hardware ECC/bus errors critical, GSP and NVLink high, "
      "application faults medium",
      "{count} Xid errors on {gpus} GPUs: {codes}",
      {{"min_count", 1, "count", "NVIDIA: every Xid is an event the driver logged", "Xid events"}},
      {{"Read the kernel log around the first Xid", "sudo dmesg -T | grep -i -B2 -A5 'NVRM: Xid'"},
       {"Drain the node on repeated hardware Xids (48, 63/64, 74, 79, 94/95, 140)",
        "scontrol update nodename=$(hostname) state=drain reason='Xid'"},
       {"Test the GPU before returning it to service", "dcgmi diag -r 3"}},
      "no new 'NVRM: Xid' line in dmesg after the fix",
      "a kernel log (dmesg, journalctl -k, /var/log/kern.log)", kKernelLog}));
  rules.push_back(Make({
      "platform.pcie_downgraded", Severity::kMedium,
      "high when a GPU link runs at under half its lanes or speed, else medium; NICs medium",
      "{count} PCIe links below their capability: {links}",
      {{"max_ratio", 1, "ratio",
        "lspci: LnkSta below LnkCap is marked (downgraded)",
        "current speed x width over capability below this fires"}},
      {{"Compare the link state with its capability under load (idle GPUs lower the speed)",
        "sudo lspci -vvv -s BUS | grep -E 'LnkCap|LnkSta'; nvidia-smi -q -d PCI"},
       {"Reseat the card, replace the riser or move it to a full x16 slot; check the BIOS PCIe "
        "generation setting", ""}},
      "LnkSta equals LnkCap; host-to-device copy bandwidth at the link's rate",
      "lspci -vvv, nvidia-smi -q or /sys/bus/pci/devices/*/current_link_speed", kLspci}));
  rules.push_back(Make({
      "platform.ecc_errors", Severity::kHigh,
      "critical on a remapping failure; high on uncorrectable errors or pending remaps",
      "GPU memory errors on {gpus} GPUs: {what}",
      {},
      {{"Reset the GPU to apply pending row remaps / page retirements",
        "sudo nvidia-smi -r -i INDEX  (when no process uses it)"},
       {"Drain and replace a GPU whose remapping failed", "nvidia-smi -q -d ROW_REMAPPER,ECC"}},
      "Remapped Rows Pending: No; volatile uncorrectable ECC 0",
      "nvidia-smi -q (ECC Errors, Retired Pages, Remapped Rows)", kQuery}));
  rules.push_back(Make({
      "platform.gpu_clocks_limited", Severity::kMedium,
      "high on hardware slowdown or thermal reasons, medium on power cap or temperature near "
      "the slowdown threshold",
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
      "nvidia-smi -q or -q -x", kQuery}));
  rules.push_back(Make({
      "platform.persistence_off", Severity::kLow, "low",
      "persistence mode off on {gpus} GPUs",
      {},
      {{"Keep the driver loaded between jobs", "sudo nvidia-smi -pm 1  (or enable nvidia-persistenced)"}},
      "Persistence Mode: Enabled", "nvidia-smi -q or the nvidia-smi table", kQuery}));
  rules.push_back(Make({
      "platform.driver_mismatch", Severity::kLow, "low",
      "{count} different driver versions across the inputs: {versions}",
      {},
      {{"Run every node of a job on the same driver and CUDA version", "nvidia-smi --query-gpu=driver_version --format=csv"}},
      "one driver version across nodes", "nvidia-smi output from each node", kQuery}));
  return rules;
}

std::vector<RuleSpec> FabricRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(Make({
      "platform.topology_slow_pairs", Severity::kMedium,
      "medium when other pairs of the same matrix have NVLink (a link is missing) or the GPUs "
      "are NVLink parts; low when the node simply has no NVLink",
      "{pairs} GPU pairs talk over {worst} (PCIe through host bridges or across CPU sockets)",
      {},
      {{"Place tensor/pipeline-parallel groups on GPUs that share NVLink or a PCIe switch",
        "CUDA_VISIBLE_DEVICES=0,1,2,3 torchrun --nproc-per-node 4 train.py"},
       {"If NVLink is expected: check the fabric manager and link state",
        "systemctl status nvidia-fabricmanager; nvidia-smi nvlink -s"}},
      "nvidia-smi topo -m shows NV# (or PIX/PXB) between the GPUs of each group",
      "nvidia-smi topo -m", kTopo}));
  rules.push_back(Make({
      "platform.numa_mismatch", Severity::kMedium, "medium",
      "{count} GPUs have no NIC on their NUMA node (nearest NIC over SYS)",
      {},
      {{"Bind each rank to the NIC and CPU cores of its GPU's NUMA node",
        "NCCL_IB_HCA=<nic of the GPU's socket>; numactl --cpunodebind=N --membind=N"},
       {"Check where each NIC sits", "nvidia-smi topo -m; cat /sys/class/net/*/device/numa_node"}},
      "every GPU reaches a NIC over PIX/PXB/NODE", "nvidia-smi topo -m with NIC columns",
      kTopo}));
  rules.push_back(Make({
      "platform.nccl_socket_fallback", Severity::kHigh, "high",
      "NCCL runs over TCP sockets ({socket} connections) although {fabric} is present",
      {},
      {{"Make the IB/EFA transport load: the network plugin and its provider must initialise",
        "NCCL_DEBUG=INFO; check 'NET/OFI', 'NET/IB : Using' lines; fi_info -p efa; ibstat"},
       {"Do not disable IB and do not point NCCL_SOCKET_IFNAME at a slow NIC",
        "unset NCCL_IB_DISABLE; NCCL_NET=IB (or the plugin's name)"}},
      "NCCL log shows 'Using network IB' (or the plugin) and 'via NET/IB' connections",
      "an NCCL_DEBUG=INFO log", kNccl}));
  rules.push_back(Make({
      "platform.nccl_env", Severity::kHigh,
      "high for NCCL_IB_DISABLE=1 or NCCL_P2P_DISABLE=1, medium for a management-NIC "
      "NCCL_SOCKET_IFNAME that carries the traffic",
      "NCCL settings that slow collectives: {settings}",
      {},
      {{"Remove settings that disable fast transports", "unset NCCL_IB_DISABLE NCCL_P2P_DISABLE"},
       {"Point NCCL_SOCKET_IFNAME at the data-plane interface (or exclude only lo/docker)",
        "NCCL_SOCKET_IFNAME=^lo,docker0"}},
      "NCCL log: P2P/NVLink inside the node, NET/IB between nodes",
      "an NCCL_DEBUG=INFO log or the job's environment", kNccl}));
  rules.push_back(Make({
      "platform.nccl_warnings", Severity::kMedium,
      "medium; high when the warnings mention a failed network plugin or handshake",
      "{count} NCCL warnings: {first}",
      {},
      {{"Read the first warning: it names the transport that failed", "grep 'NCCL WARN' nccl.log"}},
      "no NCCL WARN line", "an NCCL_DEBUG=INFO log", kNccl}));
  rules.push_back(Make({
      "platform.nccl_no_gdr", Severity::kMedium, "medium",
      "NCCL moves network data through host memory (GDR 0) on {count} communicators",
      {},
      {{"Load the GPUDirect RDMA module and check the NIC-GPU path",
        "sudo modprobe nvidia_peermem; NCCL_NET_GDR_LEVEL=PHB"}},
      "'Connected all rings … GDR 1' and connections 'via NET/…/GDRDMA'",
      "an NCCL_DEBUG=INFO log", kNccl}));
  rules.push_back(Make({
      "platform.ib_ports_down", Severity::kMedium, "medium",
      "{count} InfiniBand ports not Active: {ports}",
      {},
      {{"Check cables, switch ports and the subnet manager", "ibstat; iblinkinfo"}},
      "ibstat: every port State Active, Physical state LinkUp", "ibstat or ibstatus", "ibstat > ibstat.txt"}));
  return rules;
}

std::vector<RuleSpec> EnvironmentRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(Make({
      "platform.launch_blocking", Severity::kHigh, "high",
      "CUDA_LAUNCH_BLOCKING=1 serialises every kernel launch with the host",
      {},
      {{"Unset it outside debugging sessions", "unset CUDA_LAUNCH_BLOCKING"}},
      "launch.* metrics: CPU and GPU overlap again", "the job's environment", kEnv}));
  rules.push_back(Make({
      "platform.cpu_governor", Severity::kMedium, "medium",
      "CPU frequency governor '{governor}' on {cpus} CPUs",
      {},
      {{"Run the host CPUs at full speed during training",
        "sudo cpupower frequency-set -g performance"}},
      "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor: performance",
      "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor", kEnv}));
  rules.push_back(Make({
      "platform.host_memory_settings", Severity::kLow, "low",
      "host memory settings that add latency: {settings}",
      {},
      {{"Turn automatic NUMA balancing off on GPU nodes (it migrates pages under the job)",
        "sudo sysctl kernel.numa_balancing=0"},
       {"Use transparent huge pages on request only (compaction stalls)",
        "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"}},
      "kernel.numa_balancing = 0; transparent_hugepage [madvise]",
      "/proc/sys/kernel/numa_balancing, /sys/kernel/mm/transparent_hugepage/enabled", kEnv}));
  rules.push_back(Make({
      "platform.thread_settings", Severity::kLow, "low",
      "thread settings: {settings}",
      {},
      {{"Give each rank its share of cores, not 1 and not all of them",
        "OMP_NUM_THREADS=$(( $(nproc) / GPUS_PER_NODE ))"}},
      "OMP_NUM_THREADS set to cores / ranks per node", "the job's environment", kEnv}));
  return rules;
}

}  // namespace

std::vector<RuleSpec> DoctorPlatformRules() {
  std::vector<RuleSpec> rules = HardwareRules();
  for (auto* group : {&FabricRules, &EnvironmentRules}) {
    for (RuleSpec& spec : (*group)()) rules.push_back(std::move(spec));
  }
  return rules;
}

}  // namespace gpuwhy
