// Importers of the files an operator collects from a GPU node (a "support bundle") and of
// the local commands `gpuwhy doctor` runs. One file per format; each appends what it reads to
// SystemFacts and never analyses. Every parser takes the whole text and the path it came
// from; records it cannot read are skipped and counted in facts.problems, each with the detail
// "PATH: line N: why";
// an input that is unusable as a whole returns that error (what was read before it is kept).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/system_facts.h"

namespace gpuwhy {

// dmesg (plain, -T, --time-format iso, --decode), journalctl -k (short-iso, short),
// /dev/kmsg records, /var/log/kern.log, pstore dumps: every line counts, NVRM Xid lines
// become XidEvents.
Status ParseKernelLog(std::string_view text, std::string_view path, SystemFacts& facts);

// True when |line| starts with one of the kernel-log timestamp formats above.
bool HasKernelLogTimestamp(std::string_view line);

// `lspci -vvv`: LnkCap/LnkSta per device (excerpts without the device line are kept too).
// Plain `lspci`/`lspci -nn` listings parse to nothing (they carry no link state).
Status ParseLspci(std::string_view text, std::string_view path, SystemFacts& facts);

// `nvidia-smi topo -m` (and `topo -p2p r`): every matrix in the text, legends, NIC names.
Status ParseTopology(std::string_view text, std::string_view path, SystemFacts& facts);

// NCCL_DEBUG=INFO output, possibly interleaved with the job's own output and srun prefixes,
// and nccl-tests result tables.
Status ParseNcclLog(std::string_view text, std::string_view path, SystemFacts& facts);

// `nvidia-smi -q` text.
Status ParseNvidiaSmiQuery(std::string_view text, std::string_view path, SystemFacts& facts);
// `nvidia-smi -q -x` XML.
Status ParseNvidiaSmiXml(std::string_view text, std::string_view path, SystemFacts& facts);
// The default `nvidia-smi` table, `nvidia-smi --query-gpu=… --format=csv` and
// `nvidia-smi nvlink --status|-s`.
Status ParseNvidiaSmiTable(std::string_view text, std::string_view path, SystemFacts& facts);
Status ParseNvidiaSmiCsv(std::string_view text, std::string_view path, SystemFacts& facts);
Status ParseNvLinkStatus(std::string_view text, std::string_view path, SystemFacts& facts);

// NVIDIA Fabric Manager's log: NVSwitch errors become NodeEvents of kind "sxid".
Status ParseFabricManagerLog(std::string_view text, std::string_view path, SystemFacts& facts);

// `ibstat` and `ibstatus`.
Status ParseInfiniband(std::string_view text, std::string_view path, SystemFacts& facts);

// `env` output (NAME=VALUE lines): the settings that matter to a GPU job.
bool IsGpuJobSetting(std::string_view name);
Status ParseEnvironment(std::string_view text, std::string_view path, SystemFacts& facts);

enum class SystemFormat {
  kUnknown,
  kKernelLog,
  kLspci,
  kTopology,
  kNccl,
  kNvidiaSmiQuery,
  kNvidiaSmiXml,
  kNvidiaSmiTable,
  kNvidiaSmiCsv,
  kNvLinkStatus,
  kInfiniband,
  kEnvironment,
  kCommandCapture,  // several commands' outputs, each under "# $ COMMAND" (command_capture.h)
  kFabricManager,
};
std::string_view SystemFormatName(SystemFormat format);  // "kernel log", "lspci -vvv", …

// Recognises a format from the first 64 KiB of a file's text (names do not matter).
SystemFormat SniffSystemFormat(std::string_view text);

// A command capture: each section parsed as what its command prints; a command repeated
// (an idle and a loaded snapshot) is read from its last section, the latest state. Sections
// gpuwhy does not read (help, version, dmon) are skipped.
Status ParseCommandCapture(std::string_view text, std::string_view path, SystemFacts& facts);

// Parses |text| as |format| and records the input in facts.inputs.
Status ParseSystemText(SystemFormat format, std::string_view text, std::string_view path,
                       SystemFacts& facts);

// Reads one file, sniffs and parses it. kUnknown files are recorded nowhere and return
// NotFound so a bundle reader can list them.
Status ReadSystemFile(const std::string& path, SystemFacts& facts);

// A support bundle directory: every file sniffed and parsed (see system_bundle.cc).
struct BundleFailure {
  std::string path;
  std::string message;  // "PATH: line N: why"
};
struct BundleReadResult {
  std::vector<std::string> unrecognised;  // files of no known format (listed, not errors)
  std::vector<BundleFailure> failures;    // files that failed to parse
};
BundleReadResult ReadSupportBundle(const std::string& dir, SystemFacts& facts);
// True for a directory holding at least one recognised system file (or proc/, sys/ trees).
bool LooksLikeSupportBundle(const std::string& dir);

}  // namespace gpuwhy
