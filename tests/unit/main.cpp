// Catch2's implementation, compiled once for every test program (k25_catch_main), and a default entry point:
// a program with a main() of its own (the MPI tests: MPI_Init around the session) overrides the weak one here
// and runs the session through run_catch_session (catch_session.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.hpp"

int run_catch_session(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}

__attribute__((weak)) int main(int argc, char** argv) {
  return run_catch_session(argc, argv);
}
