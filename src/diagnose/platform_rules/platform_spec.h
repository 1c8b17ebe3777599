// What the specs of gpuwhy doctor's platform rules share: the spec skeleton (class and
// checklist section platform, nothing recoverable) and the commands that capture each fact.
#pragma once

#include <string>
#include <vector>

#include "diagnose/catalog.h"

namespace gpuwhy {

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
  std::string item;                     // its item of gpuwhy doctor's checklist
  std::vector<ChecklistRef> also = {};  // other checklists' items
  // A transport or network failure of NCCL, or a slow fabric, is the communication class:
  // what it costs is collective time, however the platform causes it.
  BottleneckClass cls = BottleneckClass::kPlatform;
};

// A platform rule feeds gpuwhy doctor's checklist and the trace checklist's platform item.
inline RuleSpec PlatformSpec(PlatformRuleText t) {
  t.also.insert(t.also.begin(), {{Checklist::kDoctor, std::move(t.item)},
                                 {Checklist::kTrace, kPlatformChecklistItem}});
  return RuleSpec{
      .id = std::move(t.id),
      .bottleneck_class = t.cls,
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
      .checklist = std::move(t.also),
  };
}

inline constexpr const char* kKernelLog =
    "sudo dmesg -T > dmesg.txt  (or: journalctl -k -o short-iso > kern.txt)";
inline constexpr const char* kLspci = "sudo lspci -vvv > lspci.txt";
inline constexpr const char* kTopo = "nvidia-smi topo -m > topo.txt";
inline constexpr const char* kNccl = "NCCL_DEBUG=INFO python train.py 2>&1 | tee nccl.log";
inline constexpr const char* kQuery = "nvidia-smi -q > nvidia-smi-q.txt  (or -q -x for XML)";
inline constexpr const char* kEnv =
    "env > env.txt (in the job's shell); gpuwhy doctor on the node reads /proc and /sys";

}  // namespace gpuwhy
