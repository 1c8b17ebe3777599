// For the endpoint's tests: an HttpEndpoint on a free loopback port serving fixed bodies from
// its own thread, stopped and joined when destroyed.
#pragma once

#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "serve/http_endpoint.h"

namespace gpuwhy {

class ServedEndpoint {
 public:
  explicit ServedEndpoint(EndpointOptions options) {
    options.port = 0;
    endpoint_ = std::make_unique<HttpEndpoint>(options);
    auto port = endpoint_->Bind();
    if (!port.ok()) {
      error_ = port.status().message();
      return;
    }
    port_ = *port;
    auto bodies = std::make_shared<PublishedBodies>();
    bodies->metrics = "# HELP gpuwhy_x x\n# TYPE gpuwhy_x gauge\ngpuwhy_x 1\n";
    bodies->findings_json = "{\"schema_version\":1}";
    bodies->ready = true;
    endpoint_->Publish(bodies);
    thread_ = std::thread([this] { endpoint_->Serve(); });
    for (int i = 0; i < 200 && !Client().Get("/healthz"); ++i) {  // until it accepts
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~ServedEndpoint() {
    endpoint_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  ServedEndpoint(const ServedEndpoint&) = delete;
  ServedEndpoint& operator=(const ServedEndpoint&) = delete;

  const std::string& error() const { return error_; }  // why it does not serve; empty if it does
  int port() const { return port_; }
  httplib::Client Client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(2, 0);
    c.set_read_timeout(2, 0);
    return c;
  }

 private:
  std::unique_ptr<HttpEndpoint> endpoint_;
  std::thread thread_;
  int port_ = 0;
  std::string error_;
};

}  // namespace gpuwhy
