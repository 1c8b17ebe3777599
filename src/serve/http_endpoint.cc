#include "serve/http_endpoint.h"

#include <httplib.h>
#include <sys/socket.h>

#include <fmt/format.h>

namespace gpuwhy {

HttpEndpoint::HttpEndpoint(EndpointOptions options)
    : options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  int threads = std::max(1, options_.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_read_timeout(options_.read_timeout_s, 0);
  s.set_write_timeout(options_.write_timeout_s, 0);
  s.set_keep_alive_timeout(options_.read_timeout_s);
  // Each connection holds a serving thread while it is kept alive. After 100 requests it is
  // closed so that, with more clients than threads, queued ones get their turn; the library's
  // default of 5 would make a scraper reconnect almost every time.
  s.set_keep_alive_max_count(100);
  s.set_payload_max_length(options_.max_body_bytes);
  // Headers and body go out in two writes; with Nagle on, the body waits for the client's
  // delayed ACK of the headers (40 ms per scrape on Linux).
  s.set_tcp_nodelay(true);
  // The library listens with a backlog of 5: a burst of new scrapers overflows it and their
  // SYNs wait a second for a retry. Remember the listening socket to deepen it after bind.
  s.set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_socket_ = sock;
  });

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
  bodies_ = std::make_shared<const PublishedBodies>();
}

HttpEndpoint::~HttpEndpoint() { Stop(); }

StatusOr<int> HttpEndpoint::Bind() {
  int port = options_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.host);
    if (port <= 0) return IoError("cannot listen on {}: no free port", options_.host);
  } else if (!server_->bind_to_port(options_.host, options_.port)) {
    return IoError("cannot listen on {}:{} (in use, or not an address of this machine)",
                   options_.host, options_.port);
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
