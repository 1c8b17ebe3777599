// Typed row and string ids, so a kernel row can never be passed where a thread is expected.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace gpuwhy {

template <typename Tag>
struct StrongId {
  static constexpr uint32_t kInvalidValue = 0xffffffffu;
  uint32_t value = kInvalidValue;

  constexpr StrongId() = default;
  constexpr explicit StrongId(uint32_t v) : value(v) {}
  constexpr bool valid() const { return value != kInvalidValue; }
  constexpr auto operator<=>(const StrongId&) const = default;
};

}  // namespace gpuwhy

template <typename Tag>
struct std::hash<gpuwhy::StrongId<Tag>> {
  size_t operator()(gpuwhy::StrongId<Tag> id) const { return std::hash<uint32_t>()(id.value); }
};
