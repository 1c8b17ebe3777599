// The share a part is of a whole, in percent: the one definition every analysis and
// renderer uses, so that "x % of y" means the same everywhere.
#pragma once

namespace gpuwhy {

// 100 · part / whole; 0 when the whole is not positive (an empty window has no shares).
template <typename Part, typename Whole>
constexpr double PercentOf(Part part, Whole whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace gpuwhy
