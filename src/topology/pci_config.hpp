// What a PCI device's configuration space says about peer traffic: its PCI Express port type and its Access
// Control Services (ACS) control bits, read from the bytes of sysfs's `config` file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace k25 {

// How far the bytes reached. Linux lets every user read the first 64 bytes of `config` and root the rest: the
// PCI Express capability (usually at 0x40 or beyond) and the extended capabilities (0x100 to 0xfff, where ACS
// lives) need root.
enum class ConfigReach {
  missing,      // no `config` file, or fewer than 64 bytes
  header_only,  // 64 bytes: read without root
  full,         // 256 bytes or more
};

// ACS, the PCI Express extended capability 0x000d. Its control register (capability + 6) decides whether a
// switch port or root port may forward a peer request directly or must send it up towards the root complex.
struct AcsState {
  enum class Read { not_read, needs_root, absent, read };
  Read state = Read::not_read;
  std::uint16_t control = 0;  // the control register, valid where state == read
  int offset = 0;             // where the capability sits in config space (0x100..0xffc), where read

  // Control bits (PCI Express Base Specification, "ACS Control Register"; lspci prints them as ACSCtl).
  static constexpr std::uint16_t source_validation = 1u << 0;     // SrcValid
  static constexpr std::uint16_t translation_blocking = 1u << 1;  // TransBlk
  static constexpr std::uint16_t request_redirect = 1u << 2;      // ReqRedir
  static constexpr std::uint16_t completion_redirect = 1u << 3;   // CmpltRedir
  static constexpr std::uint16_t upstream_forwarding = 1u << 4;   // UpstreamFwd
  static constexpr std::uint16_t egress_control = 1u << 5;        // EgressCtrl
  static constexpr std::uint16_t direct_translated = 1u << 6;     // DirectTrans

  // True where a bit that sends peer requests or completions up instead of across is set (ReqRedir,
  // CmpltRedir or EgressCtrl).
  bool redirects_peer_traffic() const;
  // lspci's spelling of the control register: "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+
  // EgressCtrl- DirectTrans-"; empty where not read.
  std::string lspci_words() const;
};

// PCI Express Capabilities Register's Device/Port Type of a device (0 endpoint, 4 root port, 5 switch
// upstream port, 6 switch downstream port, ...), as words; "" where the capability could not be read.
struct PortType {
  int code = -1;  // -1: unknown
  std::string words() const;
  bool is_root_port() const { return code == 4; }
  bool is_switch_port() const { return code == 5 || code == 6; }
};

struct ConfigSpace {
  ConfigReach reach = ConfigReach::missing;
  PortType port;
  AcsState acs;
};

// Parses config-space bytes as Linux's sysfs `config` file gives them (little endian). Never throws: a broken
// capability chain (a loop, a pointer out of range) ends the walk.
ConfigSpace parse_config_space(const std::vector<std::uint8_t>& bytes);

}  // namespace k25
