#!/usr/bin/env python3
"""Serve-phase tests: k25_serve_driver (the serve phase without MPI) against fake_openai_server.py.

Run one group: python3 test_serve.py TimingTests   (K25_SERVE_DRIVER names the driver executable).
Every test class starts its own server on a free port and kills it at the end; every wait is bounded.
"""
import csv
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from ports import read_port_line, refused_port, wait_for  # noqa: E402  (tests/common: ports and bounded waits)

DRIVER = os.environ.get("K25_SERVE_DRIVER", "k25_serve_driver")
SOCKET_FLOOR = os.environ.get("K25_SOCKET_FLOOR", "k25_socket_floor")
ITL_MS = 20.0
TTFT_MS = 300.0


class FakeServer:
    """The fake server as a subprocess on a port the kernel chose (--port 0), read from its "PORT <n>" line."""

    def __init__(self, *args):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fake_openai_server.py"), "--port", "0", "--max-seconds", "300",
             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.port = read_port_line(self.process, 30, "fake_openai_server.py")
        except (RuntimeError, TimeoutError) as error:
            self.process.kill()
            stderr = self.process.stderr.read()
            self.stop()
            raise RuntimeError(f"fake server did not start: {error}; stderr: {stderr}")
        self.url = f"http://127.0.0.1:{self.port}"

    def stats(self):
        with urllib.request.urlopen(self.url + "/stats", timeout=10) as answer:
            return json.load(answer)

    def reset(self):
        urllib.request.urlopen(urllib.request.Request(self.url + "/reset", method="POST"), timeout=10).read()

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()


def accept_queue_length(listener):
    """The connections waiting in a listening socket's accept queue: Linux's TCP_INFO gives a listener's accept
    backlog as tcpi_unacked (bytes 24-27), its limit as tcpi_sacked."""
    return struct.unpack_from("I", listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 32), 24)[0]


def run_driver(endpoint, *args, timeout=120, expect_rc=0):
    """The driver's JSON (expect_rc 0; with "wall_s", how long its process ran as this test timed it, and
    "ended_s", time.monotonic() once it had ended), else the finished process."""
    command = [DRIVER, "--endpoint", endpoint, *args]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    ended_s = time.monotonic()
    if done.returncode != expect_rc:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}, expected {expect_rc}\n"
                             f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}")
    if expect_rc != 0:
        return done
    result = json.loads(done.stdout)
    result["wall_s"], result["ended_s"] = ended_s - started, ended_s
    return result


# How the serve figures are checked: against what holds at any load, never against a tolerance on a time. A busy
# machine makes the client read late and the (Python) server send late, by any amount (TPOT 3.84 ms for a 5 ms
# schedule at load 8-13, a TTFT 18 ms off the server's); how close the client's figures come to the server's is
# what tools/bench-serve measures. What holds whatever the load: causality (the bounds below), and that the figures
# of a level are computed from the same arrival times (exact identities between their means).

def percentile(values, fraction):
    """k25comm's percentile (src/common/stats.cpp): linear between the closest ranks of the sorted values."""
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def distribution(values):
    """The report's STATS of `values`: min, p50, p90, p99, max, mean."""
    return {"min": min(values), "p50": percentile(values, 0.5), "p90": percentile(values, 0.9),
            "p99": percentile(values, 0.99), "max": max(values), "mean": sum(values) / len(values)}


def assert_not_before_the_server(test, level, sent):
    """Causality: the client hands a request over before the server has read it, and reads a chunk after the server
    began writing it (GET /stats: first_s and last_s from when it read the request). So each request's TTFT and
    E2EL on the client are at least the server's, and so is each order statistic and the mean of them."""
    for key, field in (("ttft_ms", "first_s"), ("e2el_ms", "last_s")):
        server = distribution([r[field] * 1000.0 for r in sent])
        for stat, value in server.items():
            test.assertGreaterEqual(level[key][stat], value - 1e-6,
                                    f"{key} {stat}: client {level[key]}, the server's {server}")


def assert_within_the_run(test, result, level):
    """Causality the other way: a request's first chunk comes before its last, every request lies within the level's
    span (vllm_bench_serve's duration, first start to last end), and the level within the driver's run."""
    for stat in ("min", "p50", "max", "mean"):
        test.assertLessEqual(level["ttft_ms"][stat], level["e2el_ms"][stat], stat)
    duration_s = level["vllm_bench_serve"]["duration"]
    test.assertLessEqual(level["e2el_ms"]["max"], duration_s * 1000.0 + 1e-6, level["e2el_ms"])
    test.assertLessEqual(duration_s, result["wall_s"])


def assert_closed_loop_bounds(test, result, level, sent):
    """At 1 stream the requests go one after the other: request k starts after request k - 1 ended, which was after
    the server began writing its last chunk, and ends before the server reads request k + 1 (the last one: before
    the driver ended). So its E2EL is at most the server's (arrival of k + 1) - (last write of k - 1), on the one
    clock both use (CLOCK_MONOTONIC): an upper bound that load only widens. `sent`: the server's records of the
    warm-up request and then the level's, in order."""
    last_writes = [r["arrived_s"] + r["last_s"] for r in sent[:-1]]
    arrivals = [r["arrived_s"] for r in sent[2:]] + [result["ended_s"]]
    bounds = [(arrival - write) * 1000.0 for arrival, write in zip(arrivals, last_writes)]
    test.assertLessEqual(level["e2el_ms"]["max"], max(bounds) + 1e-6, f"client {level['e2el_ms']}, bounds {bounds}")
    test.assertLessEqual(level["e2el_ms"]["mean"], sum(bounds) / len(bounds) + 1e-6,
                         f"client {level['e2el_ms']}, bounds {bounds}")


def assert_one_timeline(test, level, tokens, chunks):
    """TPOT, ITL, TTFT and E2EL come from the same arrival times: over completed requests of `tokens` tokens in
    `chunks` content chunks each, mean TPOT x (tokens - 1) and mean ITL x (chunks - 1) both equal mean E2EL - mean
    TTFT (TPOT = (E2EL - TTFT) / (tokens - 1); the ITLs of a request add up to E2EL - TTFT). Exact at any load: a
    TPOT per chunk where the usage counts tokens, or over tokens rather than the gaps between them, is not."""
    span = level["e2el_ms"]["mean"] - level["ttft_ms"]["mean"]
    test.assertAlmostEqual(level["tpot_ms"]["mean"] * (tokens - 1), span, delta=1e-9 * abs(span) + 1e-9,
                           msg=f"TPOT {level['tpot_ms']}, E2EL - TTFT {span} ms over {tokens} tokens")
    if chunks > 1:
        test.assertAlmostEqual(level["itl_ms"]["mean"] * (chunks - 1), span, delta=1e-9 * abs(span) + 1e-9,
                               msg=f"ITL {level['itl_ms']}, E2EL - TTFT {span} ms over {chunks} chunks")


def window_count(level, per_s):
    """What the level's window counted (per_s x window_s): whole completions, or whole tokens at one a chunk."""
    count = level[per_s] * level["window_s"]
    return count, round(count)


class ServerTestCase(unittest.TestCase):
    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.server = FakeServer("--itl-ms", str(ITL_MS), "--ttft-ms", str(TTFT_MS), *cls.server_args)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def endpoint(self, **options):
        return self.server.url + "".join(f"/{k}={v}" for k, v in options.items())

    def only_level(self, result):
        levels = result["serve"]["levels"]
        self.assertEqual(len(levels), 1)
        return levels[0]


class TimingTests(ServerTestCase):
    """Measured TTFT, TPOT, ITL and E2EL against the server's own send times and configured schedule, both API
    shapes, at 1 and 64 streams: what holds at any load (above)."""

    def check_level(self, result, requests, tokens):
        """Checks the only level of `result` against what the server really did (GET /stats: the level's requests
        are the last ones it finished, the warm-up ends before the level starts); returns the level and those
        stats."""
        level = self.only_level(result)
        self.assertEqual(level["requests"], requests)
        self.assertEqual(level["completed"], requests, level["errors"])
        self.assertEqual(level["failed"], 0)
        self.assertEqual(level["output_tokens"], requests * tokens)
        stats = self.server.stats()
        sent = stats["requests"][-requests:]
        self.assertEqual([r["tokens"] for r in sent], [tokens] * requests)
        # The server never sends the first token before its TTFT (asyncio wakes no earlier than a deadline), so
        # neither does the client see it: the role-only chunk of the chat API, sent at once, is no token.
        self.assertGreaterEqual(level["ttft_ms"]["min"], TTFT_MS - 1e-3)
        assert_not_before_the_server(self, level, sent)
        assert_within_the_run(self, result, level)
        assert_one_timeline(self, level, tokens, tokens)
        return level, stats

    def test_completions_concurrency_1(self):
        result = run_driver(self.server.url, "--api", "completions", "--concurrency", "1", "--requests", "4",
                            "--warmup", "1", "--max-tokens", "32")
        serve = result["serve"]
        self.assertTrue(serve["ran"])
        self.assertEqual(serve["model"], "fake-model")  # discovered from /v1/models
        self.assertEqual(serve["token_count_source"], "usage")
        self.assertIn("first chunk carrying generated text", serve["ttft_definition"])
        level, stats = self.check_level(result, 4, 32)
        assert_closed_loop_bounds(self, result, level, stats["requests"][-5:])
        self.assertEqual(level["window_kind"], "steady")
        # Closed loop at 1 stream: the window opens at the first completion and holds the other 3, one after the
        # other, each at least one E2EL long: at most one request per E2EL.
        completions, _ = window_count(level, "requests_per_s")
        self.assertAlmostEqual(completions, 3, delta=1e-9)
        self.assertLessEqual(level["requests_per_s"], 1000.0 / level["e2el_ms"]["min"])
        self.assertEqual(len(result["journal"]), 1)
        self.assertEqual(result["journal"][0]["level"]["concurrency"], 1)

    def test_chat_concurrency_1_ignores_role_only_chunk(self):
        # The server sends the role-only chunk at once: TTFT must still be the first content chunk.
        result = run_driver(self.server.url, "--api", "chat", "--concurrency", "1", "--requests", "4",
                            "--warmup", "1", "--max-tokens", "32")
        level, stats = self.check_level(result, 4, 32)
        assert_closed_loop_bounds(self, result, level, stats["requests"][-5:])

    def test_completions_concurrency_64(self):
        # Closed loop: 64 requests end and start in the same instant. Warm-up at full concurrency: 64 kept-alive
        # connections before the counted requests.
        self.server.reset()
        result = run_driver(self.server.url, "--api", "completions", "--concurrency", "64", "--requests", "128",
                            "--warmup", "64", "--max-tokens", "32")
        level, stats = self.check_level(result, 128, 32)
        self.assertEqual(level["window_kind"], "steady")
        self.assertEqual(len(stats["requests"]), 64 + 128)
        # HTTP/1.1 keep-alive: the warm-up connections are reused (+1 model probe, +1 this /stats request)
        self.assertLessEqual(stats["connections"], 64 + 2)
        # The steady window's rates are its counts over its seconds: whole completions, at least one a stream (else
        # it would be the level's span), and whole tokens (one a chunk), no more than the level's.
        completions, whole = window_count(level, "requests_per_s")
        self.assertAlmostEqual(completions, whole, delta=1e-6)
        self.assertGreaterEqual(whole, 64)
        tokens, whole = window_count(level, "output_tokens_per_s")
        self.assertAlmostEqual(tokens, whole, delta=1e-6)
        self.assertTrue(0 < whole <= 128 * 32, tokens)

    def test_chat_concurrency_64_staggered(self):
        # Poisson arrivals at 100/s with 64 in flight at most (about 90 would be wanted): the level runs at 64
        # streams whose starts and ends are spread out, so the server's intake does not pile up.
        for api in ("chat", "completions"):
            result = run_driver(self.server.url, "--api", api, "--concurrency", "64", "--requests", "128",
                                "--warmup", "8", "--max-tokens", "32", "--request-rate", "100")
            self.check_level(result, 128, 32)

    def test_levels_are_journaled_in_order(self):
        result = run_driver(self.endpoint(ttft_ms=20, itl_ms=5), "--concurrency", "1,2,4", "--requests", "4",
                            "--warmup", "0", "--max-tokens", "8")
        self.assertEqual([j["level"]["concurrency"] for j in result["journal"]], [1, 2, 4])
        self.assertEqual([j["levels_before"] for j in result["journal"]], [0, 1, 2])
        self.assertEqual([lv["completed"] for lv in result["serve"]["levels"]], [4, 4, 4])

    def test_poisson_arrivals(self):
        result = run_driver(self.endpoint(ttft_ms=20, itl_ms=5), "--concurrency", "8", "--requests", "20",
                            "--warmup", "0", "--max-tokens", "8", "--request-rate", "40")
        level = self.only_level(result)
        self.assertEqual(level["completed"], 20)
        self.assertEqual(result["serve"]["request_rate"], 40)


class TokenCountTests(ServerTestCase):
    """Token counts with and without usage, several tokens per chunk, stream format variations."""

    def run_level(self, api="completions", **options):
        result = run_driver(self.endpoint(ttft_ms=30, itl_ms=10, **options), "--api", api, "--concurrency", "2",
                            "--requests", "4", "--warmup", "0", "--max-tokens", "16")
        return result, self.only_level(result)

    def test_usage_counts(self):
        result, level = self.run_level()
        self.assertEqual(level["token_count_source"], "usage")
        self.assertEqual(level["output_tokens"], 4 * 16)

    def test_without_usage_chunks_are_counted(self):
        # No usage, and the stream ends by "stop": the count is the chunks', and TPOT is labelled per chunk.
        for api in ("completions", "chat"):
            result, level = self.run_level(api=api, usage=0, finish_reason="stop")
            self.assertEqual(result["serve"]["token_count_source"], "chunks")
            self.assertEqual(level["token_count_source"], "chunks")
            self.assertEqual(level["chunk_counted"], 4)
            self.assertEqual(level["tpot_per"], "chunk")
            self.assertEqual(level["output_tokens"], 4 * 16)
            assert_one_timeline(self, level, 16, 16)  # TPOT per chunk: the ITL

    def test_without_usage_an_ignore_eos_length_end_counts_max_tokens(self):
        # Issue 21: a server without usage that sends 4 tokens per chunk. ignore_eos was asked and every request
        # ended by "length": it produced max_tokens (16), not 4 "tokens" (its chunks).
        for api in ("completions", "chat"):
            result, level = self.run_level(api=api, usage=0, tokens_per_chunk=4)
            self.assertEqual(result["serve"]["token_count_source"], "max_tokens")
            self.assertEqual(level["token_count_source"], "max_tokens")
            self.assertEqual(level["chunk_counted"], 0)
            self.assertEqual(level["tpot_per"], "token")
            self.assertEqual(level["output_tokens"], 4 * 16)
            # 4 chunks carry 16 tokens: TPOT = 3 gaps / 15 tokens, not one gap per chunk
            assert_one_timeline(self, level, 16, 4)

    def test_without_usage_or_ignore_eos_chunks_are_counted(self):
        # Without ignore_eos a "length" end says nothing about how many tokens the server produced.
        result = run_driver(self.endpoint(ttft_ms=30, itl_ms=10, usage=0, tokens_per_chunk=4), "--concurrency",
                            "2", "--requests", "4", "--warmup", "0", "--max-tokens", "16", "--no-ignore-eos")
        level = self.only_level(result)
        self.assertEqual(level["token_count_source"], "chunks")
        self.assertEqual(level["output_tokens"], 4 * 4)
        self.assertEqual(level["tpot_per"], "chunk")

    def test_several_tokens_per_chunk_usage_wins(self):
        result, level = self.run_level(tokens_per_chunk=2)
        self.assertEqual(level["output_tokens"], 4 * 16)
        # 8 chunks carry 16 tokens: TPOT = 7 gaps / 15 tokens
        assert_one_timeline(self, level, 16, 8)

    def test_several_tokens_per_chunk_without_usage_counts_chunks(self):
        result, level = self.run_level(tokens_per_chunk=2, usage=0, finish_reason="stop")
        self.assertEqual(level["token_count_source"], "chunks")
        self.assertEqual(level["output_tokens"], 4 * 8)

    def test_crlf_comments_and_split_events(self):
        for api in ("completions", "chat"):
            result, level = self.run_level(api=api, crlf=1, comments=1, split=1)
            self.assertEqual(level["completed"], 4, level)
            self.assertEqual(level["output_tokens"], 4 * 16)


class FaultTests(ServerTestCase):
    """Every fault is classified and counted, the run goes on, nothing hangs."""

    def run_fault(self, fault, fault_every=1, requests=4, concurrency=2, idle_timeout=0.5, request_timeout=20,
                  **options):
        return self.only_level(run_driver(
            self.endpoint(ttft_ms=20, itl_ms=5, fault=fault, fault_every=fault_every, **options), "--concurrency",
            str(concurrency), "--requests", str(requests), "--warmup", "0", "--max-tokens", "8",
            "--idle-timeout", str(idle_timeout), "--connect-timeout", "1", "--request-timeout",
            str(request_timeout), timeout=60))

    def assert_all_failed(self, level, error_class, requests=4):
        self.assertEqual(level["completed"], 0, level)
        self.assertEqual(level["failed"], requests)
        self.assertEqual(level["errors"], {error_class: requests})
        return level["error_examples"][error_class]

    def test_http_4xx_nested_error_body(self):
        self.assertEqual(self.assert_all_failed(self.run_fault("http400"), "http_4xx"),
                         "HTTP 400: injected bad request")

    def test_http_5xx_flat_error_body(self):
        self.assertEqual(self.assert_all_failed(self.run_fault("http500"), "http_5xx"),
                         "HTTP 500: injected server failure")

    def test_error_event_after_200(self):
        self.assertEqual(self.assert_all_failed(self.run_fault("stream_error"), "stream_error"),
                         "injected stream error")

    def test_http_404_names_the_url_and_the_other_api(self):
        # Issue 21: --api completions against a chat-only server.
        message = self.assert_all_failed(self.run_fault("", apis="chat"), "http_4xx")
        self.assertIn("HTTP 404", message)
        url = self.endpoint(ttft_ms=20, itl_ms=5, fault="", fault_every=1, apis="chat") + "/v1/completions"
        self.assertIn(f"from POST {url}:", message)
        self.assertIn("try --api chat", message)
        level = self.only_level(run_driver(self.endpoint(apis="completions"), "--api", "chat", "--concurrency", "1",
                                           "--requests", "2", "--warmup", "0", "--max-tokens", "4"))
        self.assertIn("try --api completions", level["error_examples"]["http_4xx"])

    def test_stream_cut_in_the_middle(self):
        self.assert_all_failed(self.run_fault("cut"), "stream_cut")

    def test_stream_without_done(self):
        self.assert_all_failed(self.run_fault("nodone"), "missing_done")

    def test_malformed_json(self):
        started = time.monotonic()
        self.assertIn("malformed JSON", self.assert_all_failed(self.run_fault("bad_json"), "malformed_json"))
        self.assertLess(time.monotonic() - started, 10)  # abandoned at once, not after a timeout

    def test_idle_timeout_mid_stream(self):
        started = time.monotonic()
        self.assert_all_failed(self.run_fault("stall"), "idle_timeout")
        self.assertLess(time.monotonic() - started, 10)

    def test_idle_timeout_before_headers(self):
        self.assert_all_failed(self.run_fault("stall_headers"), "idle_timeout")

    def test_request_timeout(self):
        level = self.run_fault("stall", idle_timeout=30, request_timeout=0.6)
        self.assert_all_failed(level, "request_timeout")

    def test_partial_faults_run_goes_on(self):
        level = self.run_fault("http500", fault_every=3, requests=12, concurrency=3)
        self.assertEqual(level["requests"], 12)
        self.assertEqual(level["failed"], 4)
        self.assertEqual(level["completed"], 8)
        self.assertEqual(level["errors"], {"http_5xx": 4})
        # The figures are the 8 completed requests' alone: none earlier than the server's TTFT (a failed request
        # has no first token), and TPOT, ITL, TTFT and E2EL from the same 8 timelines of 8 tokens.
        self.assertEqual(level["vllm_bench_serve"]["completed"], 8)
        self.assertGreaterEqual(level["ttft_ms"]["min"], 20.0 - 1e-3)
        self.assertGreaterEqual(level["e2el_ms"]["min"], 20.0 + 7 * 5.0 - 1e-3)
        assert_one_timeline(self, level, 8, 8)


class SocketFloorTests(ServerTestCase):
    """tools/bench-serve's reference, k25_socket_floor: it reads every response it asked for, as many as the server
    sent (the bench's tokens are the server's own count), with one poll per read when asked; what it cannot read
    ends it with a message and exit 1, never a hang."""

    def floor(self, endpoint, *args, expect_rc=0):
        done = subprocess.run([SOCKET_FLOOR, "--endpoint", endpoint, *args], capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, expect_rc, done.stderr)
        return json.loads(done.stdout) if expect_rc == 0 else done.stderr

    def test_reads_every_response_closed_loop(self):
        for api, poll in (("completions", []), ("chat", ["--poll-after-recv"])):
            with self.subTest(api=api):
                self.server.reset()
                result = self.floor(self.server.url, "--api", api, "--concurrency", "3", "--requests", "7",
                                    "--max-tokens", "5", *poll)
                sent = self.server.stats()["requests"]
                self.assertEqual(result["requests"], 7)
                self.assertEqual([r["tokens"] for r in sent], [5] * 7)
                self.assertEqual(len({r["id"] for r in sent}), 7)  # a new request each time, no replays
                self.assertGreaterEqual(result["reads"], 7 * 5)  # each token is a write of the server's
                self.assertEqual(result["polls"], result["reads"] if poll else 0)
                self.assertGreater(result["cpu_s"], 0)

    def test_refuses_what_it_cannot_read(self):
        self.assertIn("not HTTP/1.1 200", self.floor(self.server.url + "/v2", "--requests", "1", expect_rc=1))
        self.assertIn("plain HTTP", self.floor("https://127.0.0.1:1", expect_rc=1))
        with refused_port() as port:
            self.assertIn("Connection refused", self.floor(f"http://127.0.0.1:{port}", expect_rc=1))


class EndpointTests(unittest.TestCase):
    """Unreachable endpoints: refused, DNS, connect timeout; skipped phase; fail-fast check (exit 3)."""

    def test_connection_refused_counted(self):
        with refused_port() as port:
            level = run_driver(f"http://127.0.0.1:{port}", "--concurrency", "2", "--requests", "4",
                               "--warmup", "0", "--connect-timeout", "2")["serve"]["levels"][0]
        self.assertEqual(level["errors"], {"connect_refused": 4})

    def test_dns_failure_counted(self):
        level = run_driver("http://k25comm-no-such-host.invalid:8000", "--concurrency", "2", "--requests", "4",
                           "--warmup", "0", "--connect-timeout", "3", timeout=60)["serve"]["levels"][0]
        self.assertEqual(level["failed"], 4)
        # a resolver that does not answer at all shows up as a connect timeout; both are DNS trouble here
        self.assertTrue(set(level["errors"]) <= {"dns", "connect_timeout"}, level["errors"])

    def test_connect_timeout(self):
        # A listening socket whose accept queue is full: the kernel drops further SYNs.
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        try:
            for _ in range(4):
                filler = socket.socket()
                filler.setblocking(False)
                filler.connect_ex(("127.0.0.1", port))
                fillers.append(filler)
            # the queue full (the kernel has put a filler's connection there), not a sleep that hopes so
            wait_for(lambda: accept_queue_length(listener) > 0, 30, "a filler in the listener's accept queue")
            started = time.monotonic()
            level = run_driver(f"http://127.0.0.1:{port}", "--concurrency", "2", "--requests", "2", "--warmup",
                               "0", "--connect-timeout", "0.5", "--idle-timeout", "0.3",
                               timeout=60)["serve"]["levels"][0]
            self.assertEqual(level["errors"], {"connect_timeout": 2})
            self.assertLess(time.monotonic() - started, 10)
        finally:
            for s in fillers + [listener]:
                s.close()

    def test_check_fails_fast_with_exit_3_naming_the_url(self):
        with refused_port() as port:
            url = f"http://127.0.0.1:{port}"
            started = time.monotonic()
            done = run_driver(url, "--check", "--connect-timeout", "2", expect_rc=3)
        self.assertIn(url + "/v1/models", done.stderr)
        self.assertIn("unreachable", done.stderr)
        self.assertLess(time.monotonic() - started, 10)

    def test_check_passes_on_live_server(self):
        server = FakeServer()
        try:
            result = run_driver(server.url, "--check", "--concurrency", "1", "--requests", "1", "--warmup", "0",
                                "--max-tokens", "2")
            self.assertEqual(result["serve"]["levels"][0]["completed"], 1)
        finally:
            server.stop()

    def test_no_endpoint_skips(self):
        result = run_driver("", "--concurrency", "1")
        self.assertFalse(result["serve"]["ran"])
        self.assertIn("no endpoint", result["serve"]["skipped_reason"])
        self.assertEqual(result["serve"]["levels"], [])


def run_k25comm(out_dir, endpoint, *flags, ranks=2, timeout=180, phases="serve", k25comm=None):
    """k25comm's serve phase (alone by default) under mpirun (K25COMM, K25_MPIRUN, K25_SMOKE_CONFIG from ctest),
    without plots (--no-plots: no test here reads them, and each would cost a matplotlib start); endpoint None
    leaves --endpoint out; `k25comm` another binary than K25COMM."""
    command = [os.environ.get("K25_MPIRUN", "mpirun"), "-np", str(ranks), "--oversubscribe",
               k25comm or os.environ["K25COMM"], "--sizes", os.environ["K25_SMOKE_CONFIG"], "--phases", phases,
               *(["--endpoint", endpoint] if endpoint is not None else []), "--out", out_dir, "--no-plots", *flags]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


class RunTests(unittest.TestCase):
    """The serve phase inside a k25comm run: failed levels fail the run after the reports are written,
    partial failures are noted, progress lines appear, vllm bench serve's metrics are reported."""

    @classmethod
    def setUpClass(cls):
        cls.server = FakeServer("--itl-ms", "5", "--ttft-ms", "20")
        cls.work = os.path.join(os.getcwd(), "run-tests")
        os.makedirs(cls.work, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def out(self, name):
        return os.path.join(self.work, name)

    def load(self, name):
        with open(os.path.join(self.out(name), "report.json")) as f:
            return json.load(f)

    def one_level_run(self, name, path, *flags):
        """The serve phase alone at C=1, 4 requests, against the server's URL + path: its console output, report
        and level."""
        done = run_k25comm(self.out(name), self.server.url + path, "--concurrency", "1", "--requests", "4", *flags)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        report = self.load(name)
        with open(os.path.join(self.out(name), "serve.csv")) as f:
            csv_row = next(csv.DictReader(f))
        with open(os.path.join(self.out(name), "report.md")) as f:
            md = f.read()
        return done, report, report["serve"]["levels"][0], csv_row, md

    def test_every_request_failing_fails_the_run_after_writing_the_reports(self):
        done = run_k25comm(self.out("all-fail"), self.server.url + "/fault=http500", "--concurrency", "1,2",
                           "--requests", "3", "--max-tokens", "4")
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn("k25comm: error: serve phase failed: concurrency 1: 0 of 3 requests completed (http_5xx 3",
                      done.stderr)
        self.assertEqual(done.stderr.count("k25comm: error:"), 1, done.stderr)  # once, from rank 0
        self.assertIn("serve C=1: 0/3 completed", done.stdout)
        self.assertIn("no latency figures", done.stdout)
        self.assertNotIn("TPOT p50 0.00", done.stdout)
        report = self.load("all-fail")
        for level in report["serve"]["levels"]:
            self.assertEqual(level["completed"], 0)
            self.assertEqual(level["errors"], {"http_5xx": level["requests"]})
            for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"):
                self.assertIsNone(level[key], key)
            self.assertIsNone(level["vllm_bench_serve"]["median_tpot_ms"])
        notes = report["run"]["notes"]
        self.assertTrue(any(n.startswith("serve C=1: none of 3 requests completed (http_5xx 3") for n in notes), notes)
        with open(os.path.join(self.out("all-fail"), "report.md")) as f:
            self.assertIn("serve C=2: none of 3 requests completed", f.read())
        with open(os.path.join(self.out("all-fail"), "journal.jsonl")) as f:
            self.assertEqual(sum('"serve_level"' in line for line in f), 2)
        self.assertTrue(os.path.isfile(os.path.join(self.out("all-fail"), "serve.csv")))

    def test_partial_failures_are_noted_and_the_run_passes(self):
        done = run_k25comm(self.out("partial"), self.server.url + "/fault=http500/fault_every=3", "--concurrency",
                           "2", "--requests", "9", "--max-tokens", "4")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        report = self.load("partial")
        level = report["serve"]["levels"][0]
        self.assertGreater(level["completed"], 0)
        self.assertGreater(level["failed"], 0)
        note = f"serve C=2: {level['failed']} of 9 requests failed (http_5xx {level['failed']} (HTTP 500: injected " \
               f"server failure)): its figures are over the {level['completed']} that completed"
        self.assertIn(note, report["run"]["notes"])
        with open(os.path.join(self.out("partial"), "report.md")) as f:
            md = f.read()
        self.assertIn(note, md)
        # A run that passed with --no-plots (run_k25comm's): no plot made, none linked.
        self.assertEqual([f for f in os.listdir(self.out("partial")) if f.endswith(".png")], [])
        self.assertNotIn(".png)", md)
        # Issue 31 item 4: the headline sentence of the level carries the count.
        tag = f"[{level['failed']} of 9 requests failed; served model fake-model, not smoke]"
        self.assertTrue(report["headline"][0].endswith(tag), report["headline"])
        self.assertIn(f"# headline: {report['headline'][0]}\n", done.stdout)

    def test_vllm_bench_serve_metrics_input_tokens_and_csv(self):
        done = run_k25comm(self.out("metrics"), self.server.url, "--concurrency", "1,2", "--requests", "4",
                           "--max-tokens", "8", "--percentiles", "50,90,99")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        report = self.load("metrics")
        self.assertEqual(report["serve"]["percentiles"], [50, 90, 99])
        for level in report["serve"]["levels"]:
            vllm = level["vllm_bench_serve"]
            self.assertEqual(vllm["completed"], 4)
            self.assertEqual(vllm["total_input_tokens"], 4 * 10)  # the fake server's usage.prompt_tokens
            self.assertEqual(level["input_tokens"], 40)
            self.assertEqual(vllm["total_output_tokens"], 4 * 8)
            self.assertAlmostEqual(vllm["output_throughput"], 32 / vllm["duration"], delta=1e-6)
            self.assertAlmostEqual(vllm["total_token_throughput"], 72 / vllm["duration"], delta=1e-6)
            # vllm bench serve's names for the level's own figures, from the same samples
            self.assertEqual(vllm["median_tpot_ms"], level["tpot_ms"]["p50"])
            self.assertEqual(vllm["mean_tpot_ms"], level["tpot_ms"]["mean"])
            self.assertEqual(vllm["p99_ttft_ms"], level["ttft_ms"]["p99"])
            assert_one_timeline(self, level, 8, 8)
            for name in ("ttft", "tpot", "itl", "e2el"):
                for stat in ("mean", "median", "std", "p50", "p90", "p99"):
                    self.assertIsNotNone(vllm[f"{stat}_{name}_ms"], f"{stat}_{name}_ms")
        self.assertIn("TPOT mean", done.stdout)
        self.assertIn("median", done.stdout)
        self.assertIn("total", done.stdout)
        with open(os.path.join(self.out("metrics"), "serve.csv")) as f:
            header = f.readline().strip().split(",")
        self.assertEqual(header[:4], ["concurrency", "requests", "completed", "failed"])
        self.assertIn("vllm_bench_serve.median_tpot_ms", header)
        self.assertIn("tpot_ms.p50", header)
        with open(os.path.join(self.out("metrics"), "report.md")) as f:
            md = f.read()
        self.assertIn("| Median TPOT (ms) |", md)
        self.assertIn("| P90 TPOT (ms) |", md)
        self.assertIn("| Total token throughput, whole level (tok/s) |", md)

    def test_serve_alone_without_an_endpoint_is_bad_usage_before_anything_runs(self):
        out = self.out("no-endpoint")
        done = run_k25comm(out, None)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("--phases serve: the serve phase is the only one asked and no endpoint is configured",
                      done.stderr)
        self.assertEqual(done.stderr.count("k25comm: error:"), 1, done.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "journal.jsonl")))  # nothing started

    def test_an_endpoint_without_the_serve_phase_is_noted_as_unused(self):
        done = run_k25comm(self.out("endpoint-unused"), self.server.url, "--tokens", "1", "--iters", "3",
                           phases="allreduce")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        note = f"the endpoint {self.server.url} is not used: --phases allreduce has no serve"
        self.assertIn("# note: " + note, done.stdout)
        report = self.load("endpoint-unused")
        self.assertTrue(any(n.startswith(note) for n in report["run"]["notes"]), report["run"]["notes"])
        self.assertEqual(report["serve"]["levels"], [])

    def test_serve_only_has_a_headline_and_no_comm_notes(self):
        # Issue 21 item 9: no "only eager mode was measured" note where nothing was measured in any mode; a
        # headline in report.md; no attribution table of C | T | TPOT alone.
        done = run_k25comm(self.out("serve-only"), self.server.url, "--concurrency", "1,2", "--requests", "4",
                           "--max-tokens", "8", "--modes", "eager,graph")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("graph mode needs the nccl transport", done.stdout)
        report = self.load("serve-only")
        self.assertEqual(report["attribution"], [])
        self.assertEqual(len(report["headline"]), 2, report["headline"])
        self.assertRegex(report["headline"][0], r"^C=1: TPOT p50 \S+ ms, TTFT p50 \S+ ms, \S+ output tok/s "
                                                r"\(serve only: no communication measured\) "
                                                r"\[served model fake-model, not smoke\]$")
        self.assertIn("# headline: C=2: TPOT p50", done.stdout)
        with open(os.path.join(self.out("serve-only"), "report.md")) as f:
            md = f.read()
        self.assertIn("## Headline\n\n- C=1: TPOT p50", md)
        self.assertIn("this report has serve results but no communication results", md)
        self.assertNotIn("| C | T | TPOT p50 ms |", md)

    def test_tpot_per_chunk_is_labelled_everywhere_and_not_attributed(self):
        # Issue 21 item 1: a server without usage whose streams end by "stop" (as @dwmkerr/mock-llm's do).
        done = run_k25comm(self.out("per-chunk"), self.server.url + "/usage=0/finish_reason=stop/tokens_per_chunk=4",
                           "--concurrency", "1", "--requests", "4", "--max-tokens", "16", "--tokens", "1",
                           "--iters", "3", phases="allreduce,serve")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("TPOT per CHUNK (no token counts, see notes) mean", done.stdout)
        report = self.load("per-chunk")
        level = report["serve"]["levels"][0]
        self.assertEqual((level["tpot_per"], level["chunk_counted"], level["output_tokens"]), ("chunk", 4, 16))
        self.assertEqual(report["attribution"], [])
        self.assertTrue(any(n.startswith("token counts: at C=1 the server sent no usage.completion_tokens")
                            for n in report["run"]["notes"]), report["run"]["notes"])
        chunk_lines = [h for h in report["headline"] if h.startswith("no attribution: TPOT is time per chunk")]
        self.assertEqual(len(chunk_lines), 1, report["headline"])
        self.assertIn("[counted in chunks, not tokens", chunk_lines[0])
        self.assertIn("# headline: no attribution: TPOT is time per chunk", done.stdout)

    def test_output_counted_in_chunks_says_chunks_everywhere(self):
        # Issue 31 item 1: 4 tokens a chunk, no usage, "stop": TPOT and throughput are per chunk, and say so in
        # the headline, report.json, serve.csv, report.md and the console.
        done, report, level, csv_row, md = self.one_level_run(
            "chunk-rate", "/usage=0/finish_reason=stop/tokens_per_chunk=4", "--max-tokens", "16")
        self.assertEqual((level["output_unit"], level["tpot_per"], level["output_tokens"]), ("chunk", "chunk", 16))
        self.assertIsNone(level["tokens_per_chunk_p50"])
        self.assertRegex(report["headline"][0],
                         r"^C=1: TPOT p50 \S+ ms per chunk, TTFT p50 \S+ ms, "
                         + re.escape(f"{level['output_tokens_per_s']:.1f}") + r" output chunks/s \(serve only: no "
                         r"communication measured\) \[counted in chunks, not tokens; served model fake-model, not "
                         r"smoke\]$")
        self.assertEqual(csv_row["output_unit"], "chunk")
        self.assertIn(" chunks/s |", md)
        self.assertIn("| Total generated tokens | 16 chunks |", md)
        self.assertRegex(done.stdout, r"\| output \S+ chunks/s over the whole level \(counted in chunks, not tokens\)")

    def test_several_tokens_a_chunk_give_the_interval_per_token_beside_tpot(self):
        # Issue 31 item 2: 4 tokens a chunk with usage, a chunk every 20 ms (5 ms a token), 32 tokens in 8 chunks:
        # TPOT = (E2EL - TTFT) / 31, the interval per token (E2EL - TTFT) / 28, tokens a chunk 4.
        done, report, level, csv_row, md = self.one_level_run(
            "four-a-chunk", "/itl_ms=20/tokens_per_chunk=4", "--max-tokens", "32")
        self.assertEqual((level["output_unit"], level["output_tokens"], level["tokens_per_chunk_p50"]),
                         ("token", 128, 4.0))
        interval = level["token_interval_ms"]["p50"]
        self.assertAlmostEqual(level["tpot_ms"]["p50"], interval * 28 / 31, delta=1e-9)
        # 8 chunks of 4 tokens: a request's 7 gaps carry the 28 tokens after the first chunk, 4 a gap
        self.assertAlmostEqual(level["token_interval_ms"]["mean"] * 4, level["itl_ms"]["mean"], delta=1e-9)
        assert_one_timeline(self, level, 32, 8)
        self.assertRegex(report["headline"][0],
                         r"^C=1: TPOT p50 \S+ ms \(\S+ ms a token after the first chunk, 4\.0 tokens a chunk\), "
                         r"TTFT p50 \S+ ms, \S+ output tok/s \(serve only")
        self.assertTrue(any(n.startswith("token counts: at C=1 a chunk carries 4.0 tokens (p50): ITL p50 ")
                            for n in report["run"]["notes"]), report["run"]["notes"])
        self.assertEqual(float(csv_row["tokens_per_chunk_p50"]), 4.0)
        self.assertAlmostEqual(float(csv_row["token_interval_ms.p50"]), interval, delta=1e-9)
        self.assertIn("| per token after the 1st chunk p50 | tokens a chunk p50 |", md)
        self.assertIn(f" ms (per token after the first chunk p50 {interval:.2f} ms, 4.0 tokens a chunk) | ITL",
                      done.stdout)

    def test_an_unreachable_endpoint_leaves_no_journal(self):
        # Issue 31 item 7: the endpoint is checked before anything is written.
        out = self.out("unreachable")
        with refused_port() as port:
            done = run_k25comm(out, f"http://127.0.0.1:{port}")
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn(f"http://127.0.0.1:{port}/v1/models", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "journal.jsonl")), os.listdir(out))

    def test_http_404_fails_the_run_naming_the_url_and_the_other_api(self):
        done = run_k25comm(self.out("not-found"), self.server.url + "/apis=chat", "--concurrency", "1",
                           "--requests", "2", "--max-tokens", "4", "--api", "completions")
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn(f"HTTP 404: no route /v1/completions from POST {self.server.url}/apis=chat/v1/completions: "
                      "the server has no such route; if it serves the other API, try --api chat", done.stderr)

    def test_a_long_level_prints_progress_with_an_eta(self):
        # 4 requests one after another, each about 20 + 40 x 5 ms: progress lines every 0.1 s of the level.
        done = run_k25comm(self.out("progress"), self.server.url, "--concurrency", "1", "--requests", "4",
                           "--max-tokens", "40", "--progress-interval", "0.1")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        lines = [line for line in done.stdout.splitlines() if line.startswith("# serve C=1: ") and "done" in line]
        self.assertGreaterEqual(len(lines), 2, done.stdout)
        self.assertRegex(lines[0], r"^# serve C=1: [0-4]/4 done, \d+ s elapsed, ETA (unknown|\d+ s)$")
        self.assertTrue(any("ETA" in line and "unknown" not in line for line in lines), lines)


def run_capture(out_dir, *inputs, timeout=120):
    """k25comm capture over `inputs` with the smoke model, no plots: its capture.json."""
    command = [os.environ["K25COMM"], "capture", *inputs, "--model", os.environ["K25_SMOKE_CONFIG"], "--no-plots",
               "--out", out_dir]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}: {done.stdout}{done.stderr}")
    with open(os.path.join(out_dir, "capture.json")) as f:
        return json.load(f)


class ProfileTestCase(unittest.TestCase):
    """A folder of its own per test, fake servers stopped at the end, and what the profile tests share."""

    def setUp(self):
        self.work = os.path.join(os.getcwd(), "profile-tests", self.id().rsplit(".", 1)[-1])
        subprocess.run(["rm", "-rf", self.work], check=True)
        self.traces = os.path.join(self.work, "traces")
        os.makedirs(self.traces)
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            server.stop()

    def server(self, *args):
        server = FakeServer("--itl-ms", "5", "--ttft-ms", "20", *args)
        self.servers.append(server)
        return server

    def run_profiled(self, server, *flags):
        done = run_k25comm(os.path.join(self.work, "out"), server.url, "--concurrency", "1,2", "--requests", "4",
                           "--max-tokens", "4", *flags)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(os.path.join(self.work, "out", "report.json")) as f:
            return done, json.load(f)

    def assert_levels_untouched(self, report, server):
        for level in report["serve"]["levels"]:
            self.assertEqual((level["requests"], level["completed"], level["failed"]), (4, 4, 0), level)

    def assert_level_is_its_folders_capture(self, level, name):
        """The level's figures equal `k25comm capture` of its own folder OUT/live-profile/cC (its decode group)."""
        folder = os.path.join(self.work, "out", "live-profile", f"c{level['concurrency']}")
        self.assertEqual(level["capture_command"], f"k25comm capture {folder} --model {os.environ['K25_SMOKE_CONFIG']}")
        self.assertEqual(sorted(os.path.realpath(os.path.join(folder, f)) for f in os.listdir(folder)),
                         sorted(os.path.realpath(f) for f in level["files"]))
        capture = run_capture(os.path.join(self.work, "capture-" + name), folder)
        [group] = [g for g in capture["trace"]["groups"]
                   if g["rank"] is None and g["batch"] == level["batch"] and g["phase"] in level["step"]]
        self.assertEqual((level["steps"], level["wall_us"], level["gpu_busy_us"], level["comm_merged_us"],
                          level["comm_exposed_us"]),
                         (group["steps"], group["wall_us"]["p50"], group["busy_us"]["p50"],
                          group["comm_merged_us"]["p50"], group["comm_exposed_us"]["p50"]))
        self.assertEqual([(k["kind"], k["ops_per_step"], k["merged_us"]) for k in level["kinds"]],
                         [(k["kind"], k["ops_per_step"], k["merged_us"]["p50"]) for k in group["kinds"]])
        self.assertEqual([(c["class"], c["merged_us"]) for c in level["classes"]],
                         [(c["class"], c["merged_us"]["p50"]) for c in group["classes"]])
        return capture

    def assert_plot_report_reads_written_fields(self, report):
        """tools/plot-report names only fields the current writer writes: `report` (a serve run, its live profile),
        a replay's report written again by `k25comm report` (results, attribution, fits) and a one-rank replay of
        two AllReduce backends, one of which cannot run the largest size (backend_results, not_run)."""
        rewritten = os.path.join(self.work, "rewritten")
        done = subprocess.run([os.environ["K25COMM"], "report", os.path.join(HERE, "..", "analysis", "data",
                                                                         "pcie-report.json"),
                               "--no-plots", "--out", rewritten], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        backends = os.path.join(self.work, "backends")
        done = subprocess.run([os.environ["K25COMM"], "--sizes", os.environ["K25_SMOKE_CONFIG"],
                               "--phases", "allreduce", "--allreduce-backends", "mpi,oneshot",
                               "--peer-max-bytes", "4096", "--no-plots", "--out", backends],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        check = subprocess.run([sys.executable, os.path.join(HERE, "..", "common", "document_fields.py"),
                                os.path.join(HERE, "..", "..", "tools", "plot-report"),
                                "--json", report, os.path.join(rewritten, "report.json"),
                                os.path.join(backends, "report.json")],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def run_three_levels(self, server, *flags, timeout=240):
        done = run_k25comm(os.path.join(self.work, "out"), server.url, "--concurrency", "1,4,16", "--requests", "4",
                           "--max-tokens", "4", "--profile", "--profile-dir", self.traces, *flags, timeout=timeout)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(os.path.join(self.work, "out", "report.json")) as f:
            report = json.load(f)
        self.assertEqual([w["status"] for w in report["serve"]["profile"]["windows"]], ["recorded"] * 3)
        self.assertEqual([level["concurrency"] for level in report["live_profile"]["levels"]], [1, 4, 16])
        return done, report


class ProfileTests(ProfileTestCase):
    """--profile: the engine's profiler around a window of each level (fake vLLM, SGLang and refusing servers):
    refusals, the window's requests counted apart, one level's live step, what is said at the start."""

    def test_vllm_404_goes_on_and_says_the_restart_option(self):
        server = self.server("--profiler", "vllm")  # started without a profile folder: the routes answer 404
        done, report = self.run_profiled(server, "--profile", "--profile-dir", self.traces)
        line = ("profile: the server refused /start_profile (HTTP 404: {\"detail\": \"Not Found\"}); the serve phase "
                "went on without profiling. vLLM 0.13.1 serves its profiler routes only when started with a profiler: "
                "restart it with --profiler-config '{\"profiler\": \"torch\", \"torch_profiler_dir\": "
                f"\"{self.traces}\"}}', and give k25comm --profile-dir {self.traces}. The replay needs no restart.")
        self.assertIn("# " + line, done.stdout)
        self.assertEqual(report["serve"]["profile"]["refusal"], line)
        self.assertIn(line, report["run"]["notes"])
        self.assertEqual(report["serve"]["profile"]["engine"], "vllm")
        self.assertEqual([w["status"] for w in report["serve"]["profile"]["windows"]], ["refused"])
        self.assertEqual(report["live_profile"]["levels"], [])
        self.assert_levels_untouched(report, server)
        stats = server.stats()
        self.assertEqual([c["route"] for c in stats["profile_calls"]], ["/start_profile"])  # never tried again
        self.assertEqual(len(stats["requests"]), 2 * (2 + 4))  # warm-up and counted requests, no window
        with open(os.path.join(self.work, "out", "report.md")) as f:
            self.assertIn(line, f.read())

    def test_a_refusing_engine_is_one_line_and_the_phase_goes_on(self):
        server = self.server("--profiler", "refuse")
        done, report = self.run_profiled(server, "--profile", "1", "--profile-dir", self.traces, "--engine", "sglang")
        self.assertIn("# profile: the server refused /start_profile (HTTP 400: {\"error\": {\"message\": "
                      "\"Profiling is not enabled\"}}); the serve phase went on without profiling. SGLang needs no "
                      "restart option", done.stdout)
        self.assertIn("The replay needs no restart.", report["serve"]["profile"]["refusal"])
        self.assert_levels_untouched(report, server)

    def test_sglang_windows_are_counted_apart_and_read_as_capture_reads_them(self):
        # Each rank's file in two writes 1.5 s apart: the reader sees a cut gzip stream first and waits on.
        server = self.server("--profiler", "sglang", "--trace-delay-s", "0.3", "--trace-piece-s", "1.5")
        done, report = self.run_profiled(server, "--profile", "2", "--profile-dir", self.traces)
        profile = report["serve"]["profile"]
        self.assertEqual((profile["engine"], profile["engine_version"], profile["steps"]), ("sglang", "0.5.2", 20))
        [window] = profile["windows"]
        self.assertEqual((window["concurrency"], window["status"], window["requests"], window["completed"]),
                         (2, "recorded", 2, 2))
        self.assertIsNotNone(window["tpot_ms"])
        self.assert_levels_untouched(report, server)
        stats = server.stats()
        self.assertEqual(sum(r["profiling"] for r in stats["requests"]), 2)  # the window's, and only they
        self.assertEqual(len(stats["requests"]), 2 * (2 + 4) + 2)
        start = json.loads(stats["profile_calls"][0]["body"])
        self.assertEqual((start["output_dir"], start["num_steps"], start["activities"], start["merge_profiles"]),
                         (self.traces, 20, ["CPU", "GPU"], False))
        [level] = report["live_profile"]["levels"]
        self.assertEqual((level["concurrency"], level["status"]), (2, "read"), level)
        self.assertEqual(len(level["files"]), 2)
        folder = os.path.join(self.work, "out", "live-profile", "c2")
        self.assertEqual(level["capture_command"], f"k25comm capture {folder} --model {os.environ['K25_SMOKE_CONFIG']}")
        self.assertIn("# live step C=2: decode step at batch", done.stdout)
        with open(os.path.join(self.work, "out", "journal.jsonl")) as f:
            types = [json.loads(line)["type"] for line in f]
        self.assertEqual((types.count("profile_window"), types.count("live_step")), (1, 1))
        # The same files through `k25comm capture`: the level's figures are its decode group's.
        capture = run_capture(os.path.join(self.work, "capture"), folder)
        [group] = [g for g in capture["trace"]["groups"] if g["rank"] is None and g["batch"] == level["batch"]]
        self.assertEqual(level["steps"], group["steps"])
        for key, theirs in (("wall_us", "wall_us"), ("gpu_busy_us", "busy_us"), ("comm_merged_us", "comm_merged_us"),
                            ("comm_exposed_us", "comm_exposed_us")):
            self.assertEqual(level[key], group[theirs]["p50"], key)
        self.assertEqual((level["comm_share"], level["exposed_share"]), (group["comm_share"], group["exposed_share"]))
        self.assertEqual([(k["kind"], k["merged_us"]) for k in level["kinds"]],
                         [(k["kind"], k["merged_us"]["p50"]) for k in group["kinds"]])
        self.assertEqual([(c["class"], c["merged_us"]) for c in level["classes"]],
                         [(c["class"], c["merged_us"]["p50"]) for c in group["classes"]])
        # By hand (make_trace_fixtures.sglang_c10d_tp2): 8 AllReduces of 2 us and one AllGather of 3 us a step.
        self.assertEqual([(k["kind"], k["ops_per_step"]) for k in level["kinds"]], [("AllReduce", 8), ("AllGather", 1)])
        # GPU busy: 8 GEMMs and 8 AllReduces of 2 us that never overlap, and the AllGather: 35 us.
        self.assertEqual((level["comm_merged_us"], level["gpu_busy_us"]), (19.0, 35.0))
        with open(os.path.join(self.work, "out", "report.md")) as f:
            self.assertIn("## Live profile (the engine's own profiler)", f.read())
        self.assertTrue(any(h.startswith("live profile at C=2: communication ") for h in report["headline"]),
                        report["headline"])

    def test_files_that_never_complete_are_a_note_never_a_failed_run(self):
        # The second half of each file would come 60 s later: the wait (2 s) ends first.
        server = self.server("--profiler", "sglang", "--trace-delay-s", "0", "--trace-piece-s", "60")
        done, report = self.run_profiled(server, "--profile", "1", "--profile-dir", self.traces, "--profile-wait", "2")
        [level] = report["live_profile"]["levels"]
        self.assertEqual(level["status"], "failed", level)
        self.assertRegex(level["note"], r"^the trace files were not complete after 2 s \(serve.profile_wait_s\): "
                                        r".*TP-0\.trace\.json\.gz: its gzip stream ends early")
        self.assertIn(f"profile C=1: {level['note']}", report["run"]["notes"])
        self.assertIn("# live step C=1: failed: the trace files were not complete", done.stdout)
        self.assert_levels_untouched(report, server)

    def test_an_unreadable_folder_gives_the_capture_command_and_report_joins_it_later(self):
        server = self.server("--profiler", "vllm", "--profile-dir", self.traces, "--trace-delay-s", "0",
                             "--trace-piece-s", "0", "--stop-refused")
        missing = os.path.join(self.work, "not-mounted")
        done, report = self.run_profiled(server, "--profile", "1", "--profile-dir", missing)
        stop_note = ("profile C=1: /stop_profile was refused (HTTP 500: {\"error\": {\"message\": \"Profiling is not "
                     "in progress. Call /start_profile first.\"}}); the files the profiler wrote are read all the same")
        self.assertIn(stop_note, report["run"]["notes"])
        self.assertEqual(report["serve"]["profile"]["windows"][0]["status"], "recorded")
        [level] = report["live_profile"]["levels"]
        self.assertEqual(level["status"], "unread")
        # Never a capture of the folder that is not here: DIR, the folder as the server's host sees it.
        command = f"k25comm capture DIR --model {os.environ['K25_SMOKE_CONFIG']}"
        self.assertEqual(level["capture_command"], command)
        self.assertIn(f"# live step C=1: unread: the profile folder {missing} does not exist on this host", done.stdout)
        self.assertIn(command, done.stdout)
        self.assertIn(f"# profile: the profile folder {missing} does not exist here", done.stdout)
        self.assert_levels_untouched(report, server)
        # The server's files, read later where they are, and joined to the run's report.
        deadline = time.monotonic() + 30
        while server.stats()["traces_written"] < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(server.stats()["traces_written"], 2)
        joined_dir = os.path.join(self.work, "joined")
        joined = subprocess.run([os.environ["K25COMM"], "report", os.path.join(self.work, "out", "report.json"),
                                 "--capture", f"1:{self.traces}", "--out", joined_dir, "--no-plots"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(joined.returncode, 0, joined.stdout + joined.stderr)
        with open(os.path.join(joined_dir, "report.json")) as f:
            [level] = json.load(f)["live_profile"]["levels"]
        self.assertEqual((level["status"], level["concurrency"]), ("read", 1), level)
        self.assertEqual((level["gpu_busy_us"], level["comm_merged_us"]), (35.0, 19.0))
        self.assertIn("live profile at C=1: communication", joined.stdout)
        wrong = subprocess.run([os.environ["K25COMM"], "report", os.path.join(self.work, "out", "report.json"),
                                "--capture", f"8:{self.traces}", "--out", joined_dir, "--no-plots"],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(wrong.returncode, 2, wrong.stdout + wrong.stderr)
        self.assertIn(f"--capture 8:{self.traces}: the report has no profiled window at concurrency 8", wrong.stderr)

    def test_mistakes_are_said_at_the_start(self):
        server = self.server("--profiler", "sglang", "--profile-dir", self.traces)
        out = os.path.join(self.work, "out")
        # A profiled level that is not run: refused before any request.
        done = run_k25comm(out, server.url, "--concurrency", "1,4", "--profile", "8", "--profile-dir", self.traces)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("serve.profile (--profile) names concurrency 8, which this run does not run "
                      "(serve.concurrency / --concurrency: 1, 4): profile levels that run, or add 8 to --concurrency",
                      done.stderr)
        # A profile folder that is a file.
        not_a_folder = os.path.join(self.work, "file")
        with open(not_a_folder, "w") as f:
            f.write("x")
        done = run_k25comm(out, server.url, "--concurrency", "1", "--profile", "--profile-dir", not_a_folder)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn(f"--profile-dir {not_a_folder}: not a folder", done.stderr)
        self.assertEqual(server.stats()["requests"], [])
        # --engine vllm against a server that says it is SGLang: said with what it answered, first.
        done, report = self.run_profiled(server, "--profile", "1", "--profile-dir", self.traces, "--engine", "vllm",
                                         "--profile-settle", "1")
        line = ("profile: the server answers GET /get_server_info as SGLang 0.5.2, not vllm "
                "(serve.engine / --engine)")
        self.assertIn(line, report["run"]["notes"])
        lines = done.stdout.splitlines()
        self.assertLess(lines.index("# " + line), min(i for i, l in enumerate(lines) if l.startswith("# serve C=1: ")))
        self.assertEqual(report["serve"]["profile"]["engine_conflict"], line[len("profile: "):])
        # A folder that is not here yet is said at the start; SGLang makes its output_dir, and then it is read.
        missing = os.path.join(self.work, "not-yet")
        done, report = self.run_profiled(server, "--profile", "1", "--profile-dir", missing, "--engine", "sglang")
        self.assertIn(f"# profile: the profile folder {missing} does not exist here: give it as this host sees it "
                      "(the same host, or a shared file system), unless the server makes it", done.stdout)
        [level] = report["live_profile"]["levels"]
        self.assertEqual((level["status"], level["comm_merged_us"]), ("read", 19.0), level)


class LiveProfileTests(ProfileTestCase):
    """--profile over several levels: each window reads its own files (late, in pieces, reversed, one landing in
    the next window, one window's never coming), the wait ends when the files do, the capture's refusals, and
    links that fail."""

    def test_sglang_three_levels_each_read_its_own_window(self):
        # The fixture's 2 ranks per window (its events shifted into the window that wrote them), each file late
        # and in two writes, rank 1's first; window 1's first file (rank 1's) held back until window 2 starts,
        # so it lands while window 2 runs; window 3 writes nothing.
        server = self.server("--profiler", "sglang", "--trace-delay-s", "0.3", "--trace-piece-s", "0.3",
                             "--trace-order", "reverse", "--trace-late-stop", "1", "--trace-skip-stop", "3")
        # Settle 5 s: a loaded machine may pause the server between two files of one window for a second or more.
        done, report = self.run_three_levels(server, "--profile-settle", "5", "--profile-wait", "20")
        one, four, sixteen = report["live_profile"]["levels"]
        # C=1 was read with rank 0 (1 of 2) when its wait settled, and again with rank 1 when that came.
        self.assertEqual((one["status"], len(one["files"])), ("read", 2), one)
        late = os.path.join(self.traces, "stop1-sglang-1767225601-TP-1.trace.json.gz")
        self.assertEqual(one["note"], f"{late} came after this window's wait ended and was read during C=4's")
        self.assertEqual((four["status"], four["note"], len(four["files"])), ("read", "", 2), four)
        self.assertTrue(all(os.path.basename(f).startswith("stop2-") for f in four["files"]), four["files"])
        self.assertEqual(sixteen["status"], "failed", sixteen)
        self.assertEqual(sixteen["note"],
                         "no trace file appeared in the profile folder within 20 s (serve.profile_wait_s)")
        for level in (one, four):
            capture = self.assert_level_is_its_folders_capture(level, f"c{level['concurrency']}")
            self.assertEqual(len(capture["trace"]["ranks"]), 2)
            # By hand (make_trace_fixtures.sglang_c10d_tp2): 8 AllReduces of 2 us and an AllGather of 3 us a step.
            self.assertEqual((level["comm_merged_us"], level["gpu_busy_us"]), (19.0, 35.0))
        notes = [n for n in report["run"]["notes"] if n.startswith("profile C=")]
        self.assertEqual(notes, [f"profile C=1: {one['note']}", f"profile C=16: {sixteen['note']}"])
        with open(os.path.join(self.work, "out", "journal.jsonl")) as f:
            steps = [json.loads(line)["level"]["concurrency"] for line in f if '"type":"live_step"' in line]
        self.assertEqual(steps, [1, 4, 1, 16])  # C=1 journaled when read, again when its late file came in C=4's
        self.assertIn("# live step C=16: failed: no trace file appeared", done.stdout)
        self.assert_plot_report_reads_written_fields(os.path.join(self.work, "out", "report.json"))

    def test_vllm_frontend_trace_first_the_workers_after_the_settle_time(self):
        # Issue 51: vLLM's frontend writes its host-only trace at the stop, the workers' files come 4 s later (past
        # the 1.5 s settle time), rank 1's first, each in two writes: the host-only file never settles a wait, so
        # every level reads its own two ranks, none late and none failed.
        server = self.server("--profiler", "vllm", "--profile-dir", self.traces, "--trace-frontend-s", "4",
                             "--trace-order", "reverse")
        done, report = self.run_three_levels(server, "--profile-settle", "1.5", "--profile-wait", "60")
        for level, stop in zip(report["live_profile"]["levels"], (1, 2, 3)):
            self.assertEqual((level["status"], level["note"], len(level["files"])), ("read", "", 2), level)
            names = [os.path.basename(f) for f in level["files"]]
            self.assertTrue(all(n.startswith(f"stop{stop}-") and "frontend" not in n for n in names), names)
            self.assertEqual((level["comm_merged_us"], level["gpu_busy_us"]), (19.0, 35.0))
        self.assertEqual(sorted(f for f in os.listdir(self.traces) if "frontend" in f),
                         [f"stop{n}-frontend.async_llm.pt.trace.json" for n in (1, 2, 3)])

    def test_vllm_three_levels_of_a_real_rank_0_of_8(self):
        # The real trace (TraceLens' B200 rank 0 of TP 8, ../shared/traces), its timestamps shifted into the window
        # that wrote it: each window has 1 of 8 ranks' files, so each wait ends the settle time after it.
        real = os.path.join(os.environ.get("K25_REAL_TRACES", ""), "vllm-b200-tp8-rank0-eager.json.gz")
        if not os.path.isfile(real):
            self.skipTest(f"{real} is absent (../shared/traces beside the checkout)")
        server = self.server("--profiler", "vllm", "--profile-dir", self.traces, "--trace-files", real)
        done, report = self.run_three_levels(server, "--profile-settle", "1", "--profile-wait", "120")
        for level in report["live_profile"]["levels"]:
            self.assertEqual(level["status"], "read", level)
            self.assertEqual(level["note"],
                             "read 1 of 8 ranks' files (no more came within 1 s (serve.profile_settle_s) of the last)")
            [path] = level["files"]
            self.assertTrue(os.path.basename(path).startswith(
                f"stop{[1, 4, 16].index(level['concurrency']) + 1}-"), path)
            self.assert_level_is_its_folders_capture(level, f"c{level['concurrency']}")
            # ../shared/traces/README.md: merged communication 2,141.5 us (to 0.1 us) in the file's one step.
            self.assertAlmostEqual(level["comm_merged_us"], 2141.5, delta=0.05)
        self.assertIn("profile C=16: read 1 of 8 ranks' files", " ".join(report["run"]["notes"]))

    def test_no_kernel_class_table_is_the_captures_refusal(self):
        # A k25comm outside the source tree, run where there is no data/: the shipped table is nowhere.
        bin_dir = os.path.join(self.work, "bin")
        os.makedirs(bin_dir)
        k25comm = os.path.join(bin_dir, "k25comm")
        subprocess.run(["cp", os.environ["K25COMM"], k25comm], check=True)
        server = self.server("--profiler", "sglang", "--trace-delay-s", "0", "--trace-piece-s", "0")
        done = run_k25comm(os.path.join(self.work, "out"), server.url, "--concurrency", "1", "--requests", "2",
                           "--max-tokens", "4", "--profile", "--profile-dir", self.traces, "--profile-settle", "1",
                           k25comm=k25comm)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(os.path.join(self.work, "out", "report.json")) as f:
            [level] = json.load(f)["live_profile"]["levels"]
        refusal = ("the kernel-class table data/kernel-classes.yaml was not found (in the working directory, beside "
                   "k25comm or under its install prefix): give --kernel-classes FILE")
        # Refused whatever the files: the level fails at once, not after serve.profile_wait_s (120 s) of waiting.
        self.assertEqual((level["status"], level["note"]),
                         ("failed", "k25comm capture refuses every trace under this run's rules, the window's files "
                                    "were not waited for: " + refusal), level)
        # The window's two files, whole (the run did not wait for them), refused alike by `k25comm capture`.
        wait_for(lambda: server.stats()["traces_written"] >= 2, 30, "the server's two trace files")
        capture = subprocess.run([k25comm, "capture", self.traces, "--no-plots", "--out",
                                  os.path.join(self.work, "capture")], capture_output=True, text=True, timeout=120)
        self.assertEqual(capture.returncode, 2, capture.stdout + capture.stderr)
        self.assertIn(refusal, capture.stderr)
        # --kernel-classes gives the live profile the table, as it gives the capture. A folder of its own: the
        # first run did not wait for its window's files, which the server may still be writing.
        traces = os.path.join(self.work, "traces-with-table")
        os.makedirs(traces)
        done = run_k25comm(os.path.join(self.work, "out"), server.url, "--concurrency", "1", "--requests", "2",
                           "--max-tokens", "4", "--profile", "--profile-dir", traces, "--profile-settle", "1",
                           "--kernel-classes", os.path.join(HERE, "..", "..", "data", "kernel-classes.yaml"),
                           k25comm=k25comm)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(os.path.join(self.work, "out", "report.json")) as f:
            [level] = json.load(f)["live_profile"]["levels"]
        self.assertEqual((level["status"], level["comm_merged_us"]), ("read", 19.0), level)

    def test_links_that_fail_still_write_the_report(self):
        # A file where the link folder OUT/live-profile would be: no link can be made there.
        os.makedirs(os.path.join(self.work, "out"))
        with open(os.path.join(self.work, "out", "live-profile"), "w") as f:
            f.write("not a folder")
        server = self.server("--profiler", "sglang", "--trace-delay-s", "0", "--trace-piece-s", "0")
        done, report = self.run_profiled(server, "--profile", "1", "--profile-dir", self.traces)
        [level] = report["live_profile"]["levels"]
        self.assertEqual(level["status"], "read", level)
        self.assertRegex(level["note"], r"^the files could not be linked under .*/out/live-profile/c1 \(.+\): "
                                        r"the capture command names them one by one$")
        self.assertEqual(level["capture_command"],
                         f"k25comm capture {' '.join(level['files'])} --model {os.environ['K25_SMOKE_CONFIG']}")
        self.assertEqual((level["comm_merged_us"], level["gpu_busy_us"]), (19.0, 35.0))
        self.assertTrue(os.path.isfile(os.path.join(self.work, "out", "report.md")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
