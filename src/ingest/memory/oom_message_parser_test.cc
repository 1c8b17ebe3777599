// CUDA out-of-memory messages in the forms PyTorch has printed (hand-written from the caching
// allocator's format strings: 2.1+ sentences with and without other processes, 2.1's
// "capacty", the parenthesised form of 1.x-2.0), behind log prefixes, wrapped over lines, and
// one per rank in one log.
#include "ingest/memory/oom_message_parser.h"

#include <gtest/gtest.h>

#include "ingest/memory/memory_summary_parser.h"

namespace gpuwhy {
namespace oom_message_parser_test {

constexpr int64_t kMiB = 1024 * 1024;
constexpr double kGiB = 1024.0 * 1024 * 1024;

int64_t GiB(double v) { return static_cast<int64_t>(std::llround(v * kGiB)); }

TEST(OomMessageParserTest, SizesAsTheAllocatorFormatsThem) {
  EXPECT_EQ(ParseAllocatorSize("2.00 GiB"), 2 * 1024 * kMiB);
  EXPECT_EQ(ParseAllocatorSize("20.00 MiB"), 20 * kMiB);
  EXPECT_EQ(ParseAllocatorSize("512 bytes"), 512);
  EXPECT_EQ(ParseAllocatorSize("0 bytes."), 0);
  EXPECT_EQ(ParseAllocatorSize("1.5 KiB"), 1536);
  EXPECT_EQ(ParseAllocatorSize("-1.00 GiB"), std::nullopt);
  EXPECT_EQ(ParseAllocatorSize("2.00 GB"), std::nullopt);
  EXPECT_EQ(ParseAllocatorSize("9e30 TiB"), std::nullopt);
  EXPECT_EQ(ParseAllocatorSize("nan GiB"), std::nullopt);
}

TEST(OomMessageParserTest, TheSentenceFormWithAnotherProcessOnTheGpu) {
  const std::string log =
      "epoch 3 step 120 loss 1.93\n"
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.96 GiB. GPU 0 "
      "has a total capacity of 23.69 GiB of which 5.25 GiB is free. Process 2006998 has 256.00 "
      "MiB memory in use. Including non-PyTorch memory, this process has 18.17 GiB memory in "
      "use. Of the allocated memory 17.88 GiB is allocated by PyTorch, and 0 bytes is reserved "
      "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
      "documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html)\n";
  std::vector<OomMessage> m = FindOomMessages(log);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].line, 2u);
  EXPECT_EQ(m[0].device, 0);
  EXPECT_EQ(m[0].requested, GiB(5.96));
  EXPECT_EQ(m[0].capacity, GiB(23.69));
  EXPECT_EQ(m[0].free, GiB(5.25));
  EXPECT_EQ(m[0].process_in_use, GiB(18.17));
  EXPECT_EQ(m[0].allocated_by_pytorch, GiB(17.88));
  EXPECT_EQ(m[0].reserved_unallocated, 0);
  EXPECT_EQ(m[0].other_processes, 1);
  EXPECT_EQ(m[0].other_processes_bytes, 256 * kMiB);
}

TEST(OomMessageParserTest, TheParenthesisedFormOfOlderPyTorch) {
  const std::string log =
      "RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 1; 7.93 GiB total "
      "capacity; 130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by "
      "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to "
      "avoid fragmentation.\n";
  std::vector<OomMessage> m = FindOomMessages(log);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].device, 1);
  EXPECT_EQ(m[0].requested, 36 * kMiB);
  EXPECT_EQ(m[0].capacity, GiB(7.93));
  EXPECT_EQ(m[0].allocated_by_pytorch, static_cast<int64_t>(std::llround(130.35 * kMiB)));
  EXPECT_EQ(m[0].free, static_cast<int64_t>(std::llround(47.06 * kMiB)));
  EXPECT_EQ(m[0].reserved_unallocated, static_cast<int64_t>(std::llround(188.00 * kMiB)) -
                                           static_cast<int64_t>(std::llround(130.35 * kMiB)));
  EXPECT_EQ(m[0].process_in_use, kNoValue);
  EXPECT_EQ(m[0].other_processes, 0);
}

TEST(OomMessageParserTest, WrappedOverLinesOneMessagePerRankAndTheMisspelling) {
  const std::string log =
      "[rank1]: HIP out of memory. Tried to allocate 764.00 MiB. GPU 1 has a total capacty of\n"
      "[rank1]: 47.37 GiB of which 442.88 MiB is free. Of the allocated memory 42.40 GiB is\n"
      "[rank1]: allocated by PyTorch, and 3.24 GiB is reserved by PyTorch but unallocated.\n"
      "[rank0]: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 0 has a total capacity of "
      "93.02 GiB of which 1.18 GiB is free.\n";
  std::vector<OomMessage> m = FindOomMessages(log);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].line, 1u);
  EXPECT_EQ(m[0].device, 1);
  EXPECT_EQ(m[0].capacity, GiB(47.37));
  EXPECT_EQ(m[0].reserved_unallocated, GiB(3.24));
  EXPECT_EQ(m[0].allocated_by_pytorch, GiB(42.40));
  // The second rank's figures are its own: the first message stops where it starts.
  EXPECT_EQ(m[1].line, 4u);
  EXPECT_EQ(m[1].device, 0);
  EXPECT_EQ(m[1].requested, GiB(1.25));
  EXPECT_EQ(m[1].reserved_unallocated, kNoValue);
}

TEST(OomMessageParserTest, ALogWithOnlyAnOomMessageIsMemoryText) {
  StatusOr<MemorySnapshot> s = ParseMemorySummaryText(
      "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
      "of which 1.23 GiB is free.\n",
      "train.log");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->stats.empty());
  ASSERT_EQ(s->oom_messages.size(), 1u);
  EXPECT_EQ(s->source, "CUDA out-of-memory message");
  // The marker quoted in prose, without a size, is no message.
  EXPECT_TRUE(FindOomMessages("grep for 'out of memory. Tried to allocate ' in logs").empty());
}

}  // namespace oom_message_parser_test
}  // namespace gpuwhy
