// The table of doctor's format families, and the reading of one pasted file through it.
#include "doctor/readers/input_formats.hpp"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace k25 {
namespace {

std::string plural(std::size_t count, const char* one, const char* many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string joined(const std::vector<std::string>& parts) {
  return parts.empty() ? std::string("nothing it could use") : fmt::format("{}", fmt::join(parts, ", "));
}

std::string read_topo(const PastedText& text, PastedInputs& inputs) {
  std::vector<std::string> parts;
  for (TopoMatrix& matrix : read_topo_matrices(text)) {
    std::string part =
        matrix.p2p
            ? fmt::format("a -p2p matrix ({}{} GPUs)",
                          matrix.capability.empty() ? "" : matrix.capability + ", ", matrix.gpus)
            : fmt::format(
                  "a path matrix ({}{})", plural(static_cast<std::size_t>(matrix.gpus), "GPU", "GPUs"),
                  matrix.nics > 0 ? ", " + plural(static_cast<std::size_t>(matrix.nics), "NIC", "NICs") : "");
    if (matrix.markdown) part += " as a Markdown table";
    if (matrix.cut)
      part += fmt::format(", cut after {} of its {} GPU rows: read as far as it goes", matrix.rows_read,
                          matrix.gpus);
    parts.push_back(std::move(part));
    inputs.topo.push_back(std::move(matrix));
  }
  return joined(parts);
}

std::string read_log(const PastedText& text, PastedInputs& inputs) {
  NcclLog log = read_nccl_log(text);
  std::vector<std::string> parts;
  for (const NcclVersionSeen& version : log.seen.versions) parts.push_back("NCCL " + version.version);
  if (!log.seen.communicators.empty())
    parts.push_back(plural(log.seen.communicators.size(), "communicator", "communicators"));
  if (!log.seen.connections.empty())
    parts.push_back(plural(log.seen.connections.size(), "connection by rank", "connections by rank"));
  if (!log.graph_paths.empty()) parts.push_back(plural(log.graph_paths.size(), "GRAPH path", "GRAPH paths"));
  if (!log.seen.settings.empty())
    parts.push_back(
        plural(log.seen.settings.size(), "setting from the environment", "settings from the environment"));
  if (!log.p2p_disabled.empty()) parts.push_back("'P2P is disabled' lines");
  if (!log.seen.shared_memory.empty()) parts.push_back("'ncclMaxSharedMem ... exceeds' lines");
  if (!log.seen.warnings.empty())
    parts.push_back(plural(log.seen.warnings.size(), "WARN line", "WARN lines"));
  if (log.unprefixed > 0)
    parts.push_back(
        fmt::format("{} of its {} lines without their host:pid:tid prefix", log.unprefixed, log.lines));
  const std::string added =
      log.lines == 0 ? std::string("no NCCL INFO line (was NCCL_DEBUG=INFO set?)") : joined(parts);
  inputs.logs.push_back(std::move(log));
  return added;
}

std::string read_tests_header(const PastedText& text, PastedInputs& inputs) {
  NcclTestsHeader header = read_nccl_tests_header(text);
  std::set<std::string> hosts;
  for (const NcclTestsDevice& device : header.devices) hosts.insert(device.host);
  std::string added = fmt::format("{} on {}", plural(header.devices.size(), "rank's GPU", "ranks' GPUs"),
                                  fmt::join(hosts, ", "));
  if (!header.nccl_version.empty()) added += ", NCCL " + header.nccl_version;
  inputs.nccl_tests.push_back(std::move(header));
  return added;
}

std::string read_dump(const PastedText& text, PastedInputs& inputs) {
  NcclTopologyXml dump = read_nccl_topology_xml(text);
  std::string added =
      fmt::format("{}, {}", plural(dump.gpus.size(), "GPU", "GPUs"),
                  plural(static_cast<std::size_t>(dump.cpus), "CPU (NUMA node)", "CPUs (NUMA nodes)"));
  if (!dump.stopped.empty())
    added += fmt::format("; cut or broken at {}: read as far as it goes", dump.stopped);
  inputs.dumps.push_back(std::move(dump));
  return added;
}

std::string read_lspci_family(const PastedText& text, PastedInputs& inputs) {
  LspciDump dump = read_lspci(text);
  std::size_t gpus = 0, bridges = 0, acs = 0, links = 0;
  for (const LspciFunction& function : dump.functions) {
    gpus += is_nvidia_gpu(function) ? 1 : 0;
    bridges += function.bridge ? 1 : 0;
    acs += function.acs_control.empty() ? 0 : 1;
    links += function.sta_width > 0 ? 1 : 0;
  }
  std::vector<std::string> parts{plural(gpus, "GPU", "GPUs"), plural(bridges, "bridge", "bridges")};
  if (links > 0) parts.push_back(plural(links, "link (LnkSta)", "links (LnkSta)"));
  if (acs > 0) parts.push_back(plural(acs, "ACSCtl line", "ACSCtl lines"));
  parts.push_back(dump.tree      ? "the -t tree"
                  : dump.verbose ? "-v details"
                                 : "no tree and no -v details: no paths");
  inputs.lspci.push_back(std::move(dump));
  return joined(parts);
}

std::string read_bandwidth(const PastedText& text, PastedInputs& inputs) {
  BandwidthTests tests = read_bandwidth_tests(text);
  std::vector<std::string> parts{plural(tests.devices.size(), "device", "devices")};
  for (const BandwidthMatrix& matrix : tests.matrices) {
    std::string part = fmt::format("'{}'", matrix.title);
    if (matrix.cut)
      part += fmt::format(" cut after {} of its {} rows: read as far as it goes", matrix.rows_read,
                          matrix.columns.size());
    parts.push_back(std::move(part));
  }
  inputs.bandwidth.push_back(std::move(tests));
  return joined(parts);
}

std::string read_dcgm(const PastedText& text, PastedInputs& inputs) {
  DcgmDiag diag = read_dcgm_diag(text);
  std::string added = fmt::format("{} of PCIe, NVLink or nvbandwidth tests (of {} tests)",
                                  plural(diag.results.size(), "result", "results"), diag.tests);
  inputs.dcgm.push_back(std::move(diag));
  return added;
}

std::string read_cmdline(const PastedText& text, PastedInputs& inputs) {
  KernelCmdline cmdline = read_kernel_cmdline(text);
  std::string added = cmdline.words.empty() ? std::string("no IOMMU or ACS word")
                                            : fmt::format("{}", fmt::join(cmdline.words, " "));
  inputs.cmdlines.push_back(std::move(cmdline));
  return added;
}

}  // namespace

const std::vector<DoctorFormat>& doctor_formats() {
  static const std::vector<DoctorFormat> kFormats = {
      {PastedFamily::topo_matrix, "nvidia-smi topo -m",
       "`nvidia-smi topo -m` and `nvidia-smi topo -p2p r` (and `w`)",
       "each pair's path class (PIX, PXB, PHB, NODE, SYS) and NVLinks (NV#), the GPUs' CPU and NUMA affinity; -p2p: the driver's P2P status per pair (OK, CNS, GNS, TNS, NS)",
       has_topo_matrix, read_topo},
      {PastedFamily::nccl_log, "NCCL INFO log",
       "the output of a job run with `NCCL_DEBUG=INFO` (and `NCCL_DEBUG_SUBSYS=INIT,P2P,GRAPH,ENV` for the path table)",
       "NCCL's version, each communicator's ranks and their GPUs, the transport per pair by communicator and rank (P2P, SHM, NET), 'P2P is disabled' lines, settings made by the environment, NCCL's own path per pair (the GRAPH table), ncclMaxSharedMem errors and WARN lines",
       has_nccl_log, read_log},
      {PastedFamily::nccl_tests, "nccl-tests header",
       "the first lines of any nccl-tests run (`all_reduce_perf -b 8 -e 128M -f 2 -g 8`)",
       "each rank's host, CUDA device, bus id and GPU name; the NCCL library version where printed",
       has_nccl_tests_header, read_tests_header},
      {PastedFamily::nccl_topology, "NCCL topology dump",
       "the XML written by a job run with `NCCL_TOPO_DUMP_FILE=topo.xml`",
       "the GPUs, the PCIe switches and CPUs NCCL saw (each pair's path as NCCL sees it), NVLinks to GPUs and NVSwitches, link speed and width; a dump cut short is read as far as it goes",
       has_nccl_topology_xml, read_dump},
      {PastedFamily::lspci, "lspci", "`sudo lspci -vvv` and `lspci -tv` (ACS needs root)",
       "the GPUs and the bridges above them (the tree, or -v's bus numbers: each pair's path), each link's LnkSta against LnkCap, the port types, ACSCtl, NUMA nodes",
       has_lspci, read_lspci_family},
      {PastedFamily::bandwidth, "P2P bandwidth tests",
       "the CUDA samples' `p2pBandwidthLatencyTest`, or `nvbandwidth`",
       "each pair's measured bandwidth with P2P enabled and disabled (unidirectional and bidirectional), peer access, the devices' bus ids and names; a cut matrix read as far as it goes",
       has_bandwidth_tests, read_bandwidth},
      {PastedFamily::dcgm, "dcgmi diag JSON", "`dcgmi diag -r 2 -j`",
       "the PCIe and NVLink tests' status per GPU with their warnings", has_dcgm_diag, read_dcgm},
      {PastedFamily::cmdline, "kernel command line", "`cat /proc/cmdline`",
       "the IOMMU mode the command line asks for (iommu=pt, intel_iommu=on, amd_iommu=off) and ACS words (pcie_acs_override, pci=noacs)",
       has_kernel_cmdline, read_cmdline},
  };
  return kFormats;
}

const DoctorFormat& doctor_format(PastedFamily family) {
  for (const DoctorFormat& format : doctor_formats())
    if (format.family == family) return format;
  throw std::logic_error("doctor_format: a family without its row in the table");
}

InputRead read_pasted(const PastedText& text, PastedInputs& inputs) {
  InputRead read;
  read.file = text.file;
  for (const DoctorFormat& format : doctor_formats())
    if (format.sniff(text)) read.families.push_back({format.name, format.read(text, inputs)});
  if (read.families.empty())
    read.left_out = fmt::format("none of doctor's formats ({})", doctor_formats_list());
  return read;
}

InputRead read_pasted_as(const PastedText& text, PastedFamily family, PastedInputs& inputs) {
  const DoctorFormat& format = doctor_format(family);
  InputRead read;
  read.file = text.file;
  if (format.sniff(text))
    read.families.push_back({format.name, format.read(text, inputs)});
  else
    read.left_out = fmt::format("not {}", format.name);
  return read;
}

std::string doctor_formats_list() {
  std::vector<std::string> names;
  for (const DoctorFormat& format : doctor_formats()) names.push_back(format.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string doctor_formats_markdown() {
  std::string md = "| family | what to paste | what it gives |\n|---|---|---|\n";
  for (const DoctorFormat& format : doctor_formats())
    md += fmt::format("| {} (`{}`) | {} | {} |\n", format.name, to_string(format.family), format.paste,
                      format.gives);
  return md;
}

}  // namespace k25
