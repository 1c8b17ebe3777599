#include "ingest/metrics/dcgm_fields.h"

namespace gpuwhy {
namespace {

// Short names as DCGM's own field table (dcgmlib/src/dcgm_fields.cpp) spells them.
constexpr DcgmField kDcgmFields[] = {
    {"DCGM_FI_DEV_GPU_UTIL", "GPUTL", "gpu.util_pct", "%", 1},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "MCUTL", "gpu.mem_util_pct", "%", 1},
    {"DCGM_FI_DEV_ENC_UTIL", "ECUTL", "gpu.enc_pct", "%", 1},
    {"DCGM_FI_DEV_DEC_UTIL", "DCUTL", "gpu.dec_pct", "%", 1},
    {"DCGM_FI_PROF_SM_ACTIVE", "SMACT", "gpu.sm_active_pct", "%", 100},
    {"DCGM_FI_PROF_SM_OCCUPANCY", "SMOCC", "gpu.sm_occupancy_pct", "%", 100},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "TENSO", "gpu.tensor_active_pct", "%", 100},
    {"DCGM_FI_PROF_DRAM_ACTIVE", "DRAMA", "gpu.dram_active_pct", "%", 100},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "GRACT", "gpu.gr_engine_active_pct", "%", 100},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", "PCITX", "gpu.pcie_tx_mbps", "MB/s", 1e-6},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", "PCIRX", "gpu.pcie_rx_mbps", "MB/s", 1e-6},
    {"DCGM_FI_DEV_SM_CLOCK", "SMCLK", "gpu.sm_clock_mhz", "MHz", 1},
    {"DCGM_FI_DEV_MEM_CLOCK", "MMCLK", "gpu.mem_clock_mhz", "MHz", 1},
    {"DCGM_FI_DEV_MAX_SM_CLOCK", "SMMAX", "gpu.sm_clock_max_mhz", "MHz", 1},
    {"DCGM_FI_DEV_POWER_USAGE", "POWER", "gpu.power_w", "W", 1},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", "PMLMT", "gpu.power_limit_w", "W", 1},
    {"DCGM_FI_DEV_GPU_TEMP", "TMPTR", "gpu.temp_c", "C", 1},
    {"DCGM_FI_DEV_MEMORY_TEMP", "MMTMP", "gpu.mem_temp_c", "C", 1},
    {"DCGM_FI_DEV_SLOWDOWN_TEMP", "SDTMP", "gpu.temp_slowdown_c", "C", 1},
    {"DCGM_FI_DEV_FB_USED", "FBUSD", "gpu.mem_used_mib", "MiB", 1},
    {"DCGM_FI_DEV_FB_FREE", "FBFRE", "gpu.mem_free_mib", "MiB", 1},
    {"DCGM_FI_DEV_FB_TOTAL", "FBTTL", "gpu.mem_total_mib", "MiB", 1},
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DVCCTR", "gpu.throttle_reasons", "bitmask", 1},
    {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "", "gpu.throttle_reasons", "bitmask", 1},
    {"DCGM_FI_DEV_PCIE_LINK_GEN", "", "gpu.pcie_gen", "gen", 1},
    {"DCGM_FI_DEV_PCIE_LINK_WIDTH", "", "gpu.pcie_width", "lanes", 1},
    {"DCGM_FI_DEV_PCIE_MAX_LINK_GEN", "", "gpu.pcie_gen_max", "gen", 1},
    {"DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", "", "gpu.pcie_width_max", "lanes", 1},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "RPCTR", "gpu.pcie_replays", "count", 1},
    {"DCGM_FI_DEV_XID_ERRORS", "", "gpu.xid", "code", 1},
    {"DCGM_FI_DEV_ROW_REMAP_PENDING", "", "gpu.remapped_rows_pending", "bool", 1},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "EDVTL", "gpu.ecc_double_bit", "count", 1},
    {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "ESVTL", "gpu.ecc_single_bit", "count", 1},
};

}  // namespace

std::span<const DcgmField> DcgmFields() { return kDcgmFields; }

const DcgmField* FindDcgmField(std::string_view name) {
  for (const DcgmField& f : kDcgmFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const DcgmField* FindDcgmFieldByShortName(std::string_view short_name) {
  if (short_name.empty()) return nullptr;
  for (const DcgmField& f : kDcgmFields) {
    if (f.short_name == short_name) return &f;
  }
  return nullptr;
}

}  // namespace gpuwhy
