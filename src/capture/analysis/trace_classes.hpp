// The first step of the trace analysis: each kernel's class and, for communication, its collective kind and
// element type, from its name (the kernel-class table) or, where the name does not say, from the c10d args
// on the kernel ("Collective name", "dtype").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "capture/analysis/kernel_classes.hpp"
#include "capture/model/trace_model.hpp"

namespace k25 {

class TraceClasses {
 public:
  TraceClasses(const TraceCapture& trace, const KernelClassifier& classifier);

  // Copies and sets are memcpy_memset whatever their name.
  KernelClass class_of(const GpuActivity& a) const {
    return a.type == GpuActivityType::kernel ? by_name_[a.name].cls : KernelClass::memcpy_memset;
  }
  bool is_comm(const GpuActivity& a) const {
    return a.type == GpuActivityType::kernel && by_name_[a.name].cls == KernelClass::communication;
  }
  // Into kinds() (communication kernels only).
  std::uint16_t kind_of(const GpuActivity& a) const {
    const NameClass& n = by_name_[a.name];
    if (n.says_nothing && a.collective != 0 && by_collective_[a.collective] != kNoKind)
      return by_collective_[a.collective];
    return n.kind;
  }
  // The name's element type, else the c10d args' ("" where neither says).
  const std::string& dtype_of(const GpuActivity& a) const {
    return by_name_[a.name].dtype.empty() ? names_[a.dtype] : by_name_[a.name].dtype;
  }
  const std::vector<std::string>& kinds() const { return kinds_; }
  // The backend the name gives a communication kernel ("" where the table names none).
  const std::string& backend_of(const GpuActivity& a) const { return by_name_[a.name].backend; }
  // The table's engine rules for backends (KernelClassifier::backend_rules).
  const std::vector<BackendRule>& backend_rules() const { return backend_rules_; }

 private:
  static constexpr std::uint16_t kNoKind = UINT16_MAX;
  struct NameClass {
    KernelClass cls = KernelClass::unclassified;
    std::uint16_t kind = 0;
    bool says_nothing = false;  // the kind from the name is "Generic" or the like
    std::string dtype, backend;
  };
  std::uint16_t kind_index(const std::string& kind);

  const NameTable& names_;
  std::vector<std::string> kinds_;
  std::vector<NameClass> by_name_;
  std::vector<std::uint16_t> by_collective_;  // per name: the kind a c10d collective name gives
  std::vector<BackendRule> backend_rules_;
};

}  // namespace k25
