// Where a file written as it goes (a recording of `gpuwhy run` or `record`) lives until it is
// finished: PATH.partial-XXXXXXXX, a random suffix created O_EXCL | O_NOFOLLOW, so that two
// writers of one PATH never share a file and a planted symlink is never followed. A reader
// asked for a PATH that is missing names what a killed writer left (issue 38).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpuwhy {

inline constexpr const char* kPartialInfix = ".partial-";

// Creates a new PATH.partial-XXXXXXXX for writing (close-on-exec); the fd, or -1 with errno.
int CreatePartialFile(const std::string& path, mode_t mode, std::string& partial);

// The PATH.partial-* files beside |path|, in name order.
std::vector<std::string> FindPartialFilesOf(const std::string& path);

// "PATH: no such file or directory", naming what a killed `run -o PATH` left if anything.
std::string MissingFileMessage(const std::string& path);

}  // namespace gpuwhy
