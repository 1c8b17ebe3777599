#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

namespace gpuwhy {
namespace thread_pool_test {

TEST(ThreadPoolTest, RunsEveryTaskOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(200);
  for (size_t i = 0; i < hits.size(); ++i) pool.Submit([&hits, i] { hits[i]++; });
  pool.Wait();
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPoolTest, NeverRunsMoreTasksAtOnceThanThreads) {
  ThreadPool pool(2);
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  for (int i = 0; i < 20; ++i) {
    pool.Submit([&] {
      int now = ++running;
      int seen = peak.load();
      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      --running;
    });
  }
  pool.Wait();
  EXPECT_EQ(peak.load(), 2);  // 20 tasks of 2 ms on 2 workers overlap for sure
}

TEST(ThreadPoolTest, WaitWithNothingSubmittedReturns) {
  ThreadPool pool(1);
  pool.Wait();
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_GE(DefaultThreadCount(), 1u);
}

TEST(ThreadPoolTest, DestructorFinishesQueuedTasks) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(1);
    for (int i = 0; i < 10; ++i) pool.Submit([&] { done++; });
  }
  EXPECT_EQ(done.load(), 10);
}

}  // namespace thread_pool_test
}  // namespace gpuwhy
