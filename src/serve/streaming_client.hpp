// The HTTP client of the serve phase: one thread drives up to `concurrency` streaming requests through one
// libcurl multi handle (HTTP/1.1 keep-alive, sockets watched with epoll), timestamping bytes as they arrive.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "config/run_config.hpp"
#include "serve/curl_handles.hpp"
#include "serve/level_metrics.hpp"
#include "serve/request_record.hpp"

namespace k25 {

// One batch of requests: a concurrency level's warm-up or its counted requests.
struct BatchPlan {
  int concurrency = 1;      // at most this many in flight
  int count = 0;            // requests to issue
  double rate_per_s = 0;    // 0: closed loop (a finished request is replaced at once); else Poisson arrivals
  std::uint64_t seed = 42;  // of the Poisson arrival times
  bool warmup = false;      // marks the records
  // Called as requests finish and at least every 100 ms while the batch runs: requests finished so far
  // (completed or failed) and how many of them failed. Optional.
  std::function<void(int finished, int failed)> on_progress;
};

struct BatchResult {
  std::vector<RequestRecord> records;  // in completion order
  LevelWindow window;                  // see LevelWindow
  bool interrupted = false;  // SIGINT/SIGTERM arrived: the batch stopped, in-flight requests abandoned
};

class StreamingClient {
 public:
  // `model` is sent as the request's "model" (empty: left out). Connections stay open between batches.
  StreamingClient(const ServeSpec& spec, std::string model);
  ~StreamingClient();
  StreamingClient(const StreamingClient&) = delete;
  StreamingClient& operator=(const StreamingClient&) = delete;

  // Runs the batch to the end. Every wait is bounded by the spec's timeouts; failures are recorded, not
  // thrown (only a libcurl misuse throws RuntimeFault).
  BatchResult run(const BatchPlan& plan);

 private:
  struct Transfer;
  Transfer& idle_transfer();
  void launch(Transfer& transfer, bool warmup);
  RequestRecord complete(Transfer& transfer, int curl_result);
  RequestRecord abandon_idle(Transfer& transfer, SteadyTime now);
  void socket_action(int socket,
                     int events);  // hands readiness (or a timeout: CURL_SOCKET_TIMEOUT) to libcurl

  ServeSpec spec_;
  std::string model_;
  std::string url_;
  CurlHeaderList headers_;
  UniqueFd epoll_;  // the sockets libcurl asks us to watch; outlives multi_, whose cleanup unregisters them
  CurlMulti multi_;
  std::optional<SteadyTime> curl_deadline_;           // libcurl's timer (CURLMOPT_TIMERFUNCTION)
  std::vector<std::unique_ptr<Transfer>> transfers_;  // stable addresses: libcurl callbacks point at them
  long long next_request_id_ = 0;
};

}  // namespace k25
