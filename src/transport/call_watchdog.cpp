// The watchdog thread: samples the armed state a few dozen times per timeout and acts when one call outlasts
// it.
#include "transport/call_watchdog.hpp"

#include <algorithm>

namespace k25 {

CallWatchdog::CallWatchdog(double timeout_s, std::function<void()> on_expiry, std::function<void()> on_stuck,
                           double grace_s)
    : timeout_s_(timeout_s),
      grace_s_(grace_s),
      on_expiry_(std::move(on_expiry)),
      on_stuck_(std::move(on_stuck)),
      thread_([this] { watch(); }) {}

CallWatchdog::~CallWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CallWatchdog::watch() {
  // A call is seen as armed from the first sample that finds it so: it fires between timeout and timeout plus
  // two sampling periods after it started.
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::clamp(timeout_s_ / 20.0, 0.001, 0.2)));
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  std::uint64_t seen = 0;
  Clock::time_point armed_since{}, fired_at{};
  bool stuck_handled = false;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    const std::uint64_t state = state_.load(std::memory_order_relaxed);
    if (state % 2 == 0 || state != seen) {  // idle, or a new call since the last sample
      seen = state;
      armed_since = Clock::now();
      continue;
    }
    if (!fired_.load(std::memory_order_relaxed)) {
      if (seconds_since(armed_since) < timeout_s_) continue;
      fired_.store(true, std::memory_order_release);
      fired_at = Clock::now();
      lock.unlock();  // the action may take a while (ncclCommAbort); stopping must not wait on the mutex
      if (on_expiry_) on_expiry_();
      lock.lock();
    } else if (!stuck_handled && seconds_since(fired_at) >= grace_s_) {
      stuck_handled = true;
      lock.unlock();
      if (on_stuck_) on_stuck_();
      lock.lock();
    }
  }
}

}  // namespace k25
