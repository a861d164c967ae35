// Reading Kineto files on worker threads, taken back in order.
#include "capture/readers/kineto_queue.hpp"

#include <algorithm>

#include "capture/readers/kineto_reader.hpp"

namespace k25 {

KinetoQueue::KinetoQueue(std::vector<std::string> paths) : paths_(std::move(paths)), results_(paths_.size()) {
  const std::size_t workers = std::min(kWorkers, paths_.size());
  for (std::size_t w = 0; w < workers; ++w) workers_.emplace_back([this] { work(); });
}

KinetoQueue::~KinetoQueue() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void KinetoQueue::work() {
  KinetoReader reader;
  for (;;) {
    std::size_t index = 0;
    Result result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // At most one file per worker read or waiting ahead of the one taken: each holds its activities (tens
      // of MB for a file of hundreds), so that few are held at once.
      changed_.wait(lock, [&] {
        return stopping_ || next_to_read_ >= paths_.size() || next_to_read_ < next_to_take_ + kWorkers;
      });
      if (stopping_ || next_to_read_ >= paths_.size()) return;
      index = next_to_read_++;
      if (!spare_.empty()) {
        result.capture = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    try {
      reader.read_file(paths_[index], result.capture);
    } catch (...) {
      result.error = std::current_exception();
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      results_[index] = std::move(result);
    }
    changed_.notify_all();
  }
}

void KinetoQueue::give_back(TraceCapture&& used) {
  // Emptied, its activities' room kept.
  used.files.clear();
  used.ranks.clear();
  used.activities.clear();
  used.marks.clear();
  used.names = NameTable();
  used.notes.clear();
  const std::lock_guard<std::mutex> lock(mutex_);
  spare_.push_back(std::move(used));
}

TraceCapture KinetoQueue::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::size_t index = next_to_take_;
  changed_.wait(lock, [&] { return results_[index].has_value(); });
  Result result = std::move(*results_[index]);
  results_[index].reset();
  ++next_to_take_;
  lock.unlock();
  changed_.notify_all();
  if (result.error) std::rethrow_exception(result.error);
  return std::move(result.capture);
}

}  // namespace k25
