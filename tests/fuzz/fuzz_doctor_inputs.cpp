// libFuzzer target: doctor's readers of other programs' files, NCCL's topology dump (XML), NCCL's INFO log
// and the documents --compare reads (doctor.json, report.json, capture.json), then the verdicts, the compare
// and the markdown of what they gave; and the walk of a bridge's PCI config space (sysfs `config`). The first
// byte picks the reader; bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/doctor_document.hpp"
#include "analysis/node_compare.hpp"
#include "common/error.hpp"
#include "report/node_markdown.hpp"
#include "topology/nccl_info_log.hpp"
#include "topology/nccl_topology_xml.hpp"
#include "topology/node_nccl.hpp"
#include "topology/pci_config.hpp"

namespace {

void judge_and_render(k25::DoctorDocument& document) {
  k25::derive_verdicts(document);
  (void)k25::doctor_markdown(document);
  (void)k25::doctor_console(document);
  (void)k25::compare_nodes(document, k25::DoctorDocument{});
  (void)k25::doctor_json_text(document);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    k25::DoctorDocument document;
    switch (data[0] % 4) {
      case 0:
        k25::add_nccl_topology(document.node, k25::parse_nccl_topology_xml(text, "fuzz.xml"));
        break;
      case 1: {
        k25::NcclInfoLog log;
        k25::read_nccl_info_log(text, "fuzz.log", log);
        k25::add_nccl_log(document.node, log);
        break;
      }
      case 3: {
        const k25::ConfigSpace space =
            k25::parse_config_space(std::vector<std::uint8_t>(text.begin(), text.end()));
        (void)space.port.words();
        (void)space.acs.lspci_words();
        (void)space.acs.redirects_peer_traffic();
        return 0;
      }
      default: {
        const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
        if (json.is_discarded()) return 0;
        document = k25::doctor_input_from_json(json, "fuzz.json");
        break;
      }
    }
    judge_and_render(document);
  } catch (const k25::Error&) {
    // The documented answer to a file doctor cannot read (exit 2). Anything else is a finding.
  }
  return 0;
}
