#include "model/tables.h"

#include "base/huge_pages.h"

namespace gpuwhy {

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
  bytes.push_back(row.bytes);
  copy_direction.push_back(row.copy_direction);
  src_kind.push_back(row.src_kind);
  dst_kind.push_back(row.dst_kind);
  launch.push_back(row.launch);
  return GpuOpId(static_cast<uint32_t>(start.size() - 1));
}

void GpuOpTable::Reserve(size_t rows) {
  ReserveWithHugePages(kind, rows);
  ReserveWithHugePages(device, rows);
  ReserveWithHugePages(stream, rows);
  ReserveWithHugePages(start, rows);
  ReserveWithHugePages(end, rows);
  ReserveWithHugePages(name, rows);
  ReserveWithHugePages(correlation, rows);
  ReserveWithHugePages(external_id, rows);
  ReserveWithHugePages(bytes, rows);
  ReserveWithHugePages(copy_direction, rows);
  ReserveWithHugePages(src_kind, rows);
  ReserveWithHugePages(dst_kind, rows);
  ReserveWithHugePages(launch, rows);
}

GpuOpTable::Row GpuOpTable::Get(size_t i) const {
  return Row{kind[i],     device[i],      stream[i],      start[i], end[i],
             name[i],     correlation[i], external_id[i], bytes[i], copy_direction[i],
             src_kind[i], dst_kind[i],    launch[i]};
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
  ReserveWithHugePages(correlation, rows);
  ReserveWithHugePages(external_id, rows);
  ReserveWithHugePages(input_dims, rows);
  ReserveWithHugePages(input_types, rows);
  ReserveWithHugePages(concrete_inputs, rows);
  ReserveWithHugePages(flops, rows);
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
