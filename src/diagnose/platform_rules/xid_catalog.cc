#include "diagnose/platform_rules/xid_catalog.h"

#include <algorithm>
#include <array>

namespace gpuwhy {
namespace {

using enum XidCause;

constexpr std::array<XidInfo, 20> kXids = {{
    {13, "graphics engine exception (illegal address or instruction in a kernel)", kApplication,
     Severity::kMedium,
     "Rerun the job under compute-sanitizer; if unrelated programs hit it too, test the GPU "
     "(dcgmi diag -r 3)"},
    {31, "GPU memory page fault (MMU fault)", kApplication, Severity::kMedium,
     "Usually an out-of-bounds access in a kernel: rerun under compute-sanitizer; check that the "
     "driver and CUDA/PyTorch versions match"},
    {43, "GPU stopped processing: the driver reset the channel of a faulting application",
     kApplication, Severity::kMedium,
     "Look at the Xid before it (13, 31) for the cause; the process was stopped"},
    {45, "preemptive cleanup after a killed process or a previous error", kApplication,
     Severity::kLow, "Follows a killed process (Ctrl-C, OOM, a previous Xid): read the first Xid"},
    {48, "double-bit ECC error (uncorrectable memory error)", kHardware, Severity::kCritical,
     "Drain the node, reset the GPU (nvidia-smi -r) so the row is remapped; repeated DBEs: RMA"},
    {61, "internal micro-controller breakpoint/warning", kDriver, Severity::kHigh,
     "Reset the GPU; update the driver; report to NVIDIA if it repeats"},
    {62, "internal micro-controller halt", kDriver, Severity::kHigh,
     "Reset the GPU or reboot; repeated halts on one GPU point at the board: RMA"},
    {63, "ECC page retirement or row remapping recorded", kHardware, Severity::kHigh,
     "Reset the GPU at the next idle moment to apply the remap; watch for 64"},
    {64, "ECC page retirement or row remapping failed", kHardware, Severity::kCritical,
     "Drain the node and replace the GPU: the memory can no longer be repaired"},
    {68, "video decoder (NVDEC) exception", kDriver, Severity::kLow,
     "Affects video decoding only: update the driver"},
    {69, "graphics engine class error", kApplication, Severity::kMedium,
     "Rerun under compute-sanitizer; update the driver if several programs hit it"},
    {74, "NVLink error", kHardware, Severity::kHigh,
     "Read nvidia-smi nvlink -e; reset the GPUs; repeated errors on one link: reseat/replace the "
     "board or NVSwitch tray"},
    {79, "GPU has fallen off the bus", kThermalPower, Severity::kCritical,
     "Drain the node: check power supply, PCIe seating, cooling; reboot before reuse"},
    {92, "high single-bit ECC error rate", kHardware, Severity::kHigh,
     "Memory is degrading: plan a replacement, watch ECC counters in nvidia-smi -q -d ECC"},
    {94, "contained ECC error (only the affected application was stopped)", kHardware,
     Severity::kHigh,
     "Restart the job; reset the GPU at the next idle moment so the row is remapped"},
    {95, "uncontained ECC error (every process on the GPU affected)", kHardware,
     Severity::kCritical, "Drain the node and reset the GPU; repeated: RMA"},
    {119, "GSP RPC timeout (the GPU's system processor stopped answering)", kDriver,
     Severity::kHigh,
     "Reset the GPU or reboot; update the driver; on affected releases disable GSP firmware "
     "(NVreg_EnableGpuFirmware=0)"},
    {120, "GSP error", kDriver, Severity::kHigh,
     "Reset the GPU or reboot; update the driver and firmware"},
    {140, "unrecovered ECC error", kHardware, Severity::kCritical,
     "Drain the node and reset the GPU; repeated: RMA"},
    {154, "GPU recovery action changed (the driver asks for a reset, reboot or drain)", kDriver,
     Severity::kHigh,
     "Do what nvidia-smi -q reports under 'GPU Recovery Action' (reset, reboot or drain)"},
}};

constexpr XidInfo kUnknownXid = {0, "Xid not in gpuwhy's catalog", kUnknown, Severity::kMedium,
                                 "Look the code up in NVIDIA's Xid documentation"};

}  // namespace

std::string_view XidCauseName(XidCause cause) {
  static constexpr std::array<std::string_view, 5> kNames = {"application", "driver", "hardware",
                                                             "thermal/power", "unknown"};
  return kNames[static_cast<size_t>(cause)];
}

const XidInfo& LookupXid(int code) {
  auto it =
      std::find_if(kXids.begin(), kXids.end(), [code](const XidInfo& x) { return x.code == code; });
  return it == kXids.end() ? kUnknownXid : *it;
}

std::span<const XidInfo> XidCatalog() { return kXids; }

}  // namespace gpuwhy
