// `gpuwhy doctor` on this machine: reads the host settings and PCIe links from /proc and /sys
// (under an injectable root, so tests and support bundles can point it at a copied tree), the
// job-relevant environment, and runs nvidia-smi and the kernel-log readers when present and
// permitted. What could not be read is recorded in facts.unavailable with the command that
// captures it; nothing here fails because a GPU or a permission is missing.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/system_facts.h"

namespace gpuwhy {

struct CommandOutput {
  int exit_code = -1;  // -1: could not start (not installed)
  std::string output;  // stdout
};

// Runs argv[0] with arguments (no shell) under a timeout, capturing stdout.
using CommandRunner = std::function<CommandOutput(const std::vector<std::string>& argv)>;
CommandOutput RunLocalCommand(const std::vector<std::string>& argv);

struct ProbeOptions {
  std::string root = "/";        // prefix of /proc and /sys
  bool read_environment = true;  // the process environment (off for bundles)
  bool run_commands = true;      // nvidia-smi, dmesg, journalctl (off for bundles and tests)
  std::optional<std::map<std::string, std::string>> environment;  // instead of environ
  CommandRunner run = RunLocalCommand;
};

// Host settings (CPU governor, NUMA balancing, transparent huge pages) and sysfs PCIe links
// of NVIDIA GPUs and NICs under options.root.
void ProbeHostFiles(const ProbeOptions& options, SystemFacts& facts);

// Everything: host files, environment, nvidia-smi -q -x, nvidia-smi topo -m, kernel log.
void ProbeLocalSystem(const ProbeOptions& options, SystemFacts& facts);

}  // namespace gpuwhy
