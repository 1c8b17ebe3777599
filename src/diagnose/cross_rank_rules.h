// The job-wide diagnosis from the cross-rank analysis: comm.straggler, comm.poor_scaling and
// the all-ranks versions of comm.exposed and comm.low_bus_bandwidth. Findings carry rank -1
// (the job) except comm.straggler, which names the late rank.
#pragma once

#include "diagnose/diagnose.h"
#include "ranks/cross_rank.h"

namespace gpuwhy {

// A Diagnosis whose step reference is the median rank's median step; outcomes cover the
// four rules above; notes repeat the cross-rank warnings about mixed inputs.
Diagnosis DiagnoseCrossRank(const CrossRankResult& result, const DiagnoseOptions& options = {});

}  // namespace gpuwhy
