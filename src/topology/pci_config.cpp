// Walks a PCI configuration space's capability lists: the PCI Express capability (port type) in the first 256
// bytes, ACS among the extended capabilities from 0x100.
#include "topology/pci_config.hpp"

#include <fmt/format.h>

namespace k25 {
namespace {

constexpr std::size_t kHeaderBytes = 64;         // what an unprivileged read of sysfs `config` returns
constexpr std::size_t kConventionalBytes = 256;  // PCI's configuration space; PCI Express extends it to 4096
constexpr std::uint8_t kStatusCapabilityList = 1u << 4;
constexpr std::uint8_t kPciExpressCapability = 0x10;
constexpr std::uint16_t kAcsExtendedCapability = 0x000d;

std::uint16_t word_at(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  return static_cast<std::uint16_t>(bytes[offset] | (bytes[offset + 1] << 8));
}

std::uint32_t dword_at(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  return static_cast<std::uint32_t>(word_at(bytes, offset)) |
         (static_cast<std::uint32_t>(word_at(bytes, offset + 2)) << 16);
}

// The PCI Express capability's port type, from the standard capability list (pointer at 0x34); -1 where the
// list leaves the bytes read.
int port_type_code(const std::vector<std::uint8_t>& bytes) {
  if ((bytes[0x06] & kStatusCapabilityList) == 0) return -1;
  std::size_t at = bytes[0x34] & 0xfcu;
  for (int hops = 0; hops < 48 && at >= kHeaderBytes && at + 4 <= bytes.size(); ++hops) {
    if (bytes[at] == kPciExpressCapability) return (word_at(bytes, at + 2) >> 4) & 0xf;
    at = bytes[at + 1] & 0xfcu;
  }
  return -1;
}

AcsState read_acs(const std::vector<std::uint8_t>& bytes) {
  AcsState acs;
  if (bytes.size() < kConventionalBytes) {  // root reads 4096 bytes of a PCI Express device, 256 of a PCI one
    acs.state = AcsState::Read::needs_root;
    return acs;
  }
  acs.state = AcsState::Read::absent;  // also a conventional PCI device: no extended space at all
  std::size_t at = kConventionalBytes;
  for (int hops = 0; hops < 1024 && at >= kConventionalBytes && at + 8 <= bytes.size(); ++hops) {
    const std::uint32_t header = dword_at(bytes, at);
    if (header == 0 || header == 0xffffffffu) break;
    if ((header & 0xffffu) == kAcsExtendedCapability) {
      acs.state = AcsState::Read::read;
      acs.offset = static_cast<int>(at);
      acs.control = word_at(bytes, at + 6);
      return acs;
    }
    const std::size_t next = (header >> 20) & 0xffcu;
    if (next <= at) break;  // the chain only moves forward; anything else is a loop
    at = next;
  }
  return acs;
}

}  // namespace

bool AcsState::redirects_peer_traffic() const {
  return state == Read::read && (control & (request_redirect | completion_redirect | egress_control)) != 0;
}

std::string AcsState::lspci_words() const {
  if (state != Read::read) return {};
  const auto bit = [this](const char* name, std::uint16_t mask) {
    return fmt::format("{}{}", name, (control & mask) != 0 ? '+' : '-');
  };
  return fmt::format("{} {} {} {} {} {} {}", bit("SrcValid", source_validation),
                     bit("TransBlk", translation_blocking), bit("ReqRedir", request_redirect),
                     bit("CmpltRedir", completion_redirect), bit("UpstreamFwd", upstream_forwarding),
                     bit("EgressCtrl", egress_control), bit("DirectTrans", direct_translated));
}

std::string PortType::words() const {
  switch (code) {
    case 0:
      return "endpoint";
    case 1:
      return "legacy endpoint";
    case 4:
      return "root port";
    case 5:
      return "switch upstream port";
    case 6:
      return "switch downstream port";
    case 7:
      return "PCIe-to-PCI bridge";
    case 8:
      return "PCI-to-PCIe bridge";
    case 9:
      return "root complex integrated endpoint";
    case 10:
      return "root complex event collector";
    default:
      return {};
  }
}

ConfigSpace parse_config_space(const std::vector<std::uint8_t>& bytes) {
  ConfigSpace space;
  if (bytes.size() < kHeaderBytes) return space;
  space.reach = bytes.size() >= kConventionalBytes ? ConfigReach::full : ConfigReach::header_only;
  space.port.code = port_type_code(bytes);
  space.acs = read_acs(bytes);
  return space;
}

}  // namespace k25
