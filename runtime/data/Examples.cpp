//===- Examples.cpp - tf.train.Example features from TFRecord files -------===//

#include "runtime/data/Examples.h"

#include "runtime/data/Records.h"

#include "example.pb.h"

#include <glob.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace dtf::data {

std::vector<std::string> matchFiles(const std::string &pattern) {
  glob_t matches{};
  int status = ::glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> files(matches.gl_pathv,
                                 matches.gl_pathv + matches.gl_pathc);
  globfree(&matches);
  if (status == GLOB_NOMATCH || files.empty())
    throw std::runtime_error(pattern + ": no file matches");
  if (status != 0)
    throw std::runtime_error(pattern + ": cannot list the files it matches");
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> matchFilePatterns(const std::string &patterns) {
  if (patterns.empty())
    throw std::runtime_error("no file pattern given");
  std::vector<std::string> files;
  size_t start = 0;
  while (true) {
    size_t colon = patterns.find(':', start);
    std::string pattern = patterns.substr(
        start, colon == std::string::npos ? std::string::npos : colon - start);
    if (pattern.empty())
      throw std::runtime_error(patterns + ": an empty file pattern");
    std::vector<std::string> matched = matchFiles(pattern);
    files.insert(files.end(), matched.begin(), matched.end());
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

namespace {

// The fast path copies the wire's little-endian floats as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Examples.cpp reads floats in the wire's byte order");

/// The values of one feature in one example, as the bytes of its array row.
struct FeatureValues {
  ElementType type;
  size_t count;
  const void *data;
};

/// A requested feature as one example holds it, whichever parser found it.
struct Found {
  bool present = false;
  tensorflow::Feature::KindCase kind = tensorflow::Feature::KIND_NOT_SET;
  /// Its list: `count` floats (unaligned when read off the wire) or int64s
  /// at `values`, or `count` bytes values, the first of them `first`.
  size_t count = 0;
  const void *values = nullptr;
  std::string_view first;
};

const char *kindName(tensorflow::Feature::KindCase kind) {
  switch (kind) {
  case tensorflow::Feature::kBytesList:
    return "bytes_list";
  case tensorflow::Feature::kFloatList:
    return "float_list";
  case tensorflow::Feature::kInt64List:
    return "int64_list";
  default:
    return "no values";
  }
}

/// Why `request` refuses one of the `count` ids at `ids`, or empty: a
/// negative id (-1 too: it pads rows, and is no example's id), or one
/// outside the fixed rows of the table the ids look up.
std::string refusedId(const FeatureRequest &request, const int64_t *ids,
                      int count) {
  for (int k = 0; k < count; ++k) {
    if (ids[k] < 0)
      return "feature '" + request.name + "' has negative id " +
             std::to_string(ids[k]) +
             (request.table ? " for table '" + request.table->name + "'" : "") +
             "; ids are at least 0, and -1 pads a row";
    if (request.table && request.table->rows && ids[k] >= *request.table->rows)
      return "feature '" + request.name + "' has id " + std::to_string(ids[k]) +
             ", outside table '" + request.table->name + "' of " +
             std::to_string(*request.table->rows) + " rows";
  }
  return {};
}

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLength = 2,
  kFixed32 = 5
};

/// Reads the protobuf wire format without building messages, for the fast
/// path. Every read returns false on what the fast path leaves to protobuf:
/// malformed or truncated bytes, and groups.
class WireScanner {
public:
  explicit WireScanner(std::string_view bytes)
      : at(bytes.data()), end(bytes.data() + bytes.size()) {}

  bool done() const { return at == end; }

  bool varint(uint64_t &value) {
    value = 0;
    for (int shift = 0; at != end; shift += 7) {
      auto byte = static_cast<uint8_t>(*at++);
      // A tenth byte holds bit 63 alone; others, and an eleventh, are left
      // to protobuf.
      if (shift == 63 && byte > 1)
        return false;
      value |= uint64_t(byte & 0x7f) << shift;
      if (byte < 0x80)
        return true;
    }
    return false;
  }

  /// The next field's number and wire type; protobuf refuses field 0.
  bool tag(uint32_t &field, uint32_t &type) {
    uint64_t key;
    if (!varint(key) || key >> 32 || key >> 3 == 0)
      return false;
    field = static_cast<uint32_t>(key >> 3);
    type = static_cast<uint32_t>(key & 7);
    return true;
  }

  /// A length-delimited field's contents.
  bool bytes(std::string_view &contents) {
    uint64_t size;
    if (!varint(size) || size > uint64_t(end - at))
      return false;
    contents = {at, static_cast<size_t>(size)};
    at += size;
    return true;
  }

  bool skip(uint32_t type) {
    uint64_t value;
    std::string_view contents;
    switch (type) {
    case kVarint:
      return varint(value);
    case kFixed64:
      return advance(8);
    case kLength:
      return bytes(contents);
    case kFixed32:
      return advance(4);
    default:
      return false;
    }
  }

private:
  bool advance(size_t size) {
    if (size > size_t(end - at))
      return false;
    at += size;
    return true;
  }

  const char *at;
  const char *end;
};

/// A Feature as the wire holds it: its kind, and its list's values (packed
/// floats or varints, or a bytes_list's first value).
struct WireFeature {
  tensorflow::Feature::KindCase kind = tensorflow::Feature::KIND_NOT_SET;
  size_t count = 0;
  std::string_view values;
};

/// Reads the list of `feature.kind` in `bytes`. Unpacked scalars and a
/// second packed run are left to protobuf, which concatenates them.
bool scanList(std::string_view bytes, WireFeature &feature) {
  WireScanner list(bytes);
  bool packed = false;
  while (!list.done()) {
    uint32_t field, type;
    if (!list.tag(field, type))
      return false;
    if (field != 1) {
      if (!list.skip(type))
        return false;
      continue;
    }
    std::string_view value;
    if (type != kLength || packed || !list.bytes(value))
      return false;
    switch (feature.kind) {
    case tensorflow::Feature::kBytesList:
      if (feature.count++ == 0)
        feature.values = value;
      continue;
    case tensorflow::Feature::kFloatList:
      if (value.size() % sizeof(float) != 0)
        return false;
      feature.count = value.size() / sizeof(float);
      break;
    default: {
      // Counting the varints checks that each is whole.
      WireScanner run(value);
      for (uint64_t id; !run.done(); ++feature.count)
        if (!run.varint(id))
          return false;
      break;
    }
    }
    feature.values = value;
    packed = true;
  }
  return true;
}

/// Reads the Feature in `bytes` whose oneof holds at most one member once:
/// protobuf merges a member that comes again and replaces one that another
/// follows.
bool scanFeature(std::string_view bytes, WireFeature &feature) {
  WireScanner scanner(bytes);
  std::string_view list;
  while (!scanner.done()) {
    uint32_t field, type;
    if (!scanner.tag(field, type))
      return false;
    if (field > 3) {
      if (!scanner.skip(type))
        return false;
      continue;
    }
    if (type != kLength || feature.kind != tensorflow::Feature::KIND_NOT_SET ||
        !scanner.bytes(list))
      return false;
    // The oneof's cases are the numbers of its fields.
    feature.kind = static_cast<tensorflow::Feature::KindCase>(field);
  }
  return feature.kind == tensorflow::Feature::KIND_NOT_SET ||
         scanList(list, feature);
}

/// Reads the map entry in `bytes`, key and Feature, each there at most once.
bool scanEntry(std::string_view bytes, std::string_view &key,
               WireFeature &feature) {
  WireScanner entry(bytes);
  std::string_view value;
  bool seen[2] = {false, false};
  while (!entry.done()) {
    uint32_t field, type;
    if (!entry.tag(field, type))
      return false;
    if (field > 2) {
      if (!entry.skip(type))
        return false;
      continue;
    }
    if (type != kLength || seen[field - 1] ||
        !entry.bytes(field == 1 ? key : value))
      return false;
    seen[field - 1] = true;
  }
  // Protobuf refuses a key that is not UTF-8; an ASCII one is.
  for (char c : key)
    if (static_cast<uint8_t>(c) >= 0x80)
      return false;
  return scanFeature(value, feature);
}

} // namespace

struct ExampleParser::State {
  std::vector<tensorflow::Feature::KindCase> kinds;
  /// The slow path's Example.
  tensorflow::Example example;
  /// Each request's feature in the example being added, and the int64s the
  /// fast path decodes for it.
  std::vector<Found> found;
  std::vector<std::vector<int64_t>> ids;
  /// What add() restores when it fails.
  std::vector<size_t> sizes;
  std::vector<ElementType> types;
  std::vector<tensorflow::Feature::KindCase> savedKinds;
  std::vector<size_t> savedCounts;

  /// Finds the requested features in the wire bytes of `record`; false
  /// leaves the record to parse(), which knows all that protobuf does: a
  /// missing feature (whose error lists those present), bytes that are not
  /// an Example, or any shape but the common one.
  bool scan(std::string_view record,
            const std::vector<FeatureRequest> &features);
  /// Finds them in the Example protobuf parses; false when it is none.
  bool parse(std::string_view record,
             const std::vector<FeatureRequest> &features);
};

bool ExampleParser::State::scan(std::string_view record,
                                const std::vector<FeatureRequest> &features) {
  found.assign(features.size(), Found{});
  WireScanner example(record);
  while (!example.done()) {
    uint32_t field, type;
    std::string_view map;
    if (!example.tag(field, type))
      return false;
    if (field != 1) {
      if (!example.skip(type))
        return false;
      continue;
    }
    // Several Features merge, their entries as if in one.
    if (type != kLength || !example.bytes(map))
      return false;
    WireScanner entries(map);
    while (!entries.done()) {
      std::string_view entry, key;
      WireFeature feature;
      if (!entries.tag(field, type))
        return false;
      if (field != 1) {
        if (!entries.skip(type))
          return false;
        continue;
      }
      if (type != kLength || !entries.bytes(entry) ||
          !scanEntry(entry, key, feature))
        return false;
      // A later entry of a key replaces an earlier one, as in protobuf's map.
      for (size_t i = 0; i < features.size(); ++i) {
        if (features[i].name != key)
          continue;
        found[i] = {true, feature.kind, feature.count, feature.values.data(),
                    feature.kind == tensorflow::Feature::kBytesList
                        ? feature.values
                        : std::string_view()};
        if (feature.kind == tensorflow::Feature::kInt64List) {
          ids[i].clear();
          WireScanner run(feature.values);
          for (uint64_t id; run.varint(id);)
            ids[i].push_back(static_cast<int64_t>(id));
          found[i].values = ids[i].data();
        }
      }
    }
  }
  for (size_t i = 0; i < features.size(); ++i)
    if (!found[i].present && !features[i].varlen)
      return false;
  return true;
}

bool ExampleParser::State::parse(std::string_view record,
                                 const std::vector<FeatureRequest> &features) {
  if (!example.ParseFromArray(record.data(), static_cast<int>(record.size())))
    return false;
  found.assign(features.size(), Found{});
  const auto &map = example.features().feature();
  for (size_t i = 0; i < features.size(); ++i) {
    auto it = map.find(features[i].name);
    if (it == map.end())
      continue;
    const tensorflow::Feature &feature = it->second;
    Found &out = found[i];
    out.present = true;
    out.kind = feature.kind_case();
    switch (out.kind) {
    case tensorflow::Feature::kFloatList:
      out.count = feature.float_list().value_size();
      out.values = feature.float_list().value().data();
      break;
    case tensorflow::Feature::kInt64List:
      out.count = feature.int64_list().value_size();
      out.values = feature.int64_list().value().data();
      break;
    case tensorflow::Feature::kBytesList:
      out.count = feature.bytes_list().value_size();
      if (out.count > 0)
        out.first = feature.bytes_list().value(0);
      break;
    default:
      break;
    }
  }
  return true;
}

ExampleParser::ExampleParser(std::vector<FeatureRequest> features)
    : features(std::move(features)), state(std::make_unique<State>()) {
  size_t n = this->features.size();
  state->kinds.assign(n, tensorflow::Feature::KIND_NOT_SET);
  state->ids.resize(n);
  arrays.resize(n);
  counts.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const FeatureRequest &request = this->features[i];
    if (request.varlen) {
      arrays[i].type = ElementType::I64;
      counts[i] = static_cast<size_t>(request.rowLength);
    } else if (request.values) {
      counts[i] = static_cast<size_t>(*request.values);
    }
  }
}

ExampleParser::~ExampleParser() = default;
ExampleParser::ExampleParser(ExampleParser &&) noexcept = default;
ExampleParser &ExampleParser::operator=(ExampleParser &&) noexcept = default;

void ExampleParser::add(std::string_view record, const std::string &file,
                        int64_t index) {
  auto fail = [&](const std::string &message) {
    return std::runtime_error(file + ": record " + std::to_string(index) +
                              ": " + message);
  };
  if (!state->scan(record, features) && !state->parse(record, features))
    throw fail("not a tf.train.Example");
  // Nothing is appended unless every feature is read.
  state->sizes.resize(arrays.size());
  state->types.resize(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    state->sizes[i] = arrays[i].bytes.size();
    state->types[i] = arrays[i].type;
  }
  state->savedKinds = state->kinds;
  state->savedCounts = this->counts;
  try {
    for (size_t i = 0; i < features.size(); ++i) {
      const FeatureRequest &request = features[i];
      const std::string &name = request.name;
      const Found &feature = state->found[i];
      if (request.varlen) {
        // tf.io.VarLenFeature: a missing feature, or one that holds no
        // kind of list, is an empty list.
        int count = 0;
        const int64_t *ids = nullptr;
        if (feature.kind == tensorflow::Feature::kInt64List) {
          count = static_cast<int>(feature.count);
          ids = static_cast<const int64_t *>(feature.values);
        } else if (feature.kind != tensorflow::Feature::KIND_NOT_SET) {
          throw fail("feature '" + name + "' is a " + kindName(feature.kind) +
                     "; varlen reads an int64_list of ids");
        }
        if (count > request.rowLength)
          throw fail("varlen feature '" + name + "' holds " +
                     std::to_string(count) + " values, more than the " +
                     std::to_string(request.rowLength) + " of a row" +
                     (request.rowOf.empty() ? "" : " of " + request.rowOf));
        if (std::string refused = refusedId(request, ids, count);
            !refused.empty())
          throw fail(refused);
        std::vector<uint8_t> &out = arrays[i].bytes;
        size_t at = out.size();
        out.resize(at + this->counts[i] * sizeof(int64_t));
        if (count > 0)
          std::memcpy(out.data() + at, ids, count * sizeof(int64_t));
        for (size_t k = count; k < this->counts[i]; ++k)
          std::memcpy(out.data() + at + k * sizeof(int64_t), &kVarLenPadding,
                      sizeof(int64_t));
        continue;
      }
      if (!feature.present) {
        // Only the slow path finds a feature missing, and has the names.
        std::vector<std::string> names;
        for (const auto &[present, value] : state->example.features().feature())
          names.push_back(present);
        std::sort(names.begin(), names.end());
        std::string list;
        for (const std::string &present : names)
          list += (list.empty() ? "" : ", ") + present;
        throw fail("the Example has no feature '" + name +
                   "' (it has: " + (list.empty() ? "none" : list) + ")");
      }
      FeatureValues values{};
      switch (feature.kind) {
      case tensorflow::Feature::kFloatList:
        values = {ElementType::F32, feature.count, feature.values};
        break;
      case tensorflow::Feature::kInt64List:
        values = {ElementType::I64, feature.count, feature.values};
        if (request.table) {
          std::string refused =
              refusedId(request, static_cast<const int64_t *>(feature.values),
                        static_cast<int>(feature.count));
          if (!refused.empty())
            throw fail(refused);
        }
        break;
      case tensorflow::Feature::kBytesList:
        if (feature.count != 1)
          throw fail("feature '" + name + "' is a bytes_list of " +
                     std::to_string(feature.count) +
                     " values; DTF reads one value of raw bytes per "
                     "example");
        values = {ElementType::U8, feature.first.size(), feature.first.data()};
        break;
      default:
        throw fail("feature '" + name + "' holds no values");
      }
      if (request.values && values.count != this->counts[i])
        throw fail(
            "feature '" + name + "' is a " + kindName(feature.kind) + " of " +
            std::to_string(values.count) + " values where " +
            (request.rowOf.empty() ? std::string("a row") : request.rowOf) +
            " takes " + std::to_string(this->counts[i]));
      if (state->kinds[i] == tensorflow::Feature::KIND_NOT_SET) {
        state->kinds[i] = feature.kind;
        this->counts[i] = values.count;
        arrays[i].type = values.type;
      } else if (feature.kind != state->kinds[i] ||
                 values.count != this->counts[i]) {
        throw fail("feature '" + name + "' is a " + kindName(feature.kind) +
                   " of " + std::to_string(values.count) +
                   " values where the first example's is a " +
                   kindName(state->kinds[i]) + " of " +
                   std::to_string(this->counts[i]) +
                   (feature.kind == state->kinds[i] &&
                            state->kinds[i] == tensorflow::Feature::kInt64List
                        ? " (a ragged list of ids: bind it with varlen)"
                        : ""));
      }
      const auto *begin = static_cast<const uint8_t *>(values.data);
      arrays[i].bytes.insert(arrays[i].bytes.end(), begin,
                             begin +
                                 values.count * elementTypeSize(values.type));
    }
  } catch (...) {
    for (size_t i = 0; i < arrays.size(); ++i) {
      arrays[i].bytes.resize(state->sizes[i]);
      arrays[i].type = state->types[i];
    }
    state->kinds.swap(state->savedKinds);
    this->counts.swap(state->savedCounts);
    throw;
  }
  ++rows;
  ++parsed;
}

std::vector<Array> ExampleParser::take(const std::string &of) {
  std::vector<Array> out(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    out[i].type = arrays[i].type;
    out[i].shape = {rows, static_cast<int64_t>(counts[i])};
    out[i].bytes = std::move(arrays[i].bytes);
    arrays[i].bytes.clear();
    out[i].source = std::string(features[i].varlen ? "varlen " : "") +
                    "feature '" + features[i].name + "' of " + of;
  }
  rows = 0;
  return out;
}

std::vector<Array>
readExampleFeatures(const std::vector<std::string> &files,
                    const std::vector<FeatureRequest> &features) {
  ExampleParser parser(features);
  for (const std::string &file : files) {
    RecordReader reader(file);
    while (true) {
      int64_t record = reader.index();
      std::optional<std::string> bytes = reader.next();
      if (!bytes)
        break;
      parser.add(*bytes, file, record);
    }
  }
  return parser.take(files.size() == 1
                         ? files.front()
                         : std::to_string(files.size()) + " TFRecord files");
}

std::vector<Array>
readExampleFeatures(const std::vector<std::string> &files,
                    const std::vector<std::string> &features) {
  std::vector<FeatureRequest> requests;
  for (const std::string &name : features)
    requests.push_back({name, false, 0, "", std::nullopt, std::nullopt});
  return readExampleFeatures(files, requests);
}

} // namespace dtf::data
