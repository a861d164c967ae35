"""Lines as NVIDIA's NCCL Inspector writes them (plugins/profiler/inspector, json.cc + inspector_json.cc).

Hand-made stand-ins for real Inspector files, built to the plugin's source: compact JSON (no spaces), keys in the
writer's order, doubles printed with "%lf" (six decimals), the communicator id as "0x%lx" cut to 16 characters,
bandwidths computed as inspectorComputeOpBw does (time = exec_us / 1e6; AllGather and ReduceScatter traffic =
bytes x n_ranks; bus factor 2(n-1)/n for AllReduce, (n-1)/n for AllGather/ReduceScatter, 1 for P2P, Broadcast and
Reduce). Real files from the H200 are still to be recorded (tests/gpu/capture_gpu_check.sh copies them out).
"""


def comm_id(hash_value):
    return ("0x%x" % hash_value)[:16]


def bandwidths(kind, nbytes, exec_us, n_ranks, p2p=False):
    seconds = exec_us / 1000000.0
    if p2p or kind in ("Send", "Recv", "SendRecv", "Broadcast", "Reduce"):
        traffic, factor = float(nbytes), 1.0
    elif kind == "AllReduce":
        traffic, factor = float(nbytes), 2.0 * (n_ranks - 1) / n_ranks
    elif kind in ("AllGather", "ReduceScatter"):
        traffic, factor = float(nbytes * n_ranks), (n_ranks - 1) / n_ranks
    else:
        traffic, factor = 0.0, 0.0
    algbw = traffic / 1.0e9 / seconds if seconds != 0 else 0.0
    return algbw, algbw * factor


def header(cid, rank, n_ranks, nnodes=1, comm_name=None):
    name = "" if comm_name is None else '"comm_name":"%s",' % comm_name
    return '"header":{"id":"%s",%s"rank":%d,"n_ranks":%d,"nnodes":%d}' % (cid, name, rank, n_ranks, nnodes)


def metadata(version, dump_ts, hostname, pid, git_rev=""):
    return ('"metadata":{"inspector_output_format_version":"%s","git_rev":"%s","rec_mechanism":'
            '"nccl_profiler_interface","dump_timestamp_us":%d,"hostname":"%s","pid":%d}'
            % (version, git_rev, dump_ts, hostname, pid))


def kernel_events(prefix, channels, values):
    items = []
    for ch in range(channels):
        start, stop, record = values(ch)
        items.append('{"channel_id":%d,"kernel_start_%s":%d,"kernel_stop_%s":%d,"kernel_record_%s":%d}'
                     % (ch, prefix, start, prefix, stop, prefix, record))
    return "[" + ",".join(items) + "]"


def verbose_trace(op, start_ts, exec_us, first_sn, channels=1):
    """event_trace_sn and event_trace_ts as inspectorCompletedCollVerbose/P2pVerbose write them."""
    stop_ts = start_ts + 5
    sn = ('"event_trace_sn":{"%s_start_sn":%d,"%s_stop_sn":%d,"kernel_events":%s}'
          % (op, first_sn, op, first_sn + 1,
             kernel_events("sn", channels, lambda ch: (first_sn + 2 + 3 * ch, first_sn + 4 + 3 * ch, first_sn + 3 + 3 * ch))))
    ts = ('"event_trace_ts":{"%s_start_ts":%d,"%s_stop_ts":%d,"kernel_events":%s}'
          % (op, start_ts, op, stop_ts,
             kernel_events("ts", channels, lambda ch: (start_ts + 8, start_ts + 8 + exec_us, start_ts + 8 + exec_us))))
    return sn + "," + ts


def perf(prefix, kind, sn, nbytes, exec_us, n_ranks, timing, extra="", verbose=None):
    """coll_perf or p2p_perf: `extra` goes after the kind (coll_algo/coll_proto) or after the sn (p2p_peer)."""
    algbw, busbw = bandwidths(kind, nbytes, exec_us, n_ranks, p2p=prefix == "p2p")
    before, after = (extra, "") if prefix == "coll" else ("", extra)
    text = ('"%s_perf":{"%s":"%s",%s"%s_sn":%d,%s"%s_msg_size_bytes":%d,"%s_exec_time_us":%d,'
            '"%s_timing_source":"%s","%s_algobw_gbs":%f,"%s_busbw_gbs":%f'
            % (prefix, prefix, kind, before, prefix, sn, after, prefix, nbytes, prefix, exec_us, prefix, timing,
               prefix, algbw, prefix, busbw))
    if verbose is not None:
        text += "," + verbose_trace(prefix, verbose[0], exec_us, verbose[1])
    return text + "}"


def coll_perf(kind, sn, nbytes, exec_us, n_ranks, timing="kernel_gpu", algo_proto=None, verbose=None):
    """algo_proto: ("RING", "LL") for v4.2+; verbose: (start_ts, first_event_sn)."""
    algo = "" if algo_proto is None else '"coll_algo":"%s","coll_proto":"%s",' % algo_proto
    return perf("coll", kind, sn, nbytes, exec_us, n_ranks, timing, algo, verbose)


def p2p_perf(kind, sn, peer, nbytes, exec_us, timing="kernel_gpu", verbose=None):
    return perf("p2p", kind, sn, nbytes, exec_us, 2, timing, '"p2p_peer":%d,' % peer, verbose)


def dump_stats(coll_records, p2p_records, coll_dropped_total=0, coll_dropped_since=0, p2p_dropped_total=0,
               p2p_dropped_since=0, proxy_records=None):
    text = ('"dump_stats":{"coll_records":%d,"coll_dropped_total":%d,"coll_dropped_since_last_dump":%d,'
            '"p2p_records":%d,"p2p_dropped_total":%d,"p2p_dropped_since_last_dump":%d'
            % (coll_records, coll_dropped_total, coll_dropped_since, p2p_records, p2p_dropped_total, p2p_dropped_since))
    if proxy_records is not None:
        text += ',"proxy_records":%d,"proxy_dropped_total":0,"proxy_dropped_since_last_dump":0' % proxy_records
    return text + "}"


def record(*members):
    """One line: {member,member,...}."""
    return "{" + ",".join(members) + "}\n"
