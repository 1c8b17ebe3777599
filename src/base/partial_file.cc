#include "base/partial_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

namespace gpuwhy {

namespace fs = std::filesystem;

int CreatePartialFile(const std::string& path, mode_t mode, std::string& partial) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned char random[8];
    if (getrandom(random, sizeof(random), 0) != static_cast<ssize_t>(sizeof(random))) {
      return -1;
    }
    partial = path + kPartialInfix;
    for (unsigned char byte : random) partial += kAlphabet[byte % 32];
    int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

std::vector<std::string> FindPartialFilesOf(const std::string& path) {
  const fs::path target(path);
  const std::string prefix = target.filename().string() + kPartialInfix;
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with(prefix))
      out.push_back((target.has_parent_path() ? it->path() : it->path().filename()).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string MissingFileMessage(const std::string& path) {
  std::string message = path + ": no such file or directory";
  const std::vector<std::string> partials = FindPartialFilesOf(path);
  if (partials.empty()) return message;
  return message + "; a recording cut short (gpuwhy run or record was killed) is in " +
         partials.back() +
         (partials.size() > 1
              ? " (and " + std::to_string(partials.size() - 1) + " more): analyze that file"
              : ": analyze that file");
}

}  // namespace gpuwhy
