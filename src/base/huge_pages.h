// Page faults are a large part of importing big traces: these ask the kernel to back large
// buffers with transparent huge pages, and the allocator to reuse freed memory.
#pragma once

#include <cstddef>
#include <vector>

namespace gpuwhy {

// Keeps memory the process frees for its next allocations instead of handing it back to the
// kernel. glibc serves blocks above its mmap threshold (at most 32 MiB) with a fresh mapping
// and unmaps them on free, so every column, sort order and scratch buffer of an import is
// faulted in page by page again; in virtual machines a fault costs microseconds (an Nsight
// import ran 1.35x faster with this, bench/nsys_ingest_bench). Peak memory is unchanged; the
// process keeps its peak until it exits. Called once by main() and by the import benchmarks.
void KeepFreedMemoryForReuse();

// Hands the pages of freed heap memory back to the kernel (glibc: malloc_trim). For the point
// where one phase's scratch is done and the next allocates differently: the pipeline calls it
// before a report is rendered, whose large output buffers find no room among the analyses'
// freed blocks and would otherwise raise the peak above the analysis's (1 GB trace: 18 MB).
void ReturnFreedMemory();

// No-op for small buffers, on systems without madvise, or when THP is disabled.
void AdviseHugePages(const void* data, size_t bytes);

template <typename T>
void ReserveWithHugePages(std::vector<T>& column, size_t rows) {
  column.reserve(rows);
  AdviseHugePages(column.data(), column.capacity() * sizeof(T));
}

}  // namespace gpuwhy
