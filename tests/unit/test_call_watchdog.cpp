// Unit tests of the rank's watchdog (both transports): an armed call past the timeout is handed to the action
// thread once, with its description; short calls and idle time are not; aborts run on the action thread; and
// the monitor ends the process after the grace period whatever the action thread is stuck in (with a stand-in
// for the ending, and once for real in a child process: exit code 3 and the message). A call meant to expire
// stays armed until the monitor has seen it expire (bounded), never for a sleep that hopes the monitor looked
// in time: under load a monitor thread can wait longer than any such sleep for a core.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/call_watchdog.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct NamedPoint final : k25::WaitPoint {
  explicit NamedPoint(std::string text) : name(std::move(text)) {}
  std::string describe() const override { return name; }
  std::string name;
};

// Texts handed to an action, from any thread.
struct Seen {
  std::mutex mutex;
  std::vector<std::string> texts;
  void add(const std::string& text) {
    std::lock_guard lock(mutex);
    texts.push_back(text);
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return texts;
  }
};

// Blocks whoever waits until released (a blocked NCCL call, an ncclCommAbort that does not return). Bounded,
// so that a broken watchdog fails the test instead of hanging it.
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    opened_.wait_for(lock, std::chrono::seconds(30), [this] { return open_; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// Polls `done` every millisecond for at most `limit`; true once it holds.
template <class Done>
bool within(std::chrono::milliseconds limit, Done done) {
  const auto until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("an armed call past the timeout is handed to the action once, with its description", "[watchdog]") {
  Seen expired, ended;
  std::thread::id action_thread;
  k25::CallWatchdog watchdog(
      0.05, 60.0,
      [&](const std::string& text) {
        action_thread = std::this_thread::get_id();
        expired.add(text);
      },
      [&](const std::string& text) { ended.add(text); });
  const NamedPoint point("MPI_Allreduce of allreduce at 16 tokens, op 3 of 122");
  {
    const k25::ArmedWait armed(watchdog, point);
    CHECK(within(std::chrono::seconds(30), [&] { return !expired.get().empty(); }));
    // Still armed for more of the monitor's looks (one each 2.5 ms): none hands the call on again. Load gives
    // fewer looks, never a false failure.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CHECK(expired.get() == std::vector<std::string>{"MPI_Allreduce of allreduce at 16 tokens, op 3 of 122"});
  CHECK(watchdog.fired());
  CHECK(action_thread != std::this_thread::get_id());
  CHECK(ended.get().empty());
}

TEST_CASE("calls that end within the timeout, and idle time, are never reported", "[watchdog]") {
  Seen expired;
  k25::CallWatchdog watchdog(1.0, 5.0, [&](const std::string& text) { expired.add(text); });
  const NamedPoint point("short");
  for (int i = 0; i < 20000; ++i) {
    const k25::ArmedWait armed(watchdog, point);
  }
  for (int i = 0; i < 30; ++i) {  // 30 x 50 ms: each well within the timeout, 1.5 s in all
    const k25::ArmedWait armed(watchdog, point);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // idle: nothing is armed
  CHECK(expired.get().empty());
  CHECK_FALSE(watchdog.fired());
}

TEST_CASE("a later call is watched again after a report", "[watchdog]") {
  Seen expired;
  k25::CallWatchdog watchdog(0.05, 60.0, [&](const std::string& text) { expired.add(text); });
  const NamedPoint first("first"), second("second");
  {
    const k25::ArmedWait armed(watchdog, first);
    CHECK(within(std::chrono::seconds(30), [&] { return expired.get().size() == 1; }));
  }
  {
    const k25::ArmedWait armed(watchdog, second);
    CHECK(within(std::chrono::seconds(30), [&] { return expired.get().size() == 2; }));
  }
  CHECK(expired.get() == std::vector<std::string>{"first", "second"});
}

TEST_CASE("a call whose action blocks ends the process after the grace, naming the call", "[watchdog]") {
  Gate action_stuck;
  Seen expired, ended;
  k25::CallWatchdog watchdog(
      0.05, 0.3,
      [&](const std::string& text) {
        expired.add(text);
        action_stuck.wait();  // as an MPI_Abort that never returns
      },
      [&](const std::string& text) { ended.add(text); });
  const NamedPoint point("ncclAllReduce of allreduce at 8 tokens, op 3 of 122 (14336 bytes)");
  std::thread release([&] {
    // The call stays blocked until the process would have ended; then the test lets everything go.
    CHECK(within(std::chrono::seconds(20), [&] { return !ended.get().empty(); }));
    action_stuck.open();
  });
  {
    const k25::ArmedWait armed(watchdog, point);
    CHECK(within(std::chrono::seconds(30), [&] { return watchdog.fired(); }));
  }  // disarm() waits while the action runs
  release.join();
  CHECK(expired.get().size() == 1);
  CHECK(
      ended.get() ==
      std::vector<std::string>{
          "ncclAllReduce of allreduce at 8 tokens, op 3 of 122 (14336 bytes) did not complete within the 0.05 s timeout, nor 0.3 s after it"});
}

TEST_CASE("an abort runs on the action thread, and the caller goes on once it returned", "[watchdog]") {
  Seen expired, ended;
  k25::CallWatchdog watchdog(
      10.0, 5.0, [&](const std::string& text) { expired.add(text); },
      [&](const std::string& text) { ended.add(text); });
  std::thread::id abort_thread;
  bool aborted = false;
  watchdog.run_abort(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        abort_thread = std::this_thread::get_id();
        aborted = true;
      },
      "ncclCommAbort after a test");
  CHECK(aborted);
  CHECK(abort_thread != std::this_thread::get_id());
  CHECK(expired.get().empty());
  CHECK(ended.get().empty());
}

TEST_CASE("an abort that does not return ends the process after the grace, naming it", "[watchdog]") {
  Gate abort_stuck;
  Seen ended;
  k25::CallWatchdog watchdog(
      10.0, 0.2, [](const std::string&) {}, [&](const std::string& text) { ended.add(text); });
  std::thread release([&] {
    CHECK(within(std::chrono::seconds(20), [&] { return !ended.get().empty(); }));
    abort_stuck.open();
  });
  watchdog.run_abort([&] { abort_stuck.wait(); },
                     "ncclCommAbort after allreduce at 8 tokens, op 3 of 122 did not finish on rank 0 of 1");
  release.join();
  CHECK(
      ended.get() ==
      std::vector<std::string>{
          "ncclCommAbort after allreduce at 8 tokens, op 3 of 122 did not finish on rank 0 of 1 did not return within 0.2 s"});
}

TEST_CASE("the last resort really ends the process with exit code 3 while the abort is stuck", "[watchdog]") {
  int err[2];
  REQUIRE(pipe(err) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(err[1], STDERR_FILENO);
    close(err[0]);
    k25::CallWatchdog watchdog(10.0, 0.2, [](const std::string&) {});
    watchdog.run_abort([] { pause(); }, "ncclCommAbort after a stuck kernel");  // never returns
    _exit(0);  // not reached: the monitor ends the process
  }
  close(err[1]);
  int status = 0;
  const bool ended =
      within(std::chrono::seconds(20), [&] { return waitpid(child, &status, WNOHANG) == child; });
  if (!ended) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = read(err[0], buffer, sizeof buffer)) > 0;)
    message.append(buffer, static_cast<size_t>(n));
  close(err[0]);
  REQUIRE(ended);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(
      message ==
      "k25comm: error: ncclCommAbort after a stuck kernel did not return within 0.2 s; ending this process with exit code 3\n");
}
