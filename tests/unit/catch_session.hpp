// Catch2's session for a test program with a main() of its own (the MPI tests: MPI_Init around it). Defined
// beside Catch2's implementation in k25_catch_main (tests/unit/main.cpp), where Catch2 declares its Session.
#pragma once

// Runs the test cases the command line selects, as Catch::Session().run; returns the number of failed ones.
int run_catch_session(int argc, char** argv);
