#include "ingest/kineto/legacy_profiler_form.h"

namespace gpuwhy {
namespace {

// AddmmBackward0, MseLossBackward0, CopyBackwards: an autograd node's name.
bool IsAutogradNodeName(std::string_view name) {
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  if (!name.empty() && name.back() == 's') name.remove_suffix(1);
  constexpr std::string_view kSuffix = "Backward";
  return name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix;
}

}  // namespace

bool IsLegacyProfilerEvent(const KinetoEvent& event) {
  return event.cat.empty() && event.pid.present && !event.pid.is_number &&
         event.pid.text == kLegacyProfilerPid;
}

CpuSliceKind LegacyProfilerSliceKind(std::string_view name) {
  // record_function scopes the profiler itself opens are "Kind#detail": ProfilerStep#6,
  // enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, Optimizer.step#SGD.step.
  if (name.find('#') != std::string_view::npos) return CpuSliceKind::kUserAnnotation;
  // Operators are namespaced (aten::mm, c10d::allreduce_, autograd::engine::...); autograd
  // nodes (AddmmBackward0) are ops in the modern profiler too.
  if (name.find("::") != std::string_view::npos) return CpuSliceKind::kOp;
  if (IsAutogradNodeName(name)) return CpuSliceKind::kOp;
  // Anything else is a user's record_function("name") scope.
  return CpuSliceKind::kUserAnnotation;
}

}  // namespace gpuwhy
