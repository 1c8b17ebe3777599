#include "ingest/nsys/nsys_encoding.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace nsys_encoding_test {

// Values from the RTX 2070 SUPER export in ../shared/data: PROCESSES says python3 is pid
// 9908 with globalPid 281641205366784, and its runtime calls carry globalTid
// 281641205376692 (the main thread, tid == pid); TARGET_INFO_GPU.vmId is 1 << 48.
TEST(NsysGlobalIdTest, DecodesTheRealExportsIds) {
  NsysGlobalId thread = DecodeNsysGlobalId(281641205376692);
  EXPECT_EQ(thread.hardware, 0);
  EXPECT_EQ(thread.vm, 1);
  EXPECT_EQ(thread.pid, 9908);
  EXPECT_EQ(thread.tid, 9908);
  NsysGlobalId process = DecodeNsysGlobalId(281641205366784);
  EXPECT_EQ(process.pid, 9908);
  EXPECT_EQ(process.tid, 0);
  EXPECT_EQ(NsysProcessKey(281641205376692), NsysProcessKey(281641205366784));
  EXPECT_EQ(DecodeNsysGlobalId(281474976710656).vm, 1);
}

TEST(NsysGlobalIdTest, EncodeRoundTripsAndSeparatesHosts) {
  int64_t g = EncodeNsysGlobalTid(3, 2, 0xabcdef, 0x123456);
  NsysGlobalId id = DecodeNsysGlobalId(g);
  EXPECT_EQ(id.hardware, 3);
  EXPECT_EQ(id.vm, 2);
  EXPECT_EQ(id.pid, 0xabcdef);
  EXPECT_EQ(id.tid, 0x123456);
  // Same pid on another hardware id (another node) is another process.
  EXPECT_NE(NsysProcessKey(EncodeNsysGlobalTid(0, 1, 77, 77)),
            NsysProcessKey(EncodeNsysGlobalTid(1, 1, 77, 77)));
  EXPECT_EQ(NsysProcessKey(EncodeNsysGlobalTid(0, 1, 77, 5)),
            NsysProcessKey(EncodeNsysGlobalTid(0, 1, 77, 0)));
}

TEST(NsysEnumsTest, BuiltInTablesFollowTheExportsEnumNotCupti) {
  NsysEnums e;
  EXPECT_EQ(e.Direction(1), CopyDirection::kHostToDevice);
  EXPECT_EQ(e.Direction(2), CopyDirection::kDeviceToHost);
  EXPECT_EQ(e.Direction(8), CopyDirection::kDeviceToDevice);
  EXPECT_EQ(e.Direction(10), CopyDirection::kPeerToPeer);
  EXPECT_EQ(e.Direction(99), CopyDirection::kUnknown);
  // The real export's HtoD copies have srcKind 0 and dstKind 2: pageable -> device.
  EXPECT_EQ(e.Memory(0), MemoryKind::kPageable);
  EXPECT_EQ(e.Memory(1), MemoryKind::kPinned);
  EXPECT_EQ(e.Memory(2), MemoryKind::kDevice);
  EXPECT_EQ(e.Memory(7), MemoryKind::kUnknown);
}

TEST(NsysEnumsTest, AdoptsTheExportsOwnEnumTables) {
  NsysEnums e;
  e.AdoptMemoryKindNames({{0, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN"},
                          {1, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE"},
                          {3, "CUDA_MEMOPR_MEMORY_KIND_DEVICE"}});
  EXPECT_EQ(e.Memory(0), MemoryKind::kUnknown);
  EXPECT_EQ(e.Memory(1), MemoryKind::kPageable);
  EXPECT_EQ(e.Memory(3), MemoryKind::kDevice);
  e.AdoptCopyKindNames({{1, "CUDA_MEMCPY_KIND_DTOH"}, {12, "CUDA_MEMCPY_KIND_PTOP"}});
  EXPECT_EQ(e.Direction(1), CopyDirection::kDeviceToHost);
  EXPECT_EQ(e.Direction(12), CopyDirection::kPeerToPeer);
}

TEST(NsysEnumsTest, NamesMatchKinetoSpelling) {
  EXPECT_EQ(
      MemcpyDisplayName(CopyDirection::kHostToDevice, MemoryKind::kPageable, MemoryKind::kDevice),
      "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(NsysSyncName(3), "Stream Sync");
  EXPECT_EQ(NsysSyncName(1), "Event Sync");
}

}  // namespace nsys_encoding_test
}  // namespace gpuwhy
