#include "ingest/kineto/kineto_top_level.h"

#include <string>

#include "base/time.h"
#include "ingest/kineto/kineto_event_parser.h"

namespace gpuwhy {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

std::string ReadText(value v) {
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  int64_t n = 0;
  if (ReadInt(v, n)) return std::to_string(n);
  return {};
}

bool IsAmdName(std::string_view name) {
  return name.find("AMD") != std::string_view::npos ||
         name.find("Radeon") != std::string_view::npos ||
         name.find("Instinct") != std::string_view::npos ||
         name.find("gfx") != std::string_view::npos;
}

}  // namespace

void KinetoTopLevelReader::Read(std::string_view key, std::string_view value_json) {
  // On-Demand cannot hand out a scalar document as a value: wrap every member in an array.
  wrapped_.assign("[");
  wrapped_.append(value_json);
  wrapped_.append("]");
  wrapped_.reserve(wrapped_.size() + simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::document doc;
  simdjson::ondemand::array array;
  value v;
  bool ok = !parser_
                 .iterate(simdjson::padded_string_view(wrapped_.data(), wrapped_.size(),
                                                       wrapped_.capacity()))
                 .get(doc) &&
            !doc.get_array().get(array);
  if (ok) {
    auto first = array.begin();
    ok = first != array.end() && !(*first).get(v);
  }
  TraceMetadata& m = trace_.metadata;
  if (ok) {
    if (key == "deviceProperties" || key == "computeProperties") {
      ok = ReadDevices(v);
    } else if (key == "distributedInfo") {
      ok = ReadDistributedInfo(v);
    } else if (key == "baseTimeNanoseconds") {
      int64_t base = 0;
      ok = ReadInt(v, base);
      if (ok) m.base_time_ns = base;
      m.schema = SchemaGeneration::kModern;
    } else if (key == "schemaVersion") {
      int64_t version = 0;
      if (ReadInt(v, version)) m.schema_version = version;
    } else if (key == "traceName") {
      m.trace_name = ReadText(v);
    } else {
      json_type type;
      if (!v.type().get(type) && type != json_type::array && type != json_type::object) {
        m.extra[std::string(key)] = ReadText(v);
      }
      if (key == "roctracer_version" || key == "hip_runtime_version") {
        builder_.NoteVendorHint(GpuVendor::kAmd);
      }
    }
  }
  if (!ok) {
    trace_.problems.Add(DataProblem::kTopLevelNotObject, "member \"" + std::string(key) + "\"");
  }
}

bool KinetoTopLevelReader::ReadDevices(value v) {
  simdjson::ondemand::array devices;
  if (v.get_array().get(devices)) return false;
  for (auto element : devices) {
    simdjson::ondemand::object object;
    if (element.get_object().get(object)) return false;
    DeviceTable::Row row;
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return false;
      value f;
      if (field.value().get(f)) return false;
      int64_t n = 0;
      if (key == "name") {
        std::string_view name;
        if (!f.get_string().get(name)) {
          row.name = trace_.strings.Intern(name);
          if (IsAmdName(name)) builder_.NoteVendorHint(GpuVendor::kAmd);
        }
      } else if (!ReadInt(f, n)) {
        continue;
      } else if (key == "id") {
        row.id = static_cast<int32_t>(n);
      } else if (key == "totalGlobalMem") {
        row.total_memory_bytes = n;
      } else if (key == "numSms") {
        row.sm_count = static_cast<int32_t>(n);
      } else if (key == "computeMajor") {
        row.compute_major = static_cast<int32_t>(n);
      } else if (key == "computeMinor") {
        row.compute_minor = static_cast<int32_t>(n);
      } else if (key == "maxThreadsPerMultiprocessor") {
        row.max_threads_per_sm = static_cast<int32_t>(n);
      } else if (key == "regsPerMultiprocessor") {
        row.registers_per_sm = static_cast<int32_t>(n);
      } else if (key == "sharedMemPerMultiprocessor") {
        row.shared_memory_per_sm = n;
      } else if (key == "warpSize") {
        row.warp_size = static_cast<int32_t>(n);
      }
    }
    trace_.devices.rows.push_back(row);
  }
  return true;
}

bool KinetoTopLevelReader::ReadDistributedInfo(value v) {
  simdjson::ondemand::object object;
  if (v.get_object().get(object)) return false;
  RankInfo& r = trace_.rank;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    value f;
    if (field.value().get(f)) return false;
    if (key == "rank") {
      if (ReadInt(f, r.rank)) r.source = RankSource::kDistributedInfo;
    } else if (key == "world_size") {
      ReadInt(f, r.world_size);
    } else if (key == "backend") {
      r.backend = ReadText(f);
    } else if (key == "nccl_version") {
      r.nccl_version = ReadText(f);
    } else if (key == "pg_config") {
      simdjson::ondemand::array groups;
      if (f.get_array().get(groups)) continue;
      for (auto g : groups) {
        simdjson::ondemand::object group;
        if (g.get_object().get(group)) break;
        ProcessGroup pg;
        for (auto gf : group) {
          std::string_view gkey;
          if (gf.unescaped_key().get(gkey)) break;
          value gv;
          if (gf.value().get(gv)) break;
          if (gkey == "pg_name")
            pg.name = ReadText(gv);
          else if (gkey == "pg_desc")
            pg.description = ReadText(gv);
          else if (gkey == "backend_config")
            pg.backend_config = ReadText(gv);
          else if (gkey == "pg_size")
            ReadInt(gv, pg.size);
          else if (gkey == "ranks") {
            simdjson::ondemand::array ranks;
            if (gv.get_array().get(ranks)) continue;
            for (auto rv : ranks) {
              value item;
              int64_t n = 0;
              if (!rv.get(item) && ReadInt(item, n)) pg.ranks.push_back(n);
            }
          }
        }
        r.process_groups.push_back(std::move(pg));
      }
    }
  }
  if (r.rank == kNoValue) r.source = RankSource::kUnknown;
  return true;
}

}  // namespace gpuwhy
