#include "collect/procfs_sampler.h"
#include "base/percent.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// One open/read/close: procfs files are small and read many times a second, so this path
// matters for the sampler's own cost (ifstream + stringstream cost several times more).
std::string ReadSmall(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string TrimEnd(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

bool IsNumber(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(c); });
}

// /proc/PID/stat: "pid (comm) state ppid ... utime stime": comm may hold spaces and ')'.
bool ParseTaskStat(const std::string& text, std::string& comm, long& ppid, uint64_t& ticks) {
  size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  comm = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  std::vector<std::string> f;
  while (rest >> field && f.size() < 13) f.push_back(field);
  if (f.size() < 13) return false;  // state(0) ppid(1) ... utime(11) stime(12)
  ppid = std::stol(f[1]);
  ticks = std::stoull(f[11]) + std::stoull(f[12]);
  return true;
}

// sda, nvme0n1, vda: whole disks; partitions, loop and ram devices are skipped.
bool IsWholeDisk(const std::string& name, const std::set<std::string>& all) {
  if (name.rfind("loop", 0) == 0 || name.rfind("ram", 0) == 0) return false;
  for (const std::string& other : all) {
    if (other != name && name.rfind(other, 0) == 0) return false;  // sda1 under sda
  }
  return true;
}

}  // namespace

int PcieGenFromSpeed(std::string_view speed) {
  double gts = std::atof(std::string(speed).c_str());
  if (gts >= 60) return 6;
  if (gts >= 30) return 5;
  if (gts >= 15) return 4;
  if (gts >= 7.5) return 3;
  if (gts >= 4.5) return 2;
  if (gts >= 2) return 1;
  return 0;
}

Status ProcfsSampler::Probe() {
  ticks_per_sec_ = std::max(1L, sysconf(_SC_CLK_TCK));
  if (ReadSmall(Path("proc/stat")).empty()) {
    return NotFound("{}: no proc/stat: host metrics are skipped", root_);
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(Path("sys/bus/pci/devices"), ec)) {
    std::string dir = entry.path().string();
    std::string vendor = TrimEnd(ReadSmall(dir + "/vendor"));
    std::string cls = TrimEnd(ReadSmall(dir + "/class"));
    // 0x10de = NVIDIA; class 0x03xxxx = display (VGA 0x0300, 3D controller 0x0302).
    if (vendor == "0x10de" && cls.rfind("0x03", 0) == 0) {
      gpu_pci_.push_back(entry.path().filename().string());
    }
  }
  std::sort(gpu_pci_.begin(), gpu_pci_.end());
  if (target_ == 0) notes_.push_back("no job process: per-process and per-thread CPU skipped");
  return Status::Ok();
}

void ProcfsSampler::ReadStat(Counters& c) const {
  std::istringstream in(ReadSmall(Path("proc/stat")));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "ctxt") {
      words >> c.ctxt;
      continue;
    }
    if (key.rfind("cpu", 0) != 0) continue;
    uint64_t v[10] = {};
    for (uint64_t& x : v) words >> x;
    // user nice system idle iowait irq softirq steal guest guest_nice (guest is in user)
    CpuTimes t;
    t.user = v[0] + v[1];
    t.system = v[2] + v[5] + v[6];
    t.idle = v[3];
    t.iowait = v[4];
    t.steal = v[7];
    t.total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    c.cpus[key] = t;
  }
}

void ProcfsSampler::ReadDisks(Counters& c) const {
  std::istringstream in(ReadSmall(Path("proc/diskstats")));
  std::string line;
  std::map<std::string, std::array<uint64_t, 3>> all;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string major, minor, name;
    uint64_t f[10] = {};
    w >> major >> minor >> name;
    for (uint64_t& x : f) w >> x;
    // reads, merged, sectors read, ms, writes, merged, sectors written, ms, in flight, io ms
    all[name] = {f[2], f[6], f[9]};
  }
  std::set<std::string> names;
  for (auto& [name, v] : all) names.insert(name);
  for (auto& [name, v] : all) {
    if (IsWholeDisk(name, names)) c.disks[name] = v;
  }
}

void ProcfsSampler::ReadNet(Counters& c) const {
  std::istringstream in(ReadSmall(Path("proc/net/dev")));
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    if (name == "lo") continue;
    std::istringstream w(line.substr(colon + 1));
    uint64_t f[9] = {};
    for (uint64_t& x : f) w >> x;
    c.nets[name] = {f[0], f[8]};  // rx bytes, tx bytes
  }
}

namespace {

// Children of |pid| from /proc/PID/task/*/children (one small read per thread); nullopt
// when the kernel lacks those files (CONFIG_PROC_CHILDREN), and in fixture trees.
std::optional<std::vector<long>> ChildrenFiles(const std::string& proc, long pid) {
  std::error_code ec;
  std::vector<long> out;
  bool any = false;
  for (const auto& task : fs::directory_iterator(proc + "/" + std::to_string(pid) + "/task", ec)) {
    std::string path = task.path().string() + "/children";
    if (!fs::exists(path, ec)) return std::nullopt;
    any = true;
    std::istringstream in(ReadSmall(path));
    for (long child = 0; in >> child;) out.push_back(child);
  }
  if (!any) return std::nullopt;
  return out;
}

}  // namespace

// Parent -> children of every process, from each /proc/PID/stat: the slow way, used only
// where children files are missing, and at most once per second.
void ProcfsSampler::ScanParents(TimeNs now) const {
  if (scanned_at_ >= 0 && now - scanned_at_ < kNsPerSec) return;
  scanned_at_ = now;
  children_.clear();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(Path("proc"), ec)) {
    std::string pid = entry.path().filename().string();
    if (!IsNumber(pid)) continue;
    std::string comm;
    long ppid = 0;
    uint64_t ticks = 0;
    if (ParseTaskStat(ReadSmall(entry.path().string() + "/stat"), comm, ppid, ticks)) {
      children_[ppid].push_back(std::stol(pid));
    }
  }
}

// The job's process tree and every thread of each process.
void ProcfsSampler::ReadTree(Counters& c) const {
  if (target_ == 0) return;
  std::vector<long> todo = {static_cast<long>(target_)};
  while (!todo.empty()) {
    long pid = todo.back();
    todo.pop_back();
    std::optional<std::vector<long>> kids = ChildrenFiles(Path("proc"), pid);
    if (!kids) {
      ScanParents(c.t);
      kids = children_[pid];
    }
    for (long child : *kids) todo.push_back(child);
    std::string dir = Path(fmt::format("proc/{}", pid));
    std::string comm;
    long ppid = 0;
    uint64_t ticks = 0;
    if (!ParseTaskStat(ReadSmall(dir + "/stat"), comm, ppid, ticks)) continue;
    std::string key = fmt::format("pid {}", pid);
    c.tasks[key] = ticks;
    c.names[key] = comm;
    std::istringstream status(ReadSmall(dir + "/status"));
    std::string line;
    uint64_t switches = 0;
    while (std::getline(status, line)) {
      if (line.find("ctxt_switches:") != std::string::npos) {
        switches += std::stoull(line.substr(line.find(':') + 1));
      }
    }
    c.task_ctxt[key] = switches;
    std::error_code ec;
    for (const auto& task : fs::directory_iterator(dir + "/task", ec)) {
      std::string tid = task.path().filename().string();
      if (!ParseTaskStat(ReadSmall(task.path().string() + "/stat"), comm, ppid, ticks)) continue;
      c.tasks["tid " + tid] = ticks;
      c.names["tid " + tid] = comm;
    }
  }
}

void ProcfsSampler::SampleGauges(TimeNs now, SampleStore& store) const {
  std::istringstream load(ReadSmall(Path("proc/loadavg")));
  double load1 = 0;
  if (load >> load1) store.Add({"host.load1", -1, ""}, "count", now, load1);
  std::istringstream mem(ReadSmall(Path("proc/meminfo")));
  std::string key;
  uint64_t kb = 0, total = 0, available = 0;
  std::string unit;
  while (mem >> key >> kb) {
    std::getline(mem, unit);
    if (key == "MemTotal:") total = kb;
    if (key == "MemAvailable:") available = kb;
  }
  if (total > 0) {
    store.Add({"host.mem_used_pct", -1, ""}, "%", now, PercentOf(total - available, total));
    store.Add({"host.mem_used_mib", -1, ""}, "MiB", now, (total - available) / 1024.0);
  }
}

void ProcfsSampler::SamplePcie(TimeNs now, SampleStore& store) const {
  for (size_t i = 0; i < gpu_pci_.size(); ++i) {
    std::string dir = Path("sys/bus/pci/devices/" + gpu_pci_[i]);
    auto device = static_cast<int32_t>(i);
    int gen = PcieGenFromSpeed(ReadSmall(dir + "/current_link_speed"));
    int gen_max = PcieGenFromSpeed(ReadSmall(dir + "/max_link_speed"));
    double width = std::atof(ReadSmall(dir + "/current_link_width").c_str());
    double width_max = std::atof(ReadSmall(dir + "/max_link_width").c_str());
    // Entity "sysfs": NVML reports the same link; the analysis prefers NVML's when present.
    if (gen > 0) store.Add({"gpu.pcie_gen", device, "sysfs"}, "gen", now, gen, gpu_pci_[i]);
    if (gen_max > 0)
      store.Add({"gpu.pcie_gen_max", device, "sysfs"}, "gen", now, gen_max, gpu_pci_[i]);
    if (width > 0) store.Add({"gpu.pcie_width", device, "sysfs"}, "lanes", now, width, gpu_pci_[i]);
    if (width_max > 0) {
      store.Add({"gpu.pcie_width_max", device, "sysfs"}, "lanes", now, width_max, gpu_pci_[i]);
    }
  }
}

void ProcfsSampler::EmitRates(const Counters& p, const Counters& c, SampleStore& store) const {
  const TimeNs now = c.t;
  const double seconds = NsToSec(c.t - p.t);
  if (seconds <= 0) return;
  for (const auto& [name, cur] : c.cpus) {
    auto it = p.cpus.find(name);
    if (it == p.cpus.end() || cur.total <= it->second.total) continue;
    const CpuTimes& old = it->second;
    uint64_t total = cur.total - old.total;
    uint64_t idle = (cur.idle - old.idle) + (cur.iowait - old.iowait);
    std::string entity = name == "cpu" ? "" : name;
    store.Add({"host.cpu_busy_pct", -1, entity}, "%", now,
              PercentOf(total - std::min(idle, total), total));
    if (!entity.empty()) continue;  // per core: busy only, to keep the series count small
    store.Add({"host.cpu_user_pct", -1, ""}, "%", now, PercentOf(cur.user - old.user, total));
    store.Add({"host.cpu_system_pct", -1, ""}, "%", now, PercentOf(cur.system - old.system, total));
    store.Add({"host.cpu_iowait_pct", -1, ""}, "%", now, PercentOf(cur.iowait - old.iowait, total));
    store.Add({"host.cpu_steal_pct", -1, ""}, "%", now, PercentOf(cur.steal - old.steal, total));
  }
  store.Add({"host.cpu_count", -1, ""}, "count", now, static_cast<double>(c.cpus.size() - 1));
  if (c.ctxt >= p.ctxt) {
    store.Add({"host.ctx_switches_per_s", -1, ""}, "count/s", now, (c.ctxt - p.ctxt) / seconds);
  }
  for (const auto& [name, cur] : c.disks) {
    auto it = p.disks.find(name);
    if (it == p.disks.end()) continue;
    store.Add({"host.disk_read_bps", -1, name}, "bytes/s", now,
              (cur[0] - it->second[0]) * 512.0 / seconds);
    store.Add({"host.disk_write_bps", -1, name}, "bytes/s", now,
              (cur[1] - it->second[1]) * 512.0 / seconds);
    store.Add({"host.disk_util_pct", -1, name}, "%", now,
              std::min(100.0, (cur[2] - it->second[2]) / (seconds * 10.0)));  // io ms per s
  }
  for (const auto& [name, cur] : c.nets) {
    auto it = p.nets.find(name);
    if (it == p.nets.end()) continue;
    store.Add({"host.net_rx_bps", -1, name}, "bytes/s", now, (cur[0] - it->second[0]) / seconds);
    store.Add({"host.net_tx_bps", -1, name}, "bytes/s", now, (cur[1] - it->second[1]) / seconds);
  }
  double job_pct = 0;  // the job's processes (their threads are inside them)
  for (const auto& [key, ticks] : c.tasks) {
    auto it = p.tasks.find(key);
    if (it == p.tasks.end() || ticks < it->second) continue;
    double pct = 100.0 * (ticks - it->second) / static_cast<double>(ticks_per_sec_) / seconds;
    const bool thread = key.rfind("tid", 0) == 0;
    if (!thread) job_pct += pct;
    store.Add({thread ? "thread.cpu_pct" : "proc.cpu_pct", -1, key}, "%", now, pct,
              c.names.at(key));
  }
  if (target_ != 0) store.Add({"job.cpu_pct", -1, ""}, "%", now, job_pct);
  for (const auto& [key, n] : c.task_ctxt) {
    auto it = p.task_ctxt.find(key);
    if (it == p.task_ctxt.end() || n < it->second) continue;
    store.Add({"proc.ctx_switches_per_s", -1, key}, "count/s", now, (n - it->second) / seconds,
              c.names.at(key));
  }
}

// Every process outside the job, once a second (a whole /proc scan costs about a millisecond):
// their total CPU (host.other_cpu_pct) and the busiest few by name (host.other_proc_cpu_pct),
// so that cores kept busy by a neighbour are not blamed on the job.
void ProcfsSampler::SampleOthers(TimeNs now, const Counters& job, SampleStore& store) {
  constexpr size_t kBusiest = 5;
  if (target_ == 0 || (others_at_ >= 0 && now - others_at_ < kNsPerSec)) return;
  const long self = ::getpid();
  std::map<long, uint64_t> ticks;
  std::vector<std::pair<double, long>> busiest;
  std::map<long, std::string> names;
  double total = 0;
  const double seconds = NsToSec(now - others_at_);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(Path("proc"), ec)) {
    std::string name = entry.path().filename().string();
    if (!IsNumber(name) || name.size() > 9) continue;
    const long pid = std::stol(name);
    if (pid == self || job.tasks.count("pid " + name) > 0) continue;
    std::string comm;
    long ppid = 0;
    uint64_t t = 0;
    if (!ParseTaskStat(ReadSmall(entry.path().string() + "/stat"), comm, ppid, t)) continue;
    ticks[pid] = t;
    auto it = others_ticks_.find(pid);
    if (others_at_ < 0 || it == others_ticks_.end() || t < it->second || seconds <= 0) continue;
    const double pct = 100.0 * (t - it->second) / static_cast<double>(ticks_per_sec_) / seconds;
    total += pct;
    if (pct > 0) {
      busiest.emplace_back(pct, pid);
      names[pid] = comm;
    }
  }
  if (others_at_ >= 0) {
    store.Add({"host.other_cpu_pct", -1, ""}, "%", now, total);
    std::sort(busiest.begin(), busiest.end(), std::greater<>());
    for (size_t i = 0; i < busiest.size() && i < kBusiest; ++i) {
      const auto [pct, pid] = busiest[i];
      store.Add({"host.other_proc_cpu_pct", -1, fmt::format("pid {}", pid)}, "%", now, pct,
                names[pid]);
    }
  }
  others_ticks_ = std::move(ticks);
  others_at_ = now;
}

void ProcfsSampler::Sample(TimeNs now, SampleStore& store) {
  Counters cur;
  cur.t = now;
  ReadStat(cur);
  ReadDisks(cur);
  ReadNet(cur);
  ReadTree(cur);
  SampleGauges(now, store);
  SamplePcie(now, store);
  if (have_prev_) EmitRates(prev_, cur, store);
  SampleOthers(now, cur, store);
  prev_ = std::move(cur);
  have_prev_ = true;
}

}  // namespace gpuwhy
