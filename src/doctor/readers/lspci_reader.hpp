// `lspci -vvv` (every function: its class and name, the bridge's bus numbers, NUMA node, the PCI Express
// capability's port type, LnkCap and LnkSta, the ACS capability's ACSCtl), plain `lspci`, and the tree of
// `lspci -tv` (which bridge each device sits below, under which root bus), with or without -D's domains.
// The GPUs (NVIDIA display and 3D controllers) and the bridges above them make a PCI tree whose paths are
// classed as sysfs's are.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "doctor/readers/pasted_text.hpp"
#include "topology/pci_tree.hpp"

namespace k25 {

struct LspciFunction {
  std::string bus_id;       // "0000:04:08.0" (domain 0000 where lspci did not print one)
  std::string class_words;  // "PCI bridge", "3D controller", "VGA compatible controller"; empty from -tv
  std::string name;         // "NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)"
  bool bridge = false;
  int primary = -1, secondary = -1, subordinate = -1;  // a bridge's buses ("Bus: primary=03, ...")
  std::string parent;                                  // the bridge above, from -tv
  std::string root_bus;                                // "0000:80": the root bus it hangs from, from -tv
  int numa_node = -1;
  std::string port_type;           // "Root Port", "Upstream Port", "Downstream Port", "Endpoint", ...
  int cap_gen = 0, cap_width = 0;  // LnkCap
  int sta_gen = 0, sta_width = 0;  // LnkSta
  bool downgraded = false;         // LnkSta says "(downgraded)"
  std::string acs_control;         // ACSCtl's words, "SrcValid+ TransBlk- ReqRedir+ ..."
  bool access_denied = false;      // "Capabilities: <access denied>" (lspci without root)
  FactSource header, link_status, acs;
};

struct LspciDump {
  std::vector<LspciFunction> functions;  // in the order lspci printed them
  bool verbose = false;                  // -v details were there
  bool tree = false;                     // a -t tree was there
};

// Whether `text` holds lspci output: function lines ("04:00.0 PCI bridge: ...") or a -t tree ("-[0000:00]-").
bool has_lspci(const PastedText& text);

LspciDump read_lspci(const PastedText& text);

// The dump's GPUs as a PCI tree (sysfs's shape): each GPU with the bridges from its root port down and its
// root bus as the host bridge, so that pcie_path classes their pairs. Bridges of the tree get their links
// and ACS. Without a tree or bus numbers to place a GPU, it has no path.
PciTree lspci_pci_tree(const LspciDump& dump);

// True for an NVIDIA GPU function: an NVIDIA display or 3D controller, or (from -tv, without classes) an
// NVIDIA function that is no bridge, audio, USB or serial controller.
bool is_nvidia_gpu(const LspciFunction& function);

}  // namespace k25
