#include "serve/deadline_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpuwhy {
namespace {

using std::chrono::milliseconds;

// How often a wait looks again at whether the server became busy.
constexpr milliseconds kBusyCheckSlice{50};

bool PollFor(socket_t sock, short events, milliseconds timeout) {
  pollfd p{sock, events, 0};
  for (;;) {
    int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (ready >= 0) return ready > 0;
    if (errno != EINTR) return false;
  }
}

enum class Side { kPeer, kLocal };

// The address of one end of |sock| as text and port; leaves both alone when unknown.
void SocketAddress(socket_t sock, Side side, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  auto* raw = reinterpret_cast<sockaddr*>(&addr);
  if ((side == Side::kPeer ? ::getpeername(sock, raw, &len) : ::getsockname(sock, raw, &len)) !=
      0) {
    return;
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    port = ntohs(v4.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    port = ntohs(v6.sin6_port);
  } else {
    return;
  }
  ip = text;
}

}  // namespace

bool DeadlineStream::WaitReadable(SteadyClock::time_point started, milliseconds normal,
                                  milliseconds busy) const {
  SteadyClock::time_point call_started = SteadyClock::now();
  for (;;) {
    SteadyClock::time_point now = SteadyClock::now();
    SteadyClock::time_point limit =
        std::min(started + (policy_.busy() ? busy : normal), call_started + policy_.between_reads);
    if (now >= limit) {
      broken_ = true;
      return false;
    }
    milliseconds left = std::chrono::ceil<milliseconds>(limit - now);
    if (PollFor(sock_, POLLIN, std::min(left, kBusyCheckSlice))) return true;
  }
}

bool DeadlineStream::WaitForRequest() {
  if (offset_ == buffered_ &&
      !WaitReadable(SteadyClock::now(), policy_.idle, policy_.busy_request)) {
    return false;
  }
  request_started_ = SteadyClock::now();
  return true;
}

bool DeadlineStream::is_readable() const {
  return offset_ < buffered_ ||
         WaitReadable(request_started_, policy_.request, policy_.busy_request);
}

bool DeadlineStream::is_writable() const { return PollFor(sock_, POLLOUT, policy_.write); }

ssize_t DeadlineStream::read(char* ptr, size_t size) {
  if (offset_ == buffered_) {
    if (!WaitReadable(request_started_, policy_.request, policy_.busy_request)) return -1;
    ssize_t n;
    do {
      n = ::recv(sock_, buffer_, sizeof(buffer_), 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      broken_ = true;
      return n;
    }
    buffered_ = static_cast<size_t>(n);
    offset_ = 0;
  }
  size_t taken = std::min(size, buffered_ - offset_);
  std::memcpy(ptr, buffer_ + offset_, taken);
  offset_ += taken;
  return static_cast<ssize_t>(taken);
}

ssize_t DeadlineStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  ssize_t n;
  do {
    n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

void DeadlineStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  SocketAddress(sock_, Side::kPeer, ip, port);
}

void DeadlineStream::get_local_ip_and_port(std::string& ip, int& port) const {
  SocketAddress(sock_, Side::kLocal, ip, port);
}

std::string PeerAddress(socket_t sock) {
  std::string ip;
  int port = 0;
  SocketAddress(sock, Side::kPeer, ip, port);
  return ip;
}

}  // namespace gpuwhy
