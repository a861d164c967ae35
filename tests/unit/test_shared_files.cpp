// Where the shared files (configs/, tools/) are looked for: beside the executable, an install's share/k25comm
// first, then a build directory's source tree; no path compiled in.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "common/shared_files.hpp"

namespace fs = std::filesystem;

TEST_CASE("shared-file roots: an install's share/k25comm, then the folder above the executable's",
          "[paths]") {
  CHECK(k25::shared_file_roots("/opt/k25/bin/k25comm") ==
        std::vector<fs::path>{"/opt/k25/share/k25comm", "/opt/k25"});
  CHECK(k25::shared_file_roots("/home/u/k25comm/build/k25comm") ==
        std::vector<fs::path>{"/home/u/k25comm/share/k25comm", "/home/u/k25comm"});
  CHECK(k25::shared_file_roots("/k25comm") == std::vector<fs::path>{"/share/k25comm", "/"});
}

TEST_CASE("shared-file candidates are the running executable's roots", "[paths]") {
  const fs::path exe = k25::running_executable();
  REQUIRE(exe.is_absolute());
  CHECK(exe.filename() == "k25_unit_tests");
  const std::vector<fs::path> roots = k25::shared_file_roots(exe);
  CHECK(k25::shared_file_candidates("configs/kimi.yaml") ==
        std::vector<fs::path>{roots[0] / "configs/kimi.yaml", roots[1] / "configs/kimi.yaml"});
}

TEST_CASE("the first candidate that is a regular file wins, not a folder or a missing path", "[paths]") {
  const fs::path dir = fs::temp_directory_path() / ("k25-shared-files-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a" / "kimi.yaml");  // a folder of that name
  fs::create_directories(dir / "b");
  fs::create_directories(dir / "c");
  std::ofstream(dir / "b" / "kimi.yaml") << "model: {}\n";
  std::ofstream(dir / "c" / "kimi.yaml") << "model: {}\n";
  const std::vector<fs::path> candidates{dir / "missing" / "kimi.yaml", dir / "a" / "kimi.yaml",
                                         dir / "b" / "kimi.yaml", dir / "c" / "kimi.yaml"};
  CHECK(k25::first_existing_file(candidates) == dir / "b" / "kimi.yaml");
  CHECK(k25::first_existing_file({dir / "missing"}).empty());
  CHECK(k25::first_existing_file({}).empty());
  fs::remove_all(dir);
}
