// The watchdog thread: notices a call that stayed armed past the timeout and hands its description to the
// expiry action, with a handshake so that the described point is still alive while it is described.
#include "common/wait_watchdog.hpp"

#include <algorithm>
#include <chrono>

namespace k25 {

WaitWatchdog::WaitWatchdog(double timeout_s, std::function<void(const std::string&)> on_expiry)
    : timeout_s_(timeout_s), on_expiry_(std::move(on_expiry)), thread_([this] { watch(); }) {}

WaitWatchdog::~WaitWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  thread_.join();
}

void WaitWatchdog::wait_while_firing() const noexcept {
  while (firing_.load(std::memory_order_seq_cst)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void WaitWatchdog::watch() {
  using clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::duration<double>(timeout_s_);
  const auto look_every = std::chrono::duration<double>(std::clamp(timeout_s_ / 20.0, 0.001, 0.1));
  std::uint64_t seen = sequence_.load(std::memory_order_seq_cst);
  std::uint64_t reported = 0;  // an expired call whose expiry action returned
  auto seen_since = clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_requested_.wait_for(lock, look_every, [this] { return stopping_; })) {
    const std::uint64_t now = sequence_.load(std::memory_order_seq_cst);
    if (now != seen) {  // another call (or none): its time starts at this look, at most one look late
      seen = now;
      seen_since = clock::now();
      continue;
    }
    if ((seen & 1) == 0 || seen == reported || clock::now() - seen_since < timeout) continue;
    // Expired. The main thread either is still inside the call (and will park in disarm() on seeing firing_),
    // or disarmed it just now: with sequentially consistent operations on both sides one of them sees the
    // other.
    firing_.store(true, std::memory_order_seq_cst);
    if (sequence_.load(std::memory_order_seq_cst) != seen) {
      firing_.store(false, std::memory_order_seq_cst);  // it completed at the deadline: let it go on
      continue;
    }
    lock.unlock();
    on_expiry_(point_.load(std::memory_order_relaxed)->describe());  // k25comm's does not return
    reported = seen;
    firing_.store(false, std::memory_order_seq_cst);
    lock.lock();
  }
}

}  // namespace k25
