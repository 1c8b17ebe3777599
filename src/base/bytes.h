// Binary byte units, as doubles for the conversions reports print (GiB, MiB).
#pragma once

namespace gpuwhy {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace gpuwhy
