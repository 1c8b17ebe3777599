#include "model/tables.h"

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
  kind.reserve(rows);
  device.reserve(rows);
  stream.reserve(rows);
  start.reserve(rows);
  end.reserve(rows);
  name.reserve(rows);
  correlation.reserve(rows);
  external_id.reserve(rows);
  bytes.reserve(rows);
  copy_direction.reserve(rows);
  src_kind.reserve(rows);
  dst_kind.reserve(rows);
  launch.reserve(rows);
}

GpuOpTable::Row GpuOpTable::Get(size_t i) const {
  return Row{kind[i],  device[i],         stream[i],   start[i],    end[i],
             name[i],  correlation[i],    external_id[i], bytes[i], copy_direction[i],
             src_kind[i], dst_kind[i], launch[i]};
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
  return CpuSliceId(static_cast<uint32_t>(start.size() - 1));
}

void CpuSliceTable::Reserve(size_t rows) {
  thread.reserve(rows);
  start.reserve(rows);
  end.reserve(rows);
  name.reserve(rows);
  kind.reserve(rows);
  correlation.reserve(rows);
  external_id.reserve(rows);
  input_dims.reserve(rows);
  input_types.reserve(rows);
}

CpuSliceTable::Row CpuSliceTable::Get(size_t i) const {
  return Row{thread[i],      start[i],       end[i],        name[i],       kind[i],
             correlation[i], external_id[i], input_dims[i], input_types[i]};
}

const DeviceTable::Row* DeviceTable::Find(int32_t id) const {
  for (const Row& row : rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

}  // namespace gpuwhy
