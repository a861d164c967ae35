// NCCL's own view of a node's topology: the XML that NCCL_TOPO_DUMP_FILE makes it write (<system> with <cpu>,
// nested <pci> bridges, <gpu> and its <nvlink> elements), alone in its file or pasted among other text. Read
// without an XML library: NCCL writes a small subset of XML (elements and attributes, no text), and this
// reader takes that subset. A dump cut short (a paste that ends mid-way) or broken somewhere is read as far
// as it goes, and where it stopped is said.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/readers/pasted_text.hpp"
#include "topology/gpu_paths.hpp"

namespace k25 {

struct NcclXmlNvlink {
  std::string target;        // the bus id at the other end (a GPU, an NVSwitch, or ffffffff for a hidden one)
  int count = 0;             // links
  std::string target_class;  // PCI class of the target ("0x030200" a GPU, "0x068000" an NVSwitch)
};

struct NcclXmlGpu {
  std::string bus_id;                // of its <pci> element, lower case
  int dev = -1;                      // CUDA device index NCCL gave it
  int rank = -1;                     // the rank that dumped it (-1 where the dump has none)
  std::string sm;                    // compute capability x 10 ("90")
  int numa_id = -1;                  // numaid of the <cpu> it hangs below
  std::vector<std::string> bridges;  // bus ids of the <pci> bridges above it, outermost first
  std::string link_speed;            // its <pci> link_speed attribute ("32.0 GT/s PCIe")
  int link_width = 0;
  std::vector<NcclXmlNvlink> nvlinks;
  FactSource source;  // its <gpu> element's line
};

struct NcclTopologyXml {
  std::string file;
  bool found = false;   // a <system> element was there
  std::string version;  // <system version="...">
  int cpus = 0;         // <cpu> elements: NUMA nodes NCCL saw
  std::vector<NcclXmlGpu> gpus;
  // Where and why reading stopped before </system> ("line 41: the text ends inside <pci>"); empty where the
  // dump was whole.
  std::string stopped;
  FactSource system_source;  // the <system> line
};

// Whether `text` holds a <system> element of NCCL's dump.
bool has_nccl_topology_xml(const PastedText& text);

// Reads the dump in `text` (from its <system> on). Never throws: without <system>, `found` is false; a dump
// cut or broken is read up to there, `stopped` saying where.
NcclTopologyXml read_nccl_topology_xml(const PastedText& text);

// The path between two GPUs of the dump: nvlink where one links to the other or both to NVSwitches, else the
// PCIe class from the nesting. NCCL writes one <pci> element per PCIe switch (not one per port): the same
// parent <pci> is same_switch, chains that meet higher up several_switches, no common <pci> under one <cpu>
// host_bridge, different <cpu> elements across_sockets.
PathClass nccl_xml_path(const NcclXmlGpu& a, const NcclXmlGpu& b);

}  // namespace k25
