// One watchdog for the blocking calls of both transports. A monitor thread notices a call armed past the
// timeout and hands it to an action thread (the host transport asks its peers and calls MPI_Abort; the nccl
// transport does the same, since a blocking NCCL call cannot be aborted while it runs). The action thread
// also runs the aborts a transport asks for (ncclCommAbort). Whatever the action thread is stuck in, the
// monitor ends the process with exit code 3 once the grace period is over: nothing the watchdog starts can
// hang the rank.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace k25 {

// What an armed call is, described only once it expired (describing may allocate; arming must not).
class WaitPoint {
 public:
  virtual std::string describe() const = 0;

 protected:
  ~WaitPoint() = default;
};

class CallWatchdog {
 public:
  using Action = std::function<void(const std::string&)>;
  // on_expiry(point): runs once per expired call, on the action thread, when one armed call has lasted
  // timeout_s (the monitor looks every min(timeout / 20, grace / 20, 100 ms), so between timeout_s and
  // timeout_s plus two looks after arming). It should end the process.
  // end_process(message): the monitor's last resort, run on the monitor thread when an action (on_expiry, or
  // an abort from run_abort) is still running grace_s after it started, or an expired call is still armed
  // grace_s after it expired. It must not return in a program (it may in a test; the monitor then stops
  // acting). Empty: the message on stderr, then std::_Exit(3).
  CallWatchdog(double timeout_s, double grace_s, Action on_expiry, Action end_process = {});
  CallWatchdog(const CallWatchdog&) = delete;
  CallWatchdog& operator=(const CallWatchdog&) = delete;
  ~CallWatchdog();  // stops and joins both threads

  // One thread arms (the rank's main thread); armed calls do not nest. `point` must live until disarm()
  // returns. Two atomic operations and no clock read: it may bracket every op of a timed burst.
  void arm(const WaitPoint& point) noexcept {
    point_.store(&point, std::memory_order_relaxed);
    sequence_.fetch_add(1, std::memory_order_seq_cst);  // odd: armed
  }
  // While the action thread handles this very call's expiry, disarm() waits for it (for ever when the action
  // ends the process).
  void disarm() noexcept {
    sequence_.fetch_add(1, std::memory_order_seq_cst);  // even: idle
    if (firing_.load(std::memory_order_seq_cst)) wait_while_firing();
  }

  // Runs `abort` on the action thread and returns once it has. Should it not return within grace_s, the
  // monitor ends the process, naming `what` ("ncclCommAbort after ..."). Call only from the arming thread
  // while nothing is armed: an abort must never run beside a call it could free resources under.
  void run_abort(std::function<void()> abort, const std::string& what);

  bool fired() const noexcept { return fired_.load(std::memory_order_acquire); }  // a call expired
  double timeout_s() const noexcept { return timeout_s_; }
  double grace_s() const noexcept { return grace_s_; }

 private:
  using Clock = std::chrono::steady_clock;
  void monitor();
  void act();
  void wait_while_firing() const noexcept;
  // With mutex_ held. overrun_message: what the last resort says should the job not return within grace_s.
  void post(std::function<void()> job, std::string overrun_message);
  void end(const std::string& message);

  const double timeout_s_, grace_s_;
  const Action on_expiry_, end_process_;
  std::atomic<std::uint64_t> sequence_{0};
  std::atomic<const WaitPoint*> point_{nullptr};
  std::atomic<bool> firing_{false}, fired_{false};

  std::mutex mutex_;  // guards everything below
  std::condition_variable wake_monitor_, wake_actor_, job_done_;
  bool stopping_ = false;
  std::deque<std::pair<std::function<void()>, std::string>> jobs_;  // waiting, with their overrun messages
  std::string job_overrun_;                                         // the running job's overrun message
  bool job_running_ = false;
  Clock::time_point job_started_{};
  std::uint64_t jobs_posted_ = 0, jobs_done_ = 0;
  std::thread monitor_, actor_;
};

// Arms a call for the lifetime of the guard.
class ArmedWait {
 public:
  ArmedWait(CallWatchdog& watchdog, const WaitPoint& point) noexcept : watchdog_(watchdog) {
    watchdog.arm(point);
  }
  ArmedWait(const ArmedWait&) = delete;
  ArmedWait& operator=(const ArmedWait&) = delete;
  ~ArmedWait() { watchdog_.disarm(); }

 private:
  CallWatchdog& watchdog_;
};

}  // namespace k25
