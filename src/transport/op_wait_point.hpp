// The op a timed-out wait names, described only on expiry (arming must not allocate): "MPI_Allreduce of
// allreduce at 16 tokens, op 37 of 122 (14336 bytes)". Shared by both transports' watchdogs.
#pragma once

#include <cstddef>
#include <string>

#include "common/call_watchdog.hpp"
#include "plan/collective_op.hpp"

namespace k25 {

struct OpWaitPoint final : WaitPoint {
  // `call`: the blocking call ("MPI_Allreduce", "ncclAllReduce"); `burst` and `op_index` the op it runs (no
  // burst: a call outside any op, described by `call` alone); `bytes`: the AllReduce's vector or what this
  // rank sends (0: not said); `verifying`: the correctness pass. `call` and `burst` must outlive the point.
  explicit OpWaitPoint(const char* call_name, const OpBurst* op_burst = nullptr, std::size_t index = 0,
                       std::size_t op_bytes = 0, bool correctness_pass = false)
      : call(call_name), burst(op_burst), op_index(index), bytes(op_bytes), verifying(correctness_pass) {}
  std::string describe() const override;

  const char* call;
  const OpBurst* burst;
  std::size_t op_index;
  std::size_t bytes;
  bool verifying;
};

}  // namespace k25
