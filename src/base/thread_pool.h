// A fixed set of worker threads running submitted tasks in submission order. Used to
// import ranks in parallel while bounding how many traces are in memory at once: at most
// `threads` tasks run together, so at most that many traces are alive.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuwhy {

// Cores this process may use (at least 1).
size_t DefaultThreadCount();

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();  // finishes queued tasks, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Tasks must not throw (errors are values in this code base).
  void Submit(std::function<void()> task);
  // Blocks until every task submitted so far has finished.
  void Wait();
  size_t size() const { return workers_.size(); }

 private:
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable has_work_;
  std::condition_variable all_done_;
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gpuwhy
