// Threshold overrides: "RULE.PARAM=VALUE" from the command line or a config file.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "diagnose/catalog.h"

namespace gpuwhy {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool ParseNumber(std::string_view text, double& out) {
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

}  // namespace

Status Catalog::ApplyOverride(std::string_view assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgument("'{}': expected RULE.PARAM=VALUE", assignment);
  }
  std::string_view key = Trim(assignment.substr(0, eq));
  std::string_view value_text = Trim(assignment.substr(eq + 1));
  // Rule ids contain dots ("input.dataloader_wait"); parameter names never do.
  size_t dot = key.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == key.size()) {
    return InvalidArgument("'{}': expected RULE.PARAM before '='", key);
  }
  std::string_view rule_id = key.substr(0, dot);
  std::string_view param_name = key.substr(dot + 1);
  RuleSpec* spec = nullptr;
  for (RuleSpec& s : rules_) {
    if (s.id == rule_id) spec = &s;
  }
  if (spec == nullptr) return InvalidArgument("unknown rule '{}'", rule_id);
  RuleParam* param = nullptr;
  for (RuleParam& p : spec->params) {
    if (p.name == param_name) param = &p;
  }
  if (param == nullptr) {
    std::string known;
    for (const RuleParam& p : spec->params) known += (known.empty() ? "" : ", ") + p.name;
    return InvalidArgument("rule '{}' has no parameter '{}' (known: {})", rule_id, param_name,
                           known.empty() ? "none" : known);
  }
  double value = 0;
  if (!ParseNumber(value_text, value)) {
    return InvalidArgument("'{}': '{}' is not a number", key, value_text);
  }
  param->value = value;
  param->source = "override (default from " + param->source + ")";
  return Status::Ok();
}

Status Catalog::ApplyConfigText(std::string_view text, std::string_view name) {
  int line_number = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_number;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    Status status = ApplyOverride(line);
    if (!status.ok()) return InvalidArgument("{}:{}: {}", name, line_number, status.message());
  }
  return Status::Ok();
}

Status Catalog::ApplyConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("{}: cannot open: {}", path, std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return IoError("{}: read error", path);
  return ApplyConfigText(text.str(), path);
}

}  // namespace gpuwhy
