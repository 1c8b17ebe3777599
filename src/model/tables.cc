#include "model/tables.h"

#include "base/huge_pages.h"

namespace gpuwhy {
namespace {

template <typename T>
size_t VectorBytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

}  // namespace

ThreadId ThreadTable::Append(const Row& row) {
  pid.push_back(row.pid);
  tid.push_back(row.tid);
  name.push_back(row.name);
  return ThreadId(static_cast<uint32_t>(pid.size() - 1));
}

GpuOpId GpuOpTable::Append(const Row& row) {
  kind.push_back(row.kind);
  device.push_back(row.device);
  stream.push_back(row.stream);
  start.push_back(row.start);
  end.push_back(row.end);
  name.push_back(row.name);
  correlation.push_back(row.correlation);
  external_id.push_back(row.external_id);
  detail.push_back(
      detail_pool.Intern({row.launch, row.bytes, row.copy_direction, row.src_kind, row.dst_kind}));
  return GpuOpId(static_cast<uint32_t>(start.size() - 1));
}

void GpuOpTable::Reserve(size_t rows) {
  ReserveWithHugePages(kind, rows);
  device.reserve(rows);
  stream.reserve(rows);
  ReserveWithHugePages(start, rows);
  ReserveWithHugePages(end, rows);
  ReserveWithHugePages(name, rows);
  correlation.reserve(rows);
  external_id.reserve(rows);
  ReserveWithHugePages(detail, rows);
}

size_t GpuOpTable::ColumnBytes() const {
  return VectorBytes(kind) + device.bytes() + stream.bytes() + VectorBytes(start) +
         VectorBytes(end) + VectorBytes(name) + correlation.bytes() + external_id.bytes() +
         VectorBytes(detail) + detail_pool.size() * sizeof(GpuOpDetail);
}

GpuOpTable::Row GpuOpTable::Get(size_t i) const {
  const GpuOpDetail& d = detail_pool[detail[i]];
  return Row{kind[i],    device[i],      stream[i],      start[i], end[i],
             name[i],    correlation[i], external_id[i], d.bytes,  d.copy_direction,
             d.src_kind, d.dst_kind,     d.launch};
}

CpuSliceId CpuSliceTable::Append(const Row& row) {
  thread.push_back(row.thread);
  start.push_back(row.start);
  end.push_back(row.end);
  name.push_back(row.name);
  kind.push_back(row.kind);
  correlation.push_back(row.correlation);
  external_id.push_back(row.external_id);
  input_dims.push_back(row.input_dims);
  input_types.push_back(row.input_types);
  concrete_inputs.push_back(row.concrete_inputs);
  flops.push_back(row.flops);
  return CpuSliceId(static_cast<uint32_t>(start.size() - 1));
}

void CpuSliceTable::Reserve(size_t rows) {
  ReserveWithHugePages(thread, rows);
  ReserveWithHugePages(start, rows);
  ReserveWithHugePages(end, rows);
  ReserveWithHugePages(name, rows);
  ReserveWithHugePages(kind, rows);
  correlation.reserve(rows);
  external_id.reserve(rows);
  input_dims.reserve(rows);
  input_types.reserve(rows);
  concrete_inputs.reserve(rows);
  flops.reserve(rows);
}

size_t CpuSliceTable::ColumnBytes() const {
  return VectorBytes(thread) + VectorBytes(start) + VectorBytes(end) + VectorBytes(name) +
         VectorBytes(kind) + correlation.bytes() + external_id.bytes() + input_dims.bytes() +
         input_types.bytes() + concrete_inputs.bytes() + flops.bytes() + VectorBytes(depth) +
         VectorBytes(parent);
}

CpuSliceTable::Row CpuSliceTable::Get(size_t i) const {
  return Row{thread[i],      start[i],           end[i],         name[i],
             kind[i],        correlation[i],     external_id[i], input_dims[i],
             input_types[i], concrete_inputs[i], flops[i]};
}

const DeviceTable::Row* DeviceTable::Find(int32_t id) const {
  for (const Row& row : rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

}  // namespace gpuwhy
