// Asks the kernel to back a large, not yet touched buffer with transparent huge pages.
// Importing a multi-GB trace otherwise spends a quarter of its time in 4 KB page faults.
#pragma once

#include <cstddef>
#include <vector>

namespace gpuwhy {

// No-op for small buffers, on systems without madvise, or when THP is disabled.
void AdviseHugePages(const void* data, size_t bytes);

template <typename T>
void ReserveWithHugePages(std::vector<T>& column, size_t rows) {
  column.reserve(rows);
  AdviseHugePages(column.data(), column.capacity() * sizeof(T));
}

}  // namespace gpuwhy
