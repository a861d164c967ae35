// The tables of predict's input formats, and the reading of a file through them.
#include "predict/input_formats.hpp"
#include "predict/backend_rows.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "analysis/gaps_from_capture.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "common/whole_file.hpp"
#include "predict/capture_base_reader.hpp"
#include "predict/csv_alt_reader.hpp"
#include "predict/report_inputs.hpp"

namespace k25 {
namespace {

PredictInput read_input(const std::string& path) {
  PredictInput file{path, read_whole_file(path), {}};
  file.json = nlohmann::json::parse(file.text, nullptr, false);
  return file;
}

bool is_json(const PredictInput& f) {
  return !f.json.is_discarded();
}

bool is_capture(const PredictInput& f) {
  return is_json(f) && looks_like_capture_json(f.json);
}

bool is_report(const PredictInput& f) {
  return is_json(f) && looks_like_report_json(f.json);
}

bool is_nccl_tests_json(const PredictInput& f) {
  return looks_like_nccl_tests_json(f.text) && !is_report(f);
}

bool is_nccl_tests_text(const PredictInput& f) {
  return !is_json(f) && looks_like_nccl_tests_text(f.text);
}

bool is_csv(const PredictInput& f) {
  return !is_json(f) && looks_like_alt_csv(f.text);
}

bool is_kineto_trace(const PredictInput& f) {
  return (is_json(f) && f.json.is_object() && f.json.contains("traceEvents")) ||
         f.text.rfind("\x1f\x8b", 0) == 0;
}

bool is_nsys_export(const PredictInput& f) {
  return f.text.rfind("SQLite format 3", 0) == 0;
}

bool is_inspector_log(const PredictInput& f) {
  return f.text.find("\"coll_sn\"") != std::string::npos ||
         f.text.find("\"coll_msg_size_bytes\"") != std::string::npos;
}

const char* kRunCapture =
    "run `k25comm capture` on the traces of every rank (k25comm capture FILES... --out DIR), then give DIR/capture.json as the base";

}  // namespace

const std::vector<BaseFormat>& base_formats() {
  static const std::vector<BaseFormat> formats{
      {"capture.json",
       "`k25comm capture TRACES... [--serve SERVE.json]` on the live server's profiler traces (docs/capture.md)",
       "each step group of the trace (decode, else unknown phase, else prefill): its wall time p50 (p90), or TPOT where the capture's serve figures give one; with the ranks on one clock, each op's transfer after the last rank's start from `trace.join`, the wait the rest; a prefill step, a size from `--model`'s config, one rank said in every headline",
       is_capture, [](const PredictInput& f) { return base_from_capture(f.json, f.path); }},
      {"report.json",
       "a k25comm run: `--phases serve,allreduce,...` (serve + replay), a replay alone, or `k25comm report comm/report.json --serve serve/report.json` (the merge)",
       "each serve concurrency C (TPOT p50, the replay's communication at T = C: its decode mode's where it ran one, else the attribution's), else each measured token count (the step); with the decode mode (`--modes eager,decode`) each op's wait, its decode op less the eager burst's op; its headline tags (host transport, oversubscribed, emulated, one rank) in every headline",
       is_report,
       [](const PredictInput& f) { return base_from_report(parse_report_text(f.text, f.path), f.path); }},
  };
  return formats;
}

const std::vector<AltFormat>& alt_formats() {
  static const std::vector<AltFormat> formats{
      {"nccl-tests JSON",
       "`all_reduce_perf -b 8K -e 4M -f 2 -d bfloat16 -J all_reduce.json` (nccl-tests 2.19.x)",
       "`results[].out_of_place.time` (in-place where that is `nan`) per size and type; the kind from `args[0]` (else --kind, else the file name), the ranks processes x threads x GPUs",
       is_nccl_tests_json,
       [](const PredictInput& f, const AltReadContext& c) {
         return alt_from_nccl_tests_json(f.text, f.path, c);
       }},
      {"replay report",
       "a k25comm run there: `mpirun -np 8 k25comm --sizes configs/kimi.yaml --modes eager`; a nightly's `latest/report.json`; with `--modes eager,decode --gaps-from capture.json` the base's own shape",
       "the eager burst per op (step_us p50 and p90 / ops per step; else graph), against bytes per op (All-to-Allv: bytes one rank sends); a decode mode's communication per op with its shape",
       is_report,
       [](const PredictInput& f, const AltReadContext& c) {
         return alt_from_report(with_backend_rows(parse_report_text(f.text, f.path), c.backend, f.path),
                                f.path);
       }},
      {"nccl-tests text",
       "`all_reduce_perf -b 8K -e 4M -f 2 -d bfloat16 > all_reduce.txt`, or its output pasted (any version)",
       "the out-of-place time per size and type (-d all: the base's type; -o all: sum); the kind from its `# Collective test starting:` line (else --kind, the *_perf program it names, the file name); the ranks processes (mpirun/srun -n, SLURM_NTASKS, WORLD_SIZE; a command without a launcher: one) x `nThread` x `nGpus`, its `#  Rank` lines only where nothing else says, the source said",
       is_nccl_tests_text,
       [](const PredictInput& f, const AltReadContext& c) {
         return alt_from_nccl_tests_text(f.text, f.path, c);
       }},
      {"CSV",
       "written by hand from any published table, or copied from capture.json's rows (a rank's part: `bytes_per` rank)",
       "columns `kind,bytes,op_us` and optionally `p90` (or `op_us_p90`), `dtype`, `overlap` (additive or overlapping), `bytes_per` (`op`, or `rank`: a rank's part, as capture.json's rows give it) and `ranks`; `#` lines are comments, but `# bytes_per: rank` and `# ranks: N`",
       is_csv,
       [](const PredictInput& f, const AltReadContext& c) {
         return alt_from_csv(f.text, f.path, c.base_ranks);
       }},
  };
  return formats;
}

const std::vector<RefusedFormat>& refused_base_formats() {
  static const std::vector<RefusedFormat> formats{
      {"a PyTorch profiler (Kineto) trace", is_kineto_trace, kRunCapture},
      {"an Nsight Systems SQLite export", is_nsys_export, kRunCapture},
      {"an NCCL Inspector log", is_inspector_log, kRunCapture},
  };
  return formats;
}

BaseDocument read_base_file(const std::string& path) {
  const PredictInput file = read_input(path);
  for (const BaseFormat& format : base_formats())
    if (format.sniff(file)) {
      BaseDocument base = format.read(file);
      base.format = format.name;
      return base;
    }
  for (const RefusedFormat& look_alike : refused_base_formats())
    if (look_alike.sniff(file))
      throw UsageError(fmt::format("{}: {}, not a base: {}", path, look_alike.name, look_alike.advice));
  throw UsageError(fmt::format("{}: {}, but none of the base's formats ({})", path,
                               is_json(file) ? "JSON" : "not JSON", base_formats_help()));
}

AltDocument read_alt_file(const std::string& path, const std::string& label, const AltReadContext& context) {
  const PredictInput file = read_input(path);
  for (const AltFormat& format : alt_formats())
    if (format.sniff(file)) {
      AltDocument alt = format.read(file, context);
      alt.format = format.name;
      alt.label = label.empty() ? default_label(path) : label;
      check_plausible(alt);
      return alt;
    }
  throw UsageError(fmt::format("{}: none of the alternative's formats ({})", path, alt_formats_help()));
}

std::string default_label(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string stem = p.stem().string();
  const std::string folder = p.parent_path().filename().string();
  if ((stem == "report" || stem == "results" || stem == "capture") && !folder.empty() && folder != ".")
    return folder;
  return stem.empty() ? path : stem;
}

std::string base_formats_help() {
  std::string text;
  for (const BaseFormat& f : base_formats()) text += (text.empty() ? "" : ", ") + std::string(f.name);
  return text;
}

std::string alt_formats_help() {
  std::string text;
  for (const AltFormat& f : alt_formats()) text += (text.empty() ? "" : ", ") + std::string(f.name);
  return text;
}

std::string predict_formats_markdown() {
  std::string md = "| input | as | how to get it | what predict reads |\n|---|---|---|---|\n";
  for (const BaseFormat& f : base_formats())
    md += fmt::format("| {} | base | {} | {} |\n", f.name, f.how_to_get, f.read_as);
  for (const AltFormat& f : alt_formats())
    md += fmt::format("| {} | `--with` | {} | {} |\n", f.name, f.how_to_get, f.read_as);
  for (const RefusedFormat& f : refused_base_formats())
    md += fmt::format("| {} | refused as a base | | {} |\n", f.name, f.advice);
  return md;
}

}  // namespace k25
