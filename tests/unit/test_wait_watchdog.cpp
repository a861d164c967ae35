// Unit tests of the watchdog that bounds blocking calls: an armed call past the timeout is reported once with
// its description; a call disarmed in time is not; arming again after a report is watched again.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/wait_watchdog.hpp"

namespace {

struct NamedPoint final : k25::WaitPoint {
  explicit NamedPoint(std::string text) : name(std::move(text)) {}
  std::string describe() const override { return name; }
  std::string name;
};

// Collects the expiry reports (the real action ends the process; this one returns).
struct Reports {
  std::mutex mutex;
  std::vector<std::string> seen;
  void add(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(text);
  }
  std::vector<std::string> get() {
    std::lock_guard<std::mutex> lock(mutex);
    return seen;
  }
};

}  // namespace

TEST_CASE("an armed call past the timeout is reported once, with its description", "[watchdog]") {
  Reports reports;
  k25::WaitWatchdog watchdog(0.05, [&](const std::string& text) { reports.add(text); });
  const NamedPoint point("MPI_Allreduce of allreduce at 16 tokens, op 3 of 122");
  {
    const k25::ArmedWait armed(watchdog, point);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  CHECK(reports.get() == std::vector<std::string>{"MPI_Allreduce of allreduce at 16 tokens, op 3 of 122"});
}

TEST_CASE("calls that end within the timeout are never reported", "[watchdog]") {
  Reports reports;
  k25::WaitWatchdog watchdog(1.0, [&](const std::string& text) { reports.add(text); });
  const NamedPoint point("short");
  for (int i = 0; i < 20000; ++i) {
    const k25::ArmedWait armed(watchdog, point);
  }
  for (int i = 0; i < 30; ++i) {  // 30 x 50 ms: each well within the timeout, 1.5 s in all
    const k25::ArmedWait armed(watchdog, point);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // idle: nothing is armed
  CHECK(reports.get().empty());
}

TEST_CASE("a later call is watched again after a report", "[watchdog]") {
  Reports reports;
  k25::WaitWatchdog watchdog(0.05, [&](const std::string& text) { reports.add(text); });
  const NamedPoint first("first"), second("second");
  {
    const k25::ArmedWait armed(watchdog, first);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  {
    const k25::ArmedWait armed(watchdog, second);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  CHECK(reports.get() == std::vector<std::string>{"first", "second"});
}
