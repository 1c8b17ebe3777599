// The HTTP side of `gpuwhy serve`: /metrics (Prometheus text), /findings (JSON), /healthz.
// Read-only by construction: handlers only copy out the last published bodies, so a scrape
// never calls NVML or touches /proc, and its cost does not depend on the machine's state.
// Binds 127.0.0.1 unless told otherwise, and alone (a second server on the port fails); an
// optional bearer token guards every endpoint except /healthz. Slow and greedy clients are
// bounded by guarded_server.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "serve/auth_token.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace gpuwhy {

// The default port, everywhere it is written (the CLI, docs/serve.md, deploy/; checked by
// DeployConsistencyTest). Not 9400: dcgm-exporter listens there, and GPU nodes run it; not
// 9100 (node-exporter). 9612 is marked free in the copy of the Prometheus default port
// allocations we checked (docs/serve.md says how sure that is).
inline constexpr int kDefaultServePort = 9612;

struct EndpointOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultServePort;  // 0: any free port (tests)
  std::string auth_token;        // empty: no authentication
  int threads = 16;              // connections served at once, plus one kept for short requests
  int read_timeout_s = 2;        // between two reads, and between two requests of a connection
  int write_timeout_s = 2;
  int request_timeout_ms = 3000;      // a whole request, from its first byte
  int busy_request_timeout_ms = 250;  // the same while every serving thread is taken
  int max_connections_per_client = 4;
  size_t max_body_bytes = 1024;  // requests carry no body; anything larger is refused
};

// The bodies one scrape serves, replaced together by the exporter after each sample.
struct PublishedBodies {
  std::string metrics;        // text/plain; version=0.0.4
  std::string findings_json;  // application/json
  bool ready = false;         // false until the first sample: /healthz says "starting"
};

class HttpEndpoint {
 public:
  explicit HttpEndpoint(EndpointOptions options);
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  // Binds the listening socket; returns the port (useful with port 0).
  StatusOr<int> Bind();
  // Serves until Stop() (from another thread or a signal handler's thread).
  void Serve();
  void Stop();

  void Publish(std::shared_ptr<const PublishedBodies> bodies);
  int64_t requests() const { return requests_.load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<const PublishedBodies> Current() const;
  void AddRoutes();

  EndpointOptions options_;
  std::unique_ptr<httplib::Server> server_;
  mutable std::mutex mu_;  // guards bodies_ (a pointer swap; never held while writing)
  std::shared_ptr<const PublishedBodies> bodies_;
  std::atomic<int64_t> requests_{0};
  int listen_socket_ = -1;
  static constexpr int kListenBacklog = 1024;
};

// "HOST:PORT", or "[HOST]:PORT" for an IPv6 address.
std::string HostAndPort(const std::string& host, int port);

}  // namespace gpuwhy
