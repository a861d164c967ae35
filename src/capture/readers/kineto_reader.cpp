// Kineto JSON into the trace model with simdjson's On-Demand parser: the events array parsed a few megabytes
// at a time in place as a window slides over the text (where its layout is found), else the whole text read
// and parsed in pieces or as one document; a document cut short closed at its last whole event.
#include "capture/readers/kineto_reader.hpp"

#include <simdjson.h>

#include <cstring>
#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "capture/readers/file_bytes.hpp"
#include "capture/readers/huge_pages.hpp"
#include "capture/readers/kineto_events.hpp"
#include "capture/readers/kineto_layout.hpp"
#include "capture/readers/text_window.hpp"
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

// The file's entry in the capture, and room for its activities (a few hundred bytes of JSON each): the vector
// never grows by copying. Returns the file's index.
std::size_t begin_file(std::uint64_t text_bytes, const std::string& name, TraceCapture& capture) {
  capture.files.emplace_back();
  capture.files.back().path = name;
  capture.files.back().format = InputFormat::kineto;
  capture.activities.reserve(capture.activities.size() + static_cast<std::size_t>(text_bytes / 256));
  prefer_huge_pages(capture.activities.data(), capture.activities.capacity() * sizeof(GpuActivity));
  return capture.files.size() - 1;
}

}  // namespace

struct KinetoReader::Impl {
  explicit Impl(std::size_t piece) : piece_bytes(piece) {}
  std::size_t piece_bytes;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::parser small;  // the head and the tail
  TextWindow::Buffer window_buffer;  // the last file's window: its memory is reused for the next

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

  // One file's reading: where it goes in the capture, what it added (to take back), what it says.
  struct FileRead {
    std::size_t index, first_rank;
    Mark before;
    KinetoFacts facts;
    std::optional<KinetoEvents> events;
  };

  // One file: streamed through a window where it is laid out for that, else read whole.
  void read(TextWindow window, const std::function<FileBytes()>& whole, const std::string& name,
            std::uint64_t size_hint, TraceCapture& capture);
  // The events array a piece at a time as the window slides over the text; false (the capture as it was)
  // where the text is not laid out for that or not a whole stream.
  bool read_streamed(TextWindow& window, TraceCapture& capture, FileRead& file);
  bool undo_streamed(TraceCapture& capture, FileRead& file);
  // The events array in pieces where its layout is found; false (the capture as it was) where it is not.
  bool read_by_layout(FileBytes& bytes, TraceCapture& capture, FileRead& file);
  // The whole document, closed at one of its last '}' or ']' where it ends early; throws UsageError naming
  // the file where it is no trace (the capture as it was).
  void read_document(FileBytes& bytes, const std::string& name, TraceCapture& capture, FileRead& file);
  // A document cut short, closed at one of its last '}' or ']': true where one of them makes it whole.
  bool repair_cut_document(FileBytes& bytes, TraceCapture& capture, FileRead& file,
                           simdjson::error_code error);
  // The file's cut, its base time and ranks; throws TraceWithoutGpuEvents (the capture as it was) where it
  // holds no GPU event.
  void finish_file(const FileBytes* bytes, const std::string& name, TraceCapture& capture, FileRead& file);
  // Whether `json` is a JSON object; its facts into `facts` where given.
  bool object_facts(const std::string& json, KinetoFacts* facts);
  bool read_in_pieces(FileBytes& bytes, const KinetoLayout& layout, KinetoEvents& events, TraceFile& file);
  // text[first, last] with '[' and ']' written over its ends while it is parsed; `capacity` bytes are
  // readable from `text`. A streamed piece must hold nothing after its array (`whole_piece`).
  void parse_piece(char* text, std::size_t capacity, std::size_t first, std::size_t last,
                   KinetoEvents& events, bool whole_piece = false);
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

void KinetoReader::Impl::parse_piece(char* text, std::size_t capacity, std::size_t first, std::size_t last,
                                     KinetoEvents& events, bool whole_piece) {
  const PieceEnds ends(text, first, last, '[', ']');
  const std::size_t length = last - first + 1;
  if (length > parser.capacity()) [[maybe_unused]]
    const simdjson::error_code reserved = parser.allocate(length + length / 4);
  simdjson::ondemand::document doc = parser.iterate(text + first, length, capacity - first);
  JsonArray events_array = doc.get_array();
  for (auto element : events_array) events.read(json_value(element));
  if (whole_piece && doc.current_location().error() != simdjson::OUT_OF_BOUNDS)  // more after the array
    throw simdjson::simdjson_error(simdjson::TRAILING_CONTENT);
}

bool KinetoReader::Impl::undo_streamed(TraceCapture& capture, FileRead& file) {
  file.before.restore(capture, file.index);
  capture.files[file.index].cut = false;
  file.facts = {};
  file.events.reset();
  return false;
}

bool KinetoReader::Impl::read_streamed(TextWindow& window, TraceCapture& capture, FileRead& file) {
  const auto parses = [&](const std::string& json) { return object_facts(json, nullptr); };
  try {
    window.advance(0, piece_bytes);
    std::optional<KinetoLayout> layout =
        window.troubled() ? std::nullopt : find_kineto_head(window.data(), window.size(), parses);
    if (!layout) return undo_streamed(capture, file);
    file.events.emplace(capture, file.index);
    object_facts(layout->head, &file.facts);
    std::size_t first = layout->events_open;  // the byte before the next event: the '[' or a comma
    for (;;) {
      if (!window.at_end() && window.size() - first < piece_bytes) {
        window.advance(first, piece_bytes);
        first = 0;
      }
      if (window.troubled()) return undo_streamed(capture, file);
      if (window.at_end()) break;
      const std::optional<std::size_t> boundary =
          last_event_boundary(window.data(), first + 1, window.size());
      if (!boundary) {  // an event longer than the window: a larger one
        window.advance(first, 2 * (window.size() - first));
        first = 0;
        continue;
      }
      parse_piece(window.data(), window.capacity(), first, *boundary, *file.events, true);
      first = *boundary;
    }
    // The text's end is in the window: the events before the array's ']', then the keys after it. A text
    // that ends inside the events (a trace still being written) is read whole, which says where it ends.
    if (!find_kineto_tail(window.data(), window.size(), first + 1, parses, *layout))
      return undo_streamed(capture, file);
    for (const EventPiece& piece :
         event_pieces_between(window.data(), first, *layout->events_close, piece_bytes))
      parse_piece(window.data(), window.capacity(), piece.first, piece.last, *file.events);
    object_facts(layout->tail, &file.facts);
    return true;
  } catch (const simdjson::simdjson_error&) {
    return undo_streamed(capture, file);
  }
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
  for (const EventPiece& piece : pieces)
    parse_piece(bytes.data(), bytes.capacity(), piece.first, piece.last, events);
  if (layout.events_close) return true;
  // The rest after the last boundary: the event the writer was writing when the file was read, whole or not
  // (closed where its separator or its end is).
  const std::size_t from = pieces.empty() ? layout.events_open : pieces.back().last, size = bytes.size();
  std::size_t end = size;
  while (end > from + 1 && std::isspace(static_cast<unsigned char>(bytes.data()[end - 1]))) --end;
  if (end > from + 1 && bytes.data()[end - 1] == ',') --end;
  bool whole = true;
  try {
    parse_piece(bytes.data(), bytes.capacity(), from, end, events);
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

bool KinetoReader::Impl::read_by_layout(FileBytes& bytes, TraceCapture& capture, FileRead& file) {
  const auto layout = find_kineto_layout(
      bytes.data(), bytes.size(), [&](const std::string& json) { return object_facts(json, nullptr); });
  if (!layout) return false;
  bool read = false;
  try {
    file.events.emplace(capture, file.index);
    object_facts(layout->head, &file.facts);
    if (layout->events_close) object_facts(layout->tail, &file.facts);
    read = read_in_pieces(bytes, *layout, *file.events, capture.files[file.index]);
  } catch (const simdjson::simdjson_error&) {
    read = false;
  }
  if (!read) {
    file.before.restore(capture, file.index);
    capture.files[file.index].cut = false;
    file.facts = {};
  }
  return read;
}

bool KinetoReader::Impl::repair_cut_document(FileBytes& bytes, TraceCapture& capture, FileRead& file,
                                             simdjson::error_code error) {
  std::size_t begin = 0;
  while (begin < bytes.size() && std::isspace(static_cast<unsigned char>(bytes.data()[begin]))) ++begin;
  if (begin >= bytes.size() || bytes.data()[begin] != '{' || error == simdjson::CAPACITY) return false;
  const std::size_t size = bytes.size();
  const std::size_t floor = size > kRepairWindow ? size - kRepairWindow : begin;
  int attempts = 0;
  for (std::size_t p = size; p-- > floor && attempts < kRepairAttempts;) {
    const char ch = bytes.data()[p];
    if (ch != '}' && ch != ']') continue;
    for (const std::string_view suffix : {std::string_view("]}"), std::string_view("}")}) {
      ++attempts;
      file.before.restore(capture, file.index);
      file.facts = {};
      file.events.emplace(capture, file.index);
      char saved[kSuffixRoom];
      std::memcpy(saved, bytes.data() + p + 1, kSuffixRoom);
      std::memcpy(bytes.data() + p + 1, suffix.data(), suffix.size());
      bool repaired = false;
      try {
        repaired = read_whole(bytes, p + 1 + suffix.size(), *file.events, file.facts);
      } catch (const simdjson::simdjson_error&) {
      }
      std::memcpy(bytes.data() + p + 1, saved, kSuffixRoom);
      if (!repaired) continue;
      TraceFile& entry = capture.files[file.index];
      entry.cut = true;
      entry.cut_reason =
          fmt::format("the JSON ends early ({}): read up to byte {} of {}, the event cut there is left out",
                      simdjson::error_message(error), p + 1, size);
      return true;
    }
  }
  return false;
}

void KinetoReader::Impl::read_document(FileBytes& bytes, const std::string& name, TraceCapture& capture,
                                       FileRead& file) {
  file.events.emplace(capture, file.index);
  simdjson::error_code error = simdjson::SUCCESS;
  try {
    if (read_whole(bytes, bytes.size(), *file.events, file.facts)) return;
    file.before.restore(capture, file.index);
    capture.files.pop_back();
    throw UsageError(fmt::format(
        "{}: JSON, but neither a profiler trace (no traceEvents array) nor NCCL Inspector output", name));
  } catch (const simdjson::simdjson_error& e) {
    error = e.error();
  }
  if (repair_cut_document(bytes, capture, file, error)) return;
  file.before.restore(capture, file.index);
  capture.files.pop_back();
  throw UsageError(
      fmt::format("{}: not a profiler trace: {} (JSON expected)", name, simdjson::error_message(error)));
}

void KinetoReader::Impl::finish_file(const FileBytes* bytes, const std::string& name, TraceCapture& capture,
                                     FileRead& file) {
  TraceFile& entry = capture.files[file.index];
  if (bytes && bytes->cut) {  // the gzip stream ended early, and the JSON with it
    entry.cut = true;
    entry.cut_reason =
        entry.cut_reason.empty() ? bytes->cut_reason : bytes->cut_reason + "; " + entry.cut_reason;
  }
  if (!file.events->any_activity()) {
    const std::string message =
        entry.cut ? fmt::format("{}: no whole GPU event before the file is cut ({})", name, entry.cut_reason)
                  : fmt::format(
                        "{}: a profiler trace without GPU events (no kernel, memcpy or memset): "
                        "profile with ProfilerActivity.CUDA",
                        name);
    file.before.restore(capture, file.index);  // the capture is as it was (a folder skips such a file)
    capture.files.pop_back();
    throw TraceWithoutGpuEvents(message);
  }
  if (!file.facts.base_ns && entry.cut) {
    for (std::size_t r = file.first_rank; r < capture.ranks.size(); ++r)
      capture.ranks[r].absolute_clock = false;
    entry.notes.push_back(
        "no baseTimeNanoseconds (cut off): if its times are relative to it, they are this file's own and are not joined with other ranks'");
  }
  file.events->finish(file.facts);
  number_ranks(capture, file.first_rank, file.facts, name, capture.files[file.index]);
}

void KinetoReader::Impl::read(TextWindow window, const std::function<FileBytes()>& whole,
                              const std::string& name, std::uint64_t size_hint, TraceCapture& capture) {
  const std::size_t first_rank = capture.ranks.size();
  const std::size_t index = begin_file(size_hint, name, capture);
  FileRead file{index, first_rank, Mark(capture), {}, std::nullopt};
  const bool streamed = read_streamed(window, capture, file);
  window_buffer = window.take_buffer();
  if (streamed) {
    finish_file(nullptr, name, capture, file);
    return;
  }
  FileBytes bytes;
  try {
    bytes = whole();
  } catch (...) {
    capture.files.pop_back();
    throw;
  }
  // In pieces, where the events array is found; else the whole document, closed at one of its last '}' or
  // ']' where it ends early.
  if (!read_by_layout(bytes, capture, file)) read_document(bytes, name, capture, file);
  finish_file(&bytes, name, capture, file);
}

void KinetoReader::read_file(const std::string& path, TraceCapture& into) {
  impl_->read(
      TextWindow::of_file(path, kPadding, std::move(impl_->window_buffer)),
      [&] { return load_file_bytes(path, kPadding); }, path, file_bytes_hint(path), into);
}

TraceCapture KinetoReader::read_text(std::string_view text, const std::string& name) {
  TraceCapture capture;
  impl_->read(
      TextWindow::of_text(text, kPadding, std::move(impl_->window_buffer)),
      [&] { return file_bytes_from_text(text, name, kPadding); }, name, text.size(), capture);
  return capture;
}

}  // namespace k25
