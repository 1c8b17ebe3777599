// The DCGM fields gpuwhy reads, one table for every DCGM format: the dcgm-exporter name
// (DCGM_FI_*), the short name `dcgmi dmon` prints as a column header ("FBUSD"), and the
// MetricSeries id, unit and scale (docs/metric-series.md).
#pragma once

#include <span>
#include <string_view>

namespace gpuwhy {

struct DcgmField {
  std::string_view name;        // "DCGM_FI_DEV_FB_USED"
  std::string_view short_name;  // "FBUSD"; empty where none is confirmed from DCGM's field list
  std::string_view metric;
  std::string_view unit;
  double scale;  // to the unit: DCGM profiling ratios (0..1) x 100, bytes/s x 1e-6
};

std::span<const DcgmField> DcgmFields();
const DcgmField* FindDcgmField(std::string_view name);
const DcgmField* FindDcgmFieldByShortName(std::string_view short_name);

}  // namespace gpuwhy
