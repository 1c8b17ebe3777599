// Kernel-log timestamps in every format seen on GPU nodes, Xid field parsing and malformed
// lines (skipped with a "PATH: line N: why" problem, never a crash).
#include <gtest/gtest.h>

#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace kernel_log_test {

XidEvent OnlyXid(std::string_view text) {
  SystemFacts facts;
  EXPECT_TRUE(ParseKernelLog(text, "k.log", facts).ok());
  EXPECT_EQ(facts.xids.size(), 1u) << text;
  return facts.xids.empty() ? XidEvent{} : facts.xids[0];
}

// 2025-02-23T16:24:18Z in ns since the epoch: `date -u -d 2025-02-23T16:24:18Z +%s` = 1740327858.
constexpr int64_t kFeb23 = 1740327858LL * 1'000'000'000;

TEST(KernelLogTest, CtimeStampOfDmesgT) {
  XidEvent x = OnlyXid(
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, "
      "Timeout after 6s of waiting for RPC response from GPU4 GSP!\n");
  EXPECT_EQ(x.code, 119);
  EXPECT_EQ(x.pci, "0000:9b:00");
  EXPECT_EQ(x.pid, 2024380);
  EXPECT_EQ(x.process, "nvidia-smi");
  EXPECT_EQ(x.detail, "Timeout after 6s of waiting for RPC response from GPU4 GSP!");
  ASSERT_TRUE(x.epoch_ns.has_value());
  EXPECT_EQ(*x.epoch_ns, kFeb23);
  EXPECT_EQ(x.quote.line, 1);
}

TEST(KernelLogTest, IsoWithDecodedLevelAndOffsets) {
  XidEvent decoded = OnlyXid(
      "kern  :warn  : 2025-02-23T16:24:18,500000+00:00 NVRM: Xid (PCI:0000:38:00): 13, "
      "pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n");
  EXPECT_EQ(decoded.code, 13);
  EXPECT_EQ(decoded.pid, -1);
  EXPECT_EQ(decoded.process, "");
  EXPECT_EQ(*decoded.epoch_ns, kFeb23 + 500'000'000);
  // journalctl -o short-iso: +0800 means 8 hours earlier in UTC.
  XidEvent journal = OnlyXid(
      "2025-02-24T00:24:18+0800 node kernel: NVRM: Xid (PCI:0000:19:00): 79, pid=1, name=x, "
      "GPU has fallen off the bus.\n");
  EXPECT_EQ(journal.code, 79);
  EXPECT_EQ(*journal.epoch_ns, kFeb23);
}

TEST(KernelLogTest, BootRelativeStamps) {
  XidEvent plain = OnlyXid("[ 3098.271234] NVRM: Xid (PCI:0000:01:00): 31, pid=9, name=p, Ch 1\n");
  EXPECT_FALSE(plain.epoch_ns.has_value());
  EXPECT_EQ(*plain.since_boot_ns, 3098271234000LL);
  XidEvent raw =
      OnlyXid("<4>[    2.608284] NVRM: Xid (PCI:0000:01:00): 74, pid=9, name=p, NVLink\n");
  EXPECT_EQ(*raw.since_boot_ns, 2608284000LL);
  XidEvent kmsg = OnlyXid("4,3973,227996636,-;NVRM: Xid (PCI:0000:01:00): 45, pid=9, name=p, x\n");
  EXPECT_EQ(*kmsg.since_boot_ns, 227996636000LL);
  XidEvent syslog =
      OnlyXid("Nov 29 14:45:36 node kernel: [  12.5] NVRM: Xid (PCI:0000:01:00): 48, pid=9, x\n");
  EXPECT_EQ(syslog.code, 48);
  EXPECT_EQ(*syslog.since_boot_ns, 12'500'000'000LL);
}

// Found by the mutation fuzzer under UBSan: a bracket or /dev/kmsg stamp with more digits
// than any uptime overflowed int64 nanoseconds. Such a stamp is not a stamp; the Xid stays.
TEST(KernelLogTest, HugeUptimeStampsAreNotStamps) {
  for (const char* line :
       {"[999999999999999999.5] NVRM: Xid (PCI:0000:17:00): 79, pid=1, GPU has fallen off the "
        "bus.\n",
        "[99999999999.000001] NVRM: Xid (PCI:0000:17:00): 79, pid=1, GPU has fallen off the bus.\n",
        "6,1,99999999999999999,-;NVRM: Xid (PCI:0000:17:00): 79, pid=1, GPU has fallen off the "
        "bus.\n",
        "[1234567890123456789012.5] NVRM: Xid (PCI:0000:17:00): 79, pid=1, off the bus.\n",
        "[Sun Feb 23456789012345 16:24:18 2025] NVRM: Xid (PCI:0000:17:00): 79, pid=1, x.\n",
        "[Sun Feb 23 16:24:18 9999] NVRM: Xid (PCI:0000:17:00): 79, pid=1, x.\n",
        "9999-02-23T16:24:18,283302+00:00 host kernel: NVRM: Xid (PCI:0000:17:00): 79, pid=1, "
        "x.\n"}) {
    SystemFacts facts;
    EXPECT_TRUE(ParseKernelLog(line, "k.log", facts).ok()) << line;
    ASSERT_EQ(facts.xids.size(), 1u) << line;
    EXPECT_EQ(facts.xids[0].code, 79) << line;
    EXPECT_FALSE(facts.xids[0].since_boot_ns.has_value()) << line;
    EXPECT_FALSE(facts.xids[0].epoch_ns.has_value()) << line;
  }
}

TEST(KernelLogTest, LineWithoutStampStillCounts) {
  XidEvent x = OnlyXid("NVRM: Xid (PCI:0000:01:00): 94, pid=1, name=a, Contained: SM\n");
  EXPECT_EQ(x.code, 94);
  EXPECT_TRUE(x.time_text.empty());
}

TEST(KernelLogTest, MalformedXidIsAProblemNotACrash) {
  SystemFacts facts;
  ASSERT_TRUE(ParseKernelLog("ok line\n[ 1.0] NVRM: Xid (PCI:0000:01:00): abc\n"
                             "[ 2.0] NVRM: Xid (PCI:0000:01:00\n",
                             "bad.log", facts)
                  .ok());
  EXPECT_TRUE(facts.xids.empty());
  ASSERT_EQ(facts.problems.Total(), 2);
  const std::vector<std::string>& problems = facts.problems.Details(DataProblem::kUnparsedLine);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "bad.log: line 2: Xid line without a numeric code");
  EXPECT_EQ(problems[1], "bad.log: line 3: Xid line without ')' after the device");
  EXPECT_EQ(facts.kernel_log_lines, 3);
}

}  // namespace kernel_log_test
}  // namespace gpuwhy
