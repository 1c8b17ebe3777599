// The platform diagnosis of `gpuwhy doctor`: platform.* findings with quoted log lines and
// the platform checklist (what was checked, what could not be and the command that captures
// it), from SystemFacts. No trace needed; merge into a trace's diagnosis with MergeDiagnosis.
#pragma once

#include <string>
#include <vector>

#include "diagnose/diagnose.h"
#include "model/system_facts.h"

namespace gpuwhy {

Diagnosis DiagnoseSystemFacts(const SystemFacts& facts, const DiagnoseOptions& options = {});

// GPUs of one topology matrix that make good communication groups: maximal sets whose every
// pair is connected by NVLink, or else by a PCIe switch (PIX/PXB), e.g. {"GPU0".."GPU7"}
// on an NVSwitch node. GPUs without such a partner are left out.
struct CommunicationGroup {
  std::vector<std::string> gpus;
  std::string link;  // "NV18", "PIX/PXB"
};
std::vector<CommunicationGroup> FindCommunicationGroups(const TopoMatrix& matrix);

}  // namespace gpuwhy
