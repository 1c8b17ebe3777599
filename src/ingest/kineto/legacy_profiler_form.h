// The legacy Chrome-trace form written by torch.profiler when PyTorch is built without Kineto
// (Debian's python3-torch 1.13, CPU builds): a bare JSON array of complete events with no
// "cat", pid "CPU functions", tid the thread number and "args": {} (this export writes no
// shapes even with record_shapes=True; shapes are read when a writer adds "Input Dims").
// Names alone tell the kinds apart: record_function scopes (ProfilerStep#N,
// enumerate(DataLoader)#..., Optimizer.step#SGD.step, user scopes) versus operators.
#pragma once

#include <string_view>

#include "ingest/kineto/kineto_event.h"
#include "model/tables.h"

namespace gpuwhy {

// The pid every event of the legacy export carries.
inline constexpr std::string_view kLegacyProfilerPid = "CPU functions";

// True for an event of the legacy export: no category, pid "CPU functions".
bool IsLegacyProfilerEvent(const KinetoEvent& event);

// What the modern profiler would have called it: a user annotation for record_function
// scopes ("Name#detail" or no "::" and not an autograd node), an op for the rest.
CpuSliceKind LegacyProfilerSliceKind(std::string_view name);

}  // namespace gpuwhy
