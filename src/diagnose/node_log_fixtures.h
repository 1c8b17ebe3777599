// The hand-written node-log fixtures of tests/data/node_logs/ (one per family of issue 36:
// NCCL, kernel logs, GPU state, metric logs) and the verdict each is expected to get, read
// from its expected.tsv. Shared by the platform and the metric-series diagnosis tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "diagnose/finding.h"

namespace gpuwhy::node_log_fixtures {

struct Fixture {
  std::string path;  // full path of the fixture file
  std::string family;
  std::string expected_class;    // "healthy" when no finding at medium or above
  std::string expected_finding;  // "-" when healthy
  std::string why;
};

inline std::string Dir() { return std::string(GPUWHY_TEST_DATA) + "/node_logs/"; }

// The rows of |family| ("metrics"), or of every other family when |exclude| is true.
inline std::vector<Fixture> Fixtures(const std::string& family, bool exclude) {
  std::vector<Fixture> out;
  std::ifstream in(Dir() + "expected.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string col; std::getline(ss, col, '\t');) cols.push_back(col);
    if (cols.size() < 5 || (cols[1] == family) == exclude) continue;
    out.push_back({Dir() + cols[0], cols[1], cols[2], cols[3], cols[4]});
  }
  return out;
}

// The first finding at medium or above (findings are ranked), as the verdicts score it.
inline const Finding* TopFinding(const std::vector<Finding>& findings) {
  for (const Finding& f : findings) {
    if (f.severity >= Severity::kMedium) return &f;
  }
  return nullptr;
}

// Every evidence line shown as a reason (it has a comparison) satisfies it.
inline void ExpectReasonsHold(const Fixture& fx, const std::vector<Finding>& findings) {
  for (const Finding& f : findings) {
    for (const FindingEvidence& e : f.evidence) {
      const double v = e.metric.value, t = e.threshold;
      const bool holds = e.comparison.empty() || (e.comparison == ">" && v > t) ||
                         (e.comparison == ">=" && v >= t) || (e.comparison == "<" && v < t) ||
                         (e.comparison == "<=" && v <= t);
      EXPECT_TRUE(holds) << fx.path << ": " << f.id << " " << e.metric.id << " = " << v << " "
                         << e.comparison << " " << t;
    }
  }
}

// Checks the ranked |findings| of |fx| against its expected verdict.
inline void ExpectVerdict(const Fixture& fx, const std::vector<Finding>& findings) {
  ExpectReasonsHold(fx, findings);
  const Finding* top = TopFinding(findings);
  if (fx.expected_class == "healthy") {
    EXPECT_EQ(top, nullptr) << fx.path << ": " << (top ? top->id + " " + top->title : "");
    return;
  }
  ASSERT_NE(top, nullptr) << fx.path << " (" << fx.why << ")";
  EXPECT_EQ(top->id, fx.expected_finding) << fx.path << ": " << top->title;
  EXPECT_EQ(BottleneckClassName(top->bottleneck_class), fx.expected_class) << fx.path;
}

}  // namespace gpuwhy::node_log_fixtures
