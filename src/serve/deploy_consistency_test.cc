// The shipped dashboard and Prometheus rules only use what the exporter really exports:
// every gpuwhy_* name in deploy/grafana/gpuwhy.json and deploy/prometheus/gpuwhy-rules.yml is
// an ExportedFamilies() entry, and every gpuwhy:* recording rule the dashboard uses is defined.
// The manifests, scrape config and docs use the code's default port, the DaemonSet gets every
// GPU device, and the token Secret ships the placeholder that serve refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "report/prometheus_text.h"
#include "serve/auth_token.h"
#include "serve/http_endpoint.h"

namespace gpuwhy {
namespace deploy_consistency_test {

std::string Read(const std::string& relative) {
  std::ifstream in(std::string(GPUWHY_SOURCE_DIR) + "/" + relative);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::set<std::string> Matches(const std::string& text, const std::regex& pattern) {
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

std::set<std::string> Exported() {
  std::set<std::string> names;
  for (const ExportedFamily& f : ExportedFamilies()) names.insert(std::string(f.name));
  return names;
}

TEST(DeployConsistencyTest, DashboardQueriesUseExportedMetricsOnly) {
  std::string dashboard = Read("deploy/grafana/gpuwhy.json");
  ASSERT_FALSE(dashboard.empty()) << "deploy/grafana/gpuwhy.json missing";
  // Only the query strings: "expr": "..." and the templating "query".
  std::set<std::string> exprs =
      Matches(dashboard, std::regex(R"re("(?:expr|query)": "([^"]*)")re"));
  ASSERT_GE(exprs.size(), 10u);
  std::set<std::string> exported = Exported();
  std::string rules = Read("deploy/prometheus/gpuwhy-rules.yml");
  std::set<std::string> recorded = Matches(rules, std::regex(R"(record: (gpuwhy:[a-z0-9_:]+))"));
  ASSERT_FALSE(recorded.empty());
  size_t metrics_used = 0;
  for (const std::string& expr : exprs) {
    for (const std::string& name : Matches(expr, std::regex(R"(\b(gpuwhy_[a-z0-9_]+))"))) {
      EXPECT_EQ(exported.count(name), 1u) << "dashboard uses " << name << ", not exported";
      ++metrics_used;
    }
    for (const std::string& name : Matches(expr, std::regex(R"(\b(gpuwhy:[a-z0-9_:]+))"))) {
      EXPECT_EQ(recorded.count(name), 1u) << "dashboard uses recording rule " << name;
    }
  }
  EXPECT_GE(metrics_used, 15u);
}

TEST(DeployConsistencyTest, RulesUseExportedMetricsOnly) {
  std::string rules = Read("deploy/prometheus/gpuwhy-rules.yml");
  ASSERT_FALSE(rules.empty());
  std::set<std::string> exported = Exported();
  std::set<std::string> used = Matches(rules, std::regex(R"(\b(gpuwhy_[a-z0-9_]+))"));
  ASSERT_GE(used.size(), 8u);
  for (const std::string& name : used) {
    EXPECT_EQ(exported.count(name), 1u) << "rules use " << name << ", not exported";
  }
  // And the finding ids alerts select exist in the catalog's documentation.
  std::string findings_doc = Read("docs/findings.md");
  for (const std::string& id : Matches(rules, std::regex(R"re(id="([a-z_]+\.[a-z_]+)")re"))) {
    EXPECT_NE(findings_doc.find(id), std::string::npos) << id;
  }
}

TEST(DeployConsistencyTest, EverythingUsesTheDefaultPortAndNotDcgmExporters) {
  // dcgm-exporter listens on 9400 and node-exporter on 9100; GPU nodes run both.
  EXPECT_NE(kDefaultServePort, 9400);
  EXPECT_NE(kDefaultServePort, 9100);
  const std::string port = std::to_string(kDefaultServePort);
  const std::pair<const char*, std::string> expected[] = {
      {"deploy/kubernetes/daemonset.yaml", "- --listen=0.0.0.0:" + port + "\n"},
      {"deploy/kubernetes/daemonset.yaml", "containerPort: " + port + "\n"},
      {"deploy/kubernetes/service.yaml", "port: " + port + "\n"},
      {"deploy/prometheus/prometheus.yml", "\"127.0.0.1:" + port + "\""},
      {"docs/serve.md", "`127.0.0.1:" + port + "`"},
      {"README.md", "`127.0.0.1:" + port + "`"},
  };
  for (const auto& [file, text] : expected) {
    EXPECT_NE(Read(file).find(text), std::string::npos) << file << " lacks " << text;
  }
  for (const char* file :
       {"deploy/kubernetes/daemonset.yaml", "deploy/kubernetes/service.yaml",
        "deploy/prometheus/prometheus.yml", "deploy/prometheus/gpuwhy-rules.test.yml"}) {
    std::string text = Read(file);
    ASSERT_FALSE(text.empty()) << file;
    EXPECT_EQ(text.find(":9400"), std::string::npos) << file << " still uses dcgm-exporter's port";
  }
}

TEST(DeployConsistencyTest, TheShippedTokenIsThePlaceholderServeRefuses) {
  std::string service = Read("deploy/kubernetes/service.yaml");
  EXPECT_NE(service.find("  token: " + std::string(kDeployTokenPlaceholder) + "\n"),
            std::string::npos)
      << "the Secret's placeholder and kDeployTokenPlaceholder differ: serve would accept it";
}

// NVML needs every GPU's device node, and the device cgroup must let the container open them:
// the NVIDIA runtime with NVIDIA_VISIBLE_DEVICES=all does both; a hostPath of /dev/nvidiactl
// alone gave NVML no GPU.
TEST(DeployConsistencyTest, TheDaemonSetGetsEveryGpuDevice) {
  std::string daemonset = Read("deploy/kubernetes/daemonset.yaml");
  ASSERT_FALSE(daemonset.empty());
  EXPECT_NE(daemonset.find("\n      runtimeClassName: nvidia\n"), std::string::npos);
  EXPECT_NE(daemonset.find("- name: NVIDIA_VISIBLE_DEVICES\n              value: all\n"),
            std::string::npos);
  EXPECT_EQ(daemonset.find("path: /dev/nvidia"), std::string::npos)
      << "a device node mounted by hostPath: the device cgroup still denies it";
}

}  // namespace deploy_consistency_test
}  // namespace gpuwhy
