// Parameters of trace rules that other kinds of rules read too: the metric-series memory rule
// and the all-ranks communication rules. The trace families that specify them list them; the
// header sits in the shared core because a rule kind never includes another's internals.
#pragma once

#include "diagnose/param_ref.h"

namespace gpuwhy {

inline constexpr ParamRef kNearCapacityPeakPct{"memory.near_capacity", "peak_pct"};
inline constexpr ParamRef kExposedMinStepPct{"comm.exposed", "min_step_pct"};
inline constexpr ParamRef kExposedDominantPct{"comm.exposed", "dominant_pct"};
inline constexpr ParamRef kBusBwMinBusbwGbps{"comm.low_bus_bandwidth", "min_busbw_gbps"};
inline constexpr ParamRef kBusBwMinMessageBytes{"comm.low_bus_bandwidth", "min_message_bytes"};

}  // namespace gpuwhy
