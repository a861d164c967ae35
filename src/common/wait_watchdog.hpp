// A thread that bounds blocking calls made on the main thread: arm() before the call, disarm() after. A call
// that stays armed longer than the timeout makes the thread run the expiry action, which ends the process.
// Arming costs two atomic operations and no clock read, so it may sit inside a timed region.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace k25 {

// What an armed call is, described only once it expired (describing may allocate; arming must not).
class WaitPoint {
 public:
  virtual std::string describe() const = 0;

 protected:
  ~WaitPoint() = default;
};

class WaitWatchdog {
 public:
  // `on_expiry(description)` runs on the watchdog's thread and must not return (it ends the process). The
  // thread looks every min(timeout / 20, 100 ms), so a call is declared expired between timeout_s and
  // timeout_s plus two looks after it was armed.
  WaitWatchdog(double timeout_s, std::function<void(const std::string&)> on_expiry);
  WaitWatchdog(const WaitWatchdog&) = delete;
  WaitWatchdog& operator=(const WaitWatchdog&) = delete;
  ~WaitWatchdog();

  // `point` must live until disarm() returns.
  void arm(const WaitPoint& point) noexcept {
    point_.store(&point, std::memory_order_relaxed);
    sequence_.fetch_add(1, std::memory_order_seq_cst);  // odd: armed
  }
  // While the watchdog handles this very call's expiry, disarm() waits for it (for ever when it ends the
  // process).
  void disarm() noexcept {
    sequence_.fetch_add(1, std::memory_order_seq_cst);  // even: idle
    if (firing_.load(std::memory_order_seq_cst)) wait_while_firing();
  }

 private:
  void watch();
  void wait_while_firing() const noexcept;

  const double timeout_s_;
  const std::function<void(const std::string&)> on_expiry_;
  std::atomic<std::uint64_t> sequence_{0};
  std::atomic<const WaitPoint*> point_{nullptr};
  std::atomic<bool> firing_{false};
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

// Arms a call for the lifetime of the guard.
class ArmedWait {
 public:
  ArmedWait(WaitWatchdog& watchdog, const WaitPoint& point) noexcept : watchdog_(watchdog) {
    watchdog.arm(point);
  }
  ArmedWait(const ArmedWait&) = delete;
  ArmedWait& operator=(const ArmedWait&) = delete;
  ~ArmedWait() { watchdog_.disarm(); }

 private:
  WaitWatchdog& watchdog_;
};

}  // namespace k25
