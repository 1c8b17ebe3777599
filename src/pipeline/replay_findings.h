// Puts the replay's what-if savings beside the findings whose fix they model.
#pragma once

#include "diagnose/diagnose.h"
#include "replay/replay.h"

namespace gpuwhy {

// Sets Finding::replayed_saving_ns_per_step on every finding of |diagnosis| whose fix family
// has a what-if in |replay| (input waits, synchronizations, launch overhead).
void AttachReplayedSavings(const ReplayResult& replay, Diagnosis& diagnosis);

}  // namespace gpuwhy
