// One list of a document type's members, walked both ways: written to JSON and read back from it, so that
// each member's name is spelled once and no reader can name a member the writer does not write.
//
// A document type gets one function template, `document_members(V& v, S& s)` (S the type or the const type; V
// a MemberWriter or a MemberReader), that names its members in order: `v("name", s.member)`,
// `v.object("name", [&](auto& o) { o(...); })` for members nested under an object, `v.derived("name", value)`
// for one written from the others and never read back. nlohmann's NLOHMANN_DEFINE_TYPE_* macros do the same
// where a member's JSON name is its C++ name; k25comm's documents keep their published names, nest members,
// write some values as null (null_as: 0, -1 or "" as null) and are read back at older versions that lack
// members added since. A member whose presence depends on another is visited after it, under an `if` on it:
// the reader has read that one by then.
//
// Reading: a document of the writer's own version holds every member (one absent is an error naming where it
// is, e.g. "trace.join.groups[0]: no member 'transfer_us'"); an older one may lack members added since, which
// keep their defaults. A value of the wrong type is an error naming where it is. Errors are
// std::invalid_argument; the document's reader turns them into a message naming its file.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_integer.hpp"
#include "common/vocabulary.hpp"

namespace k25 {

class MemberWriter;
class MemberReader;

// S is T or const T: `template <class V, MembersOf<T> S> void document_members(V& v, S& s)` serves both ways.
template <class S, class T>
concept MembersOf = std::same_as<std::remove_const_t<S>, T>;

// Whether `document_members` describes T's members (found by argument-dependent lookup).
template <class T>
concept DocumentType = requires(MemberWriter& writer, const T& value) {
  document_members(writer, value);
};

// Where a value being read sits in its document ("trace.join.groups[0]") and whether every member must be
// there (a document of the writer's own version).
struct ReadPlace {
  std::string where;
  bool every_member = true;
  ReadPlace member(const std::string& name) const {
    return {where.empty() ? name : where + "." + name, every_member};
  }
  ReadPlace item(std::size_t index) const {
    return {where + "[" + std::to_string(index) + "]", every_member};
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument((where.empty() ? std::string("the document") : where) + ": " + what);
  }
};

nlohmann::json document_value(const auto& value);
void read_document_value(const nlohmann::json& in, auto& value, const ReadPlace& place);

class MemberWriter {
 public:
  explicit MemberWriter(nlohmann::json& out) : out_(out) {
    if (!out_.is_object()) out_ = nlohmann::json::object();
  }
  void operator()(const char* name, const auto& value) { out_[name] = document_value(value); }
  template <class Members>
  void object(const char* name, Members&& members) {
    MemberWriter inner(out_[name]);
    members(inner);
  }
  void derived(const char* name, const auto& value) { out_[name] = document_value(value); }

 private:
  nlohmann::json& out_;
};

class MemberReader {
 public:
  MemberReader(const nlohmann::json& in, ReadPlace place) : in_(in), place_(std::move(place)) {
    if (!in_.is_object()) place_.fail("expected an object, found " + std::string(in_.type_name()));
  }
  template <class T>
  void operator()(const char* name, T&& value) {
    if (const nlohmann::json* member = find(name)) read_document_value(*member, value, place_.member(name));
  }
  template <class Members>
  void object(const char* name, Members&& members) {
    if (const nlohmann::json* member = find(name)) {
      MemberReader inner(*member, place_.member(name));
      members(inner);
    }
  }
  // Only its presence is checked: its value follows from the others.
  void derived(const char* name, const auto&) { find(name); }

 private:
  const nlohmann::json* find(const char* name) const {
    const auto it = in_.find(name);
    if (it != in_.end()) return &*it;
    if (place_.every_member) place_.fail(std::string("no member '") + name + "'");
    return nullptr;
  }
  const nlohmann::json& in_;
  ReadPlace place_;
};

// Adaptors for values written otherwise than as themselves; each has write() and read(json, place).

// A value written as null where it is `none` (0 for a count or size not known, -1 for no rank, "" for no
// text), read back as `none`.
template <class T>
struct NullAs {
  T& value;
  std::remove_const_t<T> none;
  nlohmann::json write() const { return value == none ? nlohmann::json(nullptr) : document_value(value); }
  void read(const nlohmann::json& in, const ReadPlace& place) const {
    if (in.is_null())
      value = none;
    else
      read_document_value(in, value, place);
  }
};
template <class T>
NullAs<T> null_as(T& value, std::type_identity_t<std::remove_const_t<T>> none) {
  return {value, std::move(none)};
}

// A list of pairs written as objects of two named members: [{"kind": "AllReduce", "count": 8}].
template <class List>
struct NamedPairs {
  const char* first;
  const char* second;
  List& list;
  nlohmann::json write() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [a, b] : list) out.push_back({{first, document_value(a)}, {second, document_value(b)}});
    return out;
  }
  void read(const nlohmann::json& in, const ReadPlace& place) const {
    if (!in.is_array()) place.fail("expected an array, found " + std::string(in.type_name()));
    list.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
      typename std::remove_const_t<List>::value_type pair;
      MemberReader reader(in[i], place.item(i));
      reader(first, pair.first);
      reader(second, pair.second);
      list.push_back(std::move(pair));
    }
  }
};
template <class List>
NamedPairs<List> named_pairs(const char* first, const char* second, List& list) {
  return {first, second, list};
}

template <class T>
concept DocumentAdaptor = requires(const T& adaptor) {
  adaptor.write();
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsList : std::false_type {};
template <class T>
struct IsList<std::vector<T>> : std::true_type {};
template <class T>
struct IsList<std::set<T>> : std::true_type {};
template <class T>
struct IsMap : std::false_type {};
template <class K, class V>
struct IsMap<std::map<K, V>> : std::true_type {};

// The members of a STATS object (common/vocabulary.hpp).
template <class V, MembersOf<Stats> S>
void document_members(V& v, S& s) {
  v("min", s.min);
  v("p50", s.p50);
  v("p90", s.p90);
  v("p99", s.p99);
  v("max", s.max);
  v("mean", s.mean);
}

nlohmann::json document_value(const auto& value) {
  using T = std::remove_cvref_t<decltype(value)>;
  if constexpr (DocumentAdaptor<T>) {
    return value.write();
  } else if constexpr (DocumentType<T>) {
    nlohmann::json out = nlohmann::json::object();
    MemberWriter writer(out);
    document_members(writer, value);
    return out;
  } else if constexpr (IsOptional<T>::value) {
    return value ? document_value(*value) : nlohmann::json(nullptr);
  } else if constexpr (IsList<T>::value) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(document_value(item));
    return out;
  } else if constexpr (IsMap<T>::value) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value) {
      if constexpr (std::integral<typename T::key_type>)
        out[std::to_string(key)] = document_value(item);
      else
        out[key] = document_value(item);
    }
    return out;
  } else {
    return nlohmann::json(value);
  }
}

void read_document_value(const nlohmann::json& in, auto& value, const ReadPlace& place) {
  using T = std::remove_cvref_t<decltype(value)>;
  const auto expect = [&](bool holds, const char* what) {
    if (!holds) place.fail(std::string("expected ") + what + ", found " + in.type_name());
  };
  if constexpr (DocumentAdaptor<T>) {
    value.read(in, place);
  } else if constexpr (DocumentType<T>) {
    MemberReader reader(in, place);
    document_members(reader, value);
  } else if constexpr (IsOptional<T>::value) {
    if (in.is_null()) {
      value.reset();
    } else {
      typename T::value_type inner{};
      read_document_value(in, inner, place);
      value = std::move(inner);
    }
  } else if constexpr (IsList<T>::value) {
    expect(in.is_array(), "an array");
    value.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
      typename T::value_type item{};
      read_document_value(in[i], item, place.item(i));
      value.insert(value.end(), std::move(item));
    }
  } else if constexpr (IsMap<T>::value) {
    expect(in.is_object(), "an object");
    value.clear();
    for (const auto& [key, item] : in.items()) {
      typename T::mapped_type read{};
      read_document_value(item, read, place.member(key));
      if constexpr (std::integral<typename T::key_type>) {
        value[json_integer<typename T::key_type>(nlohmann::json::parse(key, nullptr, false), place.where)] =
            std::move(read);
      } else {
        value[key] = std::move(read);
      }
    }
  } else if constexpr (std::same_as<T, bool>) {
    expect(in.is_boolean(), "true or false");
    value = in.get<bool>();
  } else if constexpr (std::integral<T>) {
    try {
      value = json_integer<T>(in, place.where);
    } catch (const std::invalid_argument& e) {
      place.fail(e.what());
    }
  } else if constexpr (std::floating_point<T>) {
    // JSON has no NaN: nlohmann writes a NaN as null, and null reads back as NaN.
    expect(in.is_number() || in.is_null(), "a number");
    value = in.is_null() ? std::numeric_limits<T>::quiet_NaN() : in.get<T>();
  } else if constexpr (std::same_as<T, std::string>) {
    expect(in.is_string(), "a string");
    value = in.get<std::string>();
  } else {
    try {
      value = in.get<T>();
    } catch (const nlohmann::json::exception& e) {
      place.fail(e.what());
    }
  }
}

}  // namespace k25
