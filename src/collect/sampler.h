// One interface for every live sampler (NVML, procfs/sysfs): probe once what the machine
// offers, then read a sample per tick into the store. Metrics a machine lacks are skipped,
// not zero-filled; what was skipped and why is kept as notes for the report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collect/sample_store.h"
#include "model/metric_series.h"

namespace gpuwhy {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string_view name() const = 0;
  // Called once before the first Sample: finds what can be read. An error means the
  // sampler has nothing to offer (its message goes to the notes); the others still run.
  virtual Status Probe() = 0;
  // Reads one sample at |now| (CLOCK_REALTIME ns) into |store|.
  virtual void Sample(TimeNs now, SampleStore& store) = 0;
  // Devices it found (GPUs), and what it skipped.
  virtual std::vector<SeriesDevice> devices() const { return {}; }
  virtual std::vector<std::string> notes() const { return {}; }
};

}  // namespace gpuwhy
