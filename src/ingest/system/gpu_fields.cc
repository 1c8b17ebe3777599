// The field table behind FillGpuState: each GpuState field with its -q text path(s) and its
// -q -x XML path(s). Older drivers call the clock-event reasons "Clocks Throttle Reasons" and
// the power section "Power Readings"; both spellings are listed.
#include <functional>

#include "ingest/system/gpu_fields.h"

#include "base/number_cast.h"

namespace gpuwhy::system {
namespace {

using Setter = std::function<void(GpuState&, std::string_view value)>;

struct FieldSpec {
  std::string_view field;  // name used for quotes
  std::vector<std::string_view> text_paths;
  std::vector<std::string_view> xml_paths;
  Setter set;
};

bool Usable(std::string_view v) {
  v = Trim(v);
  return !v.empty() && v != "N/A" && v != "[N/A]" && v != "Unknown Error" &&
         v != "[Not Supported]" && v != "Not Supported" &&
         v != "Requested functionality has been deprecated";
}

Setter Text(std::string GpuState::*member) {
  return [member](GpuState& g, std::string_view v) {
    if (Usable(v)) g.*member = std::string(Trim(v));
  };
}

Setter Number(std::optional<double> GpuState::*member) {
  return [member](GpuState& g, std::string_view v) {
    if (Usable(v)) g.*member = LeadingNumber(v);
  };
}

Setter Integer(std::optional<int64_t> GpuState::*member) {
  return [member](GpuState& g, std::string_view v) {
    if (!Usable(v)) return;
    if (std::optional<double> n = LeadingNumber(v)) g.*member = ToInteger<int64_t>(*n);
  };
}

// ECC counters come split by memory (SRAM, DRAM) or by kind: the uncorrectable ones add up.
Setter AddInteger(std::optional<int64_t> GpuState::*member) {
  return [member](GpuState& g, std::string_view v) {
    if (!Usable(v)) return;
    std::optional<double> n = LeadingNumber(v);
    std::optional<int64_t> add = n ? ToInteger<int64_t>(*n) : std::nullopt;
    int64_t sum = 0;
    // Out of range or an overflowing sum: the counter is unknown, not wrapped.
    if (!add || __builtin_add_overflow((g.*member).value_or(0), *add, &sum)) {
      g.*member = std::nullopt;
      return;
    }
    g.*member = sum;
  };
}

Setter SmallInt(std::optional<int> GpuState::*member) {
  return [member](GpuState& g, std::string_view v) {
    if (!Usable(v)) return;
    if (std::optional<double> n = LeadingNumber(v)) g.*member = ToInteger<int>(*n);
  };
}

Setter YesNo(std::optional<bool> GpuState::*member) {
  return [member](GpuState& g, std::string_view v) {
    v = Trim(v);
    if (v == "Yes" || v == "yes") g.*member = true;
    if (v == "No" || v == "no") g.*member = false;
  };
}

const std::vector<FieldSpec>& Fields() {
  static const std::vector<FieldSpec>* fields = new std::vector<FieldSpec>{
      {"name", {"Product Name"}, {"product_name"}, Text(&GpuState::name)},
      {"uuid", {"GPU UUID"}, {"uuid"}, Text(&GpuState::uuid)},
      {"persistence_mode",
       {"Persistence Mode"},
       {"persistence_mode"},
       Text(&GpuState::persistence_mode)},
      {"mig_mode", {"MIG Mode/Current"}, {"mig_mode/current_mig"}, Text(&GpuState::mig_mode)},
      {"compute_mode", {"Compute Mode"}, {"compute_mode"}, Text(&GpuState::compute_mode)},
      {"performance_state",
       {"Performance State"},
       {"performance_state"},
       Text(&GpuState::performance_state)},
      {"temp_c",
       {"Temperature/GPU Current Temp"},
       {"temperature/gpu_temp"},
       Number(&GpuState::temp_c)},
      {"slowdown_temp_c",
       {"Temperature/GPU Slowdown Temp"},
       {"temperature/gpu_temp_slow_threshold"},
       Number(&GpuState::slowdown_temp_c)},
      {"shutdown_temp_c",
       {"Temperature/GPU Shutdown Temp"},
       {"temperature/gpu_temp_max_threshold"},
       Number(&GpuState::shutdown_temp_c)},
      {"max_operating_temp_c",
       {"Temperature/GPU Max Operating Temp"},
       {"temperature/gpu_temp_max_gpu_threshold"},
       Number(&GpuState::max_operating_temp_c)},
      {"power_w",
       {"GPU Power Readings/Power Draw", "Power Readings/Power Draw"},
       {"gpu_power_readings/power_draw", "power_readings/power_draw",
        "gpu_power_readings/instant_power_draw"},
       Number(&GpuState::power_w)},
      {"power_limit_w",
       {"GPU Power Readings/Current Power Limit", "Power Readings/Enforced Power Limit",
        "Power Readings/Power Limit"},
       {"gpu_power_readings/current_power_limit", "power_readings/enforced_power_limit",
        "power_readings/power_limit"},
       Number(&GpuState::power_limit_w)},
      {"sm_clock_mhz", {"Clocks/SM"}, {"clocks/sm_clock"}, Number(&GpuState::sm_clock_mhz)},
      {"max_sm_clock_mhz",
       {"Max Clocks/SM"},
       {"max_clocks/sm_clock"},
       Number(&GpuState::max_sm_clock_mhz)},
      {"memory_used_mib",
       {"FB Memory Usage/Used"},
       {"fb_memory_usage/used"},
       Number(&GpuState::memory_used_mib)},
      {"memory_total_mib",
       {"FB Memory Usage/Total"},
       {"fb_memory_usage/total"},
       Number(&GpuState::memory_total_mib)},
      {"util_pct", {"Utilization/Gpu"}, {"utilization/gpu_util"}, Number(&GpuState::util_pct)},
      {"ecc_mode", {"ECC Mode/Current"}, {"ecc_mode/current_ecc"}, Text(&GpuState::ecc_mode)},
      {"ecc_volatile_uncorrectable",
       {"ECC Errors/Volatile/SRAM Uncorrectable", "ECC Errors/Volatile/DRAM Uncorrectable",
        "ECC Errors/Volatile/Double Bit/Total", "ECC Errors/Volatile/SRAM Uncorrectable Parity",
        "ECC Errors/Volatile/SRAM Uncorrectable SEC-DED"},
       {"ecc_errors/volatile/sram_uncorrectable", "ecc_errors/volatile/dram_uncorrectable",
        "ecc_errors/volatile/double_bit/total", "ecc_errors/volatile/sram_uncorrectable_parity",
        "ecc_errors/volatile/sram_uncorrectable_secded"},
       AddInteger(&GpuState::ecc_volatile_uncorrectable)},
      {"ecc_aggregate_uncorrectable",
       {"ECC Errors/Aggregate/SRAM Uncorrectable", "ECC Errors/Aggregate/DRAM Uncorrectable",
        "ECC Errors/Aggregate/Double Bit/Total", "ECC Errors/Aggregate/SRAM Uncorrectable Parity",
        "ECC Errors/Aggregate/SRAM Uncorrectable SEC-DED"},
       {"ecc_errors/aggregate/sram_uncorrectable", "ecc_errors/aggregate/dram_uncorrectable",
        "ecc_errors/aggregate/double_bit/total", "ecc_errors/aggregate/sram_uncorrectable_parity",
        "ecc_errors/aggregate/sram_uncorrectable_secded"},
       AddInteger(&GpuState::ecc_aggregate_uncorrectable)},
      {"retired_pages_dbe",
       {"Retired Pages/Double Bit ECC"},
       {"retired_pages/double_bit_retirement/retired_count"},
       Integer(&GpuState::retired_pages_dbe)},
      {"retired_pages_pending",
       {"Retired Pages/Pending Page Blacklist", "Retired Pages/Pending"},
       {"retired_pages/pending_blacklist", "retired_pages/pending_retirement"},
       YesNo(&GpuState::retired_pages_pending)},
      {"remapped_rows_uncorrectable",
       {"Remapped Rows/Uncorrectable Error"},
       {"remapped_rows/remapped_row_unc"},
       Integer(&GpuState::remapped_rows_uncorrectable)},
      {"remapped_rows_pending",
       {"Remapped Rows/Pending"},
       {"remapped_rows/remapped_row_pending"},
       YesNo(&GpuState::remapped_rows_pending)},
      {"remapped_rows_failure",
       {"Remapped Rows/Remapping Failure Occurred"},
       {"remapped_rows/remapped_row_failure"},
       YesNo(&GpuState::remapped_rows_failure)},
      {"pcie_gen_current",
       {"PCI/GPU Link Info/PCIe Generation/Current"},
       {"pci/pci_gpu_link_info/pcie_gen/current_link_gen"},
       SmallInt(&GpuState::pcie_gen_current)},
      {"pcie_gen_max",
       {"PCI/GPU Link Info/PCIe Generation/Max"},
       {"pci/pci_gpu_link_info/pcie_gen/max_link_gen"},
       SmallInt(&GpuState::pcie_gen_max)},
      {"pcie_gen_device_max",
       {"PCI/GPU Link Info/PCIe Generation/Device Max"},
       {"pci/pci_gpu_link_info/pcie_gen/max_device_link_gen"},
       SmallInt(&GpuState::pcie_gen_device_max)},
      {"pcie_width_current",
       {"PCI/GPU Link Info/Link Width/Current"},
       {"pci/pci_gpu_link_info/link_widths/current_link_width"},
       SmallInt(&GpuState::pcie_width_current)},
      {"pcie_width_max",
       {"PCI/GPU Link Info/Link Width/Max"},
       {"pci/pci_gpu_link_info/link_widths/max_link_width"},
       SmallInt(&GpuState::pcie_width_max)},
  };
  return *fields;
}

bool IsClockReason(GpuDialect dialect, std::string_view path) {
  if (dialect == GpuDialect::kQueryText) {
    return path.starts_with("Clocks Event Reasons/") ||
           path.starts_with("Clocks Throttle Reasons/");
  }
  return path.starts_with("clocks_event_reasons/") || path.starts_with("clocks_throttle_reasons/");
}

// "Clocks Event Reasons/HW Slowdown/HW Thermal Slowdown" -> "HW Thermal Slowdown";
// "clocks_event_reasons/clocks_event_reason_sw_power_cap" -> "sw_power_cap".
std::string ReasonName(std::string_view path) {
  std::string_view last = path.substr(path.rfind('/') + 1);
  for (std::string_view prefix : {"clocks_event_reason_", "clocks_throttle_reason_"}) {
    if (last.starts_with(prefix)) last.remove_prefix(prefix.size());
  }
  return std::string(last);
}

void AddProcessField(GpuDialect dialect, const KeyedValue& kv, GpuState& gpu) {
  bool text = dialect == GpuDialect::kQueryText;
  std::string_view p = kv.path;
  std::string_view v = Trim(kv.value);
  if (p == (text ? "Processes/Process ID" : "processes/process_info/pid")) {
    GpuStateProcess process;
    if (std::optional<int64_t> pid = ParseInt(v)) process.pid = *pid;
    gpu.processes.push_back(std::move(process));
    return;
  }
  if (gpu.processes.empty()) return;
  GpuStateProcess& process = gpu.processes.back();
  if (p == (text ? "Processes/Process ID/Type" : "processes/process_info/type")) {
    process.type = std::string(v);
  } else if (p == (text ? "Processes/Process ID/Name" : "processes/process_info/process_name")) {
    process.name = std::string(v);
  } else if (p == (text ? "Processes/Process ID/Used GPU Memory"
                        : "processes/process_info/used_memory")) {
    if (Usable(v)) process.used_mib = LeadingNumber(v);
  }
}

}  // namespace

void FillGpuState(GpuDialect dialect, const std::vector<KeyedValue>& values, std::string_view path,
                  GpuState& gpu) {
  const bool text = dialect == GpuDialect::kQueryText;
  for (const KeyedValue& kv : values) {
    if (IsClockReason(dialect, kv.path)) {
      if (Trim(kv.value) == "Active") {
        gpu.active_clock_reasons.push_back(ReasonName(kv.path));
        gpu.quotes.push_back({"clock_reason:" + ReasonName(kv.path), "", Quote(path, kv.line)});
      }
      continue;
    }
    if (kv.path.starts_with(text ? "Processes/" : "processes/")) {
      AddProcessField(dialect, kv, gpu);
      continue;
    }
    for (const FieldSpec& spec : Fields()) {
      const auto& paths = text ? spec.text_paths : spec.xml_paths;
      if (std::find(paths.begin(), paths.end(), kv.path) == paths.end()) continue;
      spec.set(gpu, kv.value);
      if (gpu.Quote(spec.field) == nullptr) {
        gpu.quotes.push_back({std::string(spec.field), "", Quote(path, kv.line)});
      }
      break;
    }
  }
}

}  // namespace gpuwhy::system
