// The format families `k25comm doctor` reads from what people paste, one row each: its name, the command
// whose output it is, what it gives, how a file's text is told to hold it (never by the file's name) and how
// it is read. A file may hold several families one after another (a log with the topo matrix pasted inside
// it): every family whose sniff takes the text reads it. A file no family takes is named and left out, never
// fatal. `doctor --help`'s list and docs/doctor.md's table of families are made from this table: a new format
// is one row and its reader.
#pragma once

#include <string>
#include <vector>

#include "common/enum_names.hpp"
#include "doctor/model/doctor_document.hpp"
#include "doctor/readers/bandwidth_matrix_reader.hpp"
#include "doctor/readers/dcgm_diag_reader.hpp"
#include "doctor/readers/kernel_cmdline_reader.hpp"
#include "doctor/readers/lspci_reader.hpp"
#include "doctor/readers/nccl_log_reader.hpp"
#include "doctor/readers/nccl_tests_header_reader.hpp"
#include "doctor/readers/nccl_topology_xml.hpp"
#include "doctor/readers/pasted_text.hpp"
#include "doctor/readers/topo_matrix_reader.hpp"

namespace k25 {

enum class PastedFamily { topo_matrix, nccl_log, nccl_tests, nccl_topology, lspci, bandwidth, dcgm, cmdline };

template <>
struct EnumNames<PastedFamily> {
  static constexpr std::array<std::pair<PastedFamily, std::string_view>, 8> values{{
      {PastedFamily::topo_matrix, "topo"},
      {PastedFamily::nccl_log, "nccl-log"},
      {PastedFamily::nccl_tests, "nccl-tests"},
      {PastedFamily::nccl_topology, "nccl-topo"},
      {PastedFamily::lspci, "lspci"},
      {PastedFamily::bandwidth, "p2p-bandwidth"},
      {PastedFamily::dcgm, "dcgm"},
      {PastedFamily::cmdline, "cmdline"},
  }};
};

// What every file's families gave, before the node model is built from it (each item keeps its file and
// lines).
struct PastedInputs {
  std::vector<TopoMatrix> topo;
  std::vector<NcclLog> logs;
  std::vector<NcclTestsHeader> nccl_tests;
  std::vector<NcclTopologyXml> dumps;
  std::vector<LspciDump> lspci;
  std::vector<BandwidthTests> bandwidth;
  std::vector<DcgmDiag> dcgm;
  std::vector<KernelCmdline> cmdlines;
};

struct DoctorFormat {
  PastedFamily family;
  const char* name;   // "nvidia-smi topo -m"
  const char* paste;  // the commands whose output to paste
  const char* gives;  // what the node model takes from it
  bool (*sniff)(const PastedText& text);
  // Reads the family's part of `text` into `inputs`; returns what it added, in words ("8 GPUs, 28 pairs'
  // paths").
  std::string (*read)(const PastedText& text, PastedInputs& inputs);
};

// The families, in the order lists name them and a file is read by them.
const std::vector<DoctorFormat>& doctor_formats();
const DoctorFormat& doctor_format(PastedFamily family);

// Reads `text` through every family whose sniff takes it; the result lists each family found and what it
// added, or says why the file was left out.
InputRead read_pasted(const PastedText& text, PastedInputs& inputs);
// Reads `text` as `family` alone (--nccl-log, --nccl-topo name their rows): left out, said, where it is not.
InputRead read_pasted_as(const PastedText& text, PastedFamily family, PastedInputs& inputs);

// "nvidia-smi topo -m, NCCL_DEBUG=INFO logs, ...": the families for --help.
std::string doctor_formats_list();
// docs/doctor.md's table of the families (between its doctor-formats markers), from the rows.
std::string doctor_formats_markdown();

}  // namespace k25
