// cpp-httplib's server with the guards `gpuwhy serve` needs against slow and greedy clients,
// which the library lacks: its timeouts bound one read, not a request, and it serves every
// connection the same, so more slow clients than threads keep /healthz and /metrics from
// everyone (issue 21). Here, per connection (the library's one overridable hook):
//  - a whole request must arrive within `request` of its first byte, and within `busy_request`
//    while every serving thread is taken, so a trickling client holds a thread briefly;
//  - one client address holds at most `max_per_client` connections; more are refused at once
//    with 503, so one host cannot take every thread;
//  - the pool has one thread more than `threads`, kept for short requests: a connection that
//    gets it is served one request under the busy bound, so a probe or scrape always has a
//    thread that frees within `busy_request`.
#pragma once

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "serve/deadline_stream.h"

namespace gpuwhy {

struct ConnectionLimits {
  int threads = 16;  // connections served at once, plus one kept for short requests
  std::chrono::milliseconds request{3000};
  std::chrono::milliseconds busy_request{250};
  std::chrono::milliseconds idle{2000};  // keep-alive: between two requests
  std::chrono::milliseconds between_reads{2000};
  std::chrono::milliseconds write{2000};
  int max_per_client = 4;
  size_t requests_per_connection = 100;
};

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Counts |client|'s connection in; false (nothing counted) when it holds its share already.
  bool Admit(const std::string& client);
  void Release(const std::string& client);
  bool Busy() const;

  ConnectionLimits limits_;
  DeadlinePolicy policy_;
  mutable std::mutex mu_;                  // guards the two counts below
  std::map<std::string, int> per_client_;  // open connections by client address
  int active_ = 0;                         // connections being served
};

}  // namespace gpuwhy
