// Nsight Systems SQLite export into the trace model, through SQLite's C API (read only).
#include "capture/readers/nsys_reader.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "capture/model/step_marks.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

// A process's id from nsys's serialized global ids (globalPid and globalTid hold it in bits 24..47).
std::uint64_t process_of(std::int64_t global_id) {
  return (static_cast<std::uint64_t>(global_id) >> 24) & 0xFFFFFF;
}

// Correlation ids are unique within a process only.
std::uint64_t correlation_key(std::uint64_t process, std::int64_t correlation) {
  return (process << 40) ^ static_cast<std::uint64_t>(correlation);
}

class Database {
 public:
  explicit Database(const std::string& path) : path_(path) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr);
    if (rc != SQLITE_OK) fail("cannot open", rc);
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  [[noreturn]] void fail(const std::string& what, int rc) const {
    const char* message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
      throw UsageError(fmt::format("{}: corrupt SQLite database ({})", path_, message));
    throw UsageError(fmt::format("{}: {}: {}", path_, what, message));
  }

  class Statement {
   public:
    Statement(Database& db, const std::string& sql) : db_(db) {
      const int rc = sqlite3_prepare_v2(db.db_, sql.c_str(), -1, &stmt_, nullptr);
      if (rc != SQLITE_OK) db.fail("cannot query (" + sql.substr(0, 60) + ")", rc);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    bool step() {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_ROW) return true;
      if (rc == SQLITE_DONE) return false;
      db_.fail("cannot read", rc);
    }
    bool null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
    std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
    std::string_view text(int column) const {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
      return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
               : std::string_view{};
    }

   private:
    Database& db_;
    sqlite3_stmt* stmt_ = nullptr;
  };

  std::set<std::string> tables() {
    std::set<std::string> names;
    Statement s(*this, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (s.step()) names.emplace(s.text(0));
    return names;
  }
  std::set<std::string> columns(const std::string& table) {
    std::set<std::string> names;
    Statement s(*this, fmt::format("PRAGMA table_info(\"{}\")", table));
    while (s.step()) names.emplace(s.text(1));
    return names;
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// "Message size [bytes]" from an NVTX payload exported as JSON text (nsys export --include-json=true).
std::uint64_t payload_bytes(std::string_view json_text) {
  if (json_text.empty()) return 0;
  const nlohmann::json payload = nlohmann::json::parse(json_text, nullptr, false);
  if (!payload.is_object()) return 0;
  for (const auto& [key, value] : payload.items())
    if (key.starts_with("Message size") && value.is_number_unsigned()) return value.get<std::uint64_t>();
  return 0;
}

bool is_nccl_range(std::string_view name) {
  static const std::set<std::string_view> kRanges = {
      "ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast", "ncclReduce",
      "ncclSend",      "ncclRecv",      "ncclAlltoAll",      "ncclGather",    "ncclScatter"};
  return kRanges.contains(name);
}

}  // namespace

TraceCapture read_nsys_file(const std::string& path) {
  Database db(path);
  const std::set<std::string> tables = db.tables();
  const bool nsys =
      tables.contains("StringIds") &&
      (tables.contains("CUPTI_ACTIVITY_KIND_KERNEL") || tables.contains("TARGET_INFO_SESSION_START_TIME") ||
       tables.contains("META_DATA_EXPORT") || tables.contains("CUPTI_ACTIVITY_KIND_RUNTIME"));
  if (!nsys)
    throw UsageError(fmt::format(
        "{}: a SQLite database, but not an Nsight Systems export (no StringIds and CUPTI_ACTIVITY_KIND_* tables)",
        path));
  if (!tables.contains("CUPTI_ACTIVITY_KIND_KERNEL"))
    throw TraceWithoutGpuEvents(fmt::format(
        "{}: an Nsight Systems export without GPU events (no CUPTI_ACTIVITY_KIND_KERNEL table): profile with nsys profile --trace=cuda,nvtx",
        path));

  TraceCapture capture;
  capture.files.emplace_back();
  TraceFile& file = capture.files.back();
  file.path = path;
  file.format = "nsys";

  std::int64_t epoch_ns = 0;
  if (tables.contains("TARGET_INFO_SESSION_START_TIME") &&
      db.columns("TARGET_INFO_SESSION_START_TIME").contains("utcEpochNs")) {
    Database::Statement s(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    if (s.step() && !s.null(0)) epoch_ns = s.integer(0);
  }

  // StringIds: names are interned only when used.
  std::unordered_map<std::int64_t, std::string> strings;
  {
    Database::Statement s(db, "SELECT id, value FROM StringIds");
    while (s.step()) strings.emplace(s.integer(0), std::string(s.text(1)));
  }
  const auto string_of = [&](std::int64_t id) -> std::string_view {
    const auto found = strings.find(id);
    return found == strings.end() ? std::string_view{} : std::string_view(found->second);
  };

  // GPU activities, a rank per (process, device).
  std::map<std::pair<std::uint64_t, std::int64_t>, std::uint32_t> rank_of;
  const auto rank_for = [&](std::uint64_t process, std::int64_t device) {
    const auto key = std::make_pair(process, device);
    const auto found = rank_of.find(key);
    if (found != rank_of.end()) return found->second;
    const auto index = static_cast<std::uint32_t>(capture.ranks.size());
    TraceRank rank;
    rank.device = static_cast<int>(std::clamp<std::int64_t>(device, -1, 1 << 24));
    rank.process = fmt::format("pid {}", process);
    capture.ranks.push_back(std::move(rank));
    rank_of.emplace(key, index);
    return index;
  };
  std::vector<std::uint64_t> correlation_of;  // per activity: process-qualified correlation id
  std::vector<std::uint64_t> activity_process;
  std::uint64_t graph_kernels = 0;
  const auto read_activities = [&](const std::string& table, GpuActivityType type) {
    if (!tables.contains(table)) return;
    const std::set<std::string> columns = db.columns(table);
    const std::string name_column = type != GpuActivityType::kernel     ? ""
                                    : columns.contains("demangledName") ? "demangledName"
                                                                        : "shortName";
    const bool graph_column = columns.contains("graphNodeId");
    const bool graph_id_column = columns.contains("graphId");
    const std::string sql = fmt::format(
        "SELECT start, end, deviceId, streamId, {}, {}, {}, {}, {} FROM \"{}\"",
        columns.contains("correlationId") ? "correlationId" : "0",
        columns.contains("globalPid") ? "globalPid" : "0", name_column.empty() ? "0" : name_column,
        graph_column ? "graphNodeId" : "NULL", graph_id_column ? "graphId" : "NULL", table);
    Database::Statement s(db, sql);
    const std::uint32_t fixed_name = capture.names.intern(type == GpuActivityType::memcpy   ? "[CUDA memcpy]"
                                                          : type == GpuActivityType::memset ? "[CUDA memset]"
                                                                                            : "");
    while (s.step()) {
      ++file.events;
      GpuActivity a;
      a.start_ns = epoch_ns + s.integer(0);
      a.end_ns = epoch_ns + s.integer(1);
      if (a.end_ns < a.start_ns) continue;
      const std::uint64_t process = process_of(s.integer(5));
      a.rank = rank_for(process, s.integer(2));
      a.stream = static_cast<std::uint32_t>(s.integer(3));
      a.type = type;
      a.name = type == GpuActivityType::kernel ? capture.names.intern(string_of(s.integer(6))) : fixed_name;
      if (type == GpuActivityType::kernel) {
        ++file.kernels;
        if (!s.null(7) || !s.null(8)) {
          a.launch = LaunchMode::graph;
          ++graph_kernels;
        }
      } else {
        ++file.copies;
      }
      capture.activities.push_back(a);
      correlation_of.push_back(s.null(4) ? 0 : correlation_key(process, s.integer(4)));
      activity_process.push_back(process);
    }
  };
  read_activities("CUPTI_ACTIVITY_KIND_KERNEL", GpuActivityType::kernel);
  read_activities("CUPTI_ACTIVITY_KIND_MEMCPY", GpuActivityType::memcpy);
  read_activities("CUPTI_ACTIVITY_KIND_MEMSET", GpuActivityType::memset);
  if (file.kernels == 0)
    throw TraceWithoutGpuEvents(
        fmt::format("{}: an Nsight Systems export without GPU events (its kernel table is empty)", path));

  // Runtime calls: launches (thread, time, correlation) and graph launches.
  std::vector<HostLaunch> launches;
  std::unordered_set<std::uint64_t> graph_correlations;
  if (tables.contains("CUPTI_ACTIVITY_KIND_RUNTIME")) {
    Database::Statement s(db,
                          "SELECT start, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    while (s.step()) {
      ++file.events;
      if (s.null(2) || s.integer(2) == 0) continue;
      const auto thread = static_cast<std::uint64_t>(s.integer(1));
      const std::uint64_t key = correlation_key(process_of(s.integer(1)), s.integer(2));
      launches.push_back({thread, epoch_ns + s.integer(0), key});
      if (string_of(s.integer(3)).find("GraphLaunch") != std::string_view::npos) {
        ++file.graph_launches;
        graph_correlations.insert(key);
      }
    }
  }
  for (std::size_t i = 0; i < capture.activities.size(); ++i) {
    GpuActivity& a = capture.activities[i];
    if (a.launch == LaunchMode::graph || a.type != GpuActivityType::kernel) continue;
    a.launch = graph_correlations.contains(correlation_of[i]) ? LaunchMode::graph
               : launches.empty()                             ? LaunchMode::unknown
                                                              : LaunchMode::eager;
  }

  // NVTX: step marks, and NCCL's ranges with their payload's message size where the export holds it.
  std::vector<HostMark> host_marks;
  struct NcclRange {
    std::int64_t start, end;
    std::uint64_t bytes;
  };
  std::unordered_map<std::uint64_t, std::vector<NcclRange>> nccl_ranges;  // per thread
  std::uint64_t nccl_range_count = 0, nccl_payloads = 0;
  if (tables.contains("NVTX_EVENTS")) {
    const std::set<std::string> columns = db.columns("NVTX_EVENTS");
    const std::string sql = fmt::format(
        "SELECT start, end, text, {}, globalTid, {} FROM NVTX_EVENTS WHERE end IS NOT NULL",
        columns.contains("textId") ? "textId" : "NULL", columns.contains("jsonText") ? "jsonText" : "NULL");
    Database::Statement s(db, sql);
    while (s.step()) {
      ++file.events;
      const std::string_view name = s.null(2) ? string_of(s.null(3) ? 0 : s.integer(3)) : s.text(2);
      if (is_nccl_range(name)) {
        ++nccl_range_count;
        const std::uint64_t bytes = payload_bytes(s.text(5));
        if (bytes > 0) ++nccl_payloads;
        nccl_ranges[static_cast<std::uint64_t>(s.integer(4))].push_back(
            {epoch_ns + s.integer(0), epoch_ns + s.integer(1), bytes});
        continue;
      }
      if (!may_be_step_mark(name) || !parse_step_mark(name)) continue;
      HostMark mark;
      mark.thread = static_cast<std::uint64_t>(s.integer(4));
      mark.mark.name = capture.names.intern(name);
      mark.mark.host_start_ns = epoch_ns + s.integer(0);
      mark.mark.host_end_ns = epoch_ns + s.integer(1);
      host_marks.push_back(mark);
    }
  }
  file.step_marks = host_marks.size();

  // Sizes from NCCL's ranges: a kernel whose launch lies inside one on its thread takes the range's size.
  if (nccl_payloads > 0) {
    for (auto& [thread, ranges] : nccl_ranges)
      std::sort(ranges.begin(), ranges.end(),
                [](const NcclRange& a, const NcclRange& b) { return a.start < b.start; });
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::int64_t>> launch_of;
    for (const HostLaunch& l : launches) launch_of.emplace(l.correlation, std::make_pair(l.thread, l.ts_ns));
    for (std::size_t i = 0; i < capture.activities.size(); ++i) {
      GpuActivity& a = capture.activities[i];
      const auto launch = launch_of.find(correlation_of[i]);
      if (a.type != GpuActivityType::kernel || launch == launch_of.end()) continue;
      const auto ranges = nccl_ranges.find(launch->second.first);
      if (ranges == nccl_ranges.end()) continue;
      const std::int64_t t = launch->second.second;
      auto it = std::upper_bound(ranges->second.begin(), ranges->second.end(), t,
                                 [](std::int64_t ts, const NcclRange& r) { return ts < r.start; });
      while (it != ranges->second.begin()) {
        --it;
        if (it->end >= t) {
          a.bytes = it->bytes;
          break;
        }
        if (t - it->start > 1'000'000'000) break;
      }
    }
  } else if (nccl_range_count > 0) {
    file.notes.push_back(fmt::format(
        "{} NCCL NVTX ranges, none with a payload in this export: sizes come from --model where it is given",
        nccl_range_count));
  }

  set_launch_times(launches, capture.activities, 0, correlation_of);
  resolve_step_marks(host_marks, launches, capture.activities, 0, correlation_of, capture.marks);

  // CUDA graphs traced whole: graph launches whose kernels are not in the kernel table.
  std::string graph_mode;
  if (tables.contains("META_DATA_CAPTURE")) {
    Database::Statement s(db,
                          "SELECT value FROM META_DATA_CAPTURE WHERE name = 'CUDA_GRAPH_TRACE_OPTIONS:MODE'");
    if (s.step()) graph_mode = std::string(s.text(0));
  }
  if (file.graph_launches > 0 && graph_kernels == 0) {
    const std::string warning = fmt::format(
        "{} CUDA graph launches, but no kernel inside a graph: this export traced graphs as whole graphs{}, so the work of graph replays is missing; trace again with nsys profile --cuda-graph-trace=node",
        file.graph_launches,
        graph_mode.empty() ? "" : fmt::format(" (CUDA_GRAPH_TRACE_OPTIONS:MODE {})", graph_mode));
    file.notes.push_back(warning);
  }

  // Ranks: one per (process, device), numbered by device where each process holds one device.
  std::set<int> devices;
  for (const TraceRank& r : capture.ranks) devices.insert(r.device);
  const bool by_device = devices.size() == capture.ranks.size();
  for (std::size_t i = 0; i < capture.ranks.size(); ++i) {
    TraceRank& r = capture.ranks[i];
    r.rank = by_device ? std::max(r.device, 0) : static_cast<int>(i);
    r.rank_source = by_device ? "device" : "process order";
    r.process = fmt::format("{} ({})", std::filesystem::path(path).filename().string(), r.process);
  }
  return capture;
}

}  // namespace k25
