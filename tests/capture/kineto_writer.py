"""Writes PyTorch profiler (Kineto) traces as libkineto writes them (../shared/reference/trace-facts.md): a JSON
object with schemaVersion, deviceProperties, distributedInfo, traceEvents, traceName, displayTimeUnit and
baseTimeNanoseconds; X events {ph, cat, name, pid, tid, ts, dur, args}; GPU events with pid = device and tid =
stream; runtime calls (cat cuda_runtime / cuda_driver) and kernels sharing a correlation id; c10d's
record_param_comms args copied onto collective kernels. Two timestamp styles: microseconds with three decimals
relative to baseTimeNanoseconds (since 2024), or integer microseconds since the epoch (older traces, no base).

Used by make_trace_fixtures.py (the tests' fixtures) and tools/bench-trace (large Kimi-shaped files).
"""
import gzip
import json

KERNEL_ARGS = ('"queued": 0, "device": {dev}, "context": 1, "stream": {stream}, "correlation": {corr}, '
               '"registers per thread": 128, "shared memory": 49152, "blocks per SM": 1.245614, '
               '"warps per SM": 9.964912, "grid": [132, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 12')


class Trace:
    """One rank's trace. Times are given in microseconds relative to the trace's start; `base_ns` None writes
    integer microseconds since `epoch_us` instead (the older style: whole microseconds only)."""

    def __init__(self, rank=None, world_size=None, device=0, base_ns=1767225600000000000, epoch_us=None,
                 nccl_version="2.27.5", host_pid=4242, legacy_categories=False, epoch_fraction=False):
        """`epoch_fraction`: with `epoch_us`, microseconds since the epoch with three decimals (some writers'
        style: "ts": 1712195495519689.047), written from integer nanoseconds so that no digit is lost."""
        self.rank, self.world_size, self.device = rank, world_size, device
        self.base_ns, self.epoch_us, self.epoch_fraction = base_ns, epoch_us, epoch_fraction
        self.nccl_version, self.host_pid = nccl_version, host_pid
        self.legacy = legacy_categories
        self.events = []
        self.next_external = 1000

    def _ts(self, t_us):
        if self.base_ns is not None:
            return f"{t_us:.3f}"
        if self.epoch_fraction:
            ns = self.epoch_us * 1000 + round(t_us * 1000)
            return f"{ns // 1000}.{ns % 1000:03d}"
        value = self.epoch_us + t_us
        assert float(value).is_integer(), "integer-microsecond traces take whole microseconds"
        return str(int(value))

    def _dur(self, d_us):
        if self.base_ns is not None or self.epoch_fraction:
            return f"{d_us:.3f}"
        assert float(d_us).is_integer()
        return str(int(d_us))

    def kernel(self, name, t_us, dur_us, corr, stream=7, c10d=None, cat=None):
        """A GPU kernel; `c10d` = dict of record_param_comms args (Collective name, In msg nelems, ...)."""
        self.next_external += 1
        args = f'"External id": {self.next_external}, ' + KERNEL_ARGS.format(dev=self.device, stream=stream, corr=corr)
        if c10d:
            args += ", " + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in c10d.items())
        cat = cat or ("Kernel" if self.legacy else "kernel")
        self.events.append(f'{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": {self.device}, '
                           f'"tid": {stream}, "ts": {self._ts(t_us)}, "dur": {self._dur(dur_us)}, "args": {{{args}}}}}')

    def memcpy(self, t_us, dur_us, corr, stream=7):
        self.events.append(f'{{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", '
                           f'"pid": {self.device}, "tid": {stream}, "ts": {self._ts(t_us)}, "dur": {self._dur(dur_us)}, '
                           f'"args": {{"External id": 1, "device": {self.device}, "context": 1, "stream": {stream}, '
                           f'"correlation": {corr}, "bytes": 4096, "memory bandwidth (GB/s)": 20.5}}}}')

    def runtime(self, name, t_us, dur_us, corr, tid=100, cat=None):
        cat = cat or ("Runtime" if self.legacy else "cuda_runtime")
        self.events.append(f'{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": {self.host_pid}, '
                           f'"tid": {tid}, "ts": {self._ts(t_us)}, "dur": {self._dur(dur_us)}, '
                           f'"args": {{"External id": 7, "cbid": 211, "correlation": {corr}}}}}')
        self.events.append(f'{{"ph": "s", "id": {corr}, "pid": {self.host_pid}, "tid": {tid}, "ts": {self._ts(t_us)}, '
                           f'"cat": "ac2g", "name": "ac2g"}}')

    def annotation(self, name, t_us, dur_us, tid=100):
        self.events.append(f'{{"ph": "X", "cat": "user_annotation", "name": {json.dumps(name)}, "pid": {self.host_pid}, '
                           f'"tid": {tid}, "ts": {self._ts(t_us)}, "dur": {self._dur(dur_us)}, '
                           f'"args": {{"External id": 3, "Record function id": 0, "Ev Idx": 1}}}}')

    def cpu_op(self, name, t_us, dur_us, tid=100, cat="cpu_op", args=None):
        """A host event: an operator (cpu_op) or, with stack, a Python frame (python_function)."""
        args = args or {"External id": 5, "Record function id": 0, "Sequence number": 12, "Fwd thread id": 0,
                        "Ev Idx": 2}
        self.events.append(f'{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": {self.host_pid}, '
                           f'"tid": {tid}, "ts": {self._ts(t_us)}, "dur": {self._dur(dur_us)}, '
                           f'"args": {json.dumps(args)}}}')

    def head_text(self):
        """Everything before the first event."""
        head = ['"schemaVersion": 1',
                '"deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150110011392, '
                '"computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "numSms": 132}]']
        if self.rank is not None:
            info = {"backend": "nccl", "rank": self.rank, "world_size": self.world_size,
                    "nccl_version": self.nccl_version}
            head.append('"distributedInfo": ' + json.dumps(info))
        head.append('"record_shapes": 0')
        return "{\n  " + ",\n  ".join(head) + ',\n  "traceEvents": [\n  '

    def tail_text(self):
        """Everything after the last event (baseTimeNanoseconds last, as libkineto writes it)."""
        tail = ['"traceName": "/tmp/k25-fixture.pt.trace.json"', '"displayTimeUnit": "ms"']
        if self.base_ns is not None:
            tail.append(f'"baseTimeNanoseconds": {self.base_ns}')
        return "\n  ],\n  " + ",\n  ".join(tail) + "\n}\n"

    def take_events(self, first):
        """The events written since the last call, as text to follow the head (`first`) or earlier events."""
        text = ("" if first else ",\n  ") + ",\n  ".join(self.events)
        self.events = []
        return text

    def text(self):
        return self.head_text() + ",\n  ".join(self.events) + self.tail_text()

    def write(self, path, compress=None, compresslevel=6):
        data = self.text().encode()
        if compress is None:
            compress = path.endswith(".gz")
        if compress:
            with gzip.GzipFile(path, "wb", compresslevel=compresslevel, mtime=0) as f:
                f.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)
        return len(data)
