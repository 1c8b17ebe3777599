// One connection of `gpuwhy serve` as the HTTP library's Stream, with a bound on the whole
// request. The library's own socket stream times out only between two reads, so a client that
// trickles a header line every second holds a serving thread forever; here a request must be
// complete within a fixed time of its first byte, and within a much shorter one while every
// serving thread is taken (DeadlinePolicy::busy), so slow clients are the first to go.
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>

namespace gpuwhy {

using SteadyClock = std::chrono::steady_clock;

struct DeadlinePolicy {
  std::chrono::milliseconds request;       // a whole request (header and body)
  std::chrono::milliseconds busy_request;  // the same while busy() says others wait
  std::chrono::milliseconds idle;          // between two requests of one connection
  std::chrono::milliseconds between_reads;
  std::chrono::milliseconds write;
  std::function<bool()> busy;
};

class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(socket_t sock, const DeadlinePolicy& policy) : sock_(sock), policy_(policy) {}

  // Waits for the first byte of the next request (within policy.idle) and starts its clock.
  // False when the client closed, sent nothing in time, or the server is busy and it is idle.
  bool WaitForRequest();

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return sock_; }

  // True once a read gave up (deadline, closed, error). The library answers such a request
  // with 400 and would wait for the next one; the connection must be closed instead.
  bool broken() const { return broken_; }

 private:
  // Polls until readable or the request's deadline; re-reads busy() every slice, so a slow
  // request already being read is cut short as soon as other connections wait.
  bool WaitReadable(SteadyClock::time_point started, std::chrono::milliseconds normal,
                    std::chrono::milliseconds busy) const;

  socket_t sock_;
  const DeadlinePolicy& policy_;
  SteadyClock::time_point request_started_ = SteadyClock::now();
  // The library reads a header one byte at a time; one recv() fills this instead.
  char buffer_[4096];
  size_t buffered_ = 0;
  size_t offset_ = 0;
  mutable bool broken_ = false;
};

// "ADDRESS" of the connection's peer (IPv4 or IPv6 text), empty when unknown.
std::string PeerAddress(socket_t sock);

}  // namespace gpuwhy
