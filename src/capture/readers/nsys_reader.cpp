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

// One export being read: the database, the capture it fills, and what is kept until every table is read.
class NsysRead {
 public:
  explicit NsysRead(const std::string& path) : path_(path), db_(path), tables_(db_.tables()) {
    capture_.files.emplace_back();
    file().path = path;
    file().format = InputFormat::nsys;
  }

  TraceCapture read() {
    check_tables();
    read_epoch();
    read_strings();
    read_activities("CUPTI_ACTIVITY_KIND_KERNEL", GpuActivityType::kernel);
    read_activities("CUPTI_ACTIVITY_KIND_MEMCPY", GpuActivityType::memcpy);
    read_activities("CUPTI_ACTIVITY_KIND_MEMSET", GpuActivityType::memset);
    if (file().kernels == 0)
      throw TraceWithoutGpuEvents(
          fmt::format("{}: an Nsight Systems export without GPU events (its kernel table is empty)", path_));
    read_runtime();
    set_launch_modes();
    read_nvtx();
    sizes_from_nccl_ranges();
    set_launch_times(launches_, capture_.activities, 0, correlation_of_);
    resolve_step_marks(host_marks_, launches_, capture_.activities, 0, correlation_of_, capture_.marks);
    note_graphs_traced_whole();
    number_ranks();
    return std::move(capture_);
  }

 private:
  struct NcclRange {
    std::int64_t start, end;
    std::uint64_t bytes;
  };

  TraceFile& file() { return capture_.files.front(); }

  void check_tables() const {
    const bool nsys = tables_.contains("StringIds") && (tables_.contains("CUPTI_ACTIVITY_KIND_KERNEL") ||
                                                        tables_.contains("TARGET_INFO_SESSION_START_TIME") ||
                                                        tables_.contains("META_DATA_EXPORT") ||
                                                        tables_.contains("CUPTI_ACTIVITY_KIND_RUNTIME"));
    if (!nsys)
      throw UsageError(fmt::format(
          "{}: a SQLite database, but not an Nsight Systems export (no StringIds and CUPTI_ACTIVITY_KIND_* tables)",
          path_));
    if (!tables_.contains("CUPTI_ACTIVITY_KIND_KERNEL"))
      throw TraceWithoutGpuEvents(fmt::format(
          "{}: an Nsight Systems export without GPU events (no CUPTI_ACTIVITY_KIND_KERNEL table): profile with nsys profile --trace=cuda,nvtx",
          path_));
  }

  void read_epoch() {
    if (!tables_.contains("TARGET_INFO_SESSION_START_TIME") ||
        !db_.columns("TARGET_INFO_SESSION_START_TIME").contains("utcEpochNs"))
      return;
    Database::Statement s(db_, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    if (s.step() && !s.null(0)) epoch_ns_ = s.integer(0);
  }

  // StringIds: names are interned only when used.
  void read_strings() {
    Database::Statement s(db_, "SELECT id, value FROM StringIds");
    while (s.step()) strings_.emplace(s.integer(0), std::string(s.text(1)));
  }

  std::string_view string_of(std::int64_t id) const {
    const auto found = strings_.find(id);
    return found == strings_.end() ? std::string_view{} : std::string_view(found->second);
  }

  // A rank per (process, device).
  std::uint32_t rank_for(std::uint64_t process, std::int64_t device) {
    const auto key = std::make_pair(process, device);
    const auto found = rank_of_.find(key);
    if (found != rank_of_.end()) return found->second;
    const auto index = static_cast<std::uint32_t>(capture_.ranks.size());
    TraceRank rank;
    rank.device = static_cast<int>(std::clamp<std::int64_t>(device, -1, 1 << 24));
    rank.process = fmt::format("pid {}", process);
    capture_.ranks.push_back(std::move(rank));
    rank_of_.emplace(key, index);
    return index;
  }

  std::string activity_query(const std::string& table, GpuActivityType type) {
    const std::set<std::string> columns = db_.columns(table);
    const std::string name_column = type != GpuActivityType::kernel     ? ""
                                    : columns.contains("demangledName") ? "demangledName"
                                                                        : "shortName";
    return fmt::format("SELECT start, end, deviceId, streamId, {}, {}, {}, {}, {} FROM \"{}\"",
                       columns.contains("correlationId") ? "correlationId" : "0",
                       columns.contains("globalPid") ? "globalPid" : "0",
                       name_column.empty() ? "0" : name_column,
                       columns.contains("graphNodeId") ? "graphNodeId" : "NULL",
                       columns.contains("graphId") ? "graphId" : "NULL", table);
  }

  void read_activities(const std::string& table, GpuActivityType type) {
    if (!tables_.contains(table)) return;
    Database::Statement s(db_, activity_query(table, type));
    const std::uint32_t fixed_name = capture_.names.intern(type == GpuActivityType::memcpy   ? "[CUDA memcpy]"
                                                           : type == GpuActivityType::memset ? "[CUDA memset]"
                                                                                             : "");
    while (s.step()) {
      ++file().events;
      GpuActivity a;
      a.start_ns = epoch_ns_ + s.integer(0);
      a.end_ns = epoch_ns_ + s.integer(1);
      if (a.end_ns < a.start_ns) continue;
      const std::uint64_t process = process_of(s.integer(5));
      a.rank = rank_for(process, s.integer(2));
      a.stream = static_cast<std::uint32_t>(s.integer(3));
      a.type = type;
      a.name = type == GpuActivityType::kernel ? capture_.names.intern(string_of(s.integer(6))) : fixed_name;
      if (type == GpuActivityType::kernel) {
        ++file().kernels;
        if (!s.null(7) || !s.null(8)) {
          a.launch = LaunchMode::graph;
          ++graph_kernels_;
        }
      } else {
        ++file().copies;
      }
      capture_.activities.push_back(a);
      correlation_of_.push_back(s.null(4) ? 0 : correlation_key(process, s.integer(4)));
    }
  }

  // Runtime calls: launches (thread, time, correlation) and graph launches.
  void read_runtime() {
    if (!tables_.contains("CUPTI_ACTIVITY_KIND_RUNTIME")) return;
    Database::Statement s(db_,
                          "SELECT start, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    while (s.step()) {
      ++file().events;
      if (s.null(2) || s.integer(2) == 0) continue;
      const auto thread = static_cast<std::uint64_t>(s.integer(1));
      const std::uint64_t key = correlation_key(process_of(s.integer(1)), s.integer(2));
      launches_.push_back({thread, epoch_ns_ + s.integer(0), key});
      if (string_of(s.integer(3)).find("GraphLaunch") != std::string_view::npos) {
        ++file().graph_launches;
        graph_correlations_.insert(key);
      }
    }
  }

  void set_launch_modes() {
    for (std::size_t i = 0; i < capture_.activities.size(); ++i) {
      GpuActivity& a = capture_.activities[i];
      if (a.launch == LaunchMode::graph || a.type != GpuActivityType::kernel) continue;
      a.launch = graph_correlations_.contains(correlation_of_[i]) ? LaunchMode::graph
                 : launches_.empty()                              ? LaunchMode::unknown
                                                                  : LaunchMode::eager;
    }
  }

  // NVTX: step marks, and NCCL's ranges with their payload's message size where the export holds it.
  void read_nvtx() {
    if (tables_.contains("NVTX_EVENTS")) {
      const std::set<std::string> columns = db_.columns("NVTX_EVENTS");
      Database::Statement s(
          db_,
          fmt::format("SELECT start, end, text, {}, globalTid, {} FROM NVTX_EVENTS WHERE end IS NOT NULL",
                      columns.contains("textId") ? "textId" : "NULL",
                      columns.contains("jsonText") ? "jsonText" : "NULL"));
      while (s.step()) {
        ++file().events;
        const std::string_view name = s.null(2) ? string_of(s.null(3) ? 0 : s.integer(3)) : s.text(2);
        if (is_nccl_range(name))
          add_nccl_range(s);
        else if (may_be_step_mark(name) && parse_step_mark(name))
          add_mark(s, name);
      }
    }
    file().step_marks = host_marks_.size();
  }

  void add_nccl_range(Database::Statement& s) {
    ++nccl_range_count_;
    const std::uint64_t bytes = payload_bytes(s.text(5));
    if (bytes > 0) ++nccl_payloads_;
    nccl_ranges_[static_cast<std::uint64_t>(s.integer(4))].push_back(
        {epoch_ns_ + s.integer(0), epoch_ns_ + s.integer(1), bytes});
  }

  void add_mark(Database::Statement& s, std::string_view name) {
    HostMark mark;
    mark.thread = static_cast<std::uint64_t>(s.integer(4));
    mark.mark.name = capture_.names.intern(name);
    mark.mark.host_start_ns = epoch_ns_ + s.integer(0);
    mark.mark.host_end_ns = epoch_ns_ + s.integer(1);
    host_marks_.push_back(mark);
  }

  // Sizes from NCCL's ranges: a kernel whose launch lies inside one on its thread takes the range's size.
  void sizes_from_nccl_ranges() {
    if (nccl_payloads_ == 0) {
      if (nccl_range_count_ > 0)
        file().notes.push_back(fmt::format(
            "{} NCCL NVTX ranges, none with a payload in this export: sizes come from --model where it is given",
            nccl_range_count_));
      return;
    }
    for (auto& [thread, ranges] : nccl_ranges_)
      std::sort(ranges.begin(), ranges.end(),
                [](const NcclRange& a, const NcclRange& b) { return a.start < b.start; });
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::int64_t>> launch_of;
    for (const HostLaunch& l : launches_) launch_of.emplace(l.correlation, std::make_pair(l.thread, l.ts_ns));
    for (std::size_t i = 0; i < capture_.activities.size(); ++i) {
      GpuActivity& a = capture_.activities[i];
      const auto launch = launch_of.find(correlation_of_[i]);
      if (a.type != GpuActivityType::kernel || launch == launch_of.end()) continue;
      const auto ranges = nccl_ranges_.find(launch->second.first);
      if (ranges != nccl_ranges_.end()) a.bytes = range_bytes(ranges->second, launch->second.second);
    }
  }

  // The size of the latest range (of those started within a second before) that holds the launch at `t`.
  static std::uint64_t range_bytes(const std::vector<NcclRange>& ranges, std::int64_t t) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), t,
                               [](std::int64_t ts, const NcclRange& r) { return ts < r.start; });
    while (it != ranges.begin()) {
      --it;
      if (it->end >= t) return it->bytes;
      if (t - it->start > 1'000'000'000) break;
    }
    return 0;
  }

  // CUDA graphs traced whole: graph launches whose kernels are not in the kernel table.
  void note_graphs_traced_whole() {
    if (file().graph_launches == 0 || graph_kernels_ > 0) return;
    std::string graph_mode;
    if (tables_.contains("META_DATA_CAPTURE")) {
      Database::Statement s(
          db_, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'CUDA_GRAPH_TRACE_OPTIONS:MODE'");
      if (s.step()) graph_mode = std::string(s.text(0));
    }
    file().notes.push_back(fmt::format(
        "{} CUDA graph launches, but no kernel inside a graph: this export traced graphs as whole graphs{}, so the work of graph replays is missing; trace again with nsys profile --cuda-graph-trace=node",
        file().graph_launches,
        graph_mode.empty() ? "" : fmt::format(" (CUDA_GRAPH_TRACE_OPTIONS:MODE {})", graph_mode)));
  }

  // Ranks: one per (process, device), numbered by device where each process holds one device.
  void number_ranks() {
    std::set<int> devices;
    for (const TraceRank& r : capture_.ranks) devices.insert(r.device);
    const bool by_device = devices.size() == capture_.ranks.size();
    for (std::size_t i = 0; i < capture_.ranks.size(); ++i) {
      TraceRank& r = capture_.ranks[i];
      r.rank = by_device ? std::max(r.device, 0) : static_cast<int>(i);
      r.rank_source = by_device ? "device" : "process order";
      r.process = fmt::format("{} ({})", std::filesystem::path(path_).filename().string(), r.process);
    }
  }

  const std::string& path_;
  Database db_;
  const std::set<std::string> tables_;
  TraceCapture capture_;
  std::int64_t epoch_ns_ = 0;
  std::unordered_map<std::int64_t, std::string> strings_;
  std::map<std::pair<std::uint64_t, std::int64_t>, std::uint32_t> rank_of_;
  std::vector<std::uint64_t> correlation_of_;  // per activity: process-qualified correlation id
  std::uint64_t graph_kernels_ = 0;
  std::vector<HostLaunch> launches_;
  std::unordered_set<std::uint64_t> graph_correlations_;
  std::vector<HostMark> host_marks_;
  std::unordered_map<std::uint64_t, std::vector<NcclRange>> nccl_ranges_;  // per thread
  std::uint64_t nccl_range_count_ = 0, nccl_payloads_ = 0;
};

}  // namespace

TraceCapture read_nsys_file(const std::string& path) {
  return NsysRead(path).read();
}

}  // namespace k25
