// GPU unit tests of kernels/: fill/verify of the exact-check data and MoE pack/unpack against a CPU
// reference, an in-place AllGather that did nothing caught by the check, the busy kernel's lower bound, the
// add + RMSNorm epilogue, and the peer all-reduce kernels at one rank over a burst.
// Skips (exit 77) without a CUDA device.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "k25_kernels.h"
#include "transport/check_pattern.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

void cuda(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess) {
    std::printf("CUDA error in %s: %s\n", call, cudaGetErrorString(rc));
    std::exit(1);
  }
}
#define CUDA(call) cuda((call), #call)

template <typename T>
struct Device {
  T* p = nullptr;
  explicit Device(std::size_t n) {
    CUDA(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

template <typename T>
std::vector<T> download(const T* p, std::size_t n) {
  std::vector<T> out(n);
  CUDA(cudaMemcpy(out.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

template <typename T>
void upload(T* p, const std::vector<T>& v) {
  CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

unsigned long long count_on_device(const std::function<cudaError_t(unsigned long long*)>& launch) {
  Device<unsigned long long> counter(1);
  CUDA(cudaMemset(counter.p, 0, sizeof(unsigned long long)));
  CUDA(launch(counter.p));
  CUDA(cudaDeviceSynchronize());
  return download(counter.p, 1)[0];
}

void test_allreduce_fill_and_count(k25::kernels::ElementType type, std::size_t elements) {
  const std::size_t bytes = type == k25::kernels::ElementType::bf16 ? 2 : 4;
  const std::string name = type == k25::kernels::ElementType::bf16 ? "bf16" : "fp32";
  Device<std::uint8_t> buffer(elements * bytes);
  for (int rank : {0, 1, 5}) {
    CUDA(k25::kernels::fill_allreduce_input(buffer.p, elements, type, rank, nullptr));
    CUDA(cudaDeviceSynchronize());
    const auto raw = download(buffer.p, elements * bytes);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < elements; ++i) {
      float value;
      if (bytes == 2) {
        std::uint16_t bits;
        std::memcpy(&bits, raw.data() + i * 2, 2);
        value = k25::check::bf16_to_float(bits);
      } else {
        std::memcpy(&value, raw.data() + i * 4, 4);
      }
      if (value != static_cast<float>(k25::check::allreduce_input(rank, i))) ++mismatches;
    }
    expect(mismatches == 0,
           name + " fill_allreduce_input matches the CPU formula, rank " + std::to_string(rank));
  }
  // A one-rank "reduction" of rank 0's input is exactly the expected result of 1 rank.
  CUDA(k25::kernels::fill_allreduce_input(buffer.p, elements, type, 0, nullptr));
  expect(count_on_device([&](unsigned long long* c) {
           return k25::kernels::count_allreduce_wrong(buffer.p, elements, 0, type, 1, c, nullptr);
         }) == 0,
         name + " count_allreduce_wrong finds nothing on a correct one-rank result");
  // The CPU-summed result of 4 ranks, uploaded: nothing wrong; then 3 elements spoiled: 3 wrong.
  std::vector<std::uint8_t> summed(elements * bytes);
  for (std::size_t i = 0; i < elements; ++i) {
    int sum = 0;
    for (int r = 0; r < 4; ++r) sum += k25::check::allreduce_input(r, i);
    if (bytes == 2) {
      const std::uint16_t bits = k25::check::float_to_bf16(static_cast<float>(sum));
      std::memcpy(summed.data() + i * 2, &bits, 2);
    } else {
      const float value = static_cast<float>(sum);
      std::memcpy(summed.data() + i * 4, &value, 4);
    }
  }
  upload(buffer.p, summed);
  expect(count_on_device([&](unsigned long long* c) {
           return k25::kernels::count_allreduce_wrong(buffer.p, elements, 0, type, 4, c, nullptr);
         }) == 0,
         name + " count_allreduce_wrong accepts the CPU sum of 4 ranks");
  CUDA(cudaMemset(buffer.p, 0xFF, bytes));                           // NaN
  CUDA(cudaMemset(buffer.p + (elements / 2) * bytes, 0, bytes));     // 0
  CUDA(cudaMemset(buffer.p + (elements - 1) * bytes, 0x40, bytes));  // some other number
  expect(count_on_device([&](unsigned long long* c) {
           return k25::kernels::count_allreduce_wrong(buffer.p, elements, 0, type, 4, c, nullptr);
         }) == 3,
         name + " count_allreduce_wrong counts 3 spoiled elements");
}

void test_alltoall_blocks() {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{7408}, std::size_t{1} << 20}) {
    Device<std::uint8_t> block(bytes);
    CUDA(k25::kernels::fill_alltoall_block(block.p, bytes, 3, 6, nullptr));
    CUDA(cudaDeviceSynchronize());
    const auto got = download(block.p, bytes);
    std::size_t mismatches = 0;
    for (std::size_t j = 0; j < bytes; ++j)
      if (got[j] != k25::check::alltoall_byte(3, 6, j)) ++mismatches;
    expect(mismatches == 0,
           "fill_alltoall_block matches the CPU pattern, " + std::to_string(bytes) + " bytes");
    expect(count_on_device([&](unsigned long long* c) {
             return k25::kernels::count_alltoall_block_wrong(block.p, bytes, 3, 6, c, nullptr);
           }) == 0,
           "count_alltoall_block_wrong accepts the right block");
    expect(count_on_device([&](unsigned long long* c) {
             return k25::kernels::count_alltoall_block_wrong(block.p, bytes, 6, 3, c, nullptr);
           }) > 0,
           "count_alltoall_block_wrong rejects a block from the wrong peer");
  }
}

// The in-place AllGather check as the nccl transport runs it: the whole result cleared, this rank's part
// filled as the input, then counted. A gather that did nothing must count every byte of the other parts that
// differs.
void test_in_place_allgather_that_did_nothing() {
  const int ranks = 4, rank = 1;
  const std::size_t part = 14336;
  Device<std::uint8_t> result(part * ranks);
  CUDA(cudaMemset(result.p, 0, part * ranks));
  CUDA(k25::kernels::fill_alltoall_block(result.p + rank * part, part, rank, 0, nullptr));
  unsigned long long wrong = 0;
  std::size_t want = 0;
  for (int peer = 0; peer < ranks; ++peer) {
    wrong += count_on_device([&](unsigned long long* c) {
      return k25::kernels::count_alltoall_block_wrong(result.p + peer * part, part, peer, 0, c, nullptr);
    });
    if (peer != rank)
      for (std::size_t j = 0; j < part; ++j) want += k25::check::allgather_byte(peer, j) != 0;
  }
  expect(wrong == want && want > 0, "an in-place AllGather that did nothing counts " + std::to_string(want) +
                                        " wrong bytes (counted " + std::to_string(wrong) + ")");
}

// busy_for(ns) keeps the stream busy for at least ns, measured by events around it, however the timer ticks.
void test_busy_lower_bound() {
  cudaEvent_t before, after;
  CUDA(cudaEventCreate(&before));
  CUDA(cudaEventCreate(&after));
  float shortest_ms = 1e9f;
  for (int i = 0; i < 200; ++i) {
    CUDA(cudaEventRecord(before, nullptr));
    CUDA(k25::kernels::busy_for(20000, nullptr));
    CUDA(cudaEventRecord(after, nullptr));
    CUDA(cudaEventSynchronize(after));
    float ms = 0;
    CUDA(cudaEventElapsedTime(&ms, before, after));
    shortest_ms = std::min(shortest_ms, ms);
  }
  CUDA(cudaEventDestroy(before));
  CUDA(cudaEventDestroy(after));
  expect(shortest_ms * 1000.0f >= 20.0f, "busy_for(20 us) lasted at least 20 us in 200 runs (shortest " +
                                             std::to_string(shortest_ms * 1000.0f) + " us)");
}

void test_dispatch_pack(std::size_t row_bytes, bool misaligned) {
  const int tokens = 13;
  const std::size_t copies = 40;
  std::vector<std::uint8_t> rows(tokens * row_bytes);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
  std::vector<std::int32_t> row_of_copy(copies);
  for (std::size_t i = 0; i < copies; ++i) row_of_copy[i] = static_cast<std::int32_t>((i * 7 + 3) % tokens);
  const std::size_t shift = misaligned ? 1 : 0;
  Device<std::uint8_t> d_rows(rows.size() + shift), d_send(copies * row_bytes + shift);
  Device<std::int32_t> d_map(copies);
  CUDA(cudaMemcpy(d_rows.p + shift, rows.data(), rows.size(), cudaMemcpyHostToDevice));
  upload(d_map.p, row_of_copy);
  CUDA(k25::kernels::moe_dispatch_pack(d_rows.p + shift, d_map.p, copies, row_bytes, d_send.p + shift,
                                       nullptr));
  CUDA(cudaDeviceSynchronize());
  std::vector<std::uint8_t> got(copies * row_bytes);
  CUDA(cudaMemcpy(got.data(), d_send.p + shift, got.size(), cudaMemcpyDeviceToHost));
  std::size_t mismatches = 0;
  for (std::size_t c = 0; c < copies; ++c)
    for (std::size_t b = 0; b < row_bytes; ++b)
      if (got[c * row_bytes + b] != rows[static_cast<std::size_t>(row_of_copy[c]) * row_bytes + b])
        ++mismatches;
  expect(mismatches == 0, "moe_dispatch_pack gathers rows like the CPU, row " + std::to_string(row_bytes) +
                              " bytes" + (misaligned ? ", misaligned" : ""));
}

void test_combine_unpack(k25::kernels::ElementType type) {
  const std::size_t tokens = 9, elements = 7168, copies = 25;
  const std::size_t bytes = type == k25::kernels::ElementType::bf16 ? 2 : 4;
  // Copy c belongs to token c % tokens (the transport's map); values are small integers, exact in bf16.
  std::vector<std::int32_t> offsets(tokens + 1, 0), index;
  for (std::size_t t = 0; t < tokens; ++t) {
    offsets[t] = static_cast<std::int32_t>(index.size());
    for (std::size_t c = t; c < copies; c += tokens) index.push_back(static_cast<std::int32_t>(c));
  }
  offsets[tokens] = static_cast<std::int32_t>(index.size());
  const auto value = [](std::size_t copy, std::size_t e) { return static_cast<float>((copy * 3 + e) % 17); };
  std::vector<std::uint8_t> recv(copies * elements * bytes);
  for (std::size_t c = 0; c < copies; ++c)
    for (std::size_t e = 0; e < elements; ++e) {
      const float v = value(c, e);
      if (bytes == 2) {
        const std::uint16_t b = k25::check::float_to_bf16(v);
        std::memcpy(recv.data() + (c * elements + e) * 2, &b, 2);
      } else {
        std::memcpy(recv.data() + (c * elements + e) * 4, &v, 4);
      }
    }
  Device<std::uint8_t> d_recv(recv.size()), d_out(tokens * elements * bytes);
  Device<std::int32_t> d_offsets(offsets.size()), d_index(index.size());
  upload(d_recv.p, recv);
  upload(d_offsets.p, offsets);
  upload(d_index.p, index);
  CUDA(k25::kernels::moe_combine_unpack(d_recv.p, d_offsets.p, d_index.p, tokens, elements, type, d_out.p,
                                        nullptr));
  CUDA(cudaDeviceSynchronize());
  const auto out = download(d_out.p, tokens * elements * bytes);
  std::size_t mismatches = 0;
  for (std::size_t t = 0; t < tokens; ++t)
    for (std::size_t e = 0; e < elements; ++e) {
      float expected = 0.0f;
      for (std::size_t c = t; c < copies; c += tokens) expected += value(c, e);
      float got;
      if (bytes == 2) {
        std::uint16_t b;
        std::memcpy(&b, out.data() + (t * elements + e) * 2, 2);
        got = k25::check::bf16_to_float(b);
      } else {
        std::memcpy(&got, out.data() + (t * elements + e) * 4, 4);
      }
      if (got != expected) ++mismatches;
    }
  expect(mismatches == 0,
         std::string("moe_combine_unpack sums copies like the CPU, ") + (bytes == 2 ? "bf16" : "fp32"));
}

// The CPU's normed row of op `op` of the burst check at one rank (the sum is the input), parity 0 and 1:
// add_rmsnorm.hpp's reference, written again here (this program links the kernels alone).
std::vector<float> epilogue_reference_rows(std::size_t row, std::uint64_t op) {
  std::vector<float> rows(2 * row);
  for (int parity = 0; parity < 2; ++parity) {
    std::vector<double> x(row);
    double squares = 0;
    for (std::size_t j = 0; j < row; ++j) {
      x[j] = k25::check::allreduce_burst_expected(1, static_cast<std::uint64_t>(parity) + j, op) +
             k25::check::epilogue_residual(j);
      squares += x[j] * x[j];
    }
    const double scale = 1.0 / std::sqrt(squares / static_cast<double>(row) + k25::check::kEpilogueEps);
    for (std::size_t j = 0; j < row; ++j)
      rows[static_cast<std::size_t>(parity) * row + j] =
          static_cast<float>(x[j] * scale * k25::check::epilogue_weight(j));
  }
  return rows;
}

// Each peer algorithm at one rank (its own buffer as the only peer's): a burst of 5 ops, op k's input the
// burst check's, every op's result exact (with the fused epilogue: the residual output exact, the normed
// output within the bound of the CPU's reference), no wait given up, one epoch per op and block.
void test_peer_allreduce_one_rank(k25::kernels::PeerAlgorithm algorithm, bool epilogue) {
  using k25::kernels::ElementType;
  const std::size_t rows = 3, row = 7168, count = rows * row, bytes = count * 2;
  const std::size_t flags = 32 * 2 * 8 * 64, slots = flags, gather = slots + bytes;
  Device<std::uint8_t> buffer(gather + 2 * bytes), input(bytes), output(bytes), residual(bytes), norm(bytes),
      weight(row * 2);
  Device<std::uint32_t> epochs(k25::kernels::kPeerBlocks);
  Device<float> reference(2 * row);
  CUDA(cudaMemset(buffer.p, 0, gather + 2 * bytes));
  CUDA(cudaMemset(epochs.p, 0, k25::kernels::kPeerBlocks * sizeof(std::uint32_t)));
  unsigned* status = nullptr;
  CUDA(cudaHostAlloc(reinterpret_cast<void**>(&status), 10 * sizeof(unsigned), cudaHostAllocMapped));
  std::memset(status, 0, 10 * sizeof(unsigned));
  unsigned* status_device = nullptr;
  CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&status_device), status, 0));
  k25::kernels::PeerAllreduceArgs args;
  args.algorithm = algorithm;
  args.type = ElementType::bf16;
  args.input = input.p;
  args.output = output.p;
  args.count = count;
  args.buffers[0] = buffer.p;
  args.slots_offset = slots;
  args.slot_bytes = bytes;
  args.gather_offset = gather;
  args.gather_bytes = bytes;
  args.epochs = epochs.p;
  args.bound_ns = 5'000'000'000ull;
  args.status = status_device;
  if (epilogue) {
    args.rows = rows;
    args.residual = residual.p;
    args.weight = weight.p;
    args.norm_out = norm.p;
    CUDA(k25::kernels::fill_epilogue_inputs(residual.p, weight.p, rows, row, ElementType::bf16, nullptr));
  }
  unsigned long long wrong = 0;
  for (std::uint64_t op = 0; op < 5; ++op) {
    CUDA(k25::kernels::fill_allreduce_input(input.p, count, ElementType::bf16, 0, nullptr, op, 1));
    CUDA(cudaMemset(output.p, 0xFF, bytes));
    args.op_tag = static_cast<unsigned>(op);
    CUDA(k25::kernels::peer_allreduce(args, nullptr));
    if (epilogue) {
      upload(reference.p, epilogue_reference_rows(row, op));
      wrong += count_on_device([&](unsigned long long* c) {
        return k25::kernels::count_epilogue_wrong(output.p, norm.p, rows, row, ElementType::bf16, 1, op,
                                                  reference.p, c, nullptr);
      });
    } else {
      wrong += count_on_device([&](unsigned long long* c) {
        return k25::kernels::count_allreduce_wrong(output.p, count, 0, ElementType::bf16, 1, c, nullptr, op);
      });
    }
  }
  const std::string name = "peer_allreduce algorithm " + std::to_string(static_cast<int>(algorithm)) +
                           (epilogue ? " with the epilogue" : "");
  expect(wrong == 0, name + " at one rank: every op of the burst exact");
  expect(status[0] == 0, name + ": no wait gave up");
  expect(download(epochs.p, 1)[0] == 5, name + ": one epoch per op");
  cudaFreeHost(status);
}

// The separate epilogue kernel (NCCL's path) on a one-rank sum against the CPU's reference.
void test_add_rmsnorm_kernel() {
  using k25::kernels::ElementType;
  const std::size_t rows = 4, row = 7168, count = rows * row;
  Device<std::uint16_t> sum(count), residual(count), norm(count), weight(row);
  Device<float> reference(2 * row);
  CUDA(k25::kernels::fill_allreduce_input(sum.p, count, ElementType::bf16, 0, nullptr, 2, 1));
  CUDA(k25::kernels::fill_epilogue_inputs(residual.p, weight.p, rows, row, ElementType::bf16, nullptr));
  CUDA(k25::kernels::add_rmsnorm(sum.p, residual.p, weight.p, norm.p, rows, row, ElementType::bf16, nullptr));
  upload(reference.p, epilogue_reference_rows(row, 2));
  expect(count_on_device([&](unsigned long long* c) {
           return k25::kernels::count_epilogue_wrong(sum.p, norm.p, rows, row, ElementType::bf16, 1, 2,
                                                     reference.p, c, nullptr);
         }) == 0,
         "add_rmsnorm: the residual output exact, the normed output within the bound of the CPU's");
}

}  // namespace

int main() {
  k25::gpu_test::skip_without_device("k25 kernel tests");
  test_allreduce_fill_and_count(k25::kernels::ElementType::bf16, 7168 * 256 + 5);
  test_allreduce_fill_and_count(k25::kernels::ElementType::fp32, 7168 + 3);
  test_alltoall_blocks();
  test_dispatch_pack(7408, false);   // fp8 dispatch row: 16-byte vector path
  test_dispatch_pack(7408, true);    // misaligned buffers: byte path
  test_dispatch_pack(14336, false);  // bf16 row
  test_dispatch_pack(100, false);    // not a multiple of 16: byte path
  test_combine_unpack(k25::kernels::ElementType::bf16);
  test_combine_unpack(k25::kernels::ElementType::fp32);
  test_in_place_allgather_that_did_nothing();
  test_busy_lower_bound();
  test_add_rmsnorm_kernel();
  for (const auto algorithm :
       {k25::kernels::PeerAlgorithm::oneshot_push, k25::kernels::PeerAlgorithm::twoshot,
        k25::kernels::PeerAlgorithm::oneshot_pull})
    for (const bool epilogue : {false, true}) test_peer_allreduce_one_rank(algorithm, epilogue);
  std::printf("%s: %d failure(s)\n", failures == 0 ? "PASSED" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
