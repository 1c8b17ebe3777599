// SplitMix64: tiny, fast and identical on every platform, unlike <random>'s
// distributions, whose output is implementation-defined. Synth output must be
// byte-identical for a seed.
#pragma once

#include <cstdint>

namespace gpuwhy {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi] (inclusive); lo when hi <= lo.
  int64_t Uniform(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

  // `base` varied by up to ±permille/1000.
  int64_t Jitter(int64_t base, int64_t permille) {
    int64_t spread = base * permille / 1000;
    return base + Uniform(-spread, spread);
  }

 private:
  uint64_t state_;
};

}  // namespace gpuwhy
