#include "synth/nsys_writer.h"

#include <fmt/format.h>

#include <cstdio>

namespace gpuwhy {
namespace {

// Layout of Nsight Systems 2022.1 (export schema 2.9), the columns gpuwhy reads plus the
// NOT NULL ones around them; docs/nsys.md lists what each maps to.
constexpr const char* kSchema = R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  totalMemory INTEGER, smCount INTEGER, cuDevice INTEGER, threadsPerWarp INTEGER,
  maxWarpsPerSm INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,
  pc INTEGER, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,
  memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER);
)sql";

constexpr const char* kInserts[] = {
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, 1, "
    "1, ?, 0, NULL)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, ?, 1, ?, ?, ?, 0, ?, 2)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (?, ?, 1, ?, ?, ?, 0)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, ?, 1, ?, ?, ?, 3, 4294967295)",
    "INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, NULL, NULL, ?, ?, NULL, NULL, 0)",
    "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?, ?, ?, 1, ?, 0, ?, 2, 0, NULL, NULL)",
    "INSERT INTO ThreadNames VALUES (?, 0, ?)",
};

// globalTid as every export encodes it: VM 1 above the pid (bits 24..47) and tid (0..23).
constexpr int64_t kVmBits = int64_t{1} << 48;

// The export's copyKind and memory kind values (docs/nsys.md) from a Kineto-style name.
int64_t CopyKindOf(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos) return 1;
  if (name.find("DtoH") != std::string_view::npos) return 2;
  if (name.find("DtoD") != std::string_view::npos) return 8;
  if (name.find("HtoH") != std::string_view::npos) return 9;
  if (name.find("PtoP") != std::string_view::npos) return 10;
  return 0;
}
int64_t MemKindOf(std::string_view word) {
  if (word == "Pageable") return 0;
  if (word == "Pinned") return 1;
  if (word == "Device") return 2;
  if (word == "Array") return 3;
  if (word == "Managed") return 4;
  return 7;
}
std::pair<int64_t, int64_t> EndpointsOf(std::string_view name) {
  size_t open = name.find('(');
  size_t arrow = name.find(" -> ");
  size_t close = name.rfind(')');
  if (open == std::string_view::npos || arrow == std::string_view::npos ||
      close == std::string_view::npos || !(open < arrow && arrow < close)) {
    return {7, 7};
  }
  return {MemKindOf(name.substr(open + 1, arrow - open - 1)),
          MemKindOf(name.substr(arrow + 4, close - arrow - 4))};
}

// nsys's shortName: the function name without "void ", template arguments or parameters.
std::string_view ShortName(std::string_view name) {
  if (name.substr(0, 5) == "void ") name.remove_prefix(5);
  size_t cut = name.find_first_of("<(");
  return cut == std::string_view::npos ? name : name.substr(0, cut);
}

// nsys tags API names with the version that introduced them.
std::string VersionedApiName(std::string_view name) {
  return fmt::format("{}_v{}", name, name == "cudaLaunchKernel" ? 7000 : 3020);
}

}  // namespace

NsysWriter::~NsysWriter() {
  for (sqlite3_stmt* stmt : insert_) sqlite3_finalize(stmt);
  if (db_ != nullptr) sqlite3_close(db_);
}

void NsysWriter::Fail(std::string_view what) {
  if (!status_.ok()) return;
  status_ = IoError("{}: sqlite: {}: {}", path_, what, db_ ? sqlite3_errmsg(db_) : "cannot open");
}

void NsysWriter::Exec(const char* sql) {
  if (!status_.ok()) return;
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    status_ = IoError("{}: sqlite: {}", path_, error ? error : "exec failed");
  }
  sqlite3_free(error);
}

void NsysWriter::Begin(const DocumentInfo& info) {
  info_ = info;
  std::remove(path_.c_str());
  if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    Fail("open");
    return;
  }
  // A generated file: no journal and no fsync; a crash just means writing it again.
  Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
  Exec(kSchema);
  Exec("BEGIN");
  for (int i = 0; i < kInsertCount && status_.ok(); ++i) {
    if (sqlite3_prepare_v2(db_, kInserts[i], -1, &insert_[i], nullptr) != SQLITE_OK)
      Fail(kInserts[i]);
  }
}

int64_t NsysWriter::GlobalTid(int pid, int tid) const {
  return kVmBits | (static_cast<int64_t>(pid) << 24) | static_cast<int64_t>(tid);
}

int64_t NsysWriter::StringIdOf(std::string_view text) {
  auto it = string_ids_.find(std::string(text));
  if (it != string_ids_.end()) return it->second;
  int64_t id = static_cast<int64_t>(string_ids_.size());
  string_ids_.emplace(std::string(text), id);
  return id;
}

void NsysWriter::Row(Insert which, std::initializer_list<int64_t> values) {
  if (!status_.ok()) return;
  sqlite3_stmt* stmt = insert_[which];
  int i = 1;
  for (int64_t v : values) sqlite3_bind_int64(stmt, i++, v);
  if (sqlite3_step(stmt) != SQLITE_DONE) Fail(kInserts[which]);
  sqlite3_reset(stmt);
}

void NsysWriter::Span(EventCat cat, std::string_view name, int pid, int tid, TimeNs ts,
                      DurationNs dur, int64_t, std::string_view) {
  ++counts_[static_cast<int>(cat)];
  // Python frames go in as NVTX ranges too, as `nsys --python-functions-trace` records them.
  if (!status_.ok()) return;
  // PyTorch's NVTX ranges carry unregistered text, as the real exports show.
  sqlite3_stmt* stmt = insert_[kNvtx];
  sqlite3_bind_int64(stmt, 1, ts);
  sqlite3_bind_int64(stmt, 2, ts + dur);
  sqlite3_bind_text(stmt, 3, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(stmt, 4, GlobalTid(pid, tid));
  if (sqlite3_step(stmt) != SQLITE_DONE) Fail("NVTX_EVENTS");
  sqlite3_reset(stmt);
}

void NsysWriter::Runtime(std::string_view name, int, int pid, int tid, TimeNs ts, DurationNs dur,
                         int64_t, int64_t correlation) {
  ++counts_[static_cast<int>(EventCat::kCudaRuntime)];
  int64_t name_id = StringIdOf(VersionedApiName(name));
  Row(kRuntime, {ts, ts + dur, GlobalTid(pid, tid), correlation, name_id});
}

void NsysWriter::Driver(std::string_view name, int, int pid, int tid, TimeNs ts, DurationNs dur,
                        int64_t, int64_t correlation) {
  ++counts_[static_cast<int>(EventCat::kCudaDriver)];
  Row(kDriver, {ts, ts + dur, GlobalTid(pid, tid), correlation, StringIdOf(name)});
}

void NsysWriter::FlowStart(int, int, TimeNs, int64_t) {
  ++counts_[static_cast<int>(EventCat::kAc2g)];
}
void NsysWriter::FlowEnd(int, int, TimeNs, int64_t) {
  ++counts_[static_cast<int>(EventCat::kAc2g)];
}

void NsysWriter::Kernel(const KernelSpec& spec, int device, int stream, TimeNs ts, DurationNs dur,
                        int64_t, int64_t correlation, std::string_view) {
  ++counts_[static_cast<int>(EventCat::kKernel)];
  if (gpu_metrics_) gpu_metrics_->AddKernel(spec, device, ts, dur);
  auto [it, inserted] = kernel_names_.try_emplace(spec.name.data());
  if (inserted) {
    it->second = StringIdOf(spec.name);
    kernel_short_names_[spec.name.data()] = StringIdOf(ShortName(spec.name));
  }
  Row(kKernel, {ts, ts + dur, device, stream, correlation, GlobalTid(info_.pid, 0), it->second,
                kernel_short_names_[spec.name.data()], spec.registers, spec.grid_x, spec.block_x,
                spec.shared_memory});
}

void NsysWriter::Copy(EventCat cat, std::string_view name, int device, int stream, TimeNs ts,
                      DurationNs dur, int64_t, int64_t correlation, int64_t bytes) {
  ++counts_[static_cast<int>(cat)];
  if (cat == EventCat::kGpuMemset) {
    Row(kMemset, {ts, ts + dur, device, stream, correlation, GlobalTid(info_.pid, 0), bytes});
    return;
  }
  auto [src, dst] = EndpointsOf(name);
  Row(kMemcpy, {ts, ts + dur, device, stream, correlation, GlobalTid(info_.pid, 0), bytes,
                CopyKindOf(name), src, dst});
}

void NsysWriter::CudaSync(int device, int stream, TimeNs ts, DurationNs dur, int64_t,
                          int64_t correlation) {
  ++counts_[static_cast<int>(EventCat::kCudaSync)];
  Row(kSync, {ts, ts + dur, device, stream, correlation, GlobalTid(info_.pid, 0)});
}

// nsys sees the driver, not PyTorch's caching allocator: a cudaMalloc each time the
// allocator's reserved memory grows.
void NsysWriter::MemoryInstant(int pid, int, TimeNs ts, int device, uint64_t, int64_t, int64_t,
                               int64_t total_reserved) {
  ++counts_[static_cast<int>(EventCat::kCpuInstant)];
  if (reserved_ < 0) {
    reserved_ = total_reserved;  // what the process held before the capture
    return;
  }
  if (total_reserved <= reserved_) return;
  int64_t grown = total_reserved - reserved_;
  reserved_ = total_reserved;
  Row(kMemory, {ts, GlobalTid(pid, 0), device, static_cast<int64_t>(next_segment_), grown});
  next_segment_ += static_cast<uint64_t>(grown);
}

void NsysWriter::GpuAnnotation(std::string_view, int, int, TimeNs, DurationNs, int64_t) {
  // nsys has no projection of host ranges onto streams: counted, not written.
  ++counts_[static_cast<int>(EventCat::kGpuUserAnnotation)];
}

void NsysWriter::Metadata(std::string_view kind, int pid, int tid, TimeNs, std::string_view,
                          std::string_view value_json) {
  if (pid != info_.pid) return;  // GPU "processes" of the Kineto view
  std::string_view value = value_json;
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  if (kind == "thread_name") Row(kThreadName, {StringIdOf(value), GlobalTid(pid, tid)});
  if (kind == "process_name") info_.trace_name = std::string(value);
}

Status NsysWriter::Finish(TimeNs trace_start, TimeNs trace_end) {
  if (!status_.ok()) return status_;
  if (gpu_metrics_) {
    if (Status s = gpu_metrics_->Write(db_, trace_start, trace_end); !s.ok()) {
      status_ = IoError("{}: {}", path_, s.message());
      return status_;
    }
  }
  sqlite3_stmt* strings = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT INTO StringIds VALUES (?, ?)", -1, &strings, nullptr) !=
      SQLITE_OK) {
    Fail("StringIds");
    return status_;
  }
  for (const auto& [text, id] : string_ids_) {
    sqlite3_bind_int64(strings, 1, id);
    sqlite3_bind_text(strings, 2, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    if (sqlite3_step(strings) != SQLITE_DONE) Fail("StringIds");
    sqlite3_reset(strings);
  }
  sqlite3_finalize(strings);
  std::string meta = fmt::format(
      "INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'), "
      "('EXPORT_PRODUCT_VERSION', '2022.1.3.3'), ('EXPORT_SCHEMA_VERSION', '2.9.1'), "
      "('EXPORT_SCHEMA_VERSION_MAJOR', '2'), ('EXPORT_SCHEMA_VERSION_MINOR', '9'); "
      "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ({}, NULL, NULL); "
      "INSERT INTO PROCESSES VALUES ({}, {}, 'python3');",
      info_.base_time_ns, GlobalTid(info_.pid, 0), info_.pid);
  for (int d = 0; d < info_.num_devices; ++d) {
    meta += fmt::format(
        "INSERT INTO TARGET_INFO_GPU VALUES ({}, {}, 'NVIDIA H100 80GB HBM3', 85018279936, {}, "
        "{}, 32, "
        "64, 9, 0);",
        kVmBits, d, kSynthDeviceSms, d);
  }
  Exec(meta.c_str());
  Exec("COMMIT");
  for (sqlite3_stmt*& stmt : insert_) {
    sqlite3_finalize(stmt);
    stmt = nullptr;
  }
  if (sqlite3_close(db_) != SQLITE_OK) Fail("close");
  db_ = nullptr;
  return status_;
}

}  // namespace gpuwhy
