#include "serve/http_endpoint.h"

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "serve/guarded_server.h"

namespace gpuwhy {
namespace {

ConnectionLimits LimitsOf(const EndpointOptions& options) {
  ConnectionLimits limits;
  limits.threads = std::max(1, options.threads);
  limits.request = std::chrono::milliseconds(options.request_timeout_ms);
  limits.busy_request = std::chrono::milliseconds(options.busy_request_timeout_ms);
  limits.idle = std::chrono::seconds(options.read_timeout_s);
  limits.between_reads = std::chrono::seconds(options.read_timeout_s);
  limits.write = std::chrono::seconds(options.write_timeout_s);
  limits.max_per_client = std::max(1, options.max_connections_per_client);
  return limits;
}

// SO_REUSEADDR only: a restart may bind while old connections linger in TIME_WAIT, but a
// second listener on the port fails. The library's default adds SO_REUSEPORT, with which a
// second `gpuwhy serve` starts silently and the kernel splits the scrapes between the two.
void SetExclusiveListenOptions(int sock) {
  int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

// Why |host|:|port| cannot be bound; the library does not say, so a probe bind of our own,
// with the same options, asks the kernel.
std::string BindFailureReason(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr) {
    return "not an address of this machine";
  }
  int error = 0;
  int sock = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (sock < 0) {
    error = errno;
  } else {
    SetExclusiveListenOptions(sock);
    if (::bind(sock, found->ai_addr, found->ai_addrlen) != 0) error = errno;
    ::close(sock);
  }
  ::freeaddrinfo(found);
  if (error == EADDRINUSE) {
    return "the port is in use (another gpuwhy serve, or another exporter; --listen picks "
           "another port)";
  }
  if (error == EADDRNOTAVAIL) return "not an address of this machine";
  if (error == EACCES) return "permission denied (ports below 1024 need privileges)";
  if (error != 0) return std::strerror(error);
  return "the address is in use or not of this machine";
}

}  // namespace

std::string HostAndPort(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

HttpEndpoint::HttpEndpoint(EndpointOptions options)
    : options_(std::move(options)), server_(std::make_unique<GuardedServer>(LimitsOf(options_))) {
  httplib::Server& s = *server_;
  s.set_read_timeout(options_.read_timeout_s, 0);
  s.set_write_timeout(options_.write_timeout_s, 0);
  s.set_payload_max_length(options_.max_body_bytes);
  // Headers and body go out in two writes; with Nagle on, the body waits for the client's
  // delayed ACK of the headers (40 ms per scrape on Linux).
  s.set_tcp_nodelay(true);
  // The library listens with a backlog of 5: a burst of new scrapers overflows it and their
  // SYNs wait a second for a retry. Remember the listening socket to deepen it after bind.
  s.set_socket_options([this](socket_t sock) {
    SetExclusiveListenOptions(sock);
    listen_socket_ = sock;
  });
  AddRoutes();
  bodies_ = std::make_shared<const PublishedBodies>();
}

void HttpEndpoint::AddRoutes() {
  httplib::Server& s = *server_;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    requests_.fetch_add(1, std::memory_order_relaxed);
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_content("read-only: only GET and HEAD\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!options_.auth_token.empty() && req.path != "/healthz" &&
        !BearerMatches(req.get_header_value("Authorization"), options_.auth_token)) {
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_content("missing or wrong bearer token\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    auto bodies = Current();
    res.set_content(bodies->metrics, "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/findings", [this](const httplib::Request&, httplib::Response& res) {
    auto bodies = Current();
    res.set_content(bodies->findings_json, "application/json");
  });
  s.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    auto bodies = Current();
    res.status = bodies->ready ? 200 : 503;
    res.set_content(bodies->ready ? "ok\n" : "starting: no sample yet\n", "text/plain");
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      res.set_content(fmt::format("{}: see /metrics, /findings, /healthz\n", res.status),
                      "text/plain");
    }
  });
}

HttpEndpoint::~HttpEndpoint() { Stop(); }

StatusOr<int> HttpEndpoint::Bind() {
  int port = options_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.host);
    if (port <= 0) return IoError("cannot listen on {}: no free port", options_.host);
  } else if (!server_->bind_to_port(options_.host, options_.port)) {
    return IoError("cannot listen on {}: {}", HostAndPort(options_.host, options_.port),
                   BindFailureReason(options_.host, options_.port));
  }
  // Linux applies a second listen() to the listening socket as a new backlog.
  if (listen_socket_ >= 0) ::listen(listen_socket_, kListenBacklog);
  return port;
}

void HttpEndpoint::Serve() { server_->listen_after_bind(); }

void HttpEndpoint::Stop() {
  if (server_ != nullptr) server_->stop();
}

void HttpEndpoint::Publish(std::shared_ptr<const PublishedBodies> bodies) {
  std::lock_guard<std::mutex> lock(mu_);
  bodies_ = std::move(bodies);
}

std::shared_ptr<const PublishedBodies> HttpEndpoint::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bodies_;
}

}  // namespace gpuwhy
