// Kernel classes and collective kinds of a trace's activities: the table by name, c10d's args where the name
// says nothing.
#include "capture/analysis/trace_classes.hpp"

#include <algorithm>

namespace k25 {

TraceClasses::TraceClasses(const TraceCapture& trace, const KernelClassifier& classifier)
    : names_(trace.names),
      by_name_(trace.names.size()),
      by_collective_(trace.names.size(), kNoKind),
      backend_rules_(classifier.backend_rules()) {
  std::vector<bool> classified(trace.names.size(), false), collective_seen(trace.names.size(), false);
  for (const GpuActivity& a : trace.activities) {
    if (a.type != GpuActivityType::kernel) continue;
    if (!classified[a.name]) {
      classified[a.name] = true;
      const KernelClassification c = classifier.classify(trace.names[a.name]);
      NameClass& n = by_name_[a.name];
      n.cls = c.cls;
      n.dtype = c.dtype;
      if (c.cls == KernelClass::communication) {
        n.kind = kind_index(c.kind.empty() ? "unknown" : c.kind);
        n.says_nothing = kind_says_nothing(c.kind);
        n.backend = c.backend;
      }
    }
    if (a.collective == 0 || collective_seen[a.collective] || !by_name_[a.name].says_nothing) continue;
    collective_seen[a.collective] = true;
    const std::string kind = c10d_collective_kind(trace.names[a.collective]);
    if (!kind.empty()) by_collective_[a.collective] = kind_index(kind);
  }
}

std::uint16_t TraceClasses::kind_index(const std::string& kind) {
  const auto it = std::find(kinds_.begin(), kinds_.end(), kind);
  if (it != kinds_.end()) return static_cast<std::uint16_t>(it - kinds_.begin());
  kinds_.push_back(kind);
  return static_cast<std::uint16_t>(kinds_.size() - 1);
}

}  // namespace k25
