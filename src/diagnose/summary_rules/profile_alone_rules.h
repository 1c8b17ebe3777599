// The diagnosis of an Nsight Compute export given alone (issue 36): what measured per-kernel
// numbers decide without a timeline (GEMMs doing FP32 math on the SIMT pipes where tensor
// cores exist, weighed by how much of their time the SMs were busy), the kernels by time with
// their measured bound, and Nsight Compute's own findings beside gpuwhy's.
#pragma once

#include "analyze/profiled_kernels_alone.h"
#include "diagnose/diagnose.h"

namespace gpuwhy {

Diagnosis DiagnoseProfileAlone(const ProfileAloneResult& profile,
                               const DiagnoseOptions& options = {});

}  // namespace gpuwhy
