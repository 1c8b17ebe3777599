// What an NVIDIA Xid code means, its likely cause and what to do, for the codes a training
// cluster sees (NVIDIA "Xid Errors" documentation, r555+; docs/knowledge.md §7). The text is ours.
#pragma once

#include <span>
#include <string_view>

#include "diagnose/finding.h"

namespace gpuwhy {

enum class XidCause { kApplication, kDriver, kHardware, kThermalPower, kUnknown };
std::string_view XidCauseName(XidCause cause);  // "application", "driver", …

struct XidInfo {
  int code = 0;
  std::string_view meaning;  // "GSP RPC timeout"
  XidCause cause = XidCause::kUnknown;
  Severity severity = Severity::kMedium;
  std::string_view action;
};

// The entry for |code|; an "unknown Xid" entry for codes outside the catalog.
const XidInfo& LookupXid(int code);
// Every catalogued code, ascending.
std::span<const XidInfo> XidCatalog();

}  // namespace gpuwhy
