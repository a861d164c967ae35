#!/usr/bin/env python3
"""Writes the hand-made NCCL Inspector fixtures of tests/capture/data/ (run it after changing a scenario).

Each scenario is a small, exactly known workload in the smoke model's shapes (hidden 256, bf16: 512 bytes per token
per AllReduce; 4 layers x 2 = 8 AllReduces per step), one AllGather of 1000 bytes per token closing each step, as
vLLM's logits gather does. The lines follow the Inspector's writer (see inspector_writer.py); the C++ tests
(test_capture.cpp) state the values each scenario must give. Real Inspector files from the H200 are still to be
recorded: tests/gpu/capture_gpu_check.sh copies its dumps out for that.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inspector_writer as w  # noqa: E402

BYTES_PER_TOKEN = 512
GATHER_BYTES_PER_TOKEN = 1000
ALLREDUCES = 8
T0 = 1767225600000000  # dump timestamps start at 2026-01-01T00:00:00Z


def step_ops(tokens, prefill=False):
    """(kind, bytes, index within its run, tokens, prefill) of one step: 8 AllReduces then the AllGather."""
    ops = [("AllReduce", tokens * BYTES_PER_TOKEN, i, tokens, prefill) for i in range(ALLREDUCES)]
    ops.append(("AllGather", tokens * GATHER_BYTES_PER_TOKEN, 0, tokens, prefill))
    return ops


def exec_us(op, rank):
    """Rank 0 and 1 differ so that the slowest rank moves around; see test_capture.cpp for the sums."""
    kind, _, i, tokens, prefill = op
    if kind == "AllReduce":
        if prefill:
            return 100 + i % 3 if rank == 0 else 100
        return (20 + i % 3 if rank % 2 == 0 else 21 + i % 2) + tokens
    if prefill:
        return 40 if rank == 0 else 41
    return (15 if rank % 2 == 0 else 16) + tokens


def numbered(ops):
    """Adds each op's sequence number: per kind, as NCCL counts (comm->seqNumber[func])."""
    counters, out = {}, []
    for op in ops:
        sn = counters.get(op[0], 0)
        counters[op[0]] = sn + 1
        out.append((sn,) + op)
    return out


def write(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(lines))


def v40_lines(cid, rank, n_ranks, host, pid, ops, per_dump=20, dump0=0, skip=()):
    """v4.0: every record carries header + metadata; a dump drains up to `per_dump` records."""
    lines = []
    for k, (sn, kind, nbytes, i, tokens, prefill) in enumerate(ops):
        if (kind, sn) in skip:
            continue
        dump_ts = T0 + (dump0 + k // per_dump) * 1000 + k % per_dump
        lines.append(w.record(w.header(cid, rank, n_ranks), w.metadata("v4.0", dump_ts, host, pid),
                              w.coll_perf(kind, sn, nbytes, exec_us((kind, nbytes, i, tokens, prefill), rank),
                                          n_ranks)))
    return lines


def tp2_v40(out):
    """Two ranks, v4.0: a step before the first AllGather, 8 steps (one prefill), 3 trailing AllReduces."""
    ops = step_ops(1)
    for tokens in (1, 1, 2, 64, 2, 4, 4, 4):
        ops += step_ops(tokens, prefill=tokens == 64)
    ops += step_ops(4)[:3]
    ops = numbered(ops)
    cid = w.comm_id(0x7F8C496AE9F66123)
    os.makedirs(out)
    for rank, pid in ((0, 4101), (1, 4102)):
        write(os.path.join(out, f"gpu-a-pid{pid}.log"), v40_lines(cid, rank, 2, "gpu-a", pid, ops))


def two_comms_v42(out):
    """v4.2, two processes with two communicators each: "tp" (steps of 2 tokens, ring drops) and "ep" (three
    Broadcasts, Send/Recv to the peer), dump_stats records before each communicator's batch."""
    tp_ops = numbered([("AllGather", 2 * GATHER_BYTES_PER_TOKEN, 0, 2, False)] + sum((step_ops(2) for _ in range(5)), []))
    tp, ep = w.comm_id(0x1234ABCD5678EF01), w.comm_id(0x00FF00FF00FF00FF)
    dropped = {0: {("AllReduce", 20)}, 1: {("AllReduce", 20), ("AllReduce", 21)}}
    os.makedirs(out)
    for rank, pid in ((0, 5201), (1, 5202)):
        peer = 1 - rank
        kept = [op for op in tp_ops if (op[1], op[0]) not in dropped[rank]]
        batches = [kept[:25], kept[25:]]
        lines = []
        for d, batch in enumerate(batches):
            ts = T0 + d * 1000
            drops = len(dropped[rank]) if d == 0 else 0
            total = len(dropped[rank])
            lines.append(w.record(w.header(tp, rank, 2, comm_name="tp"), w.metadata("v4.2", ts, "gpu-b", pid),
                                  w.dump_stats(len(batch), 0, coll_dropped_total=total, coll_dropped_since=drops)))
            for sn, kind, nbytes, i, tokens, prefill in batch:
                lines.append(w.record(w.header(tp, rank, 2, comm_name="tp"), w.metadata("v4.2", ts + 1, "gpu-b", pid),
                                      w.coll_perf(kind, sn, nbytes, exec_us((kind, nbytes, i, tokens, prefill), rank), 2,
                                                  algo_proto=("RING", "LL"))))
            # The ep communicator: a Broadcast per dump (three over two dumps + one more) and Send/Recv pairs.
            colls = [(0, 4096, 30 + rank), (1, 4096, 31)] if d == 0 else [(2, 4096, 33 - rank)]
            p2p = [("Send", 2 * d + j, 7408 * (j + 1), 12 + j + rank) for j in range(2)] + \
                  [("Recv", 2 * d + j, 7408 * (j + 1), 13 + j) for j in range(2)]
            lines.append(w.record(w.header(ep, rank, 2, comm_name="ep"), w.metadata("v4.2", ts + 2, "gpu-b", pid),
                                  w.dump_stats(len(colls), len(p2p))))
            for sn, nbytes, us in colls:
                lines.append(w.record(w.header(ep, rank, 2, comm_name="ep"), w.metadata("v4.2", ts + 3, "gpu-b", pid),
                                      w.coll_perf("Broadcast", sn, nbytes, us, 2, algo_proto=("RING", "SIMPLE"))))
            for kind, sn, nbytes, us in p2p:
                lines.append(w.record(w.header(ep, rank, 2, comm_name="ep"), w.metadata("v4.2", ts + 4, "gpu-b", pid),
                                      w.p2p_perf(kind, sn, peer, nbytes, us)))
        write(os.path.join(out, f"gpu-b-pid{pid}.log"), lines)


def v43_verbose(out):
    """One process holding both ranks (as nccl-tests -g 2 does), v4.3 markers with payload-only records, verbose
    event traces, a proxy_trace record and two verbose Sends per rank."""
    ops = numbered([("AllGather", 8 * GATHER_BYTES_PER_TOKEN, 0, 8, False)] + sum((step_ops(8) for _ in range(3)), []))
    cid, host, pid = w.comm_id(0xABCDEF0123456789), "gpu-c", 6301
    lines = []
    for rank in (0, 1):
        ts = T0 + rank * 7
        proxy = rank == 0
        lines.append(w.record(w.header(cid, rank, 2, comm_name="tp"), w.metadata("v4.3", ts, host, pid),
                              w.dump_stats(len(ops), 2, proxy_records=1 if proxy else 0)))
        event_sn = 1
        for k, (sn, kind, nbytes, i, tokens, prefill) in enumerate(ops):
            us = exec_us((kind, nbytes, i, tokens, prefill), rank)
            lines.append(w.record(w.coll_perf(kind, sn, nbytes, us, 2, algo_proto=("RING", "LL"),
                                              verbose=(T0 + 100 * k + rank, event_sn))))
            event_sn += 5
        for j in range(2):
            lines.append(w.record(w.p2p_perf("Send", j, 1 - rank, 4096, 9 + j, verbose=(T0 + 5000 + 10 * j, event_sn))))
            event_sn += 5
        if proxy:
            lines.append(w.record('"proxy_trace":{"record_type":"proxy_op","record_sn":0,"parent_type":"coll",'
                                  '"parent_sn":3,"proxy_op_sn":0,"rank":0,"channel_id":0,"peer":1,"direction":"send",'
                                  '"n_steps":1,"chunk_size_bytes":4096,"n_steps_started":1,"n_steps_completed":1,'
                                  '"n_steps_dropped":0,"trans_size_bytes":4096}'))
    os.makedirs(out)
    write(os.path.join(out, f"{host}-pid{pid}.log"), lines)


def missing_rank(out):
    """A 4-rank communicator of which rank 2 left no file."""
    ops = numbered(step_ops(1)[-1:] + step_ops(1) + step_ops(1))
    cid = w.comm_id(0x5555AAAA5555AAAA)
    os.makedirs(out)
    for rank in (0, 1, 3):
        pid = 7100 + rank
        write(os.path.join(out, f"gpu-d-pid{pid}.log"), v40_lines(cid, rank, 4, "gpu-d", pid, ops))


def cut_files(out_v40, out_v43):
    """A v4.0 file whose last line was cut mid-record; a v4.3 dump announcing more records than the file holds."""
    ops = numbered(step_ops(1)[-1:] + step_ops(1) + step_ops(1))
    cid = w.comm_id(0x0123456789ABCDEF)
    os.makedirs(out_v40)
    lines = v40_lines(cid, 0, 1, "gpu-e", 8100, numbered(step_ops(1)[-1:] + step_ops(1) + step_ops(1) + step_ops(1)[:1]))
    lines[-1] = lines[-1][: len(lines[-1]) // 2]  # the writer was interrupted inside the 20th record
    write(os.path.join(out_v40, "gpu-e-pid8100.log"), lines)
    os.makedirs(out_v43)
    lines = [w.record(w.header(cid, 0, 1, comm_name="tp"), w.metadata("v4.3", T0, "gpu-f", 8200),
                      w.dump_stats(len(ops), 0))]
    for sn, kind, nbytes, i, tokens, prefill in ops:
        lines.append(w.record(w.coll_perf(kind, sn, nbytes, exec_us((kind, nbytes, i, tokens, prefill), 0), 1)))
    lines.append(w.record(w.header(cid, 0, 1, comm_name="tp"), w.metadata("v4.3", T0 + 1000, "gpu-f", 8200),
                          w.dump_stats(3, 0)))
    lines.append(w.record(w.coll_perf("AllReduce", 16, 512, 22, 1)))
    write(os.path.join(out_v43, "gpu-f-pid8200.log"), lines)


def sampled_2289(out):
    """What the Inspector shipped with NCCL 2.28.9 leaves: one record per communicator per dump, the latest one."""
    ops = numbered(step_ops(1)[-1:] + sum((step_ops(1) for _ in range(10)), []))
    cid = w.comm_id(0x2289228922892289)
    os.makedirs(out)
    for rank, pid, first in ((0, 9100, 10), (1, 9101, 5)):
        picked = [op for k, op in enumerate(ops) if k >= first and (k - first) % 11 == 0]
        lines = []
        for d, (sn, kind, nbytes, i, tokens, prefill) in enumerate(picked):
            lines.append(w.record(w.header(cid, rank, 2), w.metadata("v4.0", T0 + d * 1000, "gpu-g", pid),
                                  w.coll_perf(kind, sn, nbytes, exec_us((kind, nbytes, i, tokens, prefill), rank), 2)))
        write(os.path.join(out, f"gpu-g-pid{pid}.log"), lines)


def allreduce_only(out):
    """One rank replaying AllReduce bursts as k25comm does: 3 bursts at 1 token, 2 at 2, 2 at 4 plus one check op."""
    ops = []
    for tokens, bursts in ((1, 3), (2, 2), (4, 2)):
        for _ in range(bursts):
            ops += step_ops(tokens)[:ALLREDUCES]
    ops.append(("AllReduce", 4 * BYTES_PER_TOKEN, 0, 4, False))
    os.makedirs(out)
    write(os.path.join(out, "gpu-h-pid9900.log"),
          v40_lines(w.comm_id(0x1111222233334444), 0, 1, "gpu-h", 9900, numbered(ops)))


def foreign(data):
    write(os.path.join(data, "unknown-version.log"),
          [w.record(w.header(w.comm_id(0x42), 0, 1), w.metadata("v5.0", T0, "gpu-x", 1),
                    w.coll_perf("AllReduce", 0, 512, 20, 1))])
    write(os.path.join(data, "not-inspector.log"),
          ['{"type":"run_start","schema_version":1,"tool":{"name":"k25comm"}}\n'])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="?", metavar="DATA_DIR",
                        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"),
                        help="where the fixtures go, replacing what is there (default: data/ beside this script)")
    data = parser.parse_args(argv).data
    if os.path.isdir(data):
        shutil.rmtree(data)
    os.makedirs(data)
    tp2_v40(os.path.join(data, "tp2-v40"))
    two_comms_v42(os.path.join(data, "two-comms-v42"))
    v43_verbose(os.path.join(data, "v43-verbose"))
    missing_rank(os.path.join(data, "missing-rank"))
    cut_files(os.path.join(data, "cut-v40"), os.path.join(data, "cut-v43"))
    sampled_2289(os.path.join(data, "sampled-2289"))
    allreduce_only(os.path.join(data, "allreduce-only"))
    foreign(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
