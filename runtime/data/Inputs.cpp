//===- Inputs.cpp - A model's placeholders fed from data files ------------===//

#include "runtime/data/Inputs.h"

#include "runtime/core/VectorWidths.h"
#include "runtime/data/Examples.h"
#include "runtime/data/IdxReader.h"
#include "runtime/data/Npy.h"

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

namespace dtf::data {

namespace {

bool isInteger(ElementType type) {
  return type == ElementType::U8 || type == ElementType::I32 ||
         type == ElementType::I64;
}

bool isFloat(DType dtype) { return dtype == DType::F32 || dtype == DType::F64; }

/// Element `index` of `array` as a double (integers of up to 53 bits are
/// exact) or as an int64.
double valueAt(const Array &array, int64_t index) {
  const uint8_t *at = array.bytes.data() + index * elementTypeSize(array.type);
  switch (array.type) {
  case ElementType::U8:
  case ElementType::Bool:
    return static_cast<double>(static_cast<uint8_t>(*at));
  case ElementType::I32: {
    int32_t value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  case ElementType::I64: {
    int64_t value;
    std::memcpy(&value, at, sizeof(value));
    return static_cast<double>(value);
  }
  case ElementType::F32: {
    float value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  case ElementType::F64: {
    double value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  }
  return 0;
}

int64_t integerAt(const Array &array, int64_t index) {
  if (array.type == ElementType::I64) {
    int64_t value;
    std::memcpy(&value, array.bytes.data() + index * 8, sizeof(value));
    return value;
  }
  return static_cast<int64_t>(valueAt(array, index));
}

DTF_VECTOR_WIDTHS void dividePixels(const uint8_t *__restrict in, size_t count,
                                    float divisor, float *__restrict out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = static_cast<float>(in[i]) / divisor;
}

/// pixel / divisor as a product by the reciprocal, corrected by the
/// remainder (Markstein's division): two FMAs and a multiply a vector where
/// a division takes several times that (vdivps).
float reciprocalQuotient(float pixel, float divisor, float reciprocal) {
  float quotient = pixel * reciprocal;
  float remainder = std::fma(-quotient, divisor, pixel);
  return std::fma(remainder, reciprocal, quotient);
}

DTF_FMA_LEVELS void dividePixelsByReciprocal(const uint8_t *__restrict in,
                                             size_t count, float divisor,
                                             float reciprocal,
                                             float *__restrict out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = reciprocalQuotient(static_cast<float>(in[i]), divisor, reciprocal);
}

DTF_VECTOR_WIDTHS void multiplyPixels(const uint8_t *__restrict in,
                                      size_t count, double scale,
                                      double *__restrict out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = static_cast<double>(in[i]) * scale;
}

} // namespace

PixelScale::PixelScale(double scale, DType dtype) : dtype(dtype), scale(scale) {
  if (dtype != DType::F32 && dtype != DType::F64)
    throw std::invalid_argument(std::string("pixels convert to f32 or f64, "
                                            "not ") +
                                dtypeName(dtype));
  for (size_t pixel = 0; pixel < 256; ++pixel)
    floats[pixel] =
        static_cast<float>(static_cast<double>(pixel) * this->scale);
  // A scale of 1/N (scale=1/255) rounds to the nearest float of pixel/N,
  // the same as a float division by N, for every pixel or not: asked once,
  // of the division and of its FMA form.
  divisor = static_cast<float>(1.0 / scale);
  reciprocal = 1.0f / divisor;
  auto givesTable = [&](auto quotientOf) {
    if (!std::isfinite(divisor) || divisor == 0.0f)
      return false;
    for (size_t pixel = 0; pixel < 256; ++pixel) {
      float quotient = quotientOf(static_cast<float>(pixel));
      if (std::memcmp(&quotient, &floats[pixel], sizeof(float)) != 0)
        return false;
    }
    return true;
  };
  if (hasFmaLevel() && givesTable([&](float pixel) {
        return reciprocalQuotient(pixel, divisor, reciprocal);
      }))
    floatWay = FloatWay::Reciprocal;
  else if (givesTable([&](float pixel) { return pixel / divisor; }))
    floatWay = FloatWay::Division;
}

void PixelScale::operator()(const uint8_t *in, size_t count, void *out) const {
  if (dtype == DType::F64) {
    multiplyPixels(in, count, scale, static_cast<double *>(out));
    return;
  }
  auto *to = static_cast<float *>(out);
  switch (floatWay) {
  case FloatWay::Reciprocal:
    dividePixelsByReciprocal(in, count, divisor, reciprocal, to);
    return;
  case FloatWay::Division:
    dividePixels(in, count, divisor, to);
    return;
  case FloatWay::Table:
    for (size_t i = 0; i < count; ++i)
      to[i] = floats[in[i]];
    return;
  }
}

const char *PixelScale::way() const {
  if (dtype == DType::F64)
    return "multiply";
  switch (floatWay) {
  case FloatWay::Reciprocal:
    return "reciprocal";
  case FloatWay::Division:
    return "division";
  case FloatWay::Table:
    return "table";
  }
  return "table";
}

Tensor toColumn(const Array &array, const InputSpec &spec,
                const ExampleType &type) {
  std::string where = spec.origin + ": input of placeholder '" +
                      spec.placeholder + "' (" + dtypeName(type.dtype) + " " +
                      shapeToString(type.shape) + " per example) from " +
                      array.source + ": ";
  if (array.shape.empty())
    throw std::invalid_argument(where + "a scalar; dimension 0 must index "
                                        "the examples");
  const int64_t examples = array.shape[0];
  const int64_t wanted = numElementsOf(type.shape);
  Shape exampleShape(array.shape.begin() + 1, array.shape.end());
  int64_t held = numElementsOf(exampleShape);
  std::string holds = std::string("holds ") + elementTypeName(array.type) +
                      " " + shapeToString(exampleShape) + " per example";

  Shape shape = type.shape;
  shape.insert(shape.begin(), examples);
  // Every element is written below, but for one-hot rows.
  Tensor column = spec.oneHotClasses ? Tensor(type.dtype, shape)
                                     : Tensor::uninitialized(type.dtype, shape);
  if (spec.oneHotClasses) {
    int64_t classes = *spec.oneHotClasses;
    if (!isInteger(array.type) || held != 1)
      throw std::invalid_argument(where + holds +
                                  "; onehot takes one integer class id per "
                                  "example");
    if (!isFloat(type.dtype) || wanted != classes)
      throw std::invalid_argument(
          where + "onehot=" + std::to_string(classes) + " makes " +
          std::to_string(classes) +
          " floats per example, which the placeholder does not take");
    double scale = spec.scale.value_or(1.0);
    for (int64_t n = 0; n < examples; ++n) {
      int64_t id = integerAt(array, n);
      if (id < 0 || id >= classes)
        throw std::invalid_argument(where + "example " + std::to_string(n) +
                                    ": class id " + std::to_string(id) +
                                    " is outside [0, " +
                                    std::to_string(classes) + ")");
      if (type.dtype == DType::F32)
        column.data<float>()[n * classes + id] = static_cast<float>(scale);
      else
        column.data<double>()[n * classes + id] = scale;
    }
    return column;
  }
  if (held != wanted)
    throw std::invalid_argument(where + holds + " (" + std::to_string(held) +
                                " elements), not " + std::to_string(wanted));
  const int64_t count = examples * held;
  if (isFloat(type.dtype)) {
    if (array.type == ElementType::Bool)
      throw std::invalid_argument(where + holds +
                                  ": bool values do not convert to floats");
    double scale = spec.scale.value_or(1.0);
    if (type.dtype == DType::F32 && array.type == ElementType::F32 &&
        !spec.scale) {
      std::memcpy(column.rawData(), array.bytes.data(), array.bytes.size());
      return column;
    }
    if (array.type == ElementType::U8) {
      // Pixels, the common case, without a switch per element.
      PixelScale(scale, type.dtype)(
          array.bytes.data(), static_cast<size_t>(count), column.rawData());
      return column;
    }
    for (int64_t i = 0; i < count; ++i) {
      double value = valueAt(array, i) * scale;
      if (type.dtype == DType::F32)
        column.data<float>()[i] = static_cast<float>(value);
      else
        column.data<double>()[i] = value;
    }
    return column;
  }
  if (spec.scale)
    throw std::invalid_argument(where +
                                "scale makes floats, and the "
                                "placeholder takes " +
                                std::string(dtypeName(type.dtype)));
  if (type.dtype == DType::Bool) {
    if (array.type != ElementType::Bool)
      throw std::invalid_argument(where + holds +
                                  "; a bool placeholder takes bools");
    std::memcpy(column.rawData(), array.bytes.data(), array.bytes.size());
    return column;
  }
  if (!isInteger(array.type))
    throw std::invalid_argument(where + holds +
                                "; floats do not convert to an integer "
                                "placeholder");
  if (type.dtype == DType::I64 && array.type == ElementType::I64) {
    std::memcpy(column.rawData(), array.bytes.data(), array.bytes.size());
    return column;
  }
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = integerAt(array, i);
    if (type.dtype == DType::I64) {
      column.data<int64_t>()[i] = value;
    } else {
      if (value != static_cast<int32_t>(value))
        throw std::invalid_argument(where + "value " + std::to_string(value) +
                                    " of element " + std::to_string(i) +
                                    " does not fit int32");
      column.data<int32_t>()[i] = static_cast<int32_t>(value);
    }
  }
  return column;
}

namespace {

Array fromIdx(const std::string &path) {
  IdxArray idx = readIdxFile(path, kAnyRank);
  Array array;
  array.type = ElementType::U8;
  array.shape = std::move(idx.dims);
  array.bytes = std::move(idx.bytes);
  array.source = path;
  return array;
}

} // namespace

int64_t varlenRowLength(const InputSpec &spec, const ExampleType &type) {
  if ((type.dtype != DType::I64 && type.dtype != DType::I32) ||
      type.shape.size() != 1)
    throw std::invalid_argument(
        spec.origin + ": input of placeholder '" + spec.placeholder + "' (" +
        dtypeName(type.dtype) + " " + shapeToString(type.shape) +
        " per example): varlen feeds rows of ids, an i64 or i32 placeholder "
        "of shape [batch, L]");
  return type.shape[0];
}

FeatureRequest
featureRequest(const InputSpec &spec,
               const std::map<std::string, ExampleType> &placeholders,
               const std::map<std::string, IdTable> &tables) {
  FeatureRequest request;
  request.name = spec.member;
  if (auto table = tables.find(spec.placeholder); table != tables.end())
    request.table = table->second;
  if (spec.varlen) {
    const ExampleType &type = placeholders.at(spec.placeholder);
    request.varlen = true;
    request.rowLength = varlenRowLength(spec, type);
    request.rowOf = "placeholder '" + spec.placeholder + "' (" +
                    dtypeName(type.dtype) + " " + shapeToString(type.shape) +
                    " per example)";
  }
  return request;
}

void checkBindings(const std::vector<InputSpec> &specs,
                   const std::map<std::string, ExampleType> &placeholders) {
  std::set<std::string> bound;
  for (const InputSpec &spec : specs) {
    if (!placeholders.count(spec.placeholder))
      throw std::invalid_argument(spec.origin +
                                  ": the model has no "
                                  "placeholder '" +
                                  spec.placeholder + "'");
    if (!bound.insert(spec.placeholder).second)
      throw std::invalid_argument(spec.origin + ": placeholder '" +
                                  spec.placeholder + "' is bound twice");
  }
  // A varlen binding's placeholder is checked before any file is read.
  for (const InputSpec &spec : specs)
    if (spec.varlen)
      varlenRowLength(spec, placeholders.at(spec.placeholder));
}

namespace {

/// Reads the arrays of `specs`, each file set once.
std::vector<Array>
readArrays(const std::vector<InputSpec> &specs,
           const std::map<std::string, ExampleType> &placeholders,
           const std::map<std::string, IdTable> &tables) {
  std::vector<Array> arrays(specs.size());
  std::vector<bool> done(specs.size(), false);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (done[i])
      continue;
    const InputSpec &spec = specs[i];
    if (spec.format == "idx") {
      arrays[i] = fromIdx(spec.path);
    } else if (spec.format == "npy") {
      arrays[i] = readNpy(spec.path);
    } else if (spec.format == "npz") {
      arrays[i] = readNpzMember(spec.path, spec.member);
    } else {
      // Every feature read from the same files, in one pass over them.
      std::vector<size_t> group;
      std::vector<FeatureRequest> features;
      for (size_t j = i; j < specs.size(); ++j)
        if (specs[j].format == "tfrecord" && specs[j].path == spec.path) {
          group.push_back(j);
          features.push_back(featureRequest(specs[j], placeholders, tables));
        }
      std::vector<Array> read =
          readExampleFeatures(matchFilePatterns(spec.path), features);
      for (size_t k = 0; k < group.size(); ++k) {
        arrays[group[k]] = std::move(read[k]);
        done[group[k]] = true;
      }
    }
    done[i] = true;
  }
  return arrays;
}

} // namespace

std::vector<std::pair<std::string, Tensor>>
readColumns(const std::vector<InputSpec> &specs,
            const std::map<std::string, ExampleType> &placeholders,
            const std::map<std::string, IdTable> &tables) {
  checkBindings(specs, placeholders);
  std::vector<Array> arrays;
  try {
    arrays = readArrays(specs, placeholders, tables);
  } catch (const std::runtime_error &error) {
    // A file's own error names the file (and the record at fault).
    throw std::invalid_argument(error.what());
  }
  std::vector<std::pair<std::string, Tensor>> columns;
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec &spec = specs[i];
    columns.emplace_back(
        spec.placeholder,
        toColumn(arrays[i], spec, placeholders.at(spec.placeholder)));
    if (columns.back().second.dim(0) != columns.front().second.dim(0))
      throw std::invalid_argument(
          spec.origin + ": placeholder '" + spec.placeholder + "' gets " +
          std::to_string(columns.back().second.dim(0)) + " examples from " +
          arrays[i].source + ", but '" + columns.front().first + "' gets " +
          std::to_string(columns.front().second.dim(0)) + " from " +
          arrays.front().source);
  }
  return columns;
}

} // namespace dtf::data
