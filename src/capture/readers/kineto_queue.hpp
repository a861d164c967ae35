// A run's Kineto files read on two cores: each file by a worker thread into a capture of its own (its text
// and parser buffers reused for the worker's next file), handed back in the order given, so that the run's
// capture is the same as one read file after file.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "capture/model/trace_model.hpp"

namespace k25 {

class KinetoQueue {
 public:
  // Files read at once: both cores of the machine the tool is built for; each holds one file's text.
  static constexpr std::size_t kWorkers = 2;

  explicit KinetoQueue(std::vector<std::string> paths);
  ~KinetoQueue();  // stops the workers after the file each is reading
  KinetoQueue(const KinetoQueue&) = delete;
  KinetoQueue& operator=(const KinetoQueue&) = delete;

  // The next file's capture, in the order given; throws what reading it threw (UsageError,
  // TraceWithoutGpuEvents).
  TraceCapture next();

  // A capture taken and appended: a worker reads a later file into it, its memory already in place.
  void give_back(TraceCapture&& used);

 private:
  struct Result {
    TraceCapture capture;
    std::exception_ptr error;
  };
  void work();

  const std::vector<std::string> paths_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::optional<Result>> results_;
  std::vector<TraceCapture> spare_;
  std::size_t next_to_read_ = 0, next_to_take_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace k25
