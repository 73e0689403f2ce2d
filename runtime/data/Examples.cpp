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

/// The values of one feature in one example, as the bytes of its array row.
struct FeatureValues {
  ElementType type;
  size_t count;
  const void *data;
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

} // namespace

struct ExampleParser::State {
  std::vector<tensorflow::Feature::KindCase> kinds;
  tensorflow::Example example;
};

ExampleParser::ExampleParser(std::vector<FeatureRequest> features)
    : features(std::move(features)), state(std::make_unique<State>()) {
  size_t n = this->features.size();
  state->kinds.assign(n, tensorflow::Feature::KIND_NOT_SET);
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
  tensorflow::Example &example = state->example;
  if (!example.ParseFromArray(record.data(), static_cast<int>(record.size())))
    throw fail("not a tf.train.Example");
  // Nothing is appended unless every feature is read.
  std::vector<size_t> sizes(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i)
    sizes[i] = arrays[i].bytes.size();
  std::vector<tensorflow::Feature::KindCase> kinds = state->kinds;
  std::vector<size_t> counts = this->counts;
  std::vector<ElementType> types(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i)
    types[i] = arrays[i].type;
  try {
    const auto &map = example.features().feature();
    for (size_t i = 0; i < features.size(); ++i) {
      const FeatureRequest &request = features[i];
      const std::string &name = request.name;
      auto it = map.find(name);
      if (request.varlen) {
        // tf.io.VarLenFeature: a missing feature, or one that holds no
        // kind of list, is an empty list.
        int count = 0;
        const int64_t *ids = nullptr;
        if (it != map.end()) {
          const tensorflow::Feature &feature = it->second;
          if (feature.kind_case() == tensorflow::Feature::kInt64List) {
            count = feature.int64_list().value_size();
            ids = feature.int64_list().value().data();
          } else if (feature.kind_case() != tensorflow::Feature::KIND_NOT_SET) {
            throw fail("feature '" + name + "' is a " +
                       kindName(feature.kind_case()) +
                       "; varlen reads an int64_list of ids");
          }
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
      if (it == map.end()) {
        std::vector<std::string> names;
        for (const auto &[present, feature] : map)
          names.push_back(present);
        std::sort(names.begin(), names.end());
        std::string list;
        for (const std::string &present : names)
          list += (list.empty() ? "" : ", ") + present;
        throw fail("the Example has no feature '" + name +
                   "' (it has: " + (list.empty() ? "none" : list) + ")");
      }
      const tensorflow::Feature &feature = it->second;
      FeatureValues values{};
      switch (feature.kind_case()) {
      case tensorflow::Feature::kFloatList:
        values = {ElementType::F32,
                  static_cast<size_t>(feature.float_list().value_size()),
                  feature.float_list().value().data()};
        break;
      case tensorflow::Feature::kInt64List:
        values = {ElementType::I64,
                  static_cast<size_t>(feature.int64_list().value_size()),
                  feature.int64_list().value().data()};
        if (request.table) {
          std::string refused =
              refusedId(request, feature.int64_list().value().data(),
                        feature.int64_list().value_size());
          if (!refused.empty())
            throw fail(refused);
        }
        break;
      case tensorflow::Feature::kBytesList:
        if (feature.bytes_list().value_size() != 1)
          throw fail("feature '" + name + "' is a bytes_list of " +
                     std::to_string(feature.bytes_list().value_size()) +
                     " values; DTF reads one value of raw bytes per "
                     "example");
        values = {ElementType::U8, feature.bytes_list().value(0).size(),
                  feature.bytes_list().value(0).data()};
        break;
      default:
        throw fail("feature '" + name + "' holds no values");
      }
      if (request.values && values.count != this->counts[i])
        throw fail(
            "feature '" + name + "' is a " + kindName(feature.kind_case()) +
            " of " + std::to_string(values.count) + " values where " +
            (request.rowOf.empty() ? std::string("a row") : request.rowOf) +
            " takes " + std::to_string(this->counts[i]));
      if (state->kinds[i] == tensorflow::Feature::KIND_NOT_SET) {
        state->kinds[i] = feature.kind_case();
        this->counts[i] = values.count;
        arrays[i].type = values.type;
      } else if (feature.kind_case() != state->kinds[i] ||
                 values.count != this->counts[i]) {
        throw fail("feature '" + name + "' is a " +
                   kindName(feature.kind_case()) + " of " +
                   std::to_string(values.count) +
                   " values where the first example's is a " +
                   kindName(state->kinds[i]) + " of " +
                   std::to_string(this->counts[i]) +
                   (feature.kind_case() == state->kinds[i] &&
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
      arrays[i].bytes.resize(sizes[i]);
      arrays[i].type = types[i];
    }
    state->kinds = std::move(kinds);
    this->counts = std::move(counts);
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
