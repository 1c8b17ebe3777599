// A support bundle: a directory of files collected from a node (kernel log, lspci -vvv,
// nvidia-smi outputs, topo -m, NCCL logs, ibstat, env). Names do not matter: every regular
// file is sniffed. Traces next to the logs (.json, .json.gz, .sqlite, .nsys-rep) and proc/ and
// sys/ trees (read by gpuwhy doctor's probe with the bundle as root) are left alone.
#include <algorithm>
#include <filesystem>

#include "base/file_input.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

constexpr uintmax_t kMaxFileBytes = 512ull << 20;

bool SkippedName(const fs::path& path) {
  std::string name = path.filename().string();
  for (std::string_view ext : {".json", ".json.gz", ".sqlite", ".nsys-rep", ".qdrep", ".pt", ".pkl",
                               ".tar", ".tgz", ".zip"}) {
    if (name.ends_with(ext)) return true;
  }
  return name.starts_with(".");
}

// A symlink whose target lies outside |root| (canonical): a bundle is read as what it holds,
// never as the machine it is read on (a link to /proc/self/environ would quote the reader's
// environment as the node's).
bool LeavesTheBundle(const fs::directory_entry& e, const fs::path& root) {
  std::error_code ec;
  if (!e.is_symlink(ec)) return false;
  const fs::path target = fs::canonical(e.path(), ec);
  if (ec) return true;
  auto [r, t] = std::mismatch(root.begin(), root.end(), target.begin(), target.end());
  return r != root.end();
}

// The bundle's files, in name order; the symlinks out of it go to |refused| (when given).
std::vector<fs::path> BundleFiles(const std::string& dir,
                                  std::vector<BundleFailure>* refused = nullptr) {
  std::vector<fs::path> files;
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    // An entry that cannot be stat'ed (a symlink loop) is skipped, and does not end the walk.
    std::error_code entry_ec;
    if (e.is_directory(entry_ec) && it.depth() == 0 && (name == "proc" || name == "sys")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(entry_ec) || SkippedName(e.path())) continue;
    if (LeavesTheBundle(e, root)) {
      if (refused != nullptr)
        refused->push_back(
            {e.path().string(), e.path().string() + ": a symlink out of the bundle: not read"});
      continue;
    }
    if (e.file_size(entry_ec) > kMaxFileBytes) continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // deterministic order
  if (refused != nullptr) {
    std::sort(refused->begin(), refused->end(),
              [](const BundleFailure& a, const BundleFailure& b) { return a.path < b.path; });
  }
  return files;
}

}  // namespace

bool LooksLikeSupportBundle(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  if (fs::is_directory(fs::path(dir) / "proc", ec) || fs::is_directory(fs::path(dir) / "sys", ec)) {
    return true;
  }
  // The sniffer reads 64 KiB: a head is enough (and a gzip bomb is not inflated to its limit
  // twice, once here and once when read).
  for (const fs::path& file : BundleFiles(dir)) {
    StatusOr<std::string> head = ReadFileHead(file.string(), 64 << 10);
    if (head.ok() && SniffSystemFormat(*head) != SystemFormat::kUnknown) return true;
  }
  return false;
}

BundleReadResult ReadSupportBundle(const std::string& dir, SystemFacts& facts) {
  BundleReadResult result;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    result.failures.push_back({dir, dir + ": not a directory"});
    return result;
  }
  for (const fs::path& file : BundleFiles(dir, &result.failures)) {
    Status status = ReadSystemFile(file.string(), facts);
    if (status.ok()) continue;
    if (status.code() == StatusCode::kNotFound) {
      result.unrecognised.push_back(file.string());
    } else {
      result.failures.push_back({file.string(), status.message()});
    }
  }
  return result;
}

}  // namespace gpuwhy
