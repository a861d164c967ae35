// Catch2 entry point of the unit tests (no MPI, no GPU).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
