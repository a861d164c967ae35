// Parsing of NCCL Inspector JSON Lines (simdjson's DOM parser, one line at a time) into RankStreams and
// OpRecords, with the format checks that turn foreign or unknown input into one clear line (exit 2).
#include "capture/readers/inspector_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <simdjson.h>

#include "common/error.hpp"

namespace k25 {

namespace fs = std::filesystem;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

namespace {

// A record that is malformed: the caller prefixes file and line.
struct RecordError {
  std::string message;
};

std::optional<element> member(const object& obj, std::string_view key) {
  element value;
  if (obj[key].get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

object object_at(const object& obj, std::string_view key) {
  const auto value = member(obj, key);
  object result;
  if (!value || value->get_object().get(result) != simdjson::SUCCESS)
    throw RecordError{fmt::format("'{}' must be an object", key)};
  return result;
}

std::string_view string_at(const object& obj, std::string_view key) {
  const auto value = member(obj, key);
  std::string_view result;
  if (!value || value->get_string().get(result) != simdjson::SUCCESS)
    throw RecordError{fmt::format("'{}' must be a string", key)};
  return result;
}

std::string_view string_or(const object& obj, std::string_view key, std::string_view fallback) {
  return member(obj, key) ? string_at(obj, key) : fallback;
}

std::uint64_t unsigned_at(const object& obj, std::string_view key) {
  const auto value = member(obj, key);
  std::uint64_t result = 0;
  if (!value || value->get_uint64().get(result) != simdjson::SUCCESS)
    throw RecordError{fmt::format("'{}' must be an unsigned integer", key)};
  return result;
}

std::uint64_t unsigned_or(const object& obj, std::string_view key, std::uint64_t fallback) {
  return member(obj, key) ? unsigned_at(obj, key) : fallback;
}

std::int64_t integer_at(const object& obj, std::string_view key, std::int64_t low, std::int64_t high) {
  const auto value = member(obj, key);
  std::int64_t result = 0;
  if (!value || value->get_int64().get(result) != simdjson::SUCCESS)
    throw RecordError{fmt::format("'{}' must be an integer", key)};
  if (result < low || result > high)
    throw RecordError{fmt::format("'{}' = {} is outside {}..{}", key, result, low, high)};
  return result;
}

// The Inspector writes doubles with "%lf", and NaN as the string "nan" (json.cc). Absent: NaN.
double bandwidth_or_nan(const object& obj, std::string_view key) {
  const auto value = member(obj, key);
  if (!value) return std::numeric_limits<double>::quiet_NaN();
  double result = 0;
  if (value->get_double().get(result) == simdjson::SUCCESS) return result;
  std::string_view text;
  if (value->get_string().get(text) == simdjson::SUCCESS && text == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  throw RecordError{fmt::format("'{}' must be a number", key)};
}

bool known_format(std::string_view version) {
  return std::find(kInspectorFormats.begin(), kInspectorFormats.end(), version) != kInspectorFormats.end();
}

bool is_blank(const char* begin, const char* end) {
  for (const char* p = begin; p < end; ++p)
    if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') return false;
  return true;
}

// The member names of coll_perf and of p2p_perf (inspectorCompletedColl / inspectorCompletedP2p).
struct PerfFields {
  const char *kind, *sn, *bytes, *exec_us, *timing, *algbw, *busbw, *start_ts;
};
constexpr PerfFields kCollFields = {"coll",
                                    "coll_sn",
                                    "coll_msg_size_bytes",
                                    "coll_exec_time_us",
                                    "coll_timing_source",
                                    "coll_algobw_gbs",
                                    "coll_busbw_gbs",
                                    "coll_start_ts"};
constexpr PerfFields kP2pFields = {"p2p",
                                   "p2p_sn",
                                   "p2p_msg_size_bytes",
                                   "p2p_exec_time_us",
                                   "p2p_timing_source",
                                   "p2p_algobw_gbs",
                                   "p2p_busbw_gbs",
                                   "p2p_start_ts"};

std::uint16_t intern(std::vector<std::string>& names, std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<std::uint16_t>(i);
  if (names.size() >= std::numeric_limits<std::uint16_t>::max())
    throw RecordError{"too many distinct op kinds or timing sources"};
  names.emplace_back(name);
  return static_cast<std::uint16_t>(names.size() - 1);
}

}  // namespace

struct InspectorReader::Impl {
  InspectorCapture capture;
  simdjson::dom::parser parser;
  std::size_t last_stream = std::numeric_limits<std::size_t>::max();

  // The v4.3 dump marker whose records follow: its stream and the records it still announces.
  struct DumpContext {
    bool active = false;
    std::uint32_t stream = 0;
    std::uint64_t dump_ts = 0;
    std::uint64_t line = 0;
    std::uint64_t coll = 0, p2p = 0, proxy = 0;
    std::uint64_t announced = 0, seen = 0;
    bool pending() const { return active && (coll + p2p + proxy) > 0; }
  };

  void read_buffer(const char* data, std::size_t size, const std::string& name, bool skip_if_foreign);
  bool first_line_is_inspector(const char* begin, std::size_t length);
  void read_record(const object& obj, InputFile& file, std::size_t file_index, std::uint64_t line,
                   DumpContext& context);
  std::uint32_t stream_for(const object& header, const object& metadata, std::string_view version,
                           std::size_t file_index);
  void add_op(const object& perf, bool p2p, std::uint32_t stream, std::uint64_t dump_ts, InputFile& file);
};

InspectorReader::InspectorReader() : impl_(std::make_unique<Impl>()) {}
InspectorReader::~InspectorReader() = default;

bool InspectorReader::Impl::first_line_is_inspector(const char* begin, std::size_t length) {
  element doc;
  if (parser.parse(begin, length, false).get(doc) != simdjson::SUCCESS) {
    // A file cut inside its first record still starts like one.
    return length >= 2 && begin[0] == '{' && begin[1] == '"';
  }
  object obj, metadata;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) return false;
  const auto meta = member(obj, "metadata");
  if (!meta || meta->get_object().get(metadata) != simdjson::SUCCESS) return false;
  std::string_view version;
  return metadata["inspector_output_format_version"].get_string().get(version) == simdjson::SUCCESS;
}

void InspectorReader::Impl::read_buffer(const char* data, std::size_t size, const std::string& name,
                                        bool skip_if_foreign) {
  const std::size_t file_index = capture.files.size();
  capture.files.emplace_back();
  capture.files.back().path = name;
  DumpContext context;
  last_stream = std::numeric_limits<std::size_t>::max();
  const char* const end = data + size;
  std::uint64_t line = 0;
  bool first = true;
  for (const char* p = data; p < end;) {
    const char* newline = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* line_end = newline ? newline : end;
    const char* next = newline ? newline + 1 : end;
    ++line;
    const char* begin = p;
    while (begin < line_end && (*begin == ' ' || *begin == '\t' || *begin == '\r')) ++begin;
    const char* stop = line_end;
    while (stop > begin && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r')) --stop;
    p = next;
    if (begin == stop) continue;
    InputFile& file = capture.files[file_index];
    const auto length = static_cast<std::size_t>(stop - begin);
    if (first) {
      first = false;
      if (skip_if_foreign && !first_line_is_inspector(begin, length)) {
        capture.notes.push_back(fmt::format("skipped {}: not NCCL Inspector output", name));
        capture.files.pop_back();
        return;
      }
    }
    ++file.lines;
    element doc;
    const auto parsed = parser.parse(begin, length, false).get(doc);
    if (parsed != simdjson::SUCCESS) {
      if (is_blank(next, end) && length >= 2 && begin[0] == '{' && begin[1] == '"') {
        file.cut = true;
        file.cut_reason = fmt::format("line {} is cut (the file was still being written); skipped", line);
        break;
      }
      throw UsageError(fmt::format("{}:{}: not NCCL Inspector output: {} (a JSON object per line expected)",
                                   name, line, simdjson::error_message(parsed)));
    }
    object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS)
      throw UsageError(
          fmt::format("{}:{}: not NCCL Inspector output: a JSON object per line expected", name, line));
    try {
      read_record(obj, file, file_index, line, context);
    } catch (const RecordError& e) {
      throw UsageError(fmt::format("{}:{}: {}", name, line, e.message));
    }
  }
  if (context.pending()) {
    InputFile& file = capture.files[file_index];
    file.cut = true;
    file.cut_reason = fmt::format("the dump at line {} announced {} records, the file ends after {}",
                                  context.line, context.announced, context.seen);
  }
}

std::uint32_t InspectorReader::Impl::stream_for(const object& header, const object& metadata,
                                                std::string_view version, std::size_t file_index) {
  const std::string_view id = string_at(header, "id");
  const auto n_ranks = static_cast<int>(integer_at(header, "n_ranks", 1, 1 << 24));
  const auto rank = static_cast<int>(integer_at(header, "rank", 0, n_ranks - 1));
  const std::string_view hostname = string_or(metadata, "hostname", "");
  const std::uint64_t pid = unsigned_or(metadata, "pid", 0);
  const auto matches = [&](const RankStream& s) {
    return s.rank == rank && s.pid == pid && s.file == file_index && s.comm_id == id &&
           s.hostname == hostname;
  };
  if (last_stream < capture.streams.size() && matches(capture.streams[last_stream]))
    return static_cast<std::uint32_t>(last_stream);
  for (std::size_t i = capture.streams.size(); i-- > 0;) {
    if (capture.streams[i].file != file_index) break;  // streams of earlier files never match
    if (matches(capture.streams[i])) {
      last_stream = i;
      return static_cast<std::uint32_t>(i);
    }
  }
  if (capture.streams.size() >= std::numeric_limits<std::uint32_t>::max())
    throw RecordError{"too many (communicator, rank) streams"};
  RankStream stream;
  stream.comm_id = std::string(id);
  stream.comm_name = std::string(string_or(header, "comm_name", ""));
  stream.rank = rank;
  stream.n_ranks = n_ranks;
  stream.nnodes = unsigned_or(header, "nnodes", 0);
  stream.hostname = std::string(hostname);
  stream.pid = pid;
  stream.format_version = std::string(version);
  stream.file = file_index;
  capture.streams.push_back(std::move(stream));
  last_stream = capture.streams.size() - 1;
  return static_cast<std::uint32_t>(last_stream);
}

void InspectorReader::Impl::add_op(const object& perf, bool p2p, std::uint32_t stream, std::uint64_t dump_ts,
                                   InputFile& file) {
  OpRecord op;
  op.stream = stream;
  op.p2p = p2p;
  op.dump_ts = dump_ts;
  const PerfFields& f = p2p ? kP2pFields : kCollFields;
  op.kind = intern(capture.kinds, string_at(perf, f.kind));
  op.sn = unsigned_at(perf, f.sn);
  if (p2p) op.peer = static_cast<std::int32_t>(integer_at(perf, "p2p_peer", -1, 1 << 24));
  op.bytes = unsigned_at(perf, f.bytes);
  op.exec_us = static_cast<double>(unsigned_at(perf, f.exec_us));
  op.timing_source = static_cast<std::uint8_t>(intern(capture.timing_sources, string_or(perf, f.timing, "")));
  op.algbw_gbps = bandwidth_or_nan(perf, f.algbw);
  op.busbw_gbps = bandwidth_or_nan(perf, f.busbw);
  if (capture.timing_sources.size() > std::numeric_limits<std::uint8_t>::max())
    throw RecordError{"too many distinct timing sources"};
  if (member(perf, "event_trace_ts")) {
    const object trace = object_at(perf, "event_trace_ts");
    op.start_ts = unsigned_or(trace, f.start_ts, 0);
  }
  (p2p ? file.p2p_records : file.coll_records) += 1;
  capture.ops.push_back(op);
}

void InspectorReader::Impl::read_record(const object& obj, InputFile& file, std::size_t file_index,
                                        std::uint64_t line, DumpContext& context) {
  const bool has_header = member(obj, "header").has_value();
  const bool has_metadata = member(obj, "metadata").has_value();
  if (has_header != has_metadata)
    throw RecordError{"not NCCL Inspector output: 'header' and 'metadata' must come together"};
  if (!has_header) {
    // A v4.3 payload line: it belongs to the marker before it.
    if (!context.pending())
      throw RecordError{context.active
                            ? fmt::format("a record beyond the {} its dump (line {}) announced",
                                          context.announced, context.line)
                            : std::string("not NCCL Inspector output: a record without header and metadata")};
    if (obj.size() != 1) throw RecordError{"a v4.3 record after its dump marker must hold one member"};
    ++context.seen;
    if (const auto coll = member(obj, "coll_perf"); coll && context.coll > 0) {
      --context.coll;
      object perf;
      if (coll->get_object().get(perf) != simdjson::SUCCESS)
        throw RecordError{"'coll_perf' must be an object"};
      add_op(perf, false, context.stream, context.dump_ts, file);
    } else if (const auto p2p = member(obj, "p2p_perf"); p2p && context.p2p > 0) {
      --context.p2p;
      object perf;
      if (p2p->get_object().get(perf) != simdjson::SUCCESS) throw RecordError{"'p2p_perf' must be an object"};
      add_op(perf, true, context.stream, context.dump_ts, file);
    } else if (member(obj, "proxy_trace") && context.proxy > 0) {
      --context.proxy;
      ++file.proxy_records;
    } else {
      throw RecordError{fmt::format("a record that its dump (line {}) did not announce", context.line)};
    }
    return;
  }

  const object header = object_at(obj, "header");
  const object metadata = object_at(obj, "metadata");
  const std::string_view version = string_at(metadata, "inspector_output_format_version");
  if (!known_format(version))
    throw RecordError{fmt::format("NCCL Inspector output format '{}' is not one this k25comm reads ({})",
                                  version.substr(0, 40), fmt::join(kInspectorFormats, ", "))};
  if (file.format_versions.empty() || !file.format_versions.contains(std::string(version)))
    file.format_versions.emplace(version);
  const std::uint32_t stream = stream_for(header, metadata, version, file_index);
  const std::uint64_t dump_ts = unsigned_or(metadata, "dump_timestamp_us", 0);

  if (const auto stats_value = member(obj, "dump_stats")) {
    object stats;
    if (stats_value->get_object().get(stats) != simdjson::SUCCESS)
      throw RecordError{"'dump_stats' must be an object"};
    if (context.pending())
      throw RecordError{fmt::format("a new dump starts before the {} records announced at line {} (found {})",
                                    context.announced, context.line, context.seen)};
    RankStream& s = capture.streams[stream];
    ++s.dump_markers;
    ++file.dump_markers;
    s.coll_dropped_total = std::max(s.coll_dropped_total, unsigned_or(stats, "coll_dropped_total", 0));
    s.p2p_dropped_total = std::max(s.p2p_dropped_total, unsigned_or(stats, "p2p_dropped_total", 0));
    s.coll_dropped_since_sum += unsigned_or(stats, "coll_dropped_since_last_dump", 0);
    s.p2p_dropped_since_sum += unsigned_or(stats, "p2p_dropped_since_last_dump", 0);
    context = DumpContext{};
    if (version == "v4.3") {
      context.active = true;
      context.stream = stream;
      context.dump_ts = dump_ts;
      context.line = line;
      context.coll = unsigned_or(stats, "coll_records", 0);
      context.p2p = unsigned_or(stats, "p2p_records", 0);
      context.proxy = unsigned_or(stats, "proxy_records", 0);
      if (context.coll > (1ULL << 40) || context.p2p > (1ULL << 40) || context.proxy > (1ULL << 40))
        throw RecordError{"dump_stats record counts are implausibly large"};
      context.announced = context.coll + context.p2p + context.proxy;
    }
    return;
  }
  // A record with its own header and metadata; if a v4.3 marker of the same stream announced it, count it.
  const auto count_against_marker = [&](std::uint64_t DumpContext::*remaining) {
    if (context.pending() && context.stream == stream && context.*remaining > 0) {
      --(context.*remaining);
      ++context.seen;
    }
  };
  if (member(obj, "coll_perf")) {
    count_against_marker(&DumpContext::coll);
    add_op(object_at(obj, "coll_perf"), false, stream, dump_ts, file);
  } else if (member(obj, "p2p_perf")) {
    count_against_marker(&DumpContext::p2p);
    add_op(object_at(obj, "p2p_perf"), true, stream, dump_ts, file);
  } else if (member(obj, "proxy_trace")) {
    count_against_marker(&DumpContext::proxy);
    ++file.proxy_records;
  } else {
    ++file.other_records;
  }
}

void InspectorReader::add_path(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw UsageError(fmt::format("{}: no such file or directory", path));
  std::vector<std::string> files;
  const bool directory = fs::is_directory(status);
  if (directory) {
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec) && entry.path().extension() == ".log")
        files.push_back(entry.path().string());
    }
    if (ec) throw UsageError(fmt::format("{}: cannot list: {}", path, ec.message()));
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw UsageError(fmt::format("{}: no Inspector files (*.log) in this directory", path));
  } else {
    files.push_back(path);
  }
  for (const std::string& file : files) {
    simdjson::padded_string text;
    if (const auto error = simdjson::padded_string::load(file).get(text); error != simdjson::SUCCESS)
      throw UsageError(fmt::format("{}: cannot read: {}", file, simdjson::error_message(error)));
    impl_->read_buffer(text.data(), text.size(), file, directory);
  }
}

void InspectorReader::add_text(std::string_view text, const std::string& name) {
  const simdjson::padded_string padded(text);
  impl_->read_buffer(padded.data(), padded.size(), name, false);
}

InspectorCapture InspectorReader::finish() {
  InspectorCapture capture = std::move(impl_->capture);
  impl_->capture = InspectorCapture{};
  if (capture.ops.empty()) {
    std::vector<std::string> names;
    for (const InputFile& f : capture.files) names.push_back(f.path);
    throw UsageError(names.empty()
                         ? std::string("no NCCL Inspector output among the inputs")
                         : fmt::format("no NCCL Inspector op records in {}", fmt::join(names, ", ")));
  }
  return capture;
}

InspectorCapture read_inspector_paths(const std::vector<std::string>& paths) {
  InspectorReader reader;
  for (const std::string& path : paths) reader.add_path(path);
  return reader.finish();
}

}  // namespace k25
