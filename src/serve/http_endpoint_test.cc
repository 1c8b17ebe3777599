// The endpoint on loopback: routes, read-only methods, bearer tokens, and hostile clients
// (a slow client, a half-open one, huge headers, garbage) that get errors or are dropped
// without stopping the server for everyone else.
#include "serve/http_endpoint.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "serve/served_endpoint_test_util.h"

namespace gpuwhy {
namespace http_endpoint_test {

class EndpointTest : public ::testing::Test {
 protected:
  void StartServer(std::string token = "") {
    EndpointOptions options;
    options.auth_token = std::move(token);
    options.threads = 4;
    options.read_timeout_s = 1;
    server_ = std::make_unique<ServedEndpoint>(options);
    ASSERT_TRUE(server_->error().empty()) << server_->error();
    port_ = server_->port();
  }
  void TearDown() override { server_.reset(); }
  httplib::Client Client() { return server_->Client(); }
  // A raw TCP connection to the server.
  int Connect() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    return fd;
  }
  // Sends |request| and reads until the server closes or 3 s pass.
  std::string Exchange(const std::string& request) {
    int fd = Connect();
    timeval tv{3, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    size_t sent = 0;
    while (sent < request.size()) {
      ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;  // the server may close early on a bad request
      sent += static_cast<size_t>(n);
    }
    std::string reply;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) reply.append(buf, static_cast<size_t>(n));
    ::close(fd);
    return reply;
  }
  void ExpectHealthy() {
    auto res = Client().Get("/healthz");
    ASSERT_TRUE(res) << "server stopped answering";
    EXPECT_EQ(res->status, 200);
  }

  std::unique_ptr<ServedEndpoint> server_;
  int port_ = 0;
};

TEST_F(EndpointTest, ServesThePublishedBodies) {
  StartServer();
  auto metrics = Client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics->body.find("gpuwhy_x 1"), std::string::npos);
  auto findings = Client().Get("/findings");
  ASSERT_TRUE(findings);
  EXPECT_EQ(findings->get_header_value("Content-Type"), "application/json");
  auto head = Client().Head("/metrics");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
}

TEST_F(EndpointTest, HealthSaysStartingUntilTheFirstSample) {
  EndpointOptions options;
  options.port = 0;
  HttpEndpoint endpoint(options);
  auto port = endpoint.Bind();
  ASSERT_TRUE(port.ok());
  std::thread t([&] { endpoint.Serve(); });
  httplib::Client c("127.0.0.1", *port);
  auto res = c.Get("/healthz");
  for (int i = 0; i < 200 && !res; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    res = c.Get("/healthz");
  }
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  endpoint.Stop();
  t.join();
}

TEST_F(EndpointTest, ReadOnlyAndUnknownPaths) {
  StartServer();
  auto post = Client().Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  auto del = Client().Delete("/findings");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 405);
  auto unknown = Client().Get("/admin");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  // A method HTTP does not define is a bad request.
  std::string brew = Exchange("BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(brew.starts_with("HTTP/1.1 400 ")) << brew;
  ExpectHealthy();
}

TEST_F(EndpointTest, BearerTokenGuardsEverythingButHealth) {
  StartServer("s3cret");
  auto none = Client().Get("/metrics");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->body.find("gpuwhy_x"), std::string::npos);
  auto wrong = Client().Get("/metrics", {{"Authorization", "Bearer s3cres"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto right = Client().Get("/metrics", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200);
  ExpectHealthy();
}

TEST(BearerMatchesTest, ExactTokenOnly) {
  EXPECT_TRUE(BearerMatches("Bearer abc", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer abcd", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer abcabc", "abc"));
  EXPECT_FALSE(BearerMatches("", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer ab", "abc"));
  EXPECT_FALSE(BearerMatches("Bearer ", "abc"));
  EXPECT_FALSE(BearerMatches("Bearerabc", "abc"));
  EXPECT_FALSE(BearerMatches("Basic abc", "abc"));
}

// RFC 7235: the scheme is case-insensitive; Prometheus and curl users write it either way.
TEST(BearerMatchesTest, TheSchemeIsCaseInsensitive) {
  EXPECT_TRUE(BearerMatches("bearer abc", "abc"));
  EXPECT_TRUE(BearerMatches("BEARER abc", "abc"));
  EXPECT_TRUE(BearerMatches("bEaReR abc", "abc"));
  EXPECT_FALSE(BearerMatches("bearer ABC", "abc")) << "the token itself is case-sensitive";
}

// A wrong length must cost as much as a wrong byte: an early return on a length mismatch
// lets a client find the token's length by timing. With a 1 MiB token the difference
// between returning at once and comparing every byte is three orders of magnitude, far above
// the noise of a loaded machine; the fastest of several runs is compared.
TEST(BearerMatchesTest, AWrongLengthTakesAsLongAsAWrongByte) {
  const std::string token(1 << 20, 'a');
  const std::string same_length = "Bearer " + std::string(token.size(), 'b');
  const std::string one_longer = "Bearer " + std::string(token.size() + 1, 'b');
  auto fastest = [&](const std::string& header) {
    auto best = std::chrono::nanoseconds::max();
    for (int i = 0; i < 7; ++i) {
      auto start = std::chrono::steady_clock::now();
      EXPECT_FALSE(BearerMatches(header, token));
      best = std::min(best, std::chrono::steady_clock::now() - start);
    }
    return static_cast<double>(best.count());
  };
  double same = fastest(same_length);
  double longer = fastest(one_longer);
  EXPECT_GT(longer, same / 4) << "a length mismatch returns early: " << longer << " ns vs " << same;
}

// SO_REUSEPORT (the library's default) let a second exporter bind the same port and take
// half of the scrapes silently; the second one must fail, naming the address.
TEST(ExclusiveBindTest, ASecondServerOnTheSamePortFailsNamingIt) {
  EndpointOptions options;
  options.port = 0;
  HttpEndpoint first(options);
  auto port = first.Bind();
  ASSERT_TRUE(port.ok()) << port.status().message();
  options.port = *port;
  HttpEndpoint second(options);
  auto again = second.Bind();
  ASSERT_FALSE(again.ok()) << "two servers listen on port " << *port;
  const std::string& message = again.status().message();
  EXPECT_NE(message.find("127.0.0.1:" + std::to_string(*port)), std::string::npos) << message;
  EXPECT_NE(message.find("in use"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(EndpointTest, SlowAndHalfOpenClientsDoNotBlockOthers) {
  StartServer();
  // Four clients that send half a request and stall hold at most their threads until the
  // read timeout; meanwhile, and after, others are served.
  std::vector<int> slow;
  for (int i = 0; i < 4; ++i) {
    int fd = Connect();
    const char partial[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    ASSERT_GT(::send(fd, partial, sizeof(partial) - 1, MSG_NOSIGNAL), 0);
    slow.push_back(fd);
  }
  for (int i = 0; i < 4; ++i) ::close(Connect());                // half-open: connect and vanish
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // past the read timeout
  ExpectHealthy();
  for (int fd : slow) ::close(fd);
  ExpectHealthy();
}

TEST_F(EndpointTest, HugeHeadersAndGarbageGetErrors) {
  StartServer();
  std::string huge =
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
  std::string reply = Exchange(huge);
  EXPECT_EQ(reply.find("gpuwhy_x"), std::string::npos) << "a 64 KiB header was served";
  std::string long_uri = "GET /" + std::string(20000, 'm') + " HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_EQ(Exchange(long_uri).find(" 200 "), std::string::npos);
  EXPECT_EQ(Exchange("\x16\x03\x01 not http at all\r\n\r\n").find(" 200 "), std::string::npos);
  std::string body = "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n";
  EXPECT_EQ(Exchange(body).find(" 200 "), std::string::npos);
  ExpectHealthy();
}

}  // namespace http_endpoint_test
}  // namespace gpuwhy
