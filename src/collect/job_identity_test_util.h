// Tests of job identities: a listening Unix socket where the kubelet's pod-resources socket
// would be, in a fake root (collect/job_identity.h detects it; nothing connects).
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "collect/job_identity.h"

namespace gpuwhy {

// The socket's descriptor (close it when done), or -1.
inline int BindPodResourcesSocket(const std::filesystem::path& root) {
  std::filesystem::path path = root / std::string(kPodResourcesSocket);
  std::filesystem::create_directories(path.parent_path());
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof(addr.sun_path)) return -1;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace gpuwhy
