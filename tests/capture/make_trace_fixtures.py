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
  pattern-tp2/       2 gzip files named -TP-N without step marks: the steps are the collectives' pattern (8
                     AllReduces of 7168 T BFloat16 elements, Kimi's hidden size, then an AllGather); T = 1, 1, 1,
                     1, 2, 2, 4, 4: no jump of 4 x, so the factor calls every step decode, --prefill-tokens 2 the
                     two of 4 tokens prefill
  nsys-tp2.sqlite    an Nsight Systems export of two processes (device 0 and 1) with the same correlation ids,
                     NVTX marks and NCCL ranges carrying "Message size [bytes]" payloads (JSON)
  nsys-graphs.sqlite an export that traced CUDA graphs whole (graph launches, no kernels inside them)
  deepseek-ep/       DeepSeek's own DeepEP build (dpsk::ep::internode::...): 4 notify_dispatch and 12 cached_notify
                     kernels (Notify, 6 us each), 8 dispatch (120 us) and 8 combine (80 us), 4 get_dispatch_layout
  backends-tp8/      one rank of 8 whose collectives ran on eleven backends: NCCL with c10d sizes, vLLM's custom
                     all-reduce, torch symmetric memory, FlashInfer's fusion, DeepEP low-latency, NCCL symmetric,
                     quick all-reduce, MSCCL++, pplx-kernels, NCCL EP, TRT-LLM's fusion
  training-*/        five training iterations without ProfilerStep marks, the GPU mostly idle: with the optimizer's
                     Optimizer.step#SGD.step marks (optimizer/), with nn.Module python_function calls (modules/),
                     with neither (gaps/)
  profiler-steps-tp2/ two ranks, ProfilerStep#1..#3 with NCCL collectives; #3 launched no GPU work
  epoch-fraction/    microseconds since the epoch with three decimals ("ts": 1712195495519689.047)
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


def c10d_eager_steps(t, start_us, r, steps, allreduce_per_token, mark=None, allreduce_args=None):
    """Step s of rank r at T = start_us + 100 s + 0.25 r (us), T = steps[s] tokens: for k < 8, GEMM [T+5k, +2),
    AllReduce [T+5k+2.5, +2) of allreduce_per_token x T BFloat16 elements; AllGather [T+40, +3) of 500 T elements
    per rank. Eager launches, c10d's args on the collectives (more of them on the AllReduces: allreduce_args),
    inside the mark `mark` (formatted with tokens=T) [T-30, +75) where one is given."""
    corr = 1
    for s, tokens in enumerate(steps):
        T = start_us + 100 * s + 0.25 * r
        if mark:
            t.annotation(mark.format(tokens=tokens), T - 30, 75)
        launch = T - 29
        for k in range(8):
            t.runtime("cudaLaunchKernel", launch, 0.5, corr)
            t.kernel(GEMM, T + 5 * k, 2, corr)
            corr += 1
            t.runtime("cuLaunchKernelEx", launch + 1, 0.5, corr, cat="cuda_driver")
            t.kernel(ALLREDUCE, T + 5 * k + 2.5, 2, corr, stream=7,
                     c10d={"Collective name": "allreduce", "In msg nelems": allreduce_per_token * tokens,
                           "Out msg nelems": allreduce_per_token * tokens, "Group size": 2, "dtype": "BFloat16",
                           **(allreduce_args or {})})
            corr += 1
            launch += 3
        t.runtime("cuLaunchKernelEx", launch, 0.5, corr, cat="cuda_driver")
        t.kernel(ALLGATHER, T + 40, 3, corr,
                 c10d={"Collective name": "_allgather_base", "In msg nelems": 500 * tokens,
                       "Out msg nelems": 1000 * tokens, "Group size": 2, "dtype": "BFloat16"})
        corr += 1


def sglang_c10d_tp2(out):
    """c10d_eager_steps from T = 5000 us with 256 T elements per AllReduce inside the mark step[DECODE bs=T];
    T = 1, 2, 4, 1, 2, 4."""
    os.makedirs(out, exist_ok=True)
    for r in range(2):
        t = kw.Trace(rank=r, world_size=2, device=r)
        c10d_eager_steps(t, 5000, r, [1, 2, 4, 1, 2, 4], 256, mark="step[DECODE bs={tokens}]",
                         allreduce_args={"In split size": "[]", "Out split size": "[]", "Process Group Name": "0",
                                         "Process Group Description": "default_pg",
                                         "Process Group Ranks": "[0, 1]"})
        t.write(os.path.join(out, f"sglang-{1767225600 + r}-TP-{r}.trace.json.gz"))


def pattern_tp2(out):
    """c10d_eager_steps from T = 8000 us with 7168 T elements per AllReduce (Kimi's hidden size), no step mark;
    T = 1, 1, 1, 1, 2, 2, 4, 4."""
    os.makedirs(out, exist_ok=True)
    for r in range(2):
        t = kw.Trace(rank=r, world_size=2, device=r)
        c10d_eager_steps(t, 8000, r, [1, 1, 1, 1, 2, 2, 4, 4], 7168)
        t.write(os.path.join(out, f"pattern-{1767225600 + r}-TP-{r}.trace.json.gz"))


def deepseek_ep(out):
    """Rank 0 of 16, ProfilerStep#1 [0, 4000) on the host: for s < 4, at T = 900 s (us) get_dispatch_layout
    [T, +4), notify_dispatch [T+10, +6), cached_notify three times [T+20+10c, +6), dispatch twice
    [T+100+200d, +120), combine twice [T+500+200d, +80)."""
    os.makedirs(out, exist_ok=True)
    ns = "void dpsk::ep::internode::"
    layout = "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int)"
    notify = ns + "notify_dispatch<false, 8, 4>(int const*, int*, int, int const*, int*, int, int, bool const*, int*, int*, int*, int*)"
    cached = ns + "cached_notify<8>(int, int, int, int, int*, int*, int*, void*, int*, int, int, int, bool)"
    dispatch = ns + "dispatch<false, 8, 4, 2, 2048>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*)"
    combine = ns + "combine<__nv_bfloat16, 8, 4, 2048>(int4*, float*, bool const*, int4 const*, float const*)"
    t = kw.Trace(rank=0, world_size=16)
    t.annotation("ProfilerStep#1", 0, 4000)
    corr = 1
    for s in range(4):
        T = 900 * s
        kernels = [(layout, T, 4), (notify, T + 10, 6)] + [(cached, T + 20 + 10 * c, 6) for c in range(3)]
        kernels += [(dispatch, T + 100 + 200 * d, 120) for d in range(2)]
        kernels += [(combine, T + 500 + 200 * d, 80) for d in range(2)]
        for name, start, dur in kernels:
            t.runtime("cudaLaunchKernelExC", start - 1 if start > 0 else 0, 0.5, corr)
            t.kernel(name, start, dur, corr)
            corr += 1
    t.write(os.path.join(out, "dpsk-rank0.pt.trace.json.gz"))


# One kernel name per backend, the backend the kernel-class table names it, and its c10d args (None: none).
BACKEND_KERNELS = [
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20,
     {"Collective name": "allreduce", "In msg nelems": 7168, "Out msg nelems": 7168, "Group size": 8,
      "dtype": "BFloat16"}),
    ("void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
     12, None),
    ("void c10d::symmetric_memory::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8, false, false>(c10::BFloat16**, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)",
     9, None),
    ("void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8, true>(flashinfer::trtllm_allreduce_fusion::AllReduceFusionParams<__nv_bfloat16>)",
     7, None),
    ("void deep_ep::internode_ll::dispatch<false, 3, 10, 7168>(void*, float*, int*, long*, int*, int*, long*, void*)",
     30, None),
    ("ncclSymkDevKernel_AllReduce_RSxLD_AGxST_sum_bf16(ncclSymkDevWorkArgs4K)", 8, None),
    ("void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<__hip_bfloat16, quickreduce::CodecFP<__hip_bfloat16>, false>>(__hip_bfloat16 const*, __hip_bfloat16*, unsigned int, int, int, unsigned char**, unsigned int, long)",
     11, None),
    ("void allreduce_LL_1node<__nv_bfloat16>(mscclpp::MemoryChannelDeviceHandle*, __nv_bfloat16*, __nv_bfloat16*, void*, int, int, int, unsigned long, unsigned int)",
     6, None),
    ("void (anonymous namespace)::dispatchKernel<8u, true, true>(int*, unsigned long, std::byte*, unsigned long, unsigned long)",
     25, None),
    ("nccl_ep_jit_ll_combine_kernel", 28, None),
    ("void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<(tensorrt_llm::kernels::ar_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 8, true, true>(tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams)",
     5, None),
]


def backends_tp8(out):
    """Rank 0 of 8, eager: backend b's kernel k (k < b + 1) at 1000 b + 100 k (us), for its duration."""
    os.makedirs(out, exist_ok=True)
    t = kw.Trace(rank=0, world_size=8)
    corr = 1
    for b, (name, dur, c10d) in enumerate(BACKEND_KERNELS):
        for k in range(b + 1):
            start = 1000 * b + 100 * k
            t.runtime("cudaLaunchKernel", start - 5, 1, corr)
            t.kernel(name, start, dur, corr, c10d=c10d)
            corr += 1
    t.write(os.path.join(out, "backends-rank-0.pt.trace.json"))


TRAIN_GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)"
TRAIN_OPT = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3> >(...)"


def training(out, host_marks):
    """Rank 0 of 1, 5 iterations at T = 1000 + 10000 i (us): forward GEMMs [T+100k, +50) for k < 4, launched at
    T+100k-10 on thread 100; backward GEMMs [T+1000+100k, +50), launched at T+1000+100k-10 on thread 200 (the
    autograd thread); the optimizer's kernel [T+2000, +100), launched at T+1950 on thread 100. GPU busy 500 us an
    iteration, idle 94.1 % of the span 1000..43100 (42.1 ms). `host_marks`: "optimizer" (Optimizer.step#SGD.step
    [T+1900, +60) on thread 100), "modules" (python_function nn.Module: Net_0 [T-20, +420) with nn.Module:
    Linear_0 inside, on thread 100) or "" (none)."""
    os.makedirs(out, exist_ok=True)
    t = kw.Trace(rank=0, world_size=1)
    corr = 1
    for i in range(5):
        T = 1000 + 10000 * i
        if host_marks == "optimizer":
            t.annotation("Optimizer.step#SGD.step", T + 1900, 60)
            t.annotation("Optimizer.zero_grad#SGD.zero_grad", T - 50, 10)
        elif host_marks == "modules":
            t.cpu_op("nn.Module: Net_0", T - 20, 420, cat="python_function", args={"Python id": 7, "Ev Idx": 1})
            t.cpu_op("nn.Module: Linear_0", T - 15, 30, cat="python_function", args={"Python id": 8, "Ev Idx": 2})
        for k in range(4):
            t.runtime("cudaLaunchKernel", T + 100 * k - 10, 2, corr)
            t.kernel(TRAIN_GEMM, T + 100 * k, 50, corr)
            corr += 1
        for k in range(4):
            t.runtime("cudaLaunchKernel", T + 1000 + 100 * k - 10, 2, corr, tid=200)
            t.kernel(TRAIN_GEMM, T + 1000 + 100 * k, 50, corr)
            corr += 1
        t.runtime("cudaLaunchKernel", T + 1950, 2, corr)
        t.kernel(TRAIN_OPT, T + 2000, 100, corr)
        corr += 1
    t.write(os.path.join(out, "train-rank-0.pt.trace.json"))


def profiler_steps_tp2(out):
    """Ranks 0 and 1 of 2 (rank r shifted by r us): ProfilerStep#s [T-50, +40) on the host at T = 1000 s for
    s = 1, 2, 3, launching in #1 and #2: GEMM [T, +30), AllReduce [T+40, +20) and SendRecv [T+70, +10) (NCCL 2.18
    names, no sizes); #3 launches nothing."""
    os.makedirs(out, exist_ok=True)
    allreduce = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
    sendrecv = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
    for r in range(2):
        t = kw.Trace(rank=r, world_size=2, device=r)
        corr = 1
        for s in (1, 2, 3):
            T = 1000 * s + r
            t.annotation(f"ProfilerStep#{s}", T - 50, 40)
            if s == 3:
                t.cpu_op("aten::empty", T - 45, 2)
                continue
            for k, (name, offset, dur) in enumerate(((TRAIN_GEMM, 0, 30), (allreduce, 40, 20), (sendrecv, 70, 10))):
                t.runtime("cudaLaunchKernel", T - 45 + 5 * k, 2, corr)
                t.kernel(name, T + offset, dur, corr)
                corr += 1
        t.write(os.path.join(out, f"train-rank-{r}.pt.trace.json"))


def epoch_fraction(out):
    """Rank 0 of 1, microseconds since the epoch 1712195495519689.047 with three decimals: GEMMs at +0 and
    +97652.895 (us), 10 us each, both launched in ProfilerStep#7 [-20, +97700): a step wall of 97,662.895 us
    exactly (doubles keep only 0.25 us of such a timestamp)."""
    os.makedirs(out, exist_ok=True)
    t = kw.Trace(rank=0, world_size=1, base_ns=None, epoch_us=1712195495519689, epoch_fraction=True)
    t.annotation("ProfilerStep#7", 0.047 - 20, 97700)
    for corr, start in ((1, 0.047), (2, 97652.942)):
        t.runtime("cudaLaunchKernel", start - 10, 1, corr)
        t.kernel(TRAIN_GEMM, start, 10, corr)
    t.write(os.path.join(out, "epoch-rank-0.pt.trace.json"))


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
    compact = text.replace(b"\n", b"").replace(b",  ", b", ")  # one line, as some writers give it
    with open(os.path.join(out, "cut-compact.json"), "wb") as f:
        f.write(compact[: len(compact) // 2])
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
    pattern_tp2(os.path.join(out, "pattern-tp2"))
    nsys_tp2(os.path.join(out, "nsys-tp2.sqlite"))
    nsys_graphs(os.path.join(out, "nsys-graphs.sqlite"))
    deepseek_ep(os.path.join(out, "deepseek-ep"))
    backends_tp8(os.path.join(out, "backends-tp8"))
    for marks, name in (("optimizer", "training-optimizer"), ("modules", "training-modules"), ("", "training-gaps")):
        training(os.path.join(out, name), marks)
    profiler_steps_tp2(os.path.join(out, "profiler-steps-tp2"))
    epoch_fraction(os.path.join(out, "epoch-fraction"))
    bad_inputs(os.path.join(out, "bad"))
    print(f"make_trace_fixtures: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
