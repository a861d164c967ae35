// A deadline thread for calls that may block forever (an NCCL call waiting on a dead peer): while a call is
// armed for longer than the timeout it runs an expiry action once (ncclCommAbort), as PyTorch's NCCL watchdog
// does; if the call still does not return, a last resort after a grace period.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace k25 {

class CallWatchdog {
 public:
  // on_expiry: runs once, on the watchdog's thread, when one armed call has lasted `timeout_s`.
  // on_stuck: runs once, on the watchdog's thread, when that call is still armed `grace_s` after on_expiry
  // (it should end the process: the blocked thread cannot be recovered). Either may be empty.
  CallWatchdog(double timeout_s, std::function<void()> on_expiry, std::function<void()> on_stuck,
               double grace_s);
  ~CallWatchdog();  // stops and joins the thread
  CallWatchdog(const CallWatchdog&) = delete;
  CallWatchdog& operator=(const CallWatchdog&) = delete;

  // Disarms when it goes out of scope. Arming costs two relaxed atomic stores, so that it may bracket every
  // op of a timed burst. One thread arms (the rank's main thread); armed scopes do not nest.
  class Armed {
   public:
    explicit Armed(CallWatchdog& watchdog) noexcept : watchdog_(&watchdog) { watchdog_->set_armed(true); }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;
    ~Armed() { watchdog_->set_armed(false); }

   private:
    CallWatchdog* watchdog_;
  };
  [[nodiscard]] Armed arm() noexcept { return Armed(*this); }

  bool fired() const noexcept { return fired_.load(std::memory_order_acquire); }
  double timeout_s() const noexcept { return timeout_s_; }

 private:
  using Clock = std::chrono::steady_clock;
  void set_armed(bool armed) noexcept {
    // Odd: armed; every arm and disarm moves it on, so the thread can tell one long call from many short
    // ones.
    sequence_ = armed ? sequence_ | 1u : (sequence_ | 1u) + 1u;
    state_.store(sequence_, std::memory_order_relaxed);
  }
  void watch();

  double timeout_s_, grace_s_;
  std::function<void()> on_expiry_, on_stuck_;
  std::uint64_t sequence_ = 0;  // the arming thread's own copy of state_
  std::atomic<std::uint64_t> state_{0};
  std::atomic<bool> fired_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace k25
