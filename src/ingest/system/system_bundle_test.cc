// A support bundle with a file that must be refused (a gzip bomb): only that file is skipped,
// named with the limit it passed; the rest of the bundle is read.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "base/gzip_test_util.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace system_bundle_test {

namespace fs = std::filesystem;

TEST(SystemBundleTest, AGzipBombInABundleIsSkippedAloneNamingTheLimit) {
  const fs::path dir = fs::temp_directory_path() / "gpuwhy_bundle_bomb";
  fs::remove_all(dir);
  fs::create_directories(dir);
  testing::WriteRawFile((dir / "dmesg.txt").string(),
                        "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 119, pid=1, "
                        "name=a, Timeout after 6s of waiting for RPC response from GPU0 GSP!\n");
  // 64 KiB of zeros per member, 64 members: 4 MiB, over the 1 MiB set here (the default
  // limit is tested on the byte source; this one keeps the test fast).
  const std::string member = testing::GzipMember('\0', 64 << 10, "NVRM: Xid");
  std::string bomb;
  for (int i = 0; i < 64; ++i) bomb += member;
  testing::WriteRawFile((dir / "kern.log.gz").string(), bomb);
  ::setenv("GPUWHY_INPUT_LIMITS", "node_log=1M", 1);
  SystemFacts facts;
  EXPECT_TRUE(LooksLikeSupportBundle(dir.string()));
  BundleReadResult read = ReadSupportBundle(dir.string(), facts);
  ::unsetenv("GPUWHY_INPUT_LIMITS");
  ASSERT_EQ(read.failures.size(), 1u);
  EXPECT_EQ(read.failures[0].path, (dir / "kern.log.gz").string());
  EXPECT_EQ(read.failures[0].message,
            (dir / "kern.log.gz").string() +
                ": decompressed content over the 1 MiB limit for a node log or command output "
                "(GPUWHY_INPUT_LIMITS=node_log=SIZE raises it)");
  EXPECT_EQ(facts.xids.size(), 1u);  // the good file was read
  fs::remove_all(dir);
}

TEST(SystemBundleTest, ASymlinkOutOfTheBundleIsNotRead) {
  const fs::path dir = fs::temp_directory_path() / "gpuwhy_bundle_link";
  const fs::path outside = fs::temp_directory_path() / "gpuwhy_bundle_link_outside.txt";
  fs::remove_all(dir);
  fs::create_directories(dir / "logs");
  const std::string xid =
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 79, pid=1, name=a, GPU has "
      "fallen off the bus.\n";
  testing::WriteRawFile(outside.string(), xid);
  testing::WriteRawFile((dir / "dmesg.txt").string(), xid);
  fs::create_symlink(outside, dir / "kern.log");                   // out: refused
  fs::create_symlink("/proc/self/environ", dir / "env.txt");       // out: refused
  fs::create_symlink("../dmesg.txt", dir / "logs" / "again.txt");  // in: read
  SystemFacts facts;
  BundleReadResult read = ReadSupportBundle(dir.string(), facts);
  ASSERT_EQ(read.failures.size(), 2u);
  EXPECT_EQ(read.failures[0].path, (dir / "env.txt").string());
  EXPECT_EQ(read.failures[1].message,
            (dir / "kern.log").string() + ": a symlink out of the bundle: not read");
  EXPECT_EQ(facts.xids.size(), 2u);  // dmesg.txt and the link inside, never the outside file
  fs::remove_all(dir);
  fs::remove(outside);
}

}  // namespace system_bundle_test
}  // namespace gpuwhy
