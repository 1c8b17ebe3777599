#include "base/partial_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

TEST(PartialFileTest, TwoWritersOfOnePathNeverShareAFile) {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_partial_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  const std::string path = dir + "/run.rec";
  std::string a, b;
  int fa = CreatePartialFile(path, 0644, a);
  int fb = CreatePartialFile(path, 0644, b);
  ASSERT_GE(fa, 0);
  ASSERT_GE(fb, 0);
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.starts_with(path + ".partial-")) << a;
  ::close(fa);
  ::close(fb);
  EXPECT_EQ(FindPartialFilesOf(path), (std::vector<std::string>{std::min(a, b), std::max(a, b)}));
  // The reader names what is left.
  const std::string missing = MissingFileMessage(path);
  EXPECT_NE(missing.find("run.rec: no such file or directory; a recording cut short"),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find(std::max(a, b)), std::string::npos) << missing;
  EXPECT_NE(missing.find("(and 1 more)"), std::string::npos) << missing;
  EXPECT_EQ(MissingFileMessage(dir + "/other.rec"), dir + "/other.rec: no such file or directory");
  fs::remove_all(dir);
}

// The attack of issue 38: another user plants PATH.partial (the old fixed name) as a symlink to a
// file of the victim's; the writer neither follows it nor touches what it points at.
TEST(PartialFileTest, APlantedSymlinkIsNeverFollowed) {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_partial_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  const std::string path = dir + "/run.rec";
  const std::string victim = dir + "/victim.txt";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, path + ".partial");
  std::string partial;
  int fd = CreatePartialFile(path, 0644, partial);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "recording", 9), 9);
  ::close(fd);
  EXPECT_NE(partial, path + ".partial");
  EXPECT_FALSE(fs::is_symlink(partial));
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "precious");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy
