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
//    thread that frees within `busy_request`;
//  - connections wait for a thread in a ready-first queue (issue 38): admitted when accepted
//    (so the per-client cap counts those waiting too, and `max_pending` bounds them all), they
//    go to a thread only once their request's first bytes have arrived. Idle connections,
//    however many, hold no thread and close after `idle`; a probe that sends its request at
//    once is served at once.
#pragma once

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "serve/deadline_stream.h"

namespace gpuwhy {

struct ConnectionLimits {
  int threads = 16;  // connections served at once, plus one kept for short requests
  std::chrono::milliseconds request{3000};
  std::chrono::milliseconds busy_request{250};
  std::chrono::milliseconds idle{2000};  // keep-alive: between two requests
  std::chrono::milliseconds between_reads{2000};
  std::chrono::milliseconds write{2000};
  int max_per_client = 4;  // connections waiting or served, by client address
  int max_pending = 512;   // connections waiting or served, all clients together
  size_t requests_per_connection = 100;
};

class ReadyFirstQueue;

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);

 private:
  friend class ReadyFirstQueue;
  // Called by the library for each accepted socket, through ReadyFirstQueue::enqueue on the
  // accepting thread: admits the connection (or answers 503 and closes it) without serving.
  bool process_and_close_socket(socket_t sock) override;
  // Serves an admitted connection whose first bytes have arrived, then closes and releases it.
  void Serve(socket_t sock, const std::string& client);
  // Closes an admitted connection that is never served (idle too long, shutting down).
  void Drop(socket_t sock, const std::string& client);
  // Counts |client|'s connection in; "" when admitted, else the 503's reason.
  std::string_view Admit(const std::string& client);
  void Release(const std::string& client);
  bool Busy() const;

  ConnectionLimits limits_;
  DeadlinePolicy policy_;
  mutable std::mutex mu_;                  // guards the counts below
  std::map<std::string, int> per_client_;  // admitted connections by client address
  int admitted_ = 0;                       // waiting or being served
  int serving_ = 0;                        // being served
  int ready_waiting_ = 0;                  // request arrived, no thread yet
};

}  // namespace gpuwhy
