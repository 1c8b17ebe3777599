// The safety net under every importer: one bad file fails alone, named, instead of the run.
#pragma once

#include <exception>
#include <string_view>
#include <type_traits>

#include "base/status.h"

namespace gpuwhy {

// Runs |read| (returning Status or StatusOr<T>) on the input at |path|. Any std::exception
// escaping it (an importer's bug on bytes it did not expect, an allocation that failed) becomes
// that input's own failure, "PATH: internal error reading the file: WHAT", so the command goes
// on with its other inputs and exits as for any input it could not use.
template <typename Read>
auto GuardedRead(std::string_view path, Read&& read) -> std::invoke_result_t<Read&> {
  try {
    return read();
  } catch (const std::exception& e) {
    return Internal("{}: internal error reading the file: {}", path, e.what());
  }
}

}  // namespace gpuwhy
