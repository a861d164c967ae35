// The verdict kinds' words and sources.
#include "doctor/verdicts/verdict_kinds.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace k25 {
namespace {

constexpr const char* kNcclAcs = "NCCL troubleshooting guide, PCI Access Control Services (ACS)";
constexpr const char* kNcclAcsUrl =
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs";
constexpr const char* kNcclPaths = "https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc";
constexpr const char* kNvidiaSmi = "https://docs.nvidia.com/deploy/nvidia-smi/index.html";

const std::vector<VerdictKind>
    kKinds =
        {
            {VerdictId::acs_redirect, Severity::cost, "ACS redirects peer traffic",
             "peer requests that would turn in a PCIe switch go up to the root complex: lower bandwidth, or a hang where the root complex does not forward peer traffic",
             "turn ACS off on the bridges named: `setpci -s BUS ECAP_ACS+0x6.w=0000` as root (again after every boot), or disable ACS, VT-d or the IOMMU in the BIOS",
             kNcclAcs, kNcclAcsUrl},
            {VerdictId::iommu_translated, Severity::cost, "the IOMMU translates peer traffic",
             "every GPU-to-GPU DMA goes through the IOMMU's page tables (and, with ACS, up to the root complex): lower peer bandwidth, or hangs",
             "boot with iommu=pt (intel_iommu=on iommu=pt or amd_iommu=on iommu=pt) where VMs or VFIO need the IOMMU, else intel_iommu=off or amd_iommu=off, or disable VT-d / AMD-Vi in the BIOS",
             kNcclAcs, kNcclAcsUrl},
            {VerdictId::nccl_not_p2p, Severity::cost,
             "NCCL went through host memory or the network where P2P was possible",
             "each transfer between the pair is staged through host memory (SHM) or a NIC (NET): several times the latency and a fraction of the bandwidth of a direct copy",
             "find why NCCL left P2P out: an NCCL_P2P_DISABLE or NCCL_P2P_LEVEL in the environment (the log's 'set by environment' lines), ACS or the IOMMU (above), a GPU without PCIe P2P; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P says why",
             "NCCL environment variables, NCCL_P2P_DISABLE and NCCL_P2P_LEVEL",
             "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-p2p-disable"},
            {VerdictId::switch_through_cpu, Severity::cost, "GPUs of one PCIe switch go through the CPU",
             "there is no P2P between them, so NCCL routes their traffic up through the root complex and host memory: the switch's bandwidth and latency go unused",
             "find why P2P is missing between them: a GPU model without PCIe P2P in its driver (`nvidia-smi topo -p2p r` says GNS), ACS on the switch's ports (`sudo lspci -vvv | grep ACSCtl`; setpci as in acs_redirect), or a switch that does not forward peer traffic; then check with p2pBandwidthLatencyTest",
             "NCCL src/graph/paths.cc (ncclTopoComputePaths: a GPU pair without P2P is routed through its CPU, PHB); NCCL troubleshooting guide, ACS",
             kNcclPaths},
            {VerdictId::p2p_slower_than_disabled, Severity::cost,
             "P2P is slower than staging through host memory",
             "a copy with P2P enabled runs below the same pair's copy through host memory: NCCL's P2P transport and an engine's custom all-reduce run below what the pair can do",
             "until the platform is fixed (ACS off, the IOMMU in passthrough, the BIOS's PCIe settings, the switch's firmware), keep NCCL off P2P for these pairs (NCCL_P2P_DISABLE=1, or NCCL_P2P_LEVEL below their path) and the engine's custom all-reduce off (vLLM --disable-custom-all-reduce); measure again with p2pBandwidthLatencyTest",
             "CUDA samples, p2pBandwidthLatencyTest (its P2P=Enabled and P2P=Disabled matrices); NVIDIA/nccl#814",
             "https://github.com/NVIDIA/cuda-samples/tree/master/Samples/5_Domain_Specific/p2pBandwidthLatencyTest"},
            {VerdictId::p2p_env_limited, Severity::cost, "an environment variable keeps NCCL off P2P",
             "NCCL_P2P_DISABLE=1, or an NCCL_P2P_LEVEL below a pair's path, sends the pair through host memory (SHM) or the network where P2P works",
             "remove the setting from the job's environment (and the engine's launcher), unless it was set because P2P is broken on this node: then fix that (ACS, the IOMMU) and remove it",
             "NCCL environment variables, NCCL_P2P_DISABLE and NCCL_P2P_LEVEL",
             "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-p2p-level"},
            {VerdictId::nccl_version_gpu, Severity::cost, "an NCCL version known not to run on this GPU",
             "NCCL cannot launch its kernels (or runs one known broken) on this GPU: the job fails at its first collective",
             "use an NCCL release that runs on this GPU (the rule names it): pip install -U nvidia-nccl-cu12 (or -cu13), or an engine image that ships it; NCCL_DEBUG=INFO's 'NCCL version' line says which one the job loaded",
             "the NCCL release notes or issue the rule names", ""},
            {VerdictId::nvml_p2p_unsupported, Severity::cost, "the driver reports no P2P between GPUs",
             "CUDA cannot map the peer's memory: NCCL, and the engines' custom all-reduces, go through host memory",
             "'chipset' or 'topology not supported': check ACS and the IOMMU (above) and the BIOS; 'GPU not supported': this GPU model has no PCIe P2P in this driver; 'disabled by regkey': a driver registry key turned it off",
             "NCCL troubleshooting guide, GPU-to-GPU communication (nvidia-smi topo -p2p)",
             "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/gpu_troubleshooting.html"},
            {VerdictId::dcgm_failed, Severity::cost, "DCGM's PCIe or NVLink test failed",
             "DCGM measured a link below what it expects (bandwidth, errors, width): every collective through it runs at that link's speed, or fails",
             "read DCGM's warning (its error names the check: bandwidth, replays, width, NVLink errors); reseat or replace the card, riser or cable it names, then run `dcgmi diag -r 2` again",
             "NVIDIA DCGM user guide, GPU diagnostics (the PCIe and NVLink test)",
             "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html"},
            {VerdictId::link_below_max, Severity::cost, "a PCIe link trained below what both ends support",
             "the link carries a fraction of its bandwidth, and every collective through that GPU or switch waits for it",
             "reseat the card, riser or cable, check the slot's lane and generation settings in the BIOS, then read `nvidia-smi -q -d PCIE` (GPUs) or `lspci -vv` LnkSta (bridges) while a job runs: an idle GPU lowers its speed to save power, never its width",
             "NVIDIA System Management Interface, PCIe link generation and width (current and max)",
             kNvidiaSmi},
            {VerdictId::slot_below_gpu, Severity::cost, "a GPU sits in a slot slower than the GPU",
             "the slot, not the GPU, sets the link's bandwidth",
             "move the GPU to a slot (or riser) of the GPU's generation and width, or accept the slot's limit",
             "NVIDIA System Management Interface, PCIe link generation and width (current and max)",
             kNvidiaSmi},
            {VerdictId::across_host_bridges,
             Severity::check, "GPU pairs cross host bridges (root complexes)", "their traffic crosses the CPU's fabric between root complexes: NCCL leaves P2P off there by default (PHB and beyond) except between two GPUs of an AMD CPU, and stages through host memory; where P2P is used, ACS and the IOMMU decide whether it is fast", "keep each tensor-parallel group on GPUs of one root complex where the board allows; else measure P2P against staging (p2pBandwidthLatencyTest): where P2P is faster, turn ACS off and the IOMMU to passthrough (iommu=pt) and let NCCL use it (NCCL_P2P_LEVEL=SYS), else leave NCCL's default",
             "NCCL src/graph/paths.cc (ncclTopoCheckP2p: P2P up to PXB by default, up to SYS for two GPUs of an AMD CPU); NCCL environment variables, NCCL_P2P_LEVEL",
             kNcclPaths},
            {VerdictId::cross_socket, Severity::cost, "GPU pairs cross CPU sockets",
             "their traffic crosses the CPUs' interconnect (UPI, xGMI): NCCL uses P2P there only up to NCCL_P2P_LEVEL, else host memory",
             "keep each tensor-parallel group on one socket's GPUs (CUDA_VISIBLE_DEVICES; `nvidia-smi topo -m` shows which), and put the split across sockets on pipeline or data parallelism; where a pair must cross, measure P2P against staging before setting NCCL_P2P_LEVEL=SYS (with ACS off and iommu=pt)",
             "NCCL environment variables, NCCL_P2P_LEVEL (PIX, PXB, PHB, SYS)",
             "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-p2p-level"},
            {VerdictId::rank_far_from_gpu, Severity::cost,
             "a rank runs on CPUs of another NUMA node than its GPU",
             "its kernel launches, NCCL's proxy thread and any copy through host memory cross the socket interconnect",
             "bind each rank near its GPU: `mpirun --bind-to numa` (Open MPI), or `numactl --cpunodebind=N` with the GPU's node",
             "Open MPI mpirun(1), --bind-to; nvidia-smi topo -m, CPU Affinity",
             "https://docs.open-mpi.org/en/main/man-openmpi/man1/mpirun.1.html"},
            {VerdictId::nvlink_pairs, Severity::info, "GPU pairs linked by NVLink",
             "nothing: NCCL and the engines' custom all-reduces use NVLink between them",
             "nothing to fix; a pair with fewer links than its peers (`nvidia-smi nvlink --status`) runs at those links' bandwidth",
             "NVIDIA System Management Interface, topo -m (NV#: a bonded set of # NVLinks)", kNvidiaSmi},
            {VerdictId::engine_custom_allreduce_off, Severity::check,
             "an engine's custom all-reduce is off on this host",
             "vLLM turns its custom all-reduce off for more than two GPUs that are not all NVLink-connected: the decode step's all-reduces are NCCL's (or torch symmetric memory where enabled)",
             "nothing to fix in the node: expect NCCL's kernels in a trace (`k25comm capture` names the backend that ran), or serve with tensor-parallel groups of two, or on NVLink for latency-bound decode",
             "vLLM, vllm/distributed/device_communicators/custom_all_reduce.py (CustomAllreduce)",
             "https://github.com/vllm-project/vllm/blob/main/vllm/distributed/device_communicators/custom_all_reduce.py"},
            {VerdictId::backend_rule, Severity::check,
             "an engine's documented rule runs another all-reduce backend on another link",
             "the trace's all-reduce times are this backend's: on the link the rule names (PCIe instead of NVLink, more GPUs) the engine runs another backend, and these times do not carry over to such a node",
             "read the rule and its source (the note) before comparing nodes or predicting another link; `k25comm doctor --compare` of both nodes' captures lists the backend that ran on each; the engine's flags and environment (disable_custom_all_reduce, VLLM_ALLREDUCE_USE_SYMM_MEM, ...) choose it too",
             "the engine's source file the note names (capture.json trace.backend_rules)", ""},
            {VerdictId::acs_unknown, Severity::unseen, "ACS could not be read without root",
             "an ACS redirect, if any, stays unseen",
             "run `sudo k25comm doctor`, or `sudo lspci -vvv | grep ACSCtl`", kNcclAcs, kNcclAcsUrl},
            {VerdictId::no_gpu, Severity::unseen, "no NVIDIA GPU is visible",
             "the GPU, pair and link sections are empty",
             "run doctor on the GPU node, or give it what was pasted from there (--from: nvidia-smi topo -m, NCCL's INFO log and topology dump, lspci)",
             "k25comm's docs/doctor.md", ""},
};

}  // namespace

const std::vector<VerdictKind>& verdict_kinds() {
  return kKinds;
}

const VerdictKind& verdict_kind(VerdictId id) {
  for (const VerdictKind& kind : kKinds)
    if (kind.id == id) return kind;
  throw std::logic_error("verdict_kind: a verdict id without its row in the table");
}

NodeVerdict verdict_of(VerdictId id, std::string finding, std::string cost, std::string fix) {
  const VerdictKind& kind = verdict_kind(id);
  NodeVerdict verdict;
  verdict.id = id;
  verdict.severity = kind.severity;
  verdict.finding = std::move(finding);
  verdict.cost = cost.empty() ? kind.cost : std::move(cost);
  verdict.fix = fix.empty() ? kind.fix : std::move(fix);
  verdict.source = kind.source;
  verdict.url = kind.url;
  return verdict;
}

std::string verdict_kinds_markdown() {
  std::string md = "| verdict | kind | what it costs | how to fix it | source |\n|---|---|---|---|---|\n";
  for (const VerdictKind& kind : kKinds)
    md += fmt::format("| `{}`: {} | {} | {} | {} | {} |\n", to_string(kind.id), kind.title,
                      to_string(kind.severity), kind.cost, kind.fix,
                      std::string(kind.url).rfind("https://", 0) == 0
                          ? fmt::format("[{}]({})", kind.source, kind.url)
                          : std::string(kind.source));
  return md;
}

}  // namespace k25
