#!/usr/bin/env python3
"""Writes the sysfs trees of doctor's fixtures: one folder per node spec (data/NODE/node.json) holding sys/ and
proc/ as Linux lays them out, read by `k25comm doctor --root`.

For every device of a spec: sys/devices/HOSTBRIDGE/.../BUS_ID/ with vendor, device, class, numa_node,
local_cpulist, current_link_speed/width, max_link_speed/width and config (config space bytes: the header, a PCI
Express capability at 0x40 with the port type, an extended capability chain from 0x100 with ACS where the spec
gives it; the first 64 bytes only where the spec says config_bytes 64, as an unprivileged read returns them);
sys/bus/pci/devices/BUS_ID as a relative link to it; an iommu_group link and sys/kernel/iommu_groups/N/type where
the spec gives an IOMMU type. Also proc/cmdline and sys/module/nvidia/version.

A spec with "variant_of": "OTHER" starts from data/OTHER/node.json and applies "acs" ({bus id: control}),
"links" ({bus id: "GenN xW"}) and "cmdline" over it.

Usage: make_sysfs.py OUT_DIR [NODE...]   (default: every data/*/node.json); exit 0, 2 on a bad spec.
"""
import argparse
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SPEEDS = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe",
          6: "64.0 GT/s PCIe"}
PORT_TYPES = {"endpoint": 0, "root": 4, "upstream": 5, "downstream": 6}


def parse_link(text):
    """'Gen4 x16' -> (4, 16)."""
    gen, width = text.split()
    return int(gen[3:]), int(width[1:])


def config_space(device, size):
    """The device's configuration space: `size` bytes (64, or 4096 as root reads a PCI Express device)."""
    raw = bytearray(4096)
    struct.pack_into("<HH", raw, 0x00, int(device["vendor"], 16), int(device["device"], 16))
    struct.pack_into("<H", raw, 0x06, 0x0010)  # status: capabilities list
    klass = int(device["class"], 16)
    raw[0x09], raw[0x0a], raw[0x0b] = klass & 0xff, (klass >> 8) & 0xff, (klass >> 16) & 0xff
    raw[0x0e] = 0x01 if device.get("port", "endpoint") != "endpoint" else 0x00  # header type
    raw[0x34] = 0x40
    # PCI Express capability: ID 0x10, next 0, capabilities register (version 2, port type in bits 7:4).
    raw[0x40], raw[0x41] = 0x10, 0x00
    struct.pack_into("<H", raw, 0x42, 0x0002 | (PORT_TYPES[device.get("port", "endpoint")] << 4))
    acs = device.get("acs")
    # Extended capabilities: Advanced Error Reporting at 0x100, then ACS where the spec puts it.
    acs_at = int(acs["at"], 16) if acs else 0
    struct.pack_into("<I", raw, 0x100, 0x0001 | (1 << 16) | (acs_at << 20))
    if acs:
        struct.pack_into("<I", raw, acs_at, 0x000d | (1 << 16))
        struct.pack_into("<H", raw, acs_at + 4, 0x005f)  # capabilities: SV TB RR CR UF DT
        struct.pack_into("<H", raw, acs_at + 6, int(acs["ctl"], 16))
    return bytes(raw[:size])


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def write_device(root, folder, device, bridge, spec, groups):
    path = os.path.join(folder, device["bdf"])
    os.makedirs(path, exist_ok=True)
    write(os.path.join(path, "vendor"), device["vendor"])
    write(os.path.join(path, "device"), device["device"])
    write(os.path.join(path, "class"), device["class"])
    write(os.path.join(path, "numa_node"), str(bridge.get("numa_node", -1)))
    write(os.path.join(path, "local_cpulist"), bridge.get("local_cpus", ""))
    if "link" in device:
        gen, width = parse_link(device["link"])
        max_gen, max_width = parse_link(device.get("max", device["link"]))
        write(os.path.join(path, "current_link_speed"), SPEEDS[gen])
        write(os.path.join(path, "current_link_width"), str(width))
        write(os.path.join(path, "max_link_speed"), SPEEDS[max_gen])
        write(os.path.join(path, "max_link_width"), str(max_width))
    with open(os.path.join(path, "config"), "wb") as f:
        f.write(config_space(device, spec.get("config_bytes", 4096)))
    if spec.get("iommu_type"):
        group = str(len(groups))
        groups.append(group)
        group_dir = os.path.join(root, "sys/kernel/iommu_groups", group)
        write(os.path.join(group_dir, "type"), spec["iommu_type"])
        os.symlink(os.path.relpath(group_dir, path), os.path.join(path, "iommu_group"))
    link = os.path.join(root, "sys/bus/pci/devices", device["bdf"])
    os.makedirs(os.path.dirname(link), exist_ok=True)
    os.symlink(os.path.relpath(path, os.path.dirname(link)), link)
    for child in device.get("children", []):
        write_device(root, path, child, bridge, spec, groups)


def apply_variant(spec, name):
    with open(os.path.join(DATA, spec["variant_of"], "node.json"), encoding="utf-8") as f:
        base = json.load(f)

    def visit(devices):
        for device in devices:
            if device["bdf"] in spec.get("acs", {}):
                device["acs"]["ctl"] = spec["acs"][device["bdf"]]
            if device["bdf"] in spec.get("links", {}):
                device["link"] = spec["links"][device["bdf"]]
            visit(device.get("children", []))

    for bridge in base["host_bridges"]:
        visit(bridge["devices"])
    if "cmdline" in spec:
        base["cmdline"] = spec["cmdline"]
    return base


def make(out_dir, name):
    with open(os.path.join(DATA, name, "node.json"), encoding="utf-8") as f:
        spec = json.load(f)
    if "variant_of" in spec:
        spec = apply_variant(spec, name)
    root = os.path.join(out_dir, name)
    if os.path.exists(root):
        import shutil
        shutil.rmtree(root)
    write(os.path.join(root, "proc/cmdline"), spec["cmdline"])
    write(os.path.join(root, "sys/module/nvidia/version"), spec["driver_version"])
    os.makedirs(os.path.join(root, "sys/kernel/iommu_groups"), exist_ok=True)
    groups = []
    for bridge in spec["host_bridges"]:
        folder = os.path.join(root, "sys/devices", bridge["name"])
        os.makedirs(folder, exist_ok=True)
        for device in bridge["devices"]:
            write_device(root, folder, device, bridge, spec, groups)
    return root


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", help="where each node's root folder is written")
    parser.add_argument("nodes", nargs="*", help="node names under data/ (default: every one with a node.json)")
    args = parser.parse_args(argv)
    nodes = args.nodes or sorted(n for n in os.listdir(DATA) if os.path.isfile(os.path.join(DATA, n, "node.json")))
    try:
        for name in nodes:
            print(f"make_sysfs: wrote {make(args.out_dir, name)}")
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"make_sysfs: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
