// Link-state listings: `nvidia-smi nvlink --status|-s` ("GPU 0: NAME (UUID: …)" then
// "Link N: 26.562 GB/s" or "Link N: <inactive>"), and `ibstat` ("CA 'mlx5_0'" … "Port 1:" …
// "State: Active") / `ibstatus` ("Infiniband device 'mlx5_0' port 1 status:" … "state: 4:
// ACTIVE").
#include "base/number_cast.h"
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

// A port number no int holds (1.8e19) is a data problem, never a cast; the port reads 0.
int CheckedPort(double n, std::string_view path, const system::TextLine& line, SystemFacts& facts) {
  if (std::optional<int> port = ToInteger<int>(n)) return *port;
  facts.problems.Add(DataProblem::kUnparsedLine,
                     system::LineError(path, line.number, "port number out of range"));
  return 0;
}

using system::TextLine;

std::string Quoted(std::string_view s) {
  size_t a = s.find('\'');
  size_t b = a == std::string_view::npos ? a : s.find('\'', a + 1);
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(a + 1, b - a - 1));
}

// "4: ACTIVE" -> "ACTIVE"; "Active" stays.
std::string StateWord(std::string_view v) {
  size_t colon = v.find(':');
  if (colon != std::string_view::npos) v = v.substr(colon + 1);
  return std::string(system::Trim(v));
}

}  // namespace

Status ParseNvLinkStatus(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::string gpu;
  bool any = false;
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (t.starts_with("GPU ") && system::Contains(t, ":")) {
      gpu = std::string(t);
      any = true;
      continue;
    }
    if (!t.starts_with("Link ")) continue;
    size_t colon = t.find(':');
    std::optional<double> number = system::LeadingNumber(t.substr(5));
    std::optional<int> link = number ? ToInteger<int>(*number) : std::nullopt;
    if (colon == std::string_view::npos || !link || gpu.empty()) {
      facts.problems.Add(
          DataProblem::kUnparsedLine,
          system::LineError(path, line.number, "NVLink line without a GPU or link number"));
      continue;
    }
    NvLinkState state;
    state.gpu = gpu;
    state.link = *link;
    std::string_view value = system::Trim(t.substr(colon + 1));
    state.inactive = system::Contains(value, "inactive");
    if (!state.inactive) state.gbs = system::LeadingNumber(value);
    state.quote = system::Quote(path, line);
    facts.nvlinks.push_back(std::move(state));
  }
  if (!any) return InvalidArgument("{}: no 'GPU N:' line", path);
  return Status::Ok();
}

Status ParseInfiniband(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::optional<IbPort> port;
  std::string device;
  auto flush = [&] {
    if (port) facts.ib_ports.push_back(std::move(*port));
    port.reset();
  };
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (t.starts_with("CA '")) {
      flush();
      device = Quoted(t);
      continue;
    }
    if (t.starts_with("Infiniband device '")) {
      flush();
      port.emplace();
      port->device = Quoted(t);
      size_t p = t.find(" port ");
      if (auto n =
              p == std::string_view::npos ? std::nullopt : system::LeadingNumber(t.substr(p + 6))) {
        port->port = CheckedPort(*n, path, line, facts);
      }
      port->quote = system::Quote(path, line);
      continue;
    }
    if (t.starts_with("Port ") && t.ends_with(":") && !device.empty()) {
      flush();
      port.emplace();
      port->device = device;
      if (auto n = system::LeadingNumber(t.substr(5)))
        port->port = CheckedPort(*n, path, line, facts);
      port->quote = system::Quote(path, line);
      continue;
    }
    if (!port) continue;
    size_t colon = t.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = system::Trim(t.substr(0, colon));
    std::string_view value = system::Trim(t.substr(colon + 1));
    if (key == "State" || key == "state") {
      port->state = StateWord(value);
      port->quote = system::Quote(path, line);
    } else if (key == "Physical state" || key == "phys state") {
      port->physical_state = StateWord(value);
    } else if (key == "Rate" || key == "rate") {
      port->rate_gbps = system::LeadingNumber(value);
    } else if (key == "Link layer" || key == "link_layer") {
      port->link_layer = std::string(value);
    }
  }
  flush();
  return Status::Ok();
}

}  // namespace gpuwhy
