// The subcommands: each file registers its options with CLI11 and runs with a CliContext.
// Keeping "parse" and "run" apart lets tests and `demo` call Run…Command directly.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/cli.h"
#include "cli/pipeline_flags.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gpuwhy {

struct InfoOptions {
  std::vector<std::string> inputs;  // files or directories
  std::string format = "text";      // text | json
  std::string output;               // empty: the context's out stream
  PipelineFlags pipeline;           // --step-range
};
void AddInfoCommand(CLI::App& app, InfoOptions& options);
int RunInfoCommand(const InfoOptions& options, const CliContext& context);

struct SynthCommandOptions {
  bool list = false;
  std::string format = "kineto";  // kineto | nsys-sqlite
  std::string scenario;
  int steps = 20;
  int ranks = 1;
  int64_t size_mb = 0;
  uint64_t seed = 1;
  std::string output;
  int slow_rank = -1;  // --slow-rank R: a straggler whose compute is --slow-by PCT % slower
  double slow_by_pct = 0;
  bool gpu_metrics = false;  // --gpu-metrics: nsys-sqlite with GPU_METRICS
};
void AddSynthCommand(CLI::App& app, SynthCommandOptions& options);
int RunSynthCommand(const SynthCommandOptions& options, const CliContext& context);

struct AnalyzeOptions {
  std::vector<std::string> inputs;  // files or directories
  std::string format = "text";      // text | json | md
  std::string output;               // empty: the context's out stream
  int top_n = 10;                   // rows in top-N lists
  std::string fail_on;              // empty, or a severity: exit 1 when a finding reaches it
  std::string detail = "compact";   // Markdown of several ranks: compact | full
  bool hta_compat = false;          // HTA's conventions for the HTA-style tables
  PipelineFlags pipeline;           // --set, --config, --step-range
  // Multi-rank (cli/analyze_ranks.h, docs/cross-rank.md).
  bool summary = false;         // write the one rank's summary JSON instead of a report
  std::string baseline_single;  // one-GPU trace of the same model: scaling efficiency
  int jobs = 0;                 // ranks imported at once; 0: one per core
  double link_peak_gbps = 0;    // per-GPU bus bandwidth peak, when known
};
void AddAnalyzeCommand(CLI::App& app, AnalyzeOptions& options);
int RunAnalyzeCommand(const AnalyzeOptions& options, const CliContext& context);

struct DoctorOptions {
  std::vector<std::string> from;  // bundle directories or files; empty: this machine
  std::string format = "text";    // text | json | md
  std::string output;             // empty: the context's out stream
  std::string fail_on;            // empty, or a severity: exit 1 when a finding reaches it
  PipelineFlags pipeline;         // --set, --config
};
void AddDoctorCommand(CLI::App& app, DoctorOptions& options);
int RunDoctorCommand(const DoctorOptions& options, const CliContext& context);

struct DiffCommandOptions {
  std::string base;  // trace or gpuwhy JSON report
  std::string test;
  std::string format = "text";  // text | json | md | html
  std::string output;
  double max_regression_pct = NAN;  // NaN: no gate
  PipelineFlags pipeline;           // --set, --config, --step-range (traces are diagnosed)
};
void AddDiffCommand(CLI::App& app, DiffCommandOptions& options);
int RunDiffCommand(const DiffCommandOptions& options, const CliContext& context);

struct AnnotateOptions {
  std::vector<std::string> inputs;  // Kineto / Chrome JSON traces or folders; several: one per rank
  std::string output;               // .json or .json.gz
  size_t jobs = 0;                  // traces analysed at once when merging ranks; 0: cores
  PipelineFlags pipeline;           // --set, --config, --step-range
};
void AddAnnotateCommand(CLI::App& app, AnnotateOptions& options);
int RunAnnotateCommand(const AnnotateOptions& options, const CliContext& context);

struct RunOptions {
  std::vector<std::string> command;  // after --
  int interval_ms = 100;             // 10 Hz
  std::string recording;             // -o: save the recording here
  std::string trace_dir;             // Kineto traces written by the job
  std::string format = "text";       // text | json | md
  std::string report;                // empty: stderr
  PipelineFlags pipeline;            // --set, --config, --step-range
  int profile_steps = 0;             // --profile[=STEPS]: 0 off (cli/profile_hook.h)
  std::string profile_dir;           // --profile-dir: keep the traces here
  double kill_after_s = 10;          // --kill-after: SIGTERM to SIGKILL (collect/process_runner.h)
};
void AddRunCommand(CLI::App& app, RunOptions& options);
int RunRunCommand(const RunOptions& options, const CliContext& context);

struct RecordOptions {
  std::string output;
  int interval_ms = 100;
  double duration_s = 0;  // 0: until Ctrl-C
  int pid = 0;            // a process tree to follow (0: none)
};
void AddRecordCommand(CLI::App& app, RecordOptions& options);
int RunRecordCommand(const RecordOptions& options, const CliContext& context);

struct ExportCsvOptions {
  std::string input;   // recording or metric log
  std::string output;  // empty: stdout
};
void AddExportCsvCommand(CLI::App& app, ExportCsvOptions& options);
int RunExportCsvCommand(const ExportCsvOptions& options, const CliContext& context);

struct WatchOptions {
  int interval_ms = 100;
  int64_t count = 0;  // 0: until Ctrl-C
  int pid = 0;
  bool screen = true;  // full-screen view when stdout is a terminal
};
void AddWatchCommand(CLI::App& app, WatchOptions& options);
int RunWatchCommand(const WatchOptions& options, const CliContext& context);

struct ServeOptions {
  std::string listen;           // empty: 127.0.0.1 on kDefaultServePort (serve/http_endpoint.h)
  std::string auth_token_file;  // empty: no bearer token
  int interval_ms = 100;        // sampling (10 Hz)
  int refresh_ms = 1000;        // served bodies rebuilt this often
  int window_s = 60;            // idle ratio and live findings over this window
  bool per_process = false;
  int top_processes = 5;
  int threads = 16;
  int connections_per_client = 4;  // more from one address are refused with 503
  PipelineFlags pipeline;          // --set, --config (the live findings)
};
void AddServeCommand(CLI::App& app, ServeOptions& options);
int RunServeCommand(const ServeOptions& options, const CliContext& context);
// "HOST:PORT" or "[IPV6]:PORT".
StatusOr<std::pair<std::string, int>> ParseListenAddress(const std::string& text);

struct McpOptions {
  size_t page_bytes = 16 * 1024;               // text per page of an answer
  size_t max_message_bytes = size_t{1} << 20;  // a longer message is refused
  PipelineFlags pipeline;                      // --set, --config, --step-range
};
void AddMcpCommand(CLI::App& app, McpOptions& options);
int RunMcpCommand(const McpOptions& options, const CliContext& context);

struct DemoOptions {
  std::string keep_dir;  // empty: a temporary directory removed afterwards
};
void AddDemoCommand(CLI::App& app, DemoOptions& options);
int RunDemoCommand(const DemoOptions& options, const CliContext& context);

}  // namespace gpuwhy
