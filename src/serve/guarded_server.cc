#include "serve/guarded_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string_view>

namespace gpuwhy {
namespace {

// Sent without reading the request: the client holds its share of connections already.
constexpr std::string_view kTooManyConnections =
    "HTTP/1.1 503 Service Unavailable\r\n"
    "Connection: close\r\n"
    "Retry-After: 1\r\n"
    "Content-Type: text/plain\r\n"
    "Content-Length: 40\r\n"
    "\r\n"
    "too many connections from this address\r\n";

void CloseConnection(socket_t sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits) {
  policy_ = DeadlinePolicy{limits_.request,       limits_.busy_request, limits_.idle,
                           limits_.between_reads, limits_.write,        [this] { return Busy(); }};
  size_t pool = static_cast<size_t>(std::max(1, limits_.threads)) + 1;
  new_task_queue = [pool] { return new httplib::ThreadPool(pool); };
}

bool GuardedServer::Admit(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  int& held = per_client_[client];
  if (held >= limits_.max_per_client) {
    if (held == 0) per_client_.erase(client);
    return false;
  }
  ++held;
  ++active_;
  return true;
}

void GuardedServer::Release(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  if (--per_client_[client] <= 0) per_client_.erase(client);
  --active_;
}

bool GuardedServer::Busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_ > limits_.threads;  // the kept thread is in use
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  std::string client = PeerAddress(sock);
  if (!Admit(client)) {
    (void)::send(sock, kTooManyConnections.data(), kTooManyConnections.size(),
                 MSG_NOSIGNAL | MSG_DONTWAIT);
    CloseConnection(sock);
    return false;
  }
  // Accepted sockets do not inherit TCP_NODELAY from the listener everywhere; the body must
  // not wait for the delayed ACK of the headers.
  int yes = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  // On the kept thread (all others taken) serve one request only, so that it frees soon.
  size_t requests_left = Busy() ? 1 : limits_.requests_per_connection;
  DeadlineStream stream(sock, policy_);
  bool served = false;
  while (svr_sock_ != INVALID_SOCKET && requests_left > 0 && stream.WaitForRequest()) {
    bool connection_closed = false;
    served = process_request(stream, requests_left == 1, connection_closed, nullptr);
    if (!served || connection_closed || stream.broken()) break;
    --requests_left;
  }
  CloseConnection(sock);
  Release(client);
  return served;
}

}  // namespace gpuwhy
