// --nccl-register's rules: the NCCL version, the environment switches and the topologies that refuse each
// mode, with the exact messages, and the version parser.
#include <catch2/catch.hpp>

#include "transport/registration_check.hpp"

using namespace k25;

namespace {

// Eight ranks of one NVLink host on NCCL 2.28.9, nothing switched off: every mode can take effect.
RegistrationFacts nvlink_host() {
  RegistrationFacts facts;
  facts.nccl_version = 22809;
  facts.ranks = 8;
  facts.hosts = 1;
  facts.topology_kind = "nvlink";
  return facts;
}

}  // namespace

TEST_CASE("nccl_version_code reads NCCL's dotted version", "[registration]") {
  CHECK(nccl_version_code("2.28.9") == 22809);
  CHECK(nccl_version_code("2.27.3") == 22703);
  CHECK(nccl_version_code("2.19.0") == 21900);
  CHECK(nccl_version_code("") == 0);
  CHECK(nccl_version_code("2.28") == 0);
  CHECK(nccl_version_code("2.28.9.1") == 0);
  CHECK(nccl_version_code("2.28.") == 0);
  CHECK(nccl_version_code("2.x.9") == 0);
  CHECK(nccl_version_code("2.100.1") == 0);
}

TEST_CASE("none is never refused, whatever the run", "[registration]") {
  RegistrationFacts facts;  // version unknown, one rank
  CHECK(registration_problem(NcclRegister::none, facts).empty());
  facts.emulated = true;
  facts.hosts = 3;
  facts.topology_kind = "pcie";
  CHECK(registration_problem(NcclRegister::none, facts).empty());
}

TEST_CASE("local registration: NCCL 2.19 and NCCL_LOCAL_REGISTER", "[registration]") {
  RegistrationFacts facts = nvlink_host();
  CHECK(registration_problem(NcclRegister::local, facts).empty());
  facts.topology_kind = "pcie";  // ncclCommRegister serves PCIe peers too
  facts.emulated = true;
  facts.hosts = 2;
  CHECK(registration_problem(NcclRegister::local, facts).empty());

  facts.nccl_version = 21810;
  CHECK(registration_problem(NcclRegister::local, facts) ==
        "--nccl-register local: this run's NCCL is 2.18.10, and ncclCommRegister needs NCCL 2.19.0 or later; "
        "use a newer NCCL (LD_LIBRARY_PATH) or leave --nccl-register at none");
  facts.nccl_version = 0;
  CHECK(
      registration_problem(NcclRegister::local, facts) ==
      "--nccl-register local: the runtime NCCL's version is unknown, and --nccl-register local needs NCCL 2.19.0 or later");

  facts.nccl_version = 21900;
  facts.local_register_env = "1";
  CHECK(registration_problem(NcclRegister::local, facts).empty());
  facts.local_register_env = "0";
  CHECK(
      registration_problem(NcclRegister::local, facts) ==
      "--nccl-register local: NCCL_LOCAL_REGISTER=0 is set, and with it NCCL ignores ncclCommRegister; unset it");
}

TEST_CASE("symmetric registration: NCCL 2.27.3, its switches, one NVLink host", "[registration]") {
  RegistrationFacts facts = nvlink_host();
  CHECK(registration_problem(NcclRegister::symmetric, facts).empty());

  SECTION("too old an NCCL") {
    facts.nccl_version = 22702;
    CHECK(
        registration_problem(NcclRegister::symmetric, facts) ==
        "--nccl-register symmetric: this run's NCCL is 2.27.2, and symmetric registration needs NCCL 2.27.3 or later; use a newer NCCL (LD_LIBRARY_PATH) or leave --nccl-register at none");
  }
  SECTION("windows or cuMem switched off") {
    facts.win_enable_env = "0";
    CHECK(
        registration_problem(NcclRegister::symmetric, facts) ==
        "--nccl-register symmetric: NCCL_WIN_ENABLE=0 is set, and with it NCCL ignores ncclCommWindowRegister; "
        "unset it");
    facts.win_enable_env = "1";
    facts.cumem_enable_env = "0";
    CHECK(
        registration_problem(NcclRegister::symmetric, facts) ==
        "--nccl-register symmetric: NCCL_CUMEM_ENABLE=0 is set, and with it NCCL ignores the cuMem allocations that symmetric windows need; unset it");
  }
  const std::string why =
      "--nccl-register symmetric: NCCL runs its symmetric kernels only between GPUs of one host linked by NVLink, and elsewhere would accept the registration and not use it; ";
  SECTION("emulated ranks") {
    facts.emulated = true;
    facts.topology_kind = "emulated";
    CHECK(registration_problem(NcclRegister::symmetric, facts) ==
          why +
              "emulated ranks talk through NCCL's socket transport. "
              "Use --nccl-register local or none with --emulate-ranks");
  }
  SECTION("several hosts") {
    facts.hosts = 2;
    CHECK(registration_problem(NcclRegister::symmetric, facts) ==
          why + "this run spans 2 hosts. Use --nccl-register local or none");
  }
  SECTION("PCIe or mixed links") {
    facts.topology_kind = "pcie";
    CHECK(registration_problem(NcclRegister::symmetric, facts) ==
          why + "this host's GPUs are linked as 'pcie'. Use --nccl-register local or none");
    facts.topology_kind = "mixed";
    CHECK(registration_problem(NcclRegister::symmetric, facts) ==
          why + "this host's GPUs are linked as 'mixed'. Use --nccl-register local or none");
  }
  SECTION("a rank that does not know the links leaves them to the coordinator") {
    facts.topology_kind.clear();
    CHECK(registration_problem(NcclRegister::symmetric, facts).empty());
  }
  SECTION("one rank: NCCL would register the window as a local buffer, whatever the links") {
    facts.ranks = 1;
    const std::string one_rank =
        why +
        "at one rank NCCL registers the window as a local buffer (no peer to reach). "
        "Use --nccl-register local or none at one rank";
    CHECK(registration_problem(NcclRegister::symmetric, facts) == one_rank);
    facts.topology_kind = "pcie";
    CHECK(registration_problem(NcclRegister::symmetric, facts) == one_rank);
    CHECK(registration_problem(NcclRegister::local, facts).empty());
  }
}

TEST_CASE("the run note says what was registered and what the run can show", "[registration]") {
  CHECK(registration_note(NcclRegister::none, 8, false).empty());
  CHECK(
      registration_note(NcclRegister::local, 8, false) ==
      "NCCL buffer registration local: the send and receive buffers come from ncclMemAlloc and are registered with ncclCommRegister (nccl-tests -R 1)");
  CHECK(
      registration_note(NcclRegister::symmetric, 1, false) ==
      "NCCL buffer registration symmetric: the send and receive buffers come from ncclMemAlloc and are registered with ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC) at one size on every rank (nccl-tests -R 2, vLLM's VLLM_USE_NCCL_SYMM_MEM); at one rank NCCL only copies locally, so no figure shows the registration's effect on a link");
  CHECK(
      registration_note(NcclRegister::local, 4, true) ==
      "NCCL buffer registration local: the send and receive buffers come from ncclMemAlloc and are registered with ncclCommRegister (nccl-tests -R 1); emulated ranks talk through NCCL's socket transport, which does not use registered buffers, so the figures show the registration's cost only, not its gain");
}
