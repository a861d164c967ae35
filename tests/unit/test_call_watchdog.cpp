// Unit tests of the call watchdog on the host: it ends a call that never returns (the abort path of the nccl
// transport, with a condition variable standing in for a blocked NCCL call), and leaves short calls alone.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "transport/call_watchdog.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// A call that blocks until released, as an NCCL call waiting on a dead peer blocks until ncclCommAbort.
class BlockedCall {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    // bounded, so that a broken watchdog fails the test instead of hanging it
    released_.wait_for(lock, std::chrono::seconds(30), [this] { return free_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    free_ = true;
    released_.notify_all();
  }
  bool released() {
    std::lock_guard lock(mutex_);
    return free_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  bool free_ = false;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

TEST_CASE("the watchdog ends a call that never returns, once, and not before its timeout") {
  BlockedCall call;
  std::atomic<int> expiries{0};
  k25::CallWatchdog watchdog(
      0.3,
      [&] {
        ++expiries;
        call.release();
      },
      {}, 10.0);
  const auto start = Clock::now();
  {
    const auto armed = watchdog.arm();
    call.wait();
  }
  const double waited = seconds_since(start);
  CHECK(call.released());
  CHECK(watchdog.fired());
  CHECK(expiries == 1);
  CHECK(waited >= 0.3);
}

TEST_CASE("the watchdog leaves many short calls alone even when together they outlast the timeout") {
  std::atomic<int> expiries{0};
  k25::CallWatchdog watchdog(
      0.5, [&] { ++expiries; }, {}, 10.0);
  const auto start = Clock::now();
  while (seconds_since(start) < 1.2) {
    const auto armed = watchdog.arm();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CHECK_FALSE(watchdog.fired());
  CHECK(expiries == 0);
}

TEST_CASE("the watchdog ignores time spent disarmed") {
  std::atomic<int> expiries{0};
  k25::CallWatchdog watchdog(
      0.2, [&] { ++expiries; }, {}, 10.0);
  { const auto armed = watchdog.arm(); }
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  CHECK_FALSE(watchdog.fired());
  CHECK(expiries == 0);
}

TEST_CASE("the watchdog's last resort runs when the call stays blocked after the expiry action") {
  BlockedCall call;
  std::atomic<int> expiries{0};
  k25::CallWatchdog watchdog(
      0.2, [&] { ++expiries; },  // the action does not free the call
      [&] { call.release(); }, 0.2);
  {
    const auto armed = watchdog.arm();
    call.wait();
  }
  CHECK(watchdog.fired());
  CHECK(expiries == 1);
  CHECK(call.released());
}
