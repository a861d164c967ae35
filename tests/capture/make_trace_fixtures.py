#!/usr/bin/env python3
"""Writes the profiler-trace fixtures of tests/capture into OUT_DIR (run by ctest before the capture tests).

Every timeline is laid out so that its figures can be worked by hand; test_trace.cpp gives the sums.

  vllm-tp8/          8 rank files (gzip), vLLM TP8 decode under CUDA graphs: per step one cudaGraphLaunch, 123
                     AllReduces and 1 AllGather (NCCL 2.27 names), GEMM, attention on a second stream, a sampler,
                     a copy; execute_context_0(0)_generation_B(B) marks; distributedInfo; fractional timestamps
                     relative to baseTimeNanoseconds; rank r shifted by r x 0.25 us; odd ranks start one step late;
                     the frontend's host-only trace beside them
  custom-ar-tp2/     2 plain-JSON rank files named -rank-N., no distributedInfo, integer microseconds since the
                     epoch, legacy categories (Kernel, Runtime), eager launches, vLLM's custom all-reduce kernel and
                     NCCL 2.18 names, execute_new_0_cached_2 marks
  sglang-c10d-tp2/   2 gzip files named -TP-N, SGLang step[DECODE bs=T] marks, eager launches, c10d's
                     record_param_comms args on every collective kernel (sizes from the trace): the smoke model's
                     step (8 AllReduces of 512 B/token, 1 AllGather of 1000 B/token per rank) at T = 1, 2, 4
  nsys-tp2.sqlite    an Nsight Systems export of two processes (device 0 and 1) with the same correlation ids,
                     NVTX marks and NCCL ranges carrying "Message size [bytes]" payloads (JSON)
  nsys-graphs.sqlite an export that traced CUDA graphs whole (graph launches, no kernels inside them)
  bad/               a cut gzip, a cut JSON, JSON that is not a trace, a trace without GPU events, files of
                     different runs, two files claiming one rank, a SQLite that is not an nsys export, a corrupt
                     SQLite, a named pipe (what <(...) gives)
"""
import argparse
import gzip
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kineto_writer as kw  # noqa: E402
import nsys_writer as nw  # noqa: E402

GEMM = "nvjet_tst_128x64_64x6_1x1_v_bz_TNT"
ATTENTION = "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, false, false>(Flash_fwd_params)"
ALLREDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
SAMPLER = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"


def vllm_tp8(out):
    """Step s of rank r at T = 10000 + 1000 s + 0.25 r (us): for k < 123, GEMM [T+6k, +2), AllReduce [T+6k+2.5, +3),
    attention on stream 8 [T+6k+5.0, +0.8); AllGather [T+738, +5); sampler [T+743.5, +2); a copy [T-10, +2) launched
    in the mark. Mark [T-50, +60) on the host; graph launch at T-30. Batch 1 for s < 3, else 3."""
    os.makedirs(out, exist_ok=True)
    for r in range(8):
        t = kw.Trace(rank=r, world_size=8, device=r)
        corr = 1
        for s in range(r % 2, 6):
            batch = 1 if s < 3 else 3
            T = 10000 + 1000 * s + 0.25 * r
            t.annotation(f"execute_context_0(0)_generation_{batch}({batch})", T - 50, 60)
            t.runtime("cudaMemcpyAsync", T - 45, 3, corr)
            t.memcpy(T - 10, 2, corr)
            corr += 1
            t.runtime("cudaGraphLaunch", T - 30, 8, corr)
            for k in range(123):
                t.kernel(GEMM, T + 6 * k, 2, corr)
                t.kernel(ALLREDUCE, T + 6 * k + 2.5, 3, corr)
                t.kernel(ATTENTION, T + 6 * k + 5.0, 0.8, corr, stream=8)
            t.kernel(ALLGATHER, T + 738, 5, corr)
            t.kernel(SAMPLER, T + 743.5, 2, corr)
            corr += 1
            t.cpu_op("aten::copy_", T - 40, 5)
        t.write(os.path.join(out, f"k25-vllm-rank-{r}.1767225600{r}.pt.trace.json.gz"))
    # The frontend's host-only trace, which vLLM writes into the same folder.
    frontend = kw.Trace()
    frontend.cpu_op("AsyncLLM.generate", 9000, 7000)
    frontend.write(os.path.join(out, "k25-vllm-frontend.1767225600.pt.trace.json.gz"))


def custom_ar_tp2(out):
    """Step s of rank r at T = 2000 + 500 s + r (us since the epoch's 1767225600000000): for k < 4, GEMM [T+10k, +4),
    custom AllReduce [T+10k+5, +3); NCCL AllGather [T+40, +6). Eager: one cudaLaunchKernel each, inside the mark
    execute_new_0_cached_2 [T-20, +70)."""
    os.makedirs(out, exist_ok=True)
    gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)"
    custom = "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)"
    gather = "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
    for r in range(2):
        t = kw.Trace(base_ns=None, epoch_us=1767225600000000, device=r, legacy_categories=True)
        corr = 1
        for s in range(4):
            T = 2000 + 500 * s + r
            t.annotation("execute_new_0_cached_2", T - 20, 70)
            launch = T - 19
            for k in range(4):
                t.runtime("cudaLaunchKernel", launch, 1, corr)
                t.kernel(gemm, T + 10 * k, 4, corr)
                corr += 1
                launch += 2
                t.runtime("cudaLaunchKernel", launch, 1, corr)
                t.kernel(custom, T + 10 * k + 5, 3, corr)
                corr += 1
                launch += 2
            t.runtime("cuLaunchKernelEx", launch, 1, corr, cat="Driver")
            t.kernel(gather, T + 40, 6, corr)
            corr += 1
        t.write(os.path.join(out, f"k25-custom-rank-{r}.1767225600.pt.trace.json"))


def sglang_c10d_tp2(out):
    """Step s of rank r at T = 5000 + 100 s + 0.25 r (us): for k < 8, GEMM [T+5k, +2), AllReduce [T+5k+2.5, +2)
    of 256 T BFloat16 elements; AllGather [T+40, +3) of 500 T elements per rank. Eager launches inside the mark
    step[DECODE bs=T] [T-30, +75); T = 1, 2, 4, 1, 2, 4."""
    os.makedirs(out, exist_ok=True)
    for r in range(2):
        t = kw.Trace(rank=r, world_size=2, device=r)
        corr = 1
        for s, tokens in enumerate([1, 2, 4, 1, 2, 4]):
            T = 5000 + 100 * s + 0.25 * r
            t.annotation(f"step[DECODE bs={tokens}]", T - 30, 75)
            launch = T - 29
            for k in range(8):
                t.runtime("cudaLaunchKernel", launch, 0.5, corr)
                t.kernel(GEMM, T + 5 * k, 2, corr)
                corr += 1
                t.runtime("cuLaunchKernelEx", launch + 1, 0.5, corr, cat="cuda_driver")
                t.kernel(ALLREDUCE, T + 5 * k + 2.5, 2, corr, stream=7,
                         c10d={"Collective name": "allreduce", "In msg nelems": 256 * tokens,
                               "Out msg nelems": 256 * tokens, "Group size": 2, "dtype": "BFloat16",
                               "In split size": "[]", "Out split size": "[]", "Process Group Name": "0",
                               "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]"})
                corr += 1
                launch += 3
            t.runtime("cuLaunchKernelEx", launch, 0.5, corr, cat="cuda_driver")
            t.kernel(ALLGATHER, T + 40, 3, corr,
                     c10d={"Collective name": "_allgather_base", "In msg nelems": 500 * tokens,
                           "Out msg nelems": 1000 * tokens, "Group size": 2, "dtype": "BFloat16"})
            corr += 1
        t.write(os.path.join(out, f"sglang-{1767225600 + r}-TP-{r}.trace.json.gz"))


def nsys_tp2(path):
    """Process 1001 (device 0) and 1002 (device 1, everything 500 ns later), 3 steps each at T = 2e9 + 1e6 s ns:
    GEMM [T, T+5000), AllReduce [T+6000, T+9000) and [T+10000, T+13000), each launched inside an NCCL NVTX range
    whose payload says 4096 bytes; mark execute_context_0(0)_generation_2(2) [T-40000, T+20000). Both processes
    number their correlations from 1."""
    e = nw.Export(path)
    for pid, device, shift in ((1001, 0, 0), (1002, 1, 500)):
        corr = 1
        for s in range(3):
            T = 2_000_000_000 + 1_000_000 * s + shift
            e.nvtx(pid, 7, T - 40000, T + 20000, "execute_context_0(0)_generation_2(2)", registered=(pid == 1002))
            e.runtime(pid, 7, T - 39000, T - 38000, "cudaLaunchKernel_v7000", corr)
            e.kernel(pid, device, T, T + 5000, GEMM, corr)
            corr += 1
            for k, start in enumerate((6000, 10000)):
                e.nvtx(pid, 7, T - 30000 + 5000 * k, T - 26000 + 5000 * k, "ncclAllReduce", domain=1,
                       json_text='{"NCCL communicator ID": 1234, "Message size [bytes]": 4096}')
                e.runtime(pid, 7, T - 29000 + 5000 * k, T - 28000 + 5000 * k, "cuLaunchKernelEx", corr)
                e.kernel(pid, device, T + start, T + start + 3000, ALLREDUCE.replace("4096ul", "(unsigned long)4096"), corr)
                corr += 1
    e.close()


def nsys_graphs(path):
    e = nw.Export(path, graph_trace_mode="Graph")
    for s in range(3):
        T = 1_000_000_000 + 1_000_000 * s
        e.runtime(1001, 7, T - 5000, T - 4000, "cudaGraphLaunch_v10000", 10 + s)
        e.runtime(1001, 7, T + 100000, T + 101000, "cudaLaunchKernel_v7000", 100 + s)
        e.kernel(1001, 0, T + 200000, T + 202000, SAMPLER, 100 + s)
    e.close()


def bad_inputs(out):
    os.makedirs(out, exist_ok=True)
    t = kw.Trace(rank=0, world_size=2)
    for s in range(40):
        t.annotation("execute_context_0(0)_generation_1(1)", 100 * s, 60)
        t.runtime("cudaLaunchKernel", 100 * s + 1, 1, s + 1)
        t.kernel(GEMM, 100 * s + 10, 5, s + 1)
        t.kernel(ALLREDUCE, 100 * s + 20, 3, s + 1)
    text = t.text().encode()
    whole = gzip.compress(text, 6)
    with open(os.path.join(out, "cut-rank-0.pt.trace.json.gz"), "wb") as f:
        f.write(whole[: len(whole) * 2 // 3])
    first = text.index(b'"name": "ncclDevKernel_AllReduce')
    cut_at = text.index(b'"name": "ncclDevKernel_AllReduce', first + 1) + 20  # inside the second step's AllReduce
    with open(os.path.join(out, "cut-rank-0.pt.trace.json"), "wb") as f:
        f.write(text[:cut_at])
    with open(os.path.join(out, "not-a-trace.json"), "w") as f:
        f.write('{"model": "kimi", "results": [1, 2, 3]}\n')
    cpu = kw.Trace(rank=0, world_size=1)
    cpu.cpu_op("aten::mm", 10, 5)
    cpu.annotation("ProfilerStep#3", 0, 50)
    cpu.write(os.path.join(out, "cpu-only.json"))
    os.makedirs(os.path.join(out, "different-runs"), exist_ok=True)
    for rank, world in ((0, 8), (1, 2)):
        other = kw.Trace(rank=rank, world_size=world)
        other.kernel(GEMM, 10, 5, 1)
        other.write(os.path.join(out, "different-runs", f"run-rank-{rank}.json"))
    os.makedirs(os.path.join(out, "same-rank"), exist_ok=True)
    for name in ("a", "b"):
        same = kw.Trace(rank=0, world_size=2)
        same.kernel(GEMM, 10, 5, 1)
        same.write(os.path.join(out, "same-rank", f"{name}.json"))
    import sqlite3
    db = sqlite3.connect(os.path.join(out, "not-nsys.sqlite"))
    db.execute("CREATE TABLE results (name TEXT, value REAL)")
    db.execute("INSERT INTO results VALUES ('x', 1.0)")
    db.commit()
    db.close()
    with open(os.path.join(out, "corrupt.sqlite"), "wb") as f:
        f.write(b"SQLite format 3\0" + bytes(range(256)) * 64)
    os.mkfifo(os.path.join(out, "a-pipe"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="OUT_DIR", help="where the fixtures go, replacing what is there")
    out = parser.parse_args(argv).out
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    vllm_tp8(os.path.join(out, "vllm-tp8"))
    custom_ar_tp2(os.path.join(out, "custom-ar-tp2"))
    sglang_c10d_tp2(os.path.join(out, "sglang-c10d-tp2"))
    nsys_tp2(os.path.join(out, "nsys-tp2.sqlite"))
    nsys_graphs(os.path.join(out, "nsys-graphs.sqlite"))
    bad_inputs(os.path.join(out, "bad"))
    print(f"make_trace_fixtures: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
