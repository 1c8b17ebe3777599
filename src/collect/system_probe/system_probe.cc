#include "collect/system_probe/system_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "ingest/system/system_parsers.h"

extern char** environ;

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> ReadSmallFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

fs::path Under(const std::string& root, std::string_view absolute) {
  return fs::path(root) / std::string(absolute.substr(1));
}

void ReadGovernors(const std::string& root, SystemFacts& facts) {
  std::map<std::string, int> governors;
  std::error_code ec;
  fs::path cpus = Under(root, "/sys/devices/system/cpu");
  for (const fs::directory_entry& e : fs::directory_iterator(cpus, ec)) {
    std::string name = e.path().filename().string();
    if (!name.starts_with("cpu") || name.size() < 4 ||
        !std::isdigit(static_cast<unsigned char>(name[3]))) {
      continue;
    }
    if (auto g = ReadSmallFile(e.path() / "cpufreq" / "scaling_governor")) ++governors[*g];
  }
  if (governors.empty()) {
    facts.unavailable.push_back({"cpu frequency governor",
                                 "no cpufreq in " + cpus.string() + " (VM or driver without it)",
                                 "cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"});
    return;
  }
  // The most common governor names the host's setting; any other is listed too.
  auto top = std::max_element(governors.begin(), governors.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  SourceQuote q{(cpus / "cpu*/cpufreq/scaling_governor").string(), 0,
                fmt::format("{} on {} CPUs", top->first, top->second)};
  facts.settings.push_back({"cpu.governor", top->first, q});
  facts.settings.push_back({"cpu.governor_cpus", std::to_string(top->second), q});
}

void ReadSetting(const std::string& root, std::string_view file, std::string name,
                 SystemFacts& facts) {
  fs::path path = Under(root, file);
  std::optional<std::string> value = ReadSmallFile(path);
  if (!value) {
    facts.unavailable.push_back(
        {"host setting " + name, "cannot read " + path.string(), fmt::format("cat {}", file)});
    return;
  }
  facts.settings.push_back({std::move(name), *value, {path.string(), 1, *value}});
}

std::optional<double> SysfsSpeed(const fs::path& path) {
  std::optional<std::string> text = ReadSmallFile(path);
  if (!text) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  if (end == text->c_str()) return std::nullopt;  // "Unknown speed"
  return v;
}

void ReadPciLinks(const std::string& root, SystemFacts& facts) {
  std::error_code ec;
  fs::path devices = Under(root, "/sys/bus/pci/devices");
  bool any = false;
  for (const fs::directory_entry& e : fs::directory_iterator(devices, ec)) {
    std::string vendor = ReadSmallFile(e.path() / "vendor").value_or("");
    std::string cls = ReadSmallFile(e.path() / "class").value_or("");
    PcieLink link;
    if (vendor == "0x10de" && (cls.starts_with("0x0300") || cls.starts_with("0x0302"))) {
      link.kind = PcieDeviceKind::kGpu;
    } else if (cls.starts_with("0x0200") || cls.starts_with("0x0207")) {
      link.kind = PcieDeviceKind::kNic;
    } else {
      continue;
    }
    link.address = e.path().filename().string();
    link.description = fmt::format("vendor {} class {}", vendor, cls);
    link.source = "sysfs";
    link.speed_gts = SysfsSpeed(e.path() / "current_link_speed");
    link.max_speed_gts = SysfsSpeed(e.path() / "max_link_speed");
    if (auto w = SysfsSpeed(e.path() / "current_link_width")) link.width = static_cast<int>(*w);
    if (auto w = SysfsSpeed(e.path() / "max_link_width")) link.max_width = static_cast<int>(*w);
    if (!link.speed_gts && !link.width) continue;
    link.speed_downgraded =
        link.speed_gts && link.max_speed_gts && *link.speed_gts < *link.max_speed_gts;
    link.width_downgraded = link.width && link.max_width && *link.width < *link.max_width;
    link.sta_quote = {
        (e.path() / "current_link_speed").string(), 0,
        fmt::format("current {} GT/s x{}", link.speed_gts.value_or(0), link.width.value_or(0))};
    link.cap_quote = {
        (e.path() / "max_link_speed").string(), 0,
        fmt::format("max {} GT/s x{}", link.max_speed_gts.value_or(0), link.max_width.value_or(0))};
    facts.pcie_links.push_back(std::move(link));
    any = true;
  }
  if (any) facts.inputs.push_back({devices.string(), "sysfs PCIe links", 0});
}

void ReadEnvironment(const ProbeOptions& options, SystemFacts& facts) {
  std::map<std::string, std::string> env;
  if (options.environment) {
    env = *options.environment;
  } else {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string_view kv(*e);
      size_t eq = kv.find('=');
      if (eq != std::string_view::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  for (const auto& [name, value] : env) {
    if (!IsGpuJobSetting(name)) continue;
    facts.settings.push_back({name, value, {"environment", 0, name + "=" + value}});
  }
  facts.inputs.push_back({"environment", "process environment", 0});
}

// Runs a command; on success parses its output as |format| under the name |label|.
bool RunAndParse(const ProbeOptions& options, const std::vector<std::string>& argv,
                 SystemFormat format, SystemFacts& facts) {
  CommandOutput out = options.run(argv);
  if (out.exit_code != 0 || out.output.empty()) return false;
  std::string label;
  for (const std::string& a : argv) label += (label.empty() ? "" : " ") + a;
  Status status = ParseSystemText(format, out.output, label, facts);
  if (!status.ok()) facts.problems.Add(DataProblem::kUnreadableOutput, status.message());
  return true;
}

void ReadKernelLog(const ProbeOptions& options, SystemFacts& facts) {
  if (RunAndParse(options, {"dmesg", "--time-format", "iso"}, SystemFormat::kKernelLog, facts))
    return;
  if (RunAndParse(options, {"journalctl", "-k", "-o", "short-iso", "--no-pager", "-q"},
                  SystemFormat::kKernelLog, facts)) {
    return;
  }
  for (const char* file : {"/var/log/kern.log", "/var/log/messages"}) {
    fs::path path = Under(options.root, file);
    std::ifstream in(path);
    if (!in) continue;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (ParseSystemText(SystemFormat::kKernelLog, text, path.string(), facts).ok()) return;
  }
  facts.unavailable.push_back(
      {"kernel log",
       "no permission to read it (dmesg and journalctl -k failed; kernel.dmesg_restrict=1 or "
       "not in the adm/systemd-journal group)",
       "sudo dmesg -T > dmesg.txt  (then: gpuwhy doctor --from .)"});
}

}  // namespace

CommandOutput RunLocalCommand(const std::vector<std::string>& argv) {
  CommandOutput result;
  int pipefd[2];
  if (argv.empty() || pipe(pipefd) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipefd[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    return result;  // not installed
  }
  // nvidia-smi can hang on a broken GPU: give every command 30 s.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  char buffer[65536];
  bool timed_out = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = read(pipefd[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
    if (result.output.size() > (256u << 20)) break;  // a kernel log is never this large
  }
  close(pipefd[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = timed_out ? 124 : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return result;
}

void ProbeHostFiles(const ProbeOptions& options, SystemFacts& facts) {
  ReadGovernors(options.root, facts);
  ReadSetting(options.root, "/proc/sys/kernel/numa_balancing", "kernel.numa_balancing", facts);
  ReadSetting(options.root, "/sys/kernel/mm/transparent_hugepage/enabled",
              "mm.transparent_hugepage", facts);
  ReadPciLinks(options.root, facts);
}

void ProbeLocalSystem(const ProbeOptions& options, SystemFacts& facts) {
  ProbeHostFiles(options, facts);
  if (options.read_environment) ReadEnvironment(options, facts);
  if (!options.run_commands) return;
  bool smi = RunAndParse(options, {"nvidia-smi", "-q", "-x"}, SystemFormat::kNvidiaSmiXml, facts);
  if (!smi) {
    facts.unavailable.push_back(
        {"GPU state (nvidia-smi)",
         "nvidia-smi did not run: no NVIDIA driver or no GPU on this machine",
         "nvidia-smi -q > nvidia-smi-q.txt  (on the GPU node)"});
    facts.unavailable.push_back(
        {"topology", "nvidia-smi did not run", "nvidia-smi topo -m > topo.txt"});
  } else if (!RunAndParse(options, {"nvidia-smi", "topo", "-m"}, SystemFormat::kTopology, facts)) {
    facts.unavailable.push_back(
        {"topology", "nvidia-smi topo -m failed", "nvidia-smi topo -m > topo.txt"});
  }
  ReadKernelLog(options, facts);
}

}  // namespace gpuwhy
