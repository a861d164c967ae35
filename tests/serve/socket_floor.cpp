// Reference of tools/bench-serve: the kernel's floor under the serve client, the same streams read without
// it.
//   k25_socket_floor --endpoint http://127.0.0.1:PORT [--api chat|completions] --concurrency N --requests N
//                    [--max-tokens N] [--prompt-tokens N] [--model NAME] [--poll-after-recv]
// The same request bodies as k25comm's client (streaming_request_body), closed loop on N keep-alive
// connections, read with epoll_wait and one recv per ready socket: no HTTP library, nothing parsed but the
// status line and each response's end (the chunked terminator). What any client on this machine pays per
// token before its own work;
// --poll-after-recv adds the zero-timeout poll libcurl 7.88 makes after every read to see whether more is
// pending. stdout: {"requests", "reads", "wakeups", "polls", "bytes", "cpu_s"} (cpu_s: from the first connect
// to the last response's end). A benchmark's reference, not a client: it speaks only to a plain-HTTP server
// that answers 200 with a chunked body on a kept-alive connection (tests/serve/fake_openai_server.py);
// anything else ends it with a message and exit 1.
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "process_cpu.hpp"
#include "serve/request_body.hpp"

namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail_errno(const std::string& call, int error = errno) {
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::strerror(error)));
}

struct Endpoint {
  std::string host, port, path_prefix;
};

Endpoint parse_endpoint(const std::string& url) {
  static const std::regex form(R"(http://([A-Za-z0-9.\-]+):([0-9]+)(/.*)?)");
  std::smatch match;
  if (!std::regex_match(url, match, form))
    throw std::runtime_error("--endpoint must be http://HOST:PORT (plain HTTP, no user-info): " + url);
  return {match[1], match[2], match[3]};
}

FileDescriptor connect_to(const Endpoint& endpoint) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(endpoint.host.c_str(), endpoint.port.c_str(), &hints, &found); rc != 0)
    throw std::runtime_error(fmt::format("getaddrinfo({}) failed: {}", endpoint.host, gai_strerror(rc)));
  FileDescriptor socket_fd(socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int error = errno;
  const int connected =
      socket_fd.get() < 0 ? -1 : connect(socket_fd.get(), found->ai_addr, found->ai_addrlen);
  if (socket_fd.get() >= 0) error = errno;
  freeaddrinfo(found);  // before either failure is thrown; `error` is the failed call's errno
  if (socket_fd.get() < 0) fail_errno("socket", error);
  if (connected != 0) fail_errno(fmt::format("connect to {}:{}", endpoint.host, endpoint.port), error);
  const int one = 1;  // as the client (CURLOPT_TCP_NODELAY)
  if (setsockopt(socket_fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) fail_errno("setsockopt");
  return socket_fd;
}

// One keep-alive connection: the bytes of its response so far that matter (the status line's start; the last
// bytes, so that the terminator is found across reads).
struct Stream {
  FileDescriptor socket;
  std::string head;  // the first bytes of the current response, up to the status code
  std::string tail;  // the last bytes of the current response
};

constexpr std::string_view kChunkedEnd = "\r\n0\r\n\r\n";

void send_all(int socket_fd, const std::string& request) {
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(socket_fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno("send");
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  k25::ServeSpec spec;
  std::string api = "completions", endpoint_url;
  int concurrency = 1, requests = 1;
  bool poll_after_recv = false;
  spec.model = "k25-socket-floor";
  CLI::App app("k25comm serve bench's reference: epoll + recv per token, no HTTP library");
  app.add_option("--endpoint", endpoint_url)->required();
  app.add_option("--api", api)->check(CLI::IsMember({"chat", "completions"}));
  app.add_option("--model", spec.model);
  app.add_option("--concurrency", concurrency)->check(CLI::Range(1, 4096));
  app.add_option("--requests", requests, "responses read in all (closed loop)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--max-tokens", spec.max_tokens)->check(CLI::Range(1, 1 << 20));
  app.add_option("--prompt-tokens", spec.prompt_tokens)->check(CLI::Range(1, 1 << 20));
  app.add_flag("--poll-after-recv", poll_after_recv, "a zero-timeout poll after every read, as libcurl 7.88");
  CLI11_PARSE(app, argc, argv);
  spec.api = api == "chat" ? k25::ServeApi::chat : k25::ServeApi::completions;
  spec.ignore_eos = true;
  try {
    const Endpoint endpoint = parse_endpoint(endpoint_url);
    const std::string path =
        endpoint.path_prefix + (spec.api == k25::ServeApi::chat ? "/v1/chat/completions" : "/v1/completions");
    long long next_id = 0;
    const auto request_text = [&] {
      const std::string body = k25::streaming_request_body(spec, spec.model, next_id++);
      return fmt::format(
          "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
          "Content-Length: {}\r\n\r\n{}",
          path, endpoint.host, endpoint.port, body.size(), body);
    };
    const double cpu_before = process_cpu_seconds();
    FileDescriptor epoll_fd(epoll_create1(EPOLL_CLOEXEC));
    if (epoll_fd.get() < 0) fail_errno("epoll_create1");
    std::vector<Stream> streams;
    streams.reserve(static_cast<std::size_t>(std::min(concurrency, requests)));
    int launched = 0, finished = 0;
    const auto launch = [&](Stream& stream) {
      stream.head.clear();
      stream.tail.clear();
      send_all(stream.socket.get(), request_text());
      ++launched;
    };
    for (int i = 0; i < std::min(concurrency, requests); ++i) {
      streams.push_back(Stream{connect_to(endpoint), {}, {}});
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.u64 = static_cast<std::uint64_t>(i);
      if (epoll_ctl(epoll_fd.get(), EPOLL_CTL_ADD, streams.back().socket.get(), &event) != 0)
        fail_errno("epoll_ctl");
      launch(streams.back());
    }
    long long reads = 0, wakeups = 0, polls = 0, bytes = 0;
    std::array<epoll_event, 256> ready{};
    std::array<char, 65536> buffer{};
    while (finished < requests) {
      const int count = epoll_wait(epoll_fd.get(), ready.data(), static_cast<int>(ready.size()), 30000);
      if (count < 0 && errno == EINTR) continue;
      if (count < 0) fail_errno("epoll_wait");
      if (count == 0) throw std::runtime_error("no byte from the server for 30 s");
      ++wakeups;
      for (int i = 0; i < count; ++i) {
        Stream& stream = streams[ready[static_cast<std::size_t>(i)].data.u64];
        const ssize_t n = recv(stream.socket.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
        ++reads;
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (n < 0) fail_errno("recv");
        if (n == 0) throw std::runtime_error("the server closed a connection (keep-alive needed)");
        bytes += n;
        if (poll_after_recv) {
          pollfd pending{stream.socket.get(), POLLIN, 0};
          poll(&pending, 1, 0);
          ++polls;
        }
        const std::string_view got(buffer.data(), static_cast<std::size_t>(n));
        if (stream.head.size() < 12) {
          stream.head.append(got.substr(0, 12 - stream.head.size()));
          if (stream.head.size() == 12 && stream.head.compare(0, 12, "HTTP/1.1 200") != 0)
            throw std::runtime_error("the server answered \"" + stream.head + "\", not HTTP/1.1 200");
        }
        stream.tail.append(got.substr(got.size() - std::min(got.size(), kChunkedEnd.size())));
        if (stream.tail.size() > kChunkedEnd.size())
          stream.tail.erase(0, stream.tail.size() - kChunkedEnd.size());
        if (stream.tail != kChunkedEnd) continue;
        ++finished;
        if (launched < requests) launch(stream);
      }
    }
    const double cpu_s = process_cpu_seconds() - cpu_before;
    std::cout << nlohmann::json{{"requests", finished}, {"reads", reads}, {"wakeups", wakeups},
                                {"polls", polls},       {"bytes", bytes}, {"cpu_s", cpu_s}}
                     .dump()
              << std::endl;
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "k25_socket_floor: " << error.what() << std::endl;
    return 1;
  }
}
