// libFuzzer target: the history's readers of files a user hands it, the store (history.sqlite, read back as
// `k25comm history page` and `metrics` read it) and history.json, then what the commands make of what they
// read (the judgement, change points, page, metrics, summary). The first byte picks the reader; bad input
// must end in a k25::Error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "history/history_document.hpp"
#include "history/history_metrics.hpp"
#include "history/history_page.hpp"
#include "history/history_store.hpp"
#include "history/history_summary.hpp"
#include "history/history_verdicts.hpp"

namespace {

// The scratch file the store's bytes are written to, removed when the fuzzer ends.
struct ScratchFile {
  std::string path = "/tmp/k25-fuzz-history-" + std::to_string(::getpid()) + ".sqlite";
  ~ScratchFile() { std::remove(path.c_str()); }
};

void render(const k25::HistoryDocument& doc) {
  (void)k25::history_page_files(doc, k25::PageAssets{"chart.min.js", "history-page.js", "history-page.css"});
  std::vector<std::pair<std::string, std::string>> nights;
  for (const k25::HistoryRun& run : doc.runs) nights.emplace_back(run.node, run.night);
  (void)k25::history_summary(doc, nights);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      // The store: the bytes as a database file, read as the page and the metrics read it.
      static const ScratchFile scratch;
      std::ofstream(scratch.path, std::ios::binary | std::ios::trunc) << bytes;
      const k25::HistoryStore store(scratch.path, k25::HistoryStore::Access::read_only);
      const std::vector<k25::HistoryNight> nights = store.nights();
      (void)k25::openmetrics_text(nights);
      render(k25::judge_history(nights, k25::HistoryOptions{},
                                [](const k25::RunRow& r) { return r.report_path; }));
    } else {
      render(k25::read_history_document(bytes, "fuzz.json"));
    }
  } catch (const k25::Error&) {
    // The documented answer to an unreadable store or document (exit 2). Anything else is a finding.
  }
  return 0;
}
