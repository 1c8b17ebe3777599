// Shared by `gpuwhy run`, `record` and `watch`: the samplers of this machine behind one
// sampler thread, and the report of what they recorded (signals diagnosis, optionally merged
// with a Kineto trace's).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "collect/job_identity.h"
#include "collect/sampler_thread.h"
#include "pipeline/pipeline.h"

namespace gpuwhy {

struct LiveOptions {
  int interval_ms = 100;  // 10 Hz default; 10 ms (100 Hz) at most
  pid_t target = 0;       // the job's root process (0: none)
  std::string proc_root = "/";
};

// While alive, SIGINT and SIGTERM ask `record` and `watch` to stop and save instead of
// killing gpuwhy; the previous handlers come back on destruction.
class StopOnInterrupt {
 public:
  StopOnInterrupt();
  ~StopOnInterrupt();
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;
  static bool requested();

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
};

// NVML (GPUWHY_NVML_LIBRARY or libnvidia-ml.so.1) and procfs/sysfs, started.
std::unique_ptr<SamplerThread> StartLiveSampling(const LiveOptions& options);

// The report of |set| (the signal diagnosis); with |trace_dir|, merged with the report of the
// newest Kineto trace written there since |since_ns| (CLOCK_REALTIME), which runs through the
// pipeline with |options|. Adds notes on the sampler's own cost and what it skipped; a trace
// that cannot be read is printed and noted, and the series alone are reported.
// With |profiled| traces (gpuwhy run --profile: one per rank), those are reported instead,
// every rank, the recording's signal diagnosis merged into the first.
Report ReportLiveRun(const MetricSeriesSet& set, const std::string& trace_dir, TimeNs since_ns,
                     const PipelineOptions& options, const CliContext& context,
                     const std::vector<std::string>& profiled = {});

// The job of each GPU process of |set| (and of |target|, the command's root process, when
// not 0) as its scheduler names it: "pid 1234 python (GPU 0): pod ml/trainer-0 (uid …)",
// by pid, at most kMaxJobLines and a line saying how many more; processes no scheduler names
// are left out. Identities are read through |jobs| (a process read once stays known).
inline constexpr size_t kMaxJobLines = 16;
// Reads the jobs of the GPU processes of |set| not read yet (while they still run). `run`
// keeps every process it saw (kKeep: its report names them after they exit); `watch` forgets
// the ones gone from |set| (kForget: a pid reused later is read again).
enum class GoneProcesses { kKeep, kForget };
void ReadProcessJobs(const MetricSeriesSet& set, JobIdentityCache& jobs, GoneProcesses gone);
std::vector<std::string> DescribeProcessJobs(const MetricSeriesSet& set, JobIdentityCache& jobs,
                                             pid_t target = 0);

// "N samples of M series over S s at H Hz; sampler CPU X% of one core".
std::string DescribeRecording(const MetricSeriesSet& set);

}  // namespace gpuwhy
