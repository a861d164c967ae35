// libcurl multi loop of the serve phase: launching requests (closed loop or Poisson), receiving and
// timestamping bytes, idle-timeout enforcement and classification of how each transfer ended.
#include "serve/streaming_client.hpp"

#include <sys/epoll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "common/redaction.hpp"
#include "serve/request_body.hpp"
#include "serve/streaming_response.hpp"

namespace k25 {
namespace {

constexpr auto kIdleScanInterval = std::chrono::milliseconds(20);
constexpr auto kMaxWait = std::chrono::milliseconds(100);

void check_easy(CURLcode rc, const char* call) {
  if (rc != CURLE_OK)
    throw RuntimeFault(fmt::format("libcurl: {}", curl_easy_strerror(rc)), call, __FILE__, __LINE__);
}
void check_multi(CURLMcode rc, const char* call) {
  if (rc != CURLM_OK)
    throw RuntimeFault(fmt::format("libcurl: {}", curl_multi_strerror(rc)), call, __FILE__, __LINE__);
}

long milliseconds(double seconds) {
  return static_cast<long>(std::ceil(seconds * 1000.0));
}

}  // namespace

struct StreamingClient::Transfer {
  CurlEasy easy;
  std::string body;
  std::optional<StreamingResponse> response;
  SteadyTime last_byte{};
  long status = 0;
  bool active = false;
  char error_buffer[CURL_ERROR_SIZE] = {};
};

StreamingClient::StreamingClient(const ServeSpec& spec, std::string model)
    : spec_(spec),
      model_(std::move(model)),
      url_(generation_url(spec)),
      epoll_(epoll_create1(EPOLL_CLOEXEC)),
      multi_(make_curl_multi()) {
  if (epoll_.get() < 0)
    throw RuntimeFault(fmt::format("epoll_create1 failed: {}", std::strerror(errno)), "epoll_create1",
                       __FILE__, __LINE__);
  // libcurl tells which sockets to watch for what; the epoll set mirrors it. socketp marks "already added".
  const auto on_socket = +[](CURL*, curl_socket_t socket, int what, void* user, void* socketp) -> int {
    auto* client = static_cast<StreamingClient*>(user);
    const int epoll_fd = client->epoll_.get();
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, socket, nullptr);
      curl_multi_assign(client->multi_.get(), socket, nullptr);
      return 0;
    }
    epoll_event event{};
    event.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    event.data.fd = socket;
    if (socketp == nullptr) {
      if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, socket, &event) != 0 && errno == EEXIST)
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, socket, &event);
      curl_multi_assign(client->multi_.get(), socket, client);  // any non-null marker
    } else if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, socket, &event);
    }
    return 0;
  };
  const auto on_timer = +[](CURLM*, long timeout_ms, void* user) -> int {
    auto* client = static_cast<StreamingClient*>(user);
    if (timeout_ms < 0)
      client->curl_deadline_.reset();
    else
      client->curl_deadline_ = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
    return 0;
  };
  check_multi(curl_multi_setopt(multi_.get(), CURLMOPT_SOCKETFUNCTION, on_socket),
              "curl_multi_setopt(CURLMOPT_SOCKETFUNCTION)");
  check_multi(curl_multi_setopt(multi_.get(), CURLMOPT_SOCKETDATA, this),
              "curl_multi_setopt(CURLMOPT_SOCKETDATA)");
  check_multi(curl_multi_setopt(multi_.get(), CURLMOPT_TIMERFUNCTION, on_timer),
              "curl_multi_setopt(CURLMOPT_TIMERFUNCTION)");
  check_multi(curl_multi_setopt(multi_.get(), CURLMOPT_TIMERDATA, this),
              "curl_multi_setopt(CURLMOPT_TIMERDATA)");
  headers_.append("Content-Type: application/json");
  headers_.append("Accept: text/event-stream");
  headers_.append("Expect:");  // no 100-continue round trip before large prompts
  if (!spec_.api_key.empty()) headers_.append("Authorization: Bearer " + spec_.api_key);
  int most = 1;
  for (const int c : spec_.concurrency) most = std::max(most, c);
  check_multi(curl_multi_setopt(multi_.get(), CURLMOPT_MAXCONNECTS, static_cast<long>(most + 8)),
              "curl_multi_setopt(CURLMOPT_MAXCONNECTS)");
}

StreamingClient::~StreamingClient() {
  for (auto& transfer : transfers_)
    if (transfer->active) curl_multi_remove_handle(multi_.get(), transfer->easy.get());
}

StreamingClient::Transfer& StreamingClient::idle_transfer() {
  for (auto& transfer : transfers_)
    if (!transfer->active) return *transfer;
  auto transfer = std::make_unique<Transfer>();
  transfer->easy = make_curl_easy();
  CURL* easy = transfer->easy.get();
  const auto on_body = +[](char* data, std::size_t size, std::size_t count, void* user) -> std::size_t {
    auto* t = static_cast<Transfer*>(user);
    const SteadyTime now = SteadyClock::now();  // the arrival time of these bytes
    const std::size_t bytes = size * count;
    t->last_byte = now;
    if (t->status == 0) curl_easy_getinfo(t->easy.get(), CURLINFO_RESPONSE_CODE, &t->status);
    if (t->status != 200) {
      t->response->on_error_body({data, bytes});
      return bytes;
    }
    return t->response->on_body({data, bytes}, now) ? bytes : 0;
  };
  const auto on_header = +[](char*, std::size_t size, std::size_t count, void* user) -> std::size_t {
    static_cast<Transfer*>(user)->last_byte = SteadyClock::now();
    return size * count;
  };
  check_easy(curl_easy_setopt(easy, CURLOPT_URL, url_.c_str()), "curl_easy_setopt(CURLOPT_URL)");
  check_easy(curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1)),
             "curl_easy_setopt(CURLOPT_HTTP_VERSION)");
  check_easy(curl_easy_setopt(easy, CURLOPT_POST, 1L), "curl_easy_setopt(CURLOPT_POST)");
  check_easy(curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers_.get()),
             "curl_easy_setopt(CURLOPT_HTTPHEADER)");
  check_easy(curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body),
             "curl_easy_setopt(CURLOPT_WRITEFUNCTION)");
  check_easy(curl_easy_setopt(easy, CURLOPT_WRITEDATA, transfer.get()),
             "curl_easy_setopt(CURLOPT_WRITEDATA)");
  check_easy(curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header),
             "curl_easy_setopt(CURLOPT_HEADERFUNCTION)");
  check_easy(curl_easy_setopt(easy, CURLOPT_HEADERDATA, transfer.get()),
             "curl_easy_setopt(CURLOPT_HEADERDATA)");
  check_easy(curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer.get()), "curl_easy_setopt(CURLOPT_PRIVATE)");
  check_easy(curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer->error_buffer),
             "curl_easy_setopt(CURLOPT_ERRORBUFFER)");
  check_easy(curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L), "curl_easy_setopt(CURLOPT_NOSIGNAL)");
  check_easy(curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L), "curl_easy_setopt(CURLOPT_TCP_NODELAY)");
  check_easy(curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L), "curl_easy_setopt(CURLOPT_TCP_KEEPALIVE)");
  check_easy(curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(spec_.connect_timeout_s)),
             "curl_easy_setopt(CURLOPT_CONNECTTIMEOUT_MS)");
  check_easy(curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, milliseconds(spec_.request_timeout_s)),
             "curl_easy_setopt(CURLOPT_TIMEOUT_MS)");
  transfers_.push_back(std::move(transfer));
  return *transfers_.back();
}

void StreamingClient::launch(Transfer& transfer, bool warmup) {
  const long long id = next_request_id_++;
  transfer.body = streaming_request_body(spec_, model_, id);
  transfer.status = 0;
  transfer.error_buffer[0] = '\0';
  CURL* easy = transfer.easy.get();
  check_easy(curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(transfer.body.size())),
             "curl_easy_setopt(CURLOPT_POSTFIELDSIZE)");
  check_easy(curl_easy_setopt(easy, CURLOPT_POSTFIELDS, transfer.body.c_str()),
             "curl_easy_setopt(CURLOPT_POSTFIELDS)");
  const SteadyTime start = SteadyClock::now();
  transfer.response.emplace(id, warmup, start, spec_.ignore_eos ? spec_.max_tokens : 0);
  transfer.last_byte = start;
  check_multi(curl_multi_add_handle(multi_.get(), easy), "curl_multi_add_handle");
  transfer.active = true;
}

RequestRecord StreamingClient::complete(Transfer& transfer, int curl_result) {
  const SteadyTime now = SteadyClock::now();
  CURL* easy = transfer.easy.get();
  TransferEnd end;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &end.http_status);
  const auto rc = static_cast<CURLcode>(curl_result);
  end.message = transfer.error_buffer[0] != '\0' ? transfer.error_buffer : curl_easy_strerror(rc);
  switch (rc) {
    case CURLE_OK:
      end.kind = TransferEnd::Kind::completed;
      break;
    case CURLE_COULDNT_CONNECT:
      end.kind = TransferEnd::Kind::refused;
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      end.kind = TransferEnd::Kind::dns;
      break;
    case CURLE_OPERATION_TIMEDOUT: {
      curl_off_t pretransfer_us = 0;
      curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
      end.kind = pretransfer_us == 0 && end.http_status == 0 ? TransferEnd::Kind::connect_timeout
                                                             : TransferEnd::Kind::request_timeout;
      break;
    }
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
      end.kind = TransferEnd::Kind::broken;
      break;
    case CURLE_WRITE_ERROR:
      end.kind = TransferEnd::Kind::aborted;
      break;
    default:
      end.kind = TransferEnd::Kind::other;
      break;
  }
  curl_multi_remove_handle(multi_.get(), easy);
  transfer.active = false;
  RequestRecord record = transfer.response->finish(end, now);
  transfer.response.reset();
  if (!record.ok && end.http_status == 404) record.error_message += not_found_hint(spec_);
  if (!record.ok && (end.http_status == 401 || end.http_status == 403))
    record.error_message += refused_credentials_hint(spec_);
  // The message is recorded (error_examples) and printed: without the key, should the server have echoed it,
  // and without a URL's user-info (curl's own messages).
  record.error_message = redact_text(record.error_message, std::span(&spec_.api_key, 1));
  return record;
}

void StreamingClient::socket_action(int socket, int events) {
  int running = 0;
  check_multi(curl_multi_socket_action(multi_.get(), socket, events, &running), "curl_multi_socket_action");
}

RequestRecord StreamingClient::abandon_idle(Transfer& transfer, SteadyTime now) {
  TransferEnd end;
  end.kind = TransferEnd::Kind::idle_timeout;
  curl_easy_getinfo(transfer.easy.get(), CURLINFO_RESPONSE_CODE, &end.http_status);
  end.message = fmt::format("no byte from the server for {:.3g} s", spec_.idle_timeout_s);
  curl_multi_remove_handle(multi_.get(), transfer.easy.get());
  transfer.active = false;
  RequestRecord record = transfer.response->finish(end, now);
  transfer.response.reset();
  return record;
}

BatchResult StreamingClient::run(const BatchPlan& plan) {
  BatchResult result;
  result.records.reserve(static_cast<std::size_t>(std::max(plan.count, 0)));
  const int concurrency = std::max(plan.concurrency, 1);
  const bool poisson = plan.rate_per_s > 0;
  std::mt19937_64 rng(plan.seed);
  std::exponential_distribution<double> gap_s(poisson ? plan.rate_per_s : 1.0);
  const auto idle_limit =
      std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(spec_.idle_timeout_s));

  int launched = 0, in_flight = 0;
  SteadyTime next_arrival = SteadyClock::now();
  SteadyTime next_idle_scan = next_arrival + kIdleScanInterval;
  std::optional<SteadyTime> window_begin, window_end;
  std::array<epoll_event, 256> ready;  // filled by epoll_wait each turn

  int failed = 0;
  const auto finished = [&](RequestRecord record) {
    if (!record.ok) ++failed;
    result.records.push_back(std::move(record));
  };
  while (launched < plan.count || in_flight > 0) {
    if (plan.on_progress) plan.on_progress(static_cast<int>(result.records.size()), failed);
    if (interrupt_signal() != 0) {  // epoll_wait returns early on the signal: stop within one loop turn
      result.interrupted = true;
      break;
    }
    SteadyTime now = SteadyClock::now();
    while (launched < plan.count && in_flight < concurrency && (!poisson || next_arrival <= now)) {
      launch(idle_transfer(), plan.warmup);
      ++launched;
      ++in_flight;
      if (poisson) {
        next_arrival +=
            std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(gap_s(rng)));
        if (launched == plan.count) window_end = now;
      }
    }

    if (curl_deadline_ && SteadyClock::now() >= *curl_deadline_) {  // new handles set a 0 ms timer: start now
      curl_deadline_.reset();
      socket_action(CURL_SOCKET_TIMEOUT, 0);
    }
    bool finished_any = false;
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_.get(), &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      Transfer* transfer = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &transfer);
      const int curl_result = message->data.result;  // read before the handle is removed
      finished(complete(*transfer, curl_result));
      --in_flight;
      finished_any = true;
      if (!window_begin) window_begin = result.records.back().end;
      if (!poisson && !window_end && launched == plan.count) window_end = result.records.back().end;
    }
    if (finished_any) continue;  // refill the freed slots before waiting

    now = SteadyClock::now();
    if (now >= next_idle_scan) {
      next_idle_scan = now + kIdleScanInterval;
      for (auto& transfer : transfers_) {
        if (!transfer->active || now - transfer->last_byte < idle_limit) continue;
        curl_off_t connect_us = 0;  // before the connection exists the connect timeout applies instead
        curl_easy_getinfo(transfer->easy.get(), CURLINFO_CONNECT_TIME_T, &connect_us);
        curl_off_t pretransfer_us = 0;
        curl_easy_getinfo(transfer->easy.get(), CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
        if (connect_us == 0 && pretransfer_us == 0) continue;
        finished(abandon_idle(*transfer, now));
        --in_flight;
        finished_any = true;
        if (!window_begin) window_begin = now;
        if (!poisson && !window_end && launched == plan.count) window_end = now;
      }
      if (finished_any) continue;
    }

    SteadyTime wake = std::min(now + kMaxWait, next_idle_scan);
    if (poisson && launched < plan.count && in_flight < concurrency) wake = std::min(wake, next_arrival);
    if (curl_deadline_) wake = std::min(wake, *curl_deadline_);
    const auto wait_ms =
        std::chrono::ceil<std::chrono::milliseconds>(std::max(wake - now, SteadyClock::duration{}));
    const int count = epoll_wait(epoll_.get(), ready.data(), static_cast<int>(ready.size()),
                                 static_cast<int>(wait_ms.count()));
    if (count < 0 && errno != EINTR)
      throw RuntimeFault(fmt::format("epoll_wait failed: {}", std::strerror(errno)), "epoll_wait", __FILE__,
                         __LINE__);
    for (int i = 0; i < count; ++i) {
      const std::uint32_t flags = ready[static_cast<std::size_t>(i)].events;
      const int events = (flags & (EPOLLIN | EPOLLHUP | EPOLLERR) ? CURL_CSELECT_IN : 0) |
                         (flags & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                         (flags & EPOLLERR ? CURL_CSELECT_ERR : 0);
      socket_action(ready[static_cast<std::size_t>(i)].data.fd, events);
    }
    if (curl_deadline_ && SteadyClock::now() >= *curl_deadline_) {
      curl_deadline_.reset();
      socket_action(CURL_SOCKET_TIMEOUT, 0);
    }
  }
  if (plan.on_progress) plan.on_progress(static_cast<int>(result.records.size()), failed);
  const SteadyTime ended = SteadyClock::now();
  result.window.begin = window_begin.value_or(ended);
  result.window.end = window_end.value_or(ended);
  return result;
}

}  // namespace k25
