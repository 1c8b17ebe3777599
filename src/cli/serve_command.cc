// `gpuwhy serve`: the Prometheus exporter. Samples this machine (NVML, procfs/sysfs), keeps a
// sliding window, diagnoses it, and serves /metrics, /findings and /healthz on loopback
// unless told otherwise. Runs until SIGINT or SIGTERM. --set and --config shape the live
// findings as they shape `gpuwhy analyze`'s. docs/serve.md.
#include <CLI/CLI.hpp>

#include <chrono>
#include <thread>

#include "cli/commands.h"
#include "cli/live_metrics.h"
#include "cli/pipeline_flags.h"
#include "serve/live_exporter.h"

#ifndef GPUWHY_VERSION
#define GPUWHY_VERSION "unknown"
#endif

namespace gpuwhy {
namespace {

// Loopback on the one default port (serve/http_endpoint.h), unless --listen says otherwise.
std::string DefaultListenAddress() { return HostAndPort("127.0.0.1", kDefaultServePort); }

}  // namespace

StatusOr<std::pair<std::string, int>> ParseListenAddress(const std::string& text) {
  std::string host;
  std::string port;
  if (!text.empty() && text.front() == '[') {  // [::1]:PORT
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("--listen '{}': expected [IPV6]:PORT", text);
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos)
      return InvalidArgument("--listen '{}': expected HOST:PORT", text);
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty())
    return InvalidArgument("--listen '{}': the address is empty (0.0.0.0 listens everywhere)",
                           text);
  int value = 0;
  for (char c : port) {
    if (c < '0' || c > '9' || value > 65535)
      return InvalidArgument("--listen '{}': bad port", text);
    value = value * 10 + (c - '0');
  }
  if (port.empty() || value < 1 || value > 65535)
    return InvalidArgument("--listen '{}': bad port", text);
  return std::make_pair(host, value);
}

void AddServeCommand(CLI::App& app, ServeOptions& options) {
  CLI::App* command = app.add_subcommand(
      "serve",
      "Prometheus exporter: live GPU/host metrics and bottleneck findings on /metrics, "
      "/findings and /healthz");
  command->add_option("--listen", options.listen,
                      fmt::format("HOST:PORT to listen on (default {}; other addresses only "
                                  "when given here)",
                                  DefaultListenAddress()));
  command->add_option("--auth-token-file", options.auth_token_file,
                      "Require 'Authorization: Bearer TOKEN' (TOKEN read from FILE) on /metrics "
                      "and /findings");
  command->add_option("--interval", options.interval_ms, "Sampling interval in ms (10..)")
      ->check(CLI::Range(10, 60000));
  command
      ->add_option("--refresh", options.refresh_ms,
                   "How often the served bodies are rebuilt, in ms")
      ->check(CLI::Range(100, 600000));
  command
      ->add_option("--window", options.window_s,
                   "Seconds of samples behind the idle ratio and the live findings")
      ->check(CLI::Range(1, 3600));
  command->add_flag("--per-process", options.per_process,
                    "Export per-process GPU memory/SM and CPU series (top N processes), each "
                    "with the job its scheduler names (Kubernetes pod, Slurm job, container; "
                    "bounded labels: docs/serve.md)");
  command
      ->add_option("--top-processes", options.top_processes,
                   "Processes exported with --per-process")
      ->check(CLI::Range(1, 100));
  command
      ->add_option("--threads", options.threads,
                   "Connections served at once (one more thread is kept for short requests)")
      ->check(CLI::Range(1, 256));
  command
      ->add_option("--connections-per-client", options.connections_per_client,
                   "Connections one client address may hold at once; more get 503")
      ->check(CLI::Range(1, 100000));
  AddRuleFlags(*command, options.pipeline);
}

int RunServeCommand(const ServeOptions& options, const CliContext& context) {
  PipelineOptions pipeline;
  if (Status status = ApplyPipelineFlags(options.pipeline, pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  auto address =
      ParseListenAddress(options.listen.empty() ? DefaultListenAddress() : options.listen);
  if (!address.ok()) {
    PrintError(context, address.status());
    return kExitUnusable;
  }
  EndpointOptions endpoint_options;
  endpoint_options.host = address->first;
  endpoint_options.port = address->second;
  endpoint_options.threads = options.threads;
  endpoint_options.max_connections_per_client = options.connections_per_client;
  if (!options.auth_token_file.empty()) {
    auto token = ReadAuthTokenFile(options.auth_token_file);
    if (!token.ok()) {
      PrintError(context, token.status());
      return kExitUnusable;
    }
    endpoint_options.auth_token = std::move(*token);
  }
  HttpEndpoint endpoint(endpoint_options);
  auto port = endpoint.Bind();
  if (!port.ok()) {
    PrintError(context, port.status());
    return kExitUnusable;
  }

  LiveOptions live;
  live.interval_ms = options.interval_ms;
  LiveExporterOptions exporter_options;
  exporter_options.refresh = MsToNs(options.refresh_ms);
  exporter_options.window = options.window_s * kNsPerSec;
  exporter_options.per_process = options.per_process;
  exporter_options.top_processes = static_cast<size_t>(options.top_processes);
  exporter_options.version = GPUWHY_VERSION;
  exporter_options.diagnose =
      std::move(pipeline.diagnose);  // the live findings use --set / --config
  StopOnInterrupt stop;
  LiveExporter exporter(StartLiveSampling(live), exporter_options, endpoint);
  exporter.Start();
  std::thread server([&] { endpoint.Serve(); });
  context.err << fmt::format("gpuwhy serve: listening on http://{}/metrics{} (Ctrl-C stops)\n",
                             HostAndPort(endpoint_options.host, *port),
                             endpoint_options.auth_token.empty() ? "" : ", bearer token required")
              << std::flush;
  while (!StopOnInterrupt::requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  endpoint.Stop();
  server.join();
  exporter.Stop();
  context.err << fmt::format("gpuwhy serve: stopped after {} requests\n", endpoint.requests());
  return kExitOk;
}

}  // namespace gpuwhy
