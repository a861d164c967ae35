// The watchdog's two threads: the monitor (expiry, grace, last resort) and the action thread (what is done
// about an expired call, and the aborts a transport asks for), with a handshake so that an expired call's
// description is read while the call is still there.
#include "common/call_watchdog.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace k25 {

CallWatchdog::CallWatchdog(double timeout_s, double grace_s, Action on_expiry, Action end_process)
    : timeout_s_(timeout_s),
      grace_s_(grace_s),
      on_expiry_(std::move(on_expiry)),
      end_process_(std::move(end_process)),
      monitor_([this] { monitor(); }),
      actor_([this] { act(); }) {}

CallWatchdog::~CallWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_monitor_.notify_all();
  wake_actor_.notify_all();
  monitor_.join();
  actor_.join();
}

void CallWatchdog::wait_while_firing() const noexcept {
  while (firing_.load(std::memory_order_seq_cst)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void CallWatchdog::post(std::function<void()> job, std::string overrun_message) {
  jobs_.emplace_back(std::move(job), std::move(overrun_message));
  ++jobs_posted_;
  wake_actor_.notify_one();
}

void CallWatchdog::run_abort(std::function<void()> abort, const std::string& what) {
  std::unique_lock lock(mutex_);
  post(std::move(abort), fmt::format("{} did not return within {:g} s", what, grace_s_));
  const std::uint64_t mine = jobs_posted_;
  job_done_.wait(lock, [&] { return jobs_done_ >= mine; });
}

void CallWatchdog::act() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_actor_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to run
    auto [job, overrun_message] = std::move(jobs_.front());
    jobs_.pop_front();
    job_overrun_ = std::move(overrun_message);
    job_running_ = true;
    job_started_ = Clock::now();
    lock.unlock();
    job();
    lock.lock();
    job_running_ = false;
    ++jobs_done_;
    job_done_.notify_all();
  }
}

void CallWatchdog::end(const std::string& message) {
  if (end_process_) {
    end_process_(message);
    return;
  }
  std::fprintf(stderr, "k25comm: error: %s; ending this process with exit code 3\n", message.c_str());
  std::fflush(nullptr);
  std::_Exit(3);
}

void CallWatchdog::monitor() {
  using Seconds = std::chrono::duration<double>;
  const Seconds timeout(timeout_s_), grace(grace_s_);
  const Seconds look_every(std::clamp(std::min(timeout_s_, grace_s_) / 20.0, 0.001, 0.1));
  std::uint64_t seen = sequence_.load(std::memory_order_seq_cst);
  std::uint64_t expired = 0;  // the sequence number of the last call that expired (odd); 0 before any
  auto seen_since = Clock::now(), expired_at = Clock::time_point{};
  std::string expired_message;
  std::unique_lock lock(mutex_);
  while (!wake_monitor_.wait_for(lock, look_every, [this] { return stopping_; })) {
    const auto now = Clock::now();
    const std::uint64_t current = sequence_.load(std::memory_order_seq_cst);
    // The last resort: an expired call still armed, or an action that does not return, after the grace.
    std::string last_resort;
    if (expired != 0 && current == expired && now - expired_at >= grace) {
      last_resort = expired_message;
    } else if (job_running_ && now - job_started_ >= grace) {
      last_resort = job_overrun_;
    }
    if (!last_resort.empty()) {
      lock.unlock();
      end(last_resort);
      return;  // only where end_process returned (a test): the monitor stops acting
    }
    if (current != seen) {  // another call (or none): its time starts at this look, at most one look late
      seen = current;
      seen_since = now;
      continue;
    }
    if ((seen & 1) == 0 || seen == expired || now - seen_since < timeout) continue;
    // Expired. The arming thread either is still inside the call (and will park in disarm() on seeing
    // firing_), or disarmed it just now: with sequentially consistent operations on both sides one of them
    // sees the other.
    firing_.store(true, std::memory_order_seq_cst);
    if (sequence_.load(std::memory_order_seq_cst) != seen) {
      firing_.store(false, std::memory_order_seq_cst);  // it completed at the deadline: let it go on
      continue;
    }
    expired = seen;
    expired_at = now;
    const std::string what = point_.load(std::memory_order_relaxed)->describe();
    fired_.store(true, std::memory_order_release);
    // The same last word whether the call stays armed or the action on it does not return.
    expired_message = fmt::format("{} did not complete within the {:g} s timeout, nor {:g} s after it", what,
                                  timeout_s_, grace_s_);
    post(
        [this, what] {
          if (on_expiry_) on_expiry_(what);
          firing_.store(false, std::memory_order_seq_cst);
        },
        expired_message);
  }
}

}  // namespace k25
