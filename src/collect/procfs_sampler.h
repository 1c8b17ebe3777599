// Host metrics from procfs and sysfs under an injectable root ("/" live, a fixture tree in
// tests): CPU per core (user, system, iowait, steal), load, memory, context switches, disk
// bytes and utilization, network bytes, per-process and per-thread CPU of the job's process
// tree and their sum (job.cpu_pct), the busiest processes outside it (once a second), and the
// PCIe link of NVIDIA GPUs (current vs max). Rates come from the difference between two
// samples, so the first sample only sets the baseline.
#pragma once

#include <sys/types.h>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collect/sampler.h"

namespace gpuwhy {

class ProcfsSampler : public Sampler {
 public:
  // |root| holds proc/ and sys/; |target| is the job's root pid (0: no process tree).
  explicit ProcfsSampler(std::string root = "/", pid_t target = 0)
      : root_(std::move(root)), target_(target) {}
  std::string_view name() const override { return "procfs"; }
  Status Probe() override;
  void Sample(TimeNs now, SampleStore& store) override;
  std::vector<std::string> notes() const override { return notes_; }
  // Tests read two snapshot trees in turn.
  void set_root(std::string root) { root_ = std::move(root); }
  void set_target(pid_t target) { target_ = target; }

 private:
  struct CpuTimes {
    uint64_t user = 0, system = 0, idle = 0, iowait = 0, steal = 0, total = 0;
  };
  struct Counters {
    TimeNs t = 0;
    std::map<std::string, CpuTimes> cpus;  // "cpu" (all), "cpu0", ...
    uint64_t ctxt = 0;
    std::map<std::string, std::array<uint64_t, 3>> disks;  // read sectors, written, io ms
    std::map<std::string, std::array<uint64_t, 2>> nets;   // rx, tx bytes
    std::map<std::string, uint64_t> tasks;  // "pid N" / "tid N" -> utime + stime ticks
    std::map<std::string, std::string> names;
    std::map<std::string, uint64_t> task_ctxt;  // "pid N" -> voluntary + involuntary
  };
  std::string Path(std::string_view rel) const { return root_ + "/" + std::string(rel); }
  void ReadStat(Counters& c) const;
  void ReadDisks(Counters& c) const;
  void ReadNet(Counters& c) const;
  void ReadTree(Counters& c) const;
  void ScanParents(TimeNs now) const;
  void SampleGauges(TimeNs now, SampleStore& store) const;
  void SamplePcie(TimeNs now, SampleStore& store) const;
  void EmitRates(const Counters& prev, const Counters& cur, SampleStore& store) const;
  void SampleOthers(TimeNs now, const Counters& job, SampleStore& store);

  std::string root_;
  pid_t target_;
  long ticks_per_sec_ = 100;
  std::vector<std::string> gpu_pci_;  // NVIDIA display devices, PCI order (= NVML order)
  // Parent -> children from a full /proc scan, when children files are missing.
  mutable std::map<long, std::vector<long>> children_;
  mutable TimeNs scanned_at_ = -1;
  // utime + stime of every process outside the job at the last scan of /proc.
  std::map<long, uint64_t> others_ticks_;
  TimeNs others_at_ = -1;
  bool have_prev_ = false;
  Counters prev_;
  std::vector<std::string> notes_;
};

// "16.0 GT/s PCIe" -> 4 (PCIe generation by transfer rate); 0 when unknown.
int PcieGenFromSpeed(std::string_view speed);

}  // namespace gpuwhy
