// libFuzzer target: doctor's readers of what people paste (every family of its table: nvidia-smi topo -m and
// -p2p, NCCL's INFO log, nccl-tests' header, NCCL's topology dump, lspci, the P2P bandwidth tests, dcgmi diag
// JSON, a kernel command line; one family, or every family a file's text sniffs as), the node model built
// from them, the verdicts, doctor.json both ways, doctor.md, the console text and compare; the documents
// --compare reads (doctor.json, report.json, capture.json); and the walk of a bridge's PCI config space
// (sysfs `config`). The first byte picks the reader; bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "doctor/doctor_run.hpp"
#include "doctor/readers/input_formats.hpp"
#include "doctor/readers/node_builder.hpp"
#include "doctor/render/doctor_markdown.hpp"
#include "topology/pci_config.hpp"

namespace {

void judge_and_render(k25::DoctorDocument& document) {
  k25::derive_verdicts(document);
  (void)k25::doctor_markdown(document);
  (void)k25::doctor_console(document);
  (void)k25::compare_nodes(document, k25::DoctorDocument{});
  const std::string text = k25::doctor_json_text(document);
  // What the writer wrote, the reader reads.
  (void)k25::doctor_input_from_json(nlohmann::json::parse(text), "fuzz-doctor.json");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::vector<k25::DoctorFormat>& formats = k25::doctor_formats();
  const std::size_t choice = data[0] % (formats.size() + 3);
  try {
    k25::DoctorDocument document;
    if (choice < formats.size() + 1) {
      k25::NodeBuildInputs inputs;
      const k25::PastedText pasted = k25::pasted_text("fuzz.txt", text);
      document.inputs.push_back(choice < formats.size()
                                    ? k25::read_pasted_as(pasted, formats[choice].family, inputs.pasted)
                                    : k25::read_pasted(pasted, inputs.pasted));
      inputs.host = "fuzz";
      document.model = k25::build_node_model(std::move(inputs));
    } else if (choice == formats.size() + 1) {
      const k25::ConfigSpace space =
          k25::parse_config_space(std::vector<std::uint8_t>(text.begin(), text.end()));
      (void)space.port.words();
      (void)space.acs.lspci_words();
      (void)space.acs.redirects_peer_traffic();
      return 0;
    } else {
      const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
      if (json.is_discarded()) return 0;
      document = k25::doctor_input_from_json(json, "fuzz.json");
    }
    judge_and_render(document);
  } catch (const k25::Error&) {
    // The documented answer to a file doctor cannot read (exit 2). Anything else is a finding.
  }
  return 0;
}
