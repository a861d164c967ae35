// The one reader of whole input files: its bytes, and each refusal in one line (never a hang on a pipe).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "common/whole_file.hpp"

using namespace k25;
using Catch::Matchers::Equals;

TEST_CASE("a whole file is read as it is, or refused in one line", "[whole-file]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("k25-whole-file-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "report.json").string();
  std::ofstream(file, std::ios::binary) << std::string("{\"a\":\0 1}", 9);
  CHECK(read_whole_file(file) == std::string("{\"a\":\0 1}", 9));
  CHECK(read_whole_file(file, 1 << 20) == std::string("{\"a\":\0 1}", 9));
  const std::string empty = (dir / "empty").string();
  std::ofstream(empty).close();
  CHECK(read_whole_file(empty).empty());

  CHECK_THROWS_WITH(read_whole_file((dir / "absent").string()),
                    Equals((dir / "absent").string() + ": no such file or directory"));
  CHECK_THROWS_WITH(read_whole_file(dir.string()), Equals(dir.string() + ": a folder, not a file"));
  const std::string pipe = (dir / "pipe").string();
  REQUIRE(mkfifo(pipe.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_whole_file(pipe), Equals(pipe + ": not a regular file"));

  // stat itself fails (a name longer than NAME_MAX; as root a folder without search permission would not do):
  // the reason, not "no such file".
  const std::string too_long = (dir / std::string(300, 'n')).string();
  CHECK_THROWS_WITH(read_whole_file(too_long), Equals(too_long + ": cannot be read: File name too long"));

  const std::string big = (dir / "big").string();
  std::ofstream(big, std::ios::binary) << std::string((2u << 20) + 1, 'x');
  CHECK_THROWS_WITH(read_whole_file(big, 2u << 20), Equals(big + ": larger than 2 MiB"));
  CHECK(read_whole_file(big).size() == (2u << 20) + 1);
  CHECK_THROWS_AS(read_whole_file(dir.string()), UsageError);
  std::filesystem::remove_all(dir);
}
