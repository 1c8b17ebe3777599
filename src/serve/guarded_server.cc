#include "serve/guarded_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <string_view>
#include <thread>
#include <vector>

namespace gpuwhy {
namespace {

// Sent without reading the request: the client holds its share of connections already, or
// the server holds all it will.
constexpr std::string_view kTooManyFromClient = "too many connections from this address";
constexpr std::string_view kTooManyInAll = "too many connections waiting";

void Refuse(socket_t sock, std::string_view reason) {
  const std::string response =
      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n"
      "Content-Type: text/plain\r\nContent-Length: " +
      std::to_string(reason.size() + 2) + "\r\n\r\n" + std::string(reason) + "\r\n";
  (void)::send(sock, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void CloseConnection(socket_t sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

// The library hands the queue a closure over the accepted socket; the closure calls
// process_and_close_socket, which, while this is set, only admits and reports the socket.
thread_local bool t_admitting = false;
thread_local socket_t t_admitted = INVALID_SOCKET;
thread_local std::string t_client;

}  // namespace

// The library's task queue replaced: a dispatcher thread polls the admitted connections and
// hands those with bytes to read (or closed) to the serving threads, oldest first; those idle
// past the limit are closed without ever taking a thread.
class ReadyFirstQueue : public httplib::TaskQueue {
 public:
  ReadyFirstQueue(GuardedServer& server, size_t threads, std::chrono::milliseconds idle)
      : server_(server), idle_(idle), wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    dispatcher_ = std::thread([this] { Dispatch(); });
    for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~ReadyFirstQueue() override {
    if (wake_ >= 0) ::close(wake_);
  }

  void enqueue(std::function<void()> fn) override {
    t_admitted = INVALID_SOCKET;
    t_admitting = true;
    fn();
    t_admitting = false;
    if (t_admitted == INVALID_SOCKET) return;  // refused, or closed already
    {
      std::lock_guard<std::mutex> lock(mu_);
      waiting_.push_back({t_admitted, std::move(t_client), SteadyClock::now()});
    }
    Wake();
  }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    Wake();
    ready_cv_.notify_all();
    dispatcher_.join();
    for (std::thread& worker : workers_) worker.join();
    for (Connection& c : waiting_) server_.Drop(c.sock, c.client);
    for (Connection& c : ready_) server_.Drop(c.sock, c.client);
    waiting_.clear();
    ready_.clear();
  }

 private:
  struct Connection {
    socket_t sock;
    std::string client;
    SteadyClock::time_point since;
  };

  void Wake() {
    uint64_t one = 1;
    (void)!::write(wake_, &one, sizeof(one));
  }

  void Dispatch() {
    std::vector<pollfd> fds;
    for (;;) {
      fds.assign(1, pollfd{wake_, POLLIN, 0});
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
        for (const Connection& c : waiting_) fds.push_back({c.sock, POLLIN, 0});
      }
      ::poll(fds.data(), fds.size(), 50);
      if (fds[0].revents != 0) {
        uint64_t count;
        (void)!::read(wake_, &count, sizeof(count));
      }
      const SteadyClock::time_point now = SteadyClock::now();
      std::vector<Connection> expired;
      bool handed = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        // Only this thread removes from waiting_; enqueue appends: the first fds.size() - 1
        // entries are the ones polled.
        std::vector<Connection> still;
        for (size_t i = 0; i < waiting_.size(); ++i) {
          Connection& c = waiting_[i];
          if (i + 1 < fds.size() && fds[i + 1].revents != 0) {
            ready_.push_back(std::move(c));
            handed = true;
          } else if (now - c.since > idle_) {
            expired.push_back(std::move(c));
          } else {
            still.push_back(std::move(c));
          }
        }
        waiting_ = std::move(still);
        std::lock_guard<std::mutex> counts(server_.mu_);
        server_.ready_waiting_ = static_cast<int>(ready_.size());
      }
      if (handed) ready_cv_.notify_all();
      for (Connection& c : expired) server_.Drop(c.sock, c.client);
    }
  }

  void Work() {
    for (;;) {
      Connection c;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_cv_.wait(lock, [this] { return stop_ || !ready_.empty(); });
        if (stop_) return;
        c = std::move(ready_.front());
        ready_.pop_front();
        std::lock_guard<std::mutex> counts(server_.mu_);
        server_.ready_waiting_ = static_cast<int>(ready_.size());
      }
      server_.Serve(c.sock, c.client);
    }
  }

  GuardedServer& server_;
  const std::chrono::milliseconds idle_;
  const int wake_;
  std::mutex mu_;  // guards everything below
  std::condition_variable ready_cv_;
  std::vector<Connection> waiting_;  // admitted, nothing to read yet
  std::deque<Connection> ready_;     // bytes to read, no thread yet
  bool stop_ = false;
  std::thread dispatcher_;
  std::vector<std::thread> workers_;
};

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits) {
  policy_ = DeadlinePolicy{limits_.request,       limits_.busy_request, limits_.idle,
                           limits_.between_reads, limits_.write,        [this] { return Busy(); }};
  size_t pool = static_cast<size_t>(std::max(1, limits_.threads)) + 1;
  new_task_queue = [this, pool] { return new ReadyFirstQueue(*this, pool, limits_.idle); };
}

std::string_view GuardedServer::Admit(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  if (admitted_ >= limits_.max_pending) return kTooManyInAll;
  int& held = per_client_[client];
  if (held >= limits_.max_per_client) {
    if (held == 0) per_client_.erase(client);
    return kTooManyFromClient;
  }
  ++held;
  ++admitted_;
  return "";
}

void GuardedServer::Release(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  if (--per_client_[client] <= 0) per_client_.erase(client);
  --admitted_;
}

bool GuardedServer::Busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  // The kept thread is in use, or requests wait for a thread.
  return serving_ > limits_.threads || ready_waiting_ > 0;
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  std::string client = PeerAddress(sock);
  if (std::string_view refused = Admit(client); !refused.empty()) {
    Refuse(sock, refused);
    CloseConnection(sock);
    return false;
  }
  if (t_admitting) {
    t_admitted = sock;
    t_client = std::move(client);
    return true;
  }
  Serve(sock, client);  // a task queue other than ours: served here, as the library does
  return true;
}

void GuardedServer::Drop(socket_t sock, const std::string& client) {
  CloseConnection(sock);
  Release(client);
}

void GuardedServer::Serve(socket_t sock, const std::string& client) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++serving_;
  }
  // Accepted sockets do not inherit TCP_NODELAY from the listener everywhere; the body must
  // not wait for the delayed ACK of the headers.
  int yes = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  // On the kept thread (all others taken) serve one request only, so that it frees soon.
  size_t requests_left = Busy() ? 1 : limits_.requests_per_connection;
  DeadlineStream stream(sock, policy_);
  while (svr_sock_ != INVALID_SOCKET && requests_left > 0 && stream.WaitForRequest()) {
    bool connection_closed = false;
    bool served = process_request(stream, requests_left == 1, connection_closed, nullptr);
    if (!served || connection_closed || stream.broken()) break;
    --requests_left;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --serving_;
  }
  Drop(sock, client);
}

}  // namespace gpuwhy
