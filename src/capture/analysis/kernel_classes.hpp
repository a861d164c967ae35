// Kernel classes as data: a table of kernel-name patterns (the one shipped in data/kernel-classes.yaml, and
// the user's --kernel-classes tables before it) that sorts each GPU kernel into a class and, for
// communication, its collective kind and element type.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernel_class.hpp"

namespace k25 {

struct KernelClassification {
  KernelClass cls = KernelClass::unclassified;
  std::string kind;   // communication: "AllReduce", "AllGather", "SendRecv", "Dispatch", ...
  std::string dtype;  // where the name gives it: "bf16", "float"
  std::string
      backend;  // communication: the library and kernel that ran it ("NCCL (RING_LL kernel)"); "" unknown
};

// An engine's own rule that would have chosen another backend on another link (the table's backend_rules):
// it applies where a backend whose name starts with `backend` ran on more than `above_ranks` ranks.
struct BackendRule {
  std::string backend;
  int above_ranks = 0;
  std::string rule, source;
};

// Where the shipped table is: data/kernel-classes.yaml looked up as the configs are (the working directory,
// beside the executable, the install prefix: shared_file_lookup); empty when it cannot be found.
std::string shipped_kernel_class_table();

// The collective kind of c10d's "Collective name" (record_param_comms args: "allreduce", "_allgather_base",
// "reduce_scatter_tensor_coalesced", "alltoall_base", "send"): "AllReduce", "AllGather", ...; "" when
// unknown.
std::string c10d_collective_kind(std::string_view collective);

// Whether a kind taken from a kernel's name says nothing of the collective (NCCL's generic kernel, the
// catch-all rule): the kernel's c10d args say more where it has them.
bool kind_says_nothing(std::string_view kind);

class KernelClassifier {
 public:
  // Loads `tables` in order (the first matching rule of the first table wins). Throws UsageError naming the
  // file and line for a table that cannot be read, a bad pattern or an unknown class.
  explicit KernelClassifier(const std::vector<std::string>& tables);
  ~KernelClassifier();
  KernelClassifier(KernelClassifier&&) noexcept;
  KernelClassifier& operator=(KernelClassifier&&) noexcept;

  KernelClassification classify(std::string_view kernel_name) const;
  const std::vector<std::string>& tables() const;
  std::size_t rules() const;
  const std::vector<BackendRule>& backend_rules() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace k25
