// Kineto JSON into the trace model with simdjson's On-Demand parser: the events array parsed a few megabytes
// at a time in place (where its layout is found), else the whole document; a document cut short closed at its
// last whole event.
#include "capture/readers/kineto_reader.hpp"

#include <simdjson.h>

#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "capture/readers/file_bytes.hpp"
#include "capture/readers/huge_pages.hpp"
#include "capture/readers/kineto_events.hpp"
#include "capture/readers/kineto_layout.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

using JsonArray = simdjson::ondemand::array;
using JsonObject = simdjson::ondemand::object;

// Room after the text for simdjson's padding and for closing a cut document.
constexpr std::size_t kSuffixRoom = 8;
constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING + kSuffixRoom;
// A whole document cut short is closed at one of the last '}' or ']' before its end: at most this many tried.
constexpr int kRepairAttempts = 48;
constexpr std::size_t kRepairWindow = 1 << 20;

// The rank a vLLM (...-rank-N.) or SGLang (...-TP-N) file name gives.
std::optional<int> rank_from_name(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  for (const std::string_view tag : {std::string_view("-rank-"), std::string_view("-TP-")}) {
    const std::size_t at = name.rfind(tag);
    if (at == std::string::npos) continue;
    std::size_t i = at + tag.size();
    int value = 0, digits = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 7) {
      value = value * 10 + (name[i] - '0');
      ++i;
      ++digits;
    }
    if (digits > 0 && (i == name.size() || name[i] == '.' || name[i] == '-' || name[i] == '_')) return value;
  }
  return std::nullopt;
}

// Rank numbers: distributedInfo, else the file name, else the device.
void number_ranks(TraceCapture& capture, std::size_t first_rank, const KinetoFacts& facts,
                  const std::string& name, TraceFile& file) {
  const std::optional<int> by_name = rank_from_name(name);
  const std::size_t ranks = capture.ranks.size() - first_rank;
  for (std::size_t r = first_rank; r < capture.ranks.size(); ++r) {
    TraceRank& rank = capture.ranks[r];
    if (ranks == 1 && facts.rank) {
      rank.rank = *facts.rank;
      rank.rank_source = "distributedInfo";
    } else if (ranks == 1 && by_name) {
      rank.rank = *by_name;
      rank.rank_source = "file name";
    } else {
      rank.rank = std::max(rank.device, 0);
      rank.rank_source = "device";
    }
    rank.process = std::filesystem::path(name).filename().string();
  }
  if (ranks > 1)
    file.notes.push_back(fmt::format(
        "GPU events on {} devices: each device is taken as a rank, numbered by its device", ranks));
}

// An array element's value; throws where the JSON breaks off.
simdjson::ondemand::value json_value(simdjson::simdjson_result<simdjson::ondemand::value> element) {
  simdjson::ondemand::value v;
  if (const simdjson::error_code error = std::move(element).get(v)) throw simdjson::simdjson_error(error);
  return v;
}

// What one file added to the capture before, to take it back where a way of reading it fails.
struct Mark {
  std::size_t ranks, activities, marks;
  explicit Mark(const TraceCapture& c)
      : ranks(c.ranks.size()), activities(c.activities.size()), marks(c.marks.size()) {}
  void restore(TraceCapture& c, std::size_t file) const {
    c.ranks.resize(ranks);
    c.activities.resize(activities);
    c.marks.resize(marks);
    TraceFile& f = c.files[file];
    f.events = f.kernels = f.copies = f.graph_launches = f.step_marks = 0;
  }
};

// Writes bytes over a piece's ends while it is parsed and puts them back after.
class PieceEnds {
 public:
  PieceEnds(char* text, std::size_t first, std::size_t last, char open, char close)
      : text_(text), first_(first), last_(last), saved_first_(text[first]), saved_last_(text[last]) {
    text_[first_] = open;
    text_[last_] = close;
  }
  ~PieceEnds() {
    text_[last_] = saved_last_;
    text_[first_] = saved_first_;
  }
  PieceEnds(const PieceEnds&) = delete;
  PieceEnds& operator=(const PieceEnds&) = delete;

 private:
  char* text_;
  std::size_t first_, last_;
  char saved_first_, saved_last_;
};

}  // namespace

struct KinetoReader::Impl {
  explicit Impl(std::size_t piece) : piece_bytes(piece) {}
  std::size_t piece_bytes;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::parser small;  // the head and the tail
  FileBytes text;                    // the last file's text: its buffer is reused for the next

  void read(FileBytes& bytes, const std::string& name, TraceCapture& capture);
  // Whether `json` is a JSON object; its facts into `facts` where given.
  bool object_facts(const std::string& json, KinetoFacts* facts);
  bool read_in_pieces(FileBytes& bytes, const KinetoLayout& layout, KinetoEvents& events, TraceFile& file);
  void parse_piece(FileBytes& bytes, std::size_t first, std::size_t last, KinetoEvents& events);
  // The whole document; false where it is no object with a traceEvents array. Throws simdjson_error.
  bool read_whole(FileBytes& bytes, std::size_t size, KinetoEvents& events, KinetoFacts& facts);
};

KinetoReader::KinetoReader(std::size_t piece_bytes) : impl_(std::make_unique<Impl>(piece_bytes)) {}
KinetoReader::~KinetoReader() = default;

bool KinetoReader::Impl::object_facts(const std::string& json, KinetoFacts* facts) {
  const simdjson::padded_string padded(json);
  try {
    simdjson::ondemand::document doc = small.iterate(padded);
    JsonObject top = doc.get_object();
    for (auto field : top) {
      const std::string_view key = json_key(field.key());
      simdjson::ondemand::value v = field.value();
      if (facts) read_kineto_fact(key, v, *facts);
    }
    return true;
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
}

void KinetoReader::Impl::parse_piece(FileBytes& bytes, std::size_t first, std::size_t last,
                                     KinetoEvents& events) {
  const PieceEnds ends(bytes.data(), first, last, '[', ']');
  const std::size_t length = last - first + 1;
  if (length > parser.capacity()) [[maybe_unused]]
    const simdjson::error_code reserved = parser.allocate(length + length / 4);
  simdjson::ondemand::document doc = parser.iterate(bytes.data() + first, length, bytes.capacity() - first);
  JsonArray events_array = doc.get_array();
  for (auto element : events_array) events.read(json_value(element));
}

bool KinetoReader::Impl::read_in_pieces(FileBytes& bytes, const KinetoLayout& layout, KinetoEvents& events,
                                        TraceFile& file) {
  std::vector<EventPiece> pieces = event_pieces(bytes.data(), bytes.size(), layout, piece_bytes);
  if (!layout.events_close && !pieces.empty()) {
    // Cut inside the events: the last piece ends at its last boundary; what follows is tried on its own.
    EventPiece& last = pieces.back();
    const std::optional<std::size_t> boundary = last_event_boundary(bytes.data(), last.first + 1, last.last);
    if (!boundary) return false;
    last.last = *boundary;
  }
  for (const EventPiece& piece : pieces) parse_piece(bytes, piece.first, piece.last, events);
  if (layout.events_close) return true;
  // The rest after the last boundary: the event the writer was writing when the file was read, whole or not
  // (closed where its separator or its end is).
  const std::size_t from = pieces.empty() ? layout.events_open : pieces.back().last, size = bytes.size();
  std::size_t end = size;
  while (end > from + 1 && std::isspace(static_cast<unsigned char>(bytes.data()[end - 1]))) --end;
  if (end > from + 1 && bytes.data()[end - 1] == ',') --end;
  bool whole = true;
  try {
    parse_piece(bytes, from, end, events);
  } catch (const simdjson::simdjson_error&) {
    whole = false;
  }
  file.cut = true;
  file.cut_reason =
      whole ? fmt::format("the JSON ends early, after byte {}: every event before it is whole", size)
            : fmt::format("the JSON ends early: read up to byte {} of {}, the event cut there is left out",
                          from + 1, size);
  return true;
}

bool KinetoReader::Impl::read_whole(FileBytes& bytes, std::size_t size, KinetoEvents& events,
                                    KinetoFacts& facts) {
  if (size > parser.capacity() && size < simdjson::SIMDJSON_MAXSIZE_BYTES / 2) [[maybe_unused]]
    const simdjson::error_code reserved = parser.allocate(size + size / 4);
  simdjson::ondemand::document doc = parser.iterate(bytes.data(), size, bytes.capacity());
  JsonObject top;
  if (doc.get_object().get(top) != simdjson::SUCCESS) return false;
  bool any_events = false;
  for (auto field : top) {
    const std::string_view key = json_key(field.key());
    simdjson::ondemand::value v = field.value();
    if (key != "traceEvents") {
      read_kineto_fact(key, v, facts);
      continue;
    }
    JsonArray list;
    if (v.get_array().get(list) != simdjson::SUCCESS) continue;
    any_events = true;
    for (auto element : list) events.read(json_value(element));
  }
  return any_events;
}

void KinetoReader::Impl::read(FileBytes& bytes, const std::string& name, TraceCapture& capture) {
  const std::size_t file_index = capture.files.size(), first_rank = capture.ranks.size();
  capture.files.emplace_back();
  capture.files.back().path = name;
  capture.files.back().format = InputFormat::kineto;
  // Room for the file's activities (a few hundred bytes of JSON each): the vector never grows by copying.
  capture.activities.reserve(capture.activities.size() + bytes.size() / 256);
  prefer_huge_pages(capture.activities.data(), capture.activities.capacity() * sizeof(GpuActivity));
  const Mark before(capture);
  KinetoFacts facts;
  std::optional<KinetoEvents> events;
  bool read = false;
  // In pieces, where the events array is found.
  if (const auto layout = find_kineto_layout(
          bytes.data(), bytes.size(), [&](const std::string& json) { return object_facts(json, nullptr); })) {
    try {
      events.emplace(capture, file_index);
      object_facts(layout->head, &facts);
      if (layout->events_close) object_facts(layout->tail, &facts);
      read = read_in_pieces(bytes, *layout, *events, capture.files[file_index]);
    } catch (const simdjson::simdjson_error&) {
      read = false;
    }
    if (!read) {
      before.restore(capture, file_index);
      capture.files[file_index].cut = false;
      facts = {};
    }
  }
  // Else the whole document, closed at one of its last '}' or ']' where it ends early.
  if (!read) {
    events.emplace(capture, file_index);
    simdjson::error_code error = simdjson::SUCCESS;
    try {
      if (!read_whole(bytes, bytes.size(), *events, facts)) {
        before.restore(capture, file_index);
        capture.files.pop_back();
        throw UsageError(fmt::format(
            "{}: JSON, but neither a profiler trace (no traceEvents array) nor NCCL Inspector output", name));
      }
      read = true;
    } catch (const simdjson::simdjson_error& e) {
      error = e.error();
    }
    std::size_t begin = 0;
    while (begin < bytes.size() && std::isspace(static_cast<unsigned char>(bytes.data()[begin]))) ++begin;
    if (!read && begin < bytes.size() && bytes.data()[begin] == '{' && error != simdjson::CAPACITY) {
      const std::size_t size = bytes.size();
      const std::size_t floor = size > kRepairWindow ? size - kRepairWindow : begin;
      int attempts = 0;
      for (std::size_t p = size; !read && p-- > floor && attempts < kRepairAttempts;) {
        const char ch = bytes.data()[p];
        if (ch != '}' && ch != ']') continue;
        for (const std::string_view suffix : {std::string_view("]}"), std::string_view("}")}) {
          ++attempts;
          before.restore(capture, file_index);
          facts = {};
          events.emplace(capture, file_index);
          char saved[kSuffixRoom];
          std::memcpy(saved, bytes.data() + p + 1, kSuffixRoom);
          std::memcpy(bytes.data() + p + 1, suffix.data(), suffix.size());
          bool repaired = false;
          try {
            repaired = read_whole(bytes, p + 1 + suffix.size(), *events, facts);
          } catch (const simdjson::simdjson_error&) {
          }
          std::memcpy(bytes.data() + p + 1, saved, kSuffixRoom);
          if (!repaired) continue;
          TraceFile& file = capture.files[file_index];
          file.cut = true;
          file.cut_reason = fmt::format(
              "the JSON ends early ({}): read up to byte {} of {}, the event cut there is left out",
              simdjson::error_message(error), p + 1, size);
          read = true;
          break;
        }
      }
    }
    if (!read) {
      before.restore(capture, file_index);
      capture.files.pop_back();
      throw UsageError(
          fmt::format("{}: not a profiler trace: {} (JSON expected)", name, simdjson::error_message(error)));
    }
  }
  TraceFile& file = capture.files[file_index];
  if (bytes.cut) {  // the gzip stream ended early, and the JSON with it
    file.cut = true;
    file.cut_reason = file.cut_reason.empty() ? bytes.cut_reason : bytes.cut_reason + "; " + file.cut_reason;
  }
  if (!events->any_activity()) {
    const std::string message =
        file.cut ? fmt::format("{}: no whole GPU event before the file is cut ({})", name, file.cut_reason)
                 : fmt::format(
                       "{}: a profiler trace without GPU events (no kernel, memcpy or memset): "
                       "profile with ProfilerActivity.CUDA",
                       name);
    before.restore(capture, file_index);  // the capture is as it was (a folder skips such a file)
    capture.files.pop_back();
    throw TraceWithoutGpuEvents(message);
  }
  if (!facts.base_ns && file.cut) {
    for (std::size_t r = first_rank; r < capture.ranks.size(); ++r) capture.ranks[r].absolute_clock = false;
    file.notes.push_back(
        "no baseTimeNanoseconds (cut off): if its times are relative to it, they are this file's own and are not joined with other ranks'");
  }
  events->finish(facts);
  number_ranks(capture, first_rank, facts, name, capture.files[file_index]);
}

void KinetoReader::read_file(const std::string& path, TraceCapture& into) {
  impl_->text = load_file_bytes(path, kPadding, std::move(impl_->text));
  impl_->read(impl_->text, path, into);
}

TraceCapture KinetoReader::read_text(std::string_view text, const std::string& name) {
  TraceCapture capture;
  FileBytes bytes = file_bytes_from_text(text, name, kPadding);
  impl_->read(bytes, name, capture);
  return capture;
}

}  // namespace k25
