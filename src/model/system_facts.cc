#include "model/system_facts.h"

#include <array>

namespace gpuwhy {

const TopoRow* TopoMatrix::Row(std::string_view name) const {
  for (const TopoRow& row : rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

int TopoMatrix::Column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

const SourceQuote* GpuState::Quote(std::string_view field) const {
  for (const NameValue& q : quotes) {
    if (q.name == field) return &q.quote;
  }
  return nullptr;
}

bool SystemFacts::HasInput(std::string_view format) const {
  for (const SystemInput& input : inputs) {
    if (input.format == format) return true;
  }
  return false;
}

const NameValue* SystemFacts::Setting(std::string_view name) const {
  // The last assignment wins, as in a shell.
  for (auto it = settings.rbegin(); it != settings.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

std::string_view TopoLinkKindName(TopoLinkKind kind) {
  static constexpr std::array<std::string_view, 9> kNames = {"X",    "NV#", "PIX",   "PXB",  "PHB",
                                                             "NODE", "SYS", "other", "empty"};
  return kNames[static_cast<size_t>(kind)];
}

std::string_view NcclTransportName(NcclTransport transport) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "P2P", "SHM", "NET/IB", "NET/Socket", "NET/plugin", "CollNet", "NVLS", "other"};
  return kNames[static_cast<size_t>(transport)];
}

std::string_view PcieDeviceKindName(PcieDeviceKind kind) {
  static constexpr std::array<std::string_view, 5> kNames = {"GPU", "NIC", "bridge", "other",
                                                             "unknown"};
  return kNames[static_cast<size_t>(kind)];
}

}  // namespace gpuwhy
