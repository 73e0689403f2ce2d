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

} // namespace

std::vector<Array>
readExampleFeatures(const std::vector<std::string> &files,
                    const std::vector<std::string> &features) {
  std::vector<Array> arrays(features.size());
  std::vector<tensorflow::Feature::KindCase> kinds(
      features.size(), tensorflow::Feature::KIND_NOT_SET);
  std::vector<size_t> counts(features.size());
  int64_t examples = 0;
  tensorflow::Example example;
  for (const std::string &file : files) {
    RecordReader reader(file);
    while (true) {
      int64_t record = reader.index();
      std::optional<std::string> bytes = reader.next();
      if (!bytes)
        break;
      auto fail = [&](const std::string &message) {
        return std::runtime_error(file + ": record " + std::to_string(record) +
                                  ": " + message);
      };
      if (!example.ParseFromString(*bytes))
        throw fail("not a tf.train.Example");
      const auto &map = example.features().feature();
      for (size_t i = 0; i < features.size(); ++i) {
        auto it = map.find(features[i]);
        if (it == map.end()) {
          std::vector<std::string> names;
          for (const auto &[name, feature] : map)
            names.push_back(name);
          std::sort(names.begin(), names.end());
          std::string list;
          for (const std::string &name : names)
            list += (list.empty() ? "" : ", ") + name;
          throw fail("the Example has no feature '" + features[i] +
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
          break;
        case tensorflow::Feature::kBytesList:
          if (feature.bytes_list().value_size() != 1)
            throw fail("feature '" + features[i] + "' is a bytes_list of " +
                       std::to_string(feature.bytes_list().value_size()) +
                       " values; DTF reads one value of raw bytes per "
                       "example");
          values = {ElementType::U8, feature.bytes_list().value(0).size(),
                    feature.bytes_list().value(0).data()};
          break;
        default:
          throw fail("feature '" + features[i] + "' holds no values");
        }
        if (examples == 0) {
          kinds[i] = feature.kind_case();
          counts[i] = values.count;
          arrays[i].type = values.type;
        } else if (feature.kind_case() != kinds[i] ||
                   values.count != counts[i]) {
          throw fail("feature '" + features[i] + "' is a " +
                     kindName(feature.kind_case()) + " of " +
                     std::to_string(values.count) +
                     " values where the first example's is a " +
                     kindName(kinds[i]) + " of " + std::to_string(counts[i]));
        }
        const auto *begin = static_cast<const uint8_t *>(values.data);
        arrays[i].bytes.insert(arrays[i].bytes.end(), begin,
                               begin +
                                   values.count * elementTypeSize(values.type));
      }
      ++examples;
    }
  }
  for (size_t i = 0; i < features.size(); ++i) {
    arrays[i].shape = {examples, static_cast<int64_t>(counts[i])};
    arrays[i].source =
        "feature '" + features[i] + "' of " +
        (files.size() == 1 ? files.front()
                           : std::to_string(files.size()) + " TFRecord files");
  }
  return arrays;
}

} // namespace dtf::data
