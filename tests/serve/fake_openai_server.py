#!/usr/bin/env python3
"""Fake OpenAI-compatible streaming server for the serve-phase tests (python3 standard library only).

Streams one token per chunk at a fixed schedule: the first content chunk `ttft_ms` after the request arrived,
then one every `itl_ms` (absolute deadlines, so lateness does not accumulate). Both /v1/completions and
/v1/chat/completions; GET /v1/models; GET /stats returns what the server really did per request (its own send
times: the truth the client is measured against; each taken just before the chunk's write, so that no client can
have read the chunk earlier); POST /reset clears it.

Options are server-wide defaults (--itl-ms, ...) and can be overridden per endpoint by leading path segments:
    http://127.0.0.1:PORT/itl_ms=20/fault=cut/v1/completions
Options: itl_ms, ttft_ms, usage (0/1: send the usage chunk when asked), tokens_per_chunk, role (chat role-only
first chunk sent at once), crlf (\r\n line ends), comments (": ping" lines), split (each event in two writes),
finish_reason (of the last chunk: "length" as vLLM ends a max_tokens request, "stop" as a mock that ignores
max_tokens), apis (which generation routes exist: both, chat or completions; the other answers 404), fault,
fault_every (fault only every Nth request; default 1 = all).
Faults: http400 (nested error body), http500 (flat error body), stream_error (error event after a 200, then
[DONE]), cut (connection closed mid-stream), nodone (clean end without [DONE]), bad_json, stall (headers and one
token, then silence), stall_headers (request read, never answered).
Profiler routes (--profiler): vllm (POST /start_profile and /stop_profile without a body, GET /version; both
routes answer 404 {"detail": "Not Found"} unless --profile-dir is given, as vLLM started without a profiler),
sglang (start takes a JSON body: output_dir, num_steps, activities, ...; GET /get_server_info), refuse (start
answers 400 "Profiling is not enabled"); none (default): 404. On a stop, the rank trace files of the capture
tests' Kineto writer (tests/capture: the smoke model's decode steps on 2 ranks) are written into the folder
late and in pieces: --trace-delay-s before the first byte, each file in two writes --trace-piece-s apart
(--trace-files: real traces instead), in rank order or reversed (--trace-order); --trace-late-stop N holds the
first file of stop N back until the next /start_profile (it lands while the next window runs), and
--trace-skip-stop N writes no file for stop N. Each file's timestamps are shifted (its baseTimeNanoseconds)
so that its events lie inside the window that wrote it, as a real profiler's do: from 10 ms after the start
arrived, and the stop is answered no earlier than the events' span after the start.
Requests that arrive while the profiler runs are marked "profiling" in /stats.
--require-key KEY: every route but /stats and /reset answers 401 unless the request carries "Authorization: Bearer
KEY" (the body names the token it got, as OpenAI's "Incorrect API key provided"); /stats counts both under "auth".
Prints "PORT <n>" on stdout once listening (--port 0 picks a free port).
"""
import argparse
import asyncio
import gzip
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULTS = {
    "itl_ms": 20.0, "ttft_ms": 100.0, "usage": 1, "tokens_per_chunk": 1, "role": 1, "crlf": 0,
    "comments": 0, "split": 0, "finish_reason": "length", "apis": "both", "fault": "", "fault_every": 1,
}
OPTION_HELP = {
    "itl_ms": "inter-token interval: one content chunk every ITL_MS milliseconds after the first",
    "ttft_ms": "time to first token: the first content chunk TTFT_MS milliseconds after the request arrived",
    "usage": "1: send a usage chunk (prompt_tokens 10, completion_tokens) when the request asks for it; 0: never",
    "tokens_per_chunk": "tokens carried by each content chunk",
    "role": "chat API: 1 sends a role-only first chunk at once (it carries no text), 0 leaves it out",
    "crlf": "1: end SSE lines with \\r\\n instead of \\n",
    "comments": "1: put an SSE comment line (': ping') before each event",
    "split": "1: send each event in two writes, a few bytes apart",
    "finish_reason": "finish_reason of the last chunk: length (max_tokens reached, as vLLM says) or stop",
    "apis": "generation routes served: both, chat or completions (the other one answers 404, as a chat-only mock)",
    "fault": "inject a fault into generation requests (see the list below); empty: none",
    "fault_every": "inject the fault only into every Nth generation request (1: all of them)",
}
FAULT_HELP = {
    "http400": "HTTP 400 with a nested error body {\"error\": {\"message\": ...}}",
    "http500": "HTTP 500 with a flat error body {\"object\": \"error\", \"message\": ...}",
    "stream_error": "200, two tokens, then an error event, then [DONE]",
    "cut": "200, two tokens, then the connection is closed mid-body",
    "nodone": "a complete stream that ends without data: [DONE]",
    "bad_json": "200, two tokens, then a data event that is not valid JSON, then silence",
    "stall": "200 and one token, then silence (idle timeout on the client)",
    "stall_headers": "the request is read and never answered",
}


class State:
    def __init__(self, defaults):
        self.defaults = defaults
        self.records = []  # one per finished generation request
        self.counter = 0
        self.connections = 0  # TCP connections accepted since start or /reset
        self.profiler = None  # set by main(): flavour, folder, delays
        self.profiling = False
        self.profile_calls = []  # one per profiler call: route, body, status
        self.stops = 0
        self.traces_written = 0  # trace files written whole
        self.writers = []  # trace-writing tasks, kept alive until they end
        self.required_key = ""  # --require-key: the bearer token every route but /stats and /reset needs
        self.auth = {"accepted": 0, "rejected": 0}  # requests that carried it, and those that did not
        self.sources = []  # the trace files a stop writes: TraceSource, read once
        self.started_at = None  # wall clock (s) of the running window's /start_profile
        self.held = []  # (folder, stop number, name, bytes): files held back until the next start


def parse_options(path, defaults):
    options = dict(defaults)
    segments = [s for s in path.split("?")[0].split("/") if s]
    rest = []
    for i, segment in enumerate(segments):
        if "=" in segment and segment.split("=", 1)[0] in DEFAULTS:
            key, value = segment.split("=", 1)
            kind = type(DEFAULTS[key])
            options[key] = kind(value) if kind is not str else value
        else:
            rest = segments[i:]
            break
    return options, "/" + "/".join(rest)


async def read_request(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    return method, path, headers, body


def plain_response(status, reason, payload, keep_alive=True):
    data = json.dumps(payload).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n")
    return head.encode() + data


def chunked(data: bytes) -> bytes:
    return b"%x\r\n" % len(data) + data + b"\r\n"


async def sleep_until(loop, deadline):
    delay = deadline - loop.time()
    if delay > 0:
        await asyncio.sleep(delay)


async def stream(state, writer, options, api, request, record):
    loop = asyncio.get_running_loop()
    t0 = record["_t0"]
    nl = "\r\n" if options["crlf"] else "\n"
    max_tokens = int(request.get("max_tokens") or request.get("max_completion_tokens") or 16)
    include_usage = bool((request.get("stream_options") or {}).get("include_usage")) and options["usage"]
    fault = options["fault"]
    chat = api == "chat"
    created = int(time.time())
    obj = "chat.completion.chunk" if chat else "text_completion"

    async def send_event(payload):
        text = payload if isinstance(payload, str) else json.dumps(payload)
        event = ""
        if options["comments"]:
            event += ": ping" + nl
        event += "data: " + text + nl + nl
        raw = event.encode()
        if options["split"] and len(raw) > 4:
            half = len(raw) // 2
            writer.write(chunked(raw[:half]))
            await writer.drain()
            await asyncio.sleep(0.001)
            writer.write(chunked(raw[half:]))
        else:
            writer.write(chunked(raw))
        await writer.drain()

    def chunk(text=None, finish=None, role=False):
        if chat:
            delta = {"role": "assistant", "content": ""} if role else ({"content": text} if text is not None else {})
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
        else:
            choice = {"index": 0, "text": text or "", "finish_reason": finish}
        return {"id": f"cmpl-{record['id']}", "object": obj, "created": created, "model": "fake-model",
                "choices": [choice]}

    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                 b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n")  # written at once
    if chat and options["role"]:
        await send_event(chunk(role=True))
    tpc = max(1, int(options["tokens_per_chunk"]))
    chunks = (max_tokens + tpc - 1) // tpc
    sent_tokens = 0
    for j in range(chunks):
        await sleep_until(loop, t0 + options["ttft_ms"] / 1000.0 + j * options["itl_ms"] / 1000.0)
        n = min(tpc, max_tokens - sent_tokens)
        now = loop.time()  # before the write: no client can have read the chunk earlier
        await send_event(chunk(text=" tok" * n))
        sent_tokens += n
        if record["first_s"] is None:
            record["first_s"] = now - t0
        record["last_s"] = now - t0
        record["tokens"] = sent_tokens
        record["chunks"] = j + 1
        if j == 1 and fault in ("cut", "stream_error", "bad_json", "stall"):
            break
        if j == 0 and fault == "stall":
            break
    if fault == "cut":
        writer.transport.abort()  # no chunked terminator: the body is cut
        return False
    if fault == "stall":
        await asyncio.sleep(3600)
        return False
    if fault == "bad_json":
        await send_event('{"id": "x", "choices": [{"text": "oops"')
        await asyncio.sleep(3600)  # the client must give up on its own
        return False
    if fault == "stream_error":
        await send_event({"error": {"message": "injected stream error", "type": "InternalServerError",
                                    "param": None, "code": 500}})
        await send_event("[DONE]")
    else:
        await send_event(chunk(text="", finish=options["finish_reason"]))
        if include_usage:
            usage_chunk = chunk()
            usage_chunk["choices"] = []
            usage_chunk["usage"] = {"prompt_tokens": 10, "completion_tokens": sent_tokens,
                                    "total_tokens": 10 + sent_tokens}
            await send_event(usage_chunk)
        if fault != "nodone":
            await send_event("[DONE]")
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    return True


def rank_trace_bytes():
    """The capture tests' SGLang TP2 decode trace (make_trace_fixtures.sglang_c10d_tp2): one gzip file per rank."""
    sys.path.insert(0, os.path.join(HERE, "..", "capture"))
    import make_trace_fixtures  # noqa: E402  (tests/capture: the Kineto writer's fixtures)
    with tempfile.TemporaryDirectory() as scratch:
        make_trace_fixtures.sglang_c10d_tp2(scratch)
        files = []
        for name in sorted(os.listdir(scratch)):
            with open(os.path.join(scratch, name), "rb") as f:
                files.append((name, f.read()))
        return files


def given_trace_bytes(paths):
    """Real traces (../shared/traces), as they are."""
    files = []
    for path in paths:
        with open(path, "rb") as f:
            files.append((os.path.basename(path), f.read()))
    return files


BASE_TIME = re.compile(rb'"baseTimeNanoseconds"\s*:\s*(\d+)')


class TraceSource:
    """One Kineto trace a stop writes: its JSON text, whether it is gzip, its base time and its events' span."""

    def __init__(self, name, data):
        self.name = name
        self.gzip = data[:2] == b"\x1f\x8b"
        self.text = gzip.decompress(data) if self.gzip else data
        base = BASE_TIME.search(self.text)
        if base is None:
            raise SystemExit(f"{name}: no baseTimeNanoseconds: its times cannot be shifted into a window")
        self.base_ns = int(base.group(1))
        events = [e for e in json.loads(self.text)["traceEvents"] if "ts" in e]
        self.first_ns = min(round(float(e["ts"]) * 1000) for e in events)
        self.last_ns = max(round((float(e["ts"]) + float(e.get("dur", 0))) * 1000) for e in events)

    def span_s(self):
        return (self.last_ns - self.first_ns) / 1e9

    def shifted(self, first_unix_s):
        """Its bytes with baseTimeNanoseconds moved so that its first event is at `first_unix_s`."""
        base = self.base_ns + round(first_unix_s * 1e9) - (self.base_ns + self.first_ns)
        text = BASE_TIME.sub(b'"baseTimeNanoseconds": %d' % base, self.text, count=1)
        return gzip.compress(text, 1) if self.gzip else text


def trace_sources(given):
    return [TraceSource(name, data) for name, data in (given_trace_bytes(given) if given else rank_trace_bytes())]


async def write_files_late(state, folder, stop_number, files, delay_s=None):
    """Each file after the delay, in two writes: a reader that reads it early sees a cut gzip stream."""
    await asyncio.sleep(state.profiler["delay_s"] if delay_s is None else delay_s)
    for name, data in files:
        path = os.path.join(folder, f"stop{stop_number}-{name}")
        half = len(data) // 2
        with open(path, "wb") as f:
            f.write(data[:half])
            f.flush()
            await asyncio.sleep(state.profiler["piece_s"])
            f.write(data[half:])
        state.traces_written += 1


def write_traces_late(state, folder, stop_number):
    """The files of this stop (its events inside the window that just ended), late, in pieces, in the order
    asked; a file held back waits for the next start; a skipped stop writes none."""
    if stop_number == state.profiler["skip_stop"]:
        return
    first = (state.started_at or time.time()) + 0.01
    files = [(source.name, source.shifted(first)) for source in state.sources]
    if state.profiler["order"] == "reverse":
        files.reverse()
    if stop_number == state.profiler["late_stop"] and files:
        state.held.append((folder, stop_number, files[0]))
        files = files[1:]
    delay_s = None
    if state.profiler["frontend_s"] >= 0:  # vLLM's frontend: its host-only trace at once, the workers' later
        with open(os.path.join(folder, f"stop{stop_number}-frontend.async_llm.pt.trace.json"), "wb") as f:
            f.write(host_only_trace(first))
        delay_s = state.profiler["frontend_s"]
    state.writers.append(asyncio.get_running_loop().create_task(
        write_files_late(state, folder, stop_number, files, delay_s)))


def host_only_trace(first_unix_s):
    """A trace of CPU ops only (vLLM's frontend process): no GPU events, no rank."""
    events = [{"ph": "X", "cat": "cpu_op", "name": "AsyncLLM.generate", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]
    return json.dumps({"traceEvents": events, "baseTimeNanoseconds": round(first_unix_s * 1e9)}).encode()


def release_held_files(state):
    """At a start: the files held back from an earlier stop are written now (they land in this window)."""
    for folder, stop_number, file in state.held:
        state.writers.append(asyncio.get_running_loop().create_task(
            write_files_late(state, folder, stop_number, [file])))
    state.held = []


async def profiler_answer(state, method, route, body):
    """The answer to a profiler or engine-info route, or None when `route` is not one."""
    flavour, folder = state.profiler["flavour"], state.profiler["dir"]
    not_found = plain_response(404, "Not Found", {"detail": "Not Found"})
    if method == "GET" and route == "/version":
        return plain_response(200, "OK", {"version": "0.13.1"}) if flavour == "vllm" else not_found
    if method == "GET" and route == "/get_server_info":
        return plain_response(200, "OK", {"version": "0.5.2", "tp_size": 2}) if flavour == "sglang" else not_found
    if route not in ("/start_profile", "/stop_profile"):
        return None
    call = {"route": route, "body": body.decode(errors="replace")}
    state.profile_calls.append(call)
    if flavour == "none" or (flavour == "vllm" and not folder):
        call["status"] = 404
        return not_found
    if flavour == "refuse":
        call["status"] = 400
        return plain_response(400, "Bad Request", {"error": {"message": "Profiling is not enabled"}})
    if flavour == "sglang" and route == "/start_profile":
        folder = json.loads(body or b"{}").get("output_dir") or folder
        state.profiler["active_dir"] = folder
        if folder:
            os.makedirs(folder, exist_ok=True)  # as SGLang makes its output_dir when profiling starts
    call["status"] = 200
    if route == "/start_profile":
        state.profiling = True
        state.started_at = time.time()
        release_held_files(state)
        return b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"
    # The stop: no earlier than the traces' events fit in the window (a profiler records while it runs).
    if state.started_at is not None:
        span = max((source.span_s() for source in state.sources), default=0)
        await asyncio.sleep(max(0.0, state.started_at + 0.01 + span + 0.01 - time.time()))
    state.profiling = False
    state.stops += 1
    write_traces_late(state, state.profiler.get("active_dir") or folder, state.stops)
    state.started_at = None
    if state.profiler["stop_refused"]:  # as SGLang once num_steps stopped it
        call["status"] = 500
        return plain_response(500, "Internal Server Error",
                              {"error": {"message": "Profiling is not in progress. Call /start_profile first."}})
    return b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"


async def handle(state, reader, writer):
    state.connections += 1
    try:
        while True:
            try:
                method, path, headers, body = await read_request(reader)
            except (asyncio.IncompleteReadError, ConnectionError, ValueError):
                return
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            options, route = parse_options(path, state.defaults)
            if state.required_key and route not in ("/stats", "/reset"):
                presented = headers.get("authorization", "")
                if presented != "Bearer " + state.required_key:
                    state.auth["rejected"] += 1
                    token = presented.split(" ", 1)[1] if " " in presented else presented
                    message = f"Incorrect API key provided: {token}" if token else "No API key provided"
                    writer.write(plain_response(401, "Unauthorized", {"error": {
                        "message": message, "type": "invalid_request_error", "code": "invalid_api_key"}}))
                    await writer.drain()
                    continue
                state.auth["accepted"] += 1
            if method == "GET" and route == "/v1/models":
                writer.write(plain_response(200, "OK", {"object": "list",
                                                        "data": [{"id": "fake-model", "object": "model"}]}))
                await writer.drain()
                continue
            if method == "GET" and route == "/stats":
                writer.write(plain_response(200, "OK", {"requests": state.records,
                                                        "connections": state.connections,
                                                        "profile_calls": state.profile_calls,
                                                        "traces_written": state.traces_written,
                                                        "auth": state.auth}))
                await writer.drain()
                continue
            if method == "POST" and route == "/reset":
                state.records.clear()
                state.connections = 0
                state.auth = {"accepted": 0, "rejected": 0}
                writer.write(plain_response(200, "OK", {"ok": True}))
                await writer.drain()
                continue
            answer = await profiler_answer(state, method, route, body) if method in ("GET", "POST") else None
            if answer is not None:
                writer.write(answer)
                await writer.drain()
                continue
            served = {"both": ("/v1/completions", "/v1/chat/completions"), "chat": ("/v1/chat/completions",),
                      "completions": ("/v1/completions",)}.get(options["apis"], ())
            if method != "POST" or route not in served:
                writer.write(plain_response(404, "Not Found", {"error": {"message": f"no route {route}",
                                                                          "type": "NotFound", "code": 404}}))
                await writer.drain()
                continue
            api = "chat" if route.endswith("chat/completions") else "completions"
            try:
                request = json.loads(body)
            except ValueError:
                writer.write(plain_response(400, "Bad Request", {"error": {"message": "body is not JSON"}}))
                await writer.drain()
                continue
            state.counter += 1
            record = {"id": state.counter, "api": api, "first_s": None, "last_s": None, "tokens": 0,
                      "chunks": 0, "_t0": t0, "arrived_s": t0, "profiling": state.profiling}
            every = max(1, int(options["fault_every"]))
            if options["fault"] and state.counter % every != 0:
                options["fault"] = ""
            fault = options["fault"]
            if fault == "http400":
                writer.write(plain_response(400, "Bad Request", {"error": {
                    "message": "injected bad request", "type": "BadRequestError", "param": "max_tokens",
                    "code": 400}}))
                await writer.drain()
                continue
            if fault == "http500":
                writer.write(plain_response(500, "Internal Server Error", {
                    "object": "error", "message": "injected server failure", "type": "InternalServerError",
                    "param": None, "code": 500}))
                await writer.drain()
                continue
            if fault == "stall_headers":
                await asyncio.sleep(3600)
                return
            keep = await stream(state, writer, options, api, request, record)
            del record["_t0"]
            state.records.append(record)
            if not keep:
                return
    except (ConnectionError, asyncio.CancelledError):
        return
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def main():
    faults = "\n".join(f"  {name:<14} {text}" for name, text in FAULT_HELP.items())
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Each option above is a server-wide default; a request overrides it with leading path segments,\n"
               "e.g. http://127.0.0.1:PORT/itl_ms=20/fault=cut/v1/completions (tests/serve/test_serve.py).\n"
               "GET /stats returns the server's own send times per request; POST /reset clears them.\n\n"
               "faults (--fault or /fault=NAME):\n" + faults)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    parser.add_argument("--port", type=int, default=0,
                        help="port to listen on; 0 picks a free one (printed as 'PORT <n>' on stdout)")
    for key, value in DEFAULTS.items():
        choices = (list(FAULT_HELP) + [""] if key == "fault" else ["both", "chat", "completions"] if key == "apis"
                   else None)
        parser.add_argument("--" + key.replace("_", "-"), type=type(value), default=value, dest=key,
                            choices=choices, metavar=key.upper(),
                            help=f"{OPTION_HELP[key]} (default {value!r})")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="exit after this long (safety)")
    parser.add_argument("--profiler", default="none", choices=["none", "vllm", "sglang", "refuse"],
                        help="profiler routes: vllm, sglang, refuse (400 Profiling is not enabled), none (404)")
    parser.add_argument("--profile-dir", default="",
                        help="folder the profiler writes traces to (vllm: without it the routes answer 404)")
    parser.add_argument("--trace-delay-s", type=float, default=0.5, help="seconds after a stop before the traces")
    parser.add_argument("--trace-piece-s", type=float, default=0.3, help="seconds between a trace file's two writes")
    parser.add_argument("--stop-refused", action="store_true",
                        help="answer /stop_profile with 500 (as SGLang after num_steps); the traces follow all the same")
    parser.add_argument("--require-key", default="", metavar="KEY",
                        help="answer 401 to any request without 'Authorization: Bearer KEY' (but /stats and /reset); "
                             "GET /stats counts accepted and rejected requests under 'auth'")
    parser.add_argument("--trace-files", default="",
                        help="comma-separated trace files written on a stop instead of the Kineto writer's (real ones)")
    parser.add_argument("--trace-order", default="forward", choices=["forward", "reverse"],
                        help="the order a stop writes its files in: by rank, or the last rank's first")
    parser.add_argument("--trace-late-stop", type=int, default=0, metavar="N",
                        help="stop N's first file is written only at the next /start_profile (0: none)")
    parser.add_argument("--trace-skip-stop", type=int, default=0, metavar="N",
                        help="stop N writes no file: that window's files never come (0: none)")
    parser.add_argument("--trace-frontend-s", type=float, default=-1, metavar="S",
                        help="each stop writes a host-only trace at once (vLLM's frontend), the ranks' files S seconds "
                             "later (instead of --trace-delay-s; -1: no frontend trace)")
    args = parser.parse_args()
    state = State({k: getattr(args, k) for k in DEFAULTS})
    state.required_key = args.require_key
    state.profiler = {"flavour": args.profiler, "dir": args.profile_dir, "delay_s": args.trace_delay_s,
                      "piece_s": args.trace_piece_s, "stop_refused": args.stop_refused,
                      "files": [p for p in args.trace_files.split(",") if p], "order": args.trace_order,
                      "late_stop": args.trace_late_stop, "skip_stop": args.trace_skip_stop,
                      "frontend_s": args.trace_frontend_s}
    if args.profiler != "none":
        state.sources = trace_sources(state.profiler["files"])
    server = await asyncio.start_server(lambda r, w: handle(state, r, w), args.host, args.port, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    async with server:
        try:
            await asyncio.wait_for(server.serve_forever(), timeout=args.max_seconds)
        except asyncio.TimeoutError:
            pass


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
