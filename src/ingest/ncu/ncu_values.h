// Nsight Compute's printed values and units: "8,382.70" with thousands separators (the default
// --print-units base output of the details and raw pages), and units made of an optional SI
// prefix and a known noun, optionally per another ("Kbyte", "usecond", "Gbyte/second",
// "cycle/nsecond", "register/thread").
#pragma once

#include <optional>
#include <string_view>

namespace gpuwhy {

// "19,200" -> 19200, "8,382.70" -> 8382.7, "-1.5e+03" -> -1500; nullopt for text ("n/a",
// "cudaFuncCachePreferNone", "(256, 1, 1)") and for misplaced separators ("1,2").
std::optional<double> ParseNcuNumber(std::string_view text);

// What one |unit| is worth in its base unit (bytes, nanoseconds, hertz, bytes per second, per
// nanosecond for "x/nsecond" -> per second): "Kbyte" -> 1e3, "usecond" -> 1e3, "Gbyte/second"
// -> 1e9, "cycle/nsecond" -> 1e9, "%" -> 1, "" -> 1; nullopt for a unit gpuwhy does not know.
std::optional<double> NcuUnitScale(std::string_view unit);

}  // namespace gpuwhy
