// Test helper: every field of a KinetoEvent on one line, so that what two readers made of an
// event compares with one EXPECT_EQ.
#pragma once

#include <string>
#include <string_view>

#include "ingest/kineto/kineto_event.h"

namespace gpuwhy::kineto_test {

inline std::string Describe(const KinetoEvent& e) {
  const KinetoArgs& a = e.args;
  const LaunchConfig& l = a.launch;
  std::string s = std::string(1, e.ph) + "|" + std::string(e.cat) + "|" + std::string(e.name) +
                  "|" + std::to_string(e.pid.present) + std::to_string(e.pid.is_number) + ":" +
                  std::to_string(e.pid.number) + ":" + std::string(e.pid.text) + "|" +
                  std::to_string(e.tid.present) + std::to_string(e.tid.is_number) + ":" +
                  std::to_string(e.tid.number) + ":" + std::string(e.tid.text) + "|" +
                  std::string(e.ts) + "|" + std::string(e.dur) + "|" + std::to_string(e.flow_id) +
                  "|" + std::to_string(e.has_args);
  for (int64_t v : {a.device, a.stream, a.correlation, a.external_id, a.bytes, a.in_nelems,
                    a.out_nelems, a.group_size, a.sequence, a.device_type, a.device_id, a.addr,
                    a.total_allocated, a.total_reserved, a.wait_on_stream,
                    a.wait_on_event_correlation, l.graph_id, l.graph_node_id}) {
    s += "|" + std::to_string(v);
  }
  for (int32_t v : {l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                    l.registers_per_thread, l.shared_memory_bytes, l.queued}) {
    s += "|" + std::to_string(v);
  }
  for (float v : {l.blocks_per_sm, l.warps_per_sm, l.occupancy_pct}) s += "|" + std::to_string(v);
  for (std::string_view v :
       {a.collective_name, a.dtype, a.process_group_name, a.process_group_desc, a.in_split_sizes,
        a.out_split_sizes, a.input_dims, a.input_types, a.name}) {
    s += "|" + std::string(v);
  }
  return s;
}

}  // namespace gpuwhy::kineto_test
