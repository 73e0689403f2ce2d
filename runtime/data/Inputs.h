//===- Inputs.h - A model's placeholders fed from data files --------------===//
//
// Turns the bindings of InputSpec.h into the columns of a TensorSlices
// source: each file is read once (the features of one TFRecord file set,
// the members of one .npz, together), and each array is converted to the
// type of the placeholder it feeds:
//
//   - values: integers (pixels, class ids) convert to a float placeholder,
//     as a feed_dict converts a NumPy array; floats never convert to an
//     integer placeholder; `scale` multiplies into a float placeholder;
//     `onehot=N` turns class ids into rows of N floats; `varlen` pads a
//     ragged int64 feature's ids with -1 to the rows of an i64 or i32
//     placeholder of shape [batch, L];
//   - shape: an example (one row along dimension 0) must hold as many
//     elements as one example of the placeholder, and is read in row-major
//     order (an IDX image of 28x28 pixels feeds a [784] placeholder).
//
// Every mismatch is one std::invalid_argument naming the binding, the file
// and the placeholder.
//
// A placeholder whose ids look up an embedding table may name the table:
// a TFRecord feature feeding it is then refused at the first record with an
// id outside the table (Examples.h), naming the file, record, feature and
// table, where a lookup later could only name a position in a batch.
//
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"
#include "runtime/data/Examples.h"
#include "runtime/data/InputSpec.h"

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dtf::data {

/// What one example of a placeholder is: its element type and its shape
/// without the batch dimension.
struct ExampleType {
  DType dtype = DType::F32;
  Shape shape;
};

/// Reads the data of `specs` and converts each array to the example type of
/// its placeholder in `placeholders`; all columns hold the same number of
/// examples. A binding of a placeholder the model lacks, or of one
/// placeholder twice, is an error. `tables` names, by placeholder, the
/// table whose rows the ids of a TFRecord feature must be (see above).
// The steps of readColumns, which streaming input (Streaming.h) takes too.

/// Checks that every binding names a placeholder of `placeholders`, each
/// one once, and that a varlen binding's placeholder takes rows of ids.
/// Throws std::invalid_argument naming the binding.
void checkBindings(const std::vector<InputSpec> &specs,
                   const std::map<std::string, ExampleType> &placeholders);

/// L of the [batch, L] i64 or i32 placeholder a varlen binding feeds.
/// Throws std::invalid_argument naming the binding when it is not such.
int64_t varlenRowLength(const InputSpec &spec, const ExampleType &type);

/// What to read from each Example for the tfrecord binding `spec` (its
/// placeholder in `placeholders`; `tables` as readColumns takes it).
FeatureRequest
featureRequest(const InputSpec &spec,
               const std::map<std::string, ExampleType> &placeholders,
               const std::map<std::string, IdTable> &tables);

/// `array` (dimension 0 indexing the examples) as the column of
/// placeholder `spec.placeholder` of example type `type`, converted as
/// above. Throws std::invalid_argument naming the binding, the array's
/// source and the placeholder.
Tensor toColumn(const Array &array, const InputSpec &spec,
                const ExampleType &type);

/// u8 pixels as floats of `dtype` (F32 or F64) times `scale`, as toColumn
/// converts a u8 array; streaming input converts its rows with it as it
/// assembles a batch (Streaming.h), on a thread that competes with the
/// step for the cores. The values are those of multiplying each pixel in
/// double (and rounding to f32): f64 is that multiply, vectorized; for f32
/// the 256 products are computed once, and a row is divided by a float N
/// in vector registers where the scale is 1/N and the quotients equal the
/// products for all 256 pixels (scale=1/255), else looked up. The division
/// is by N's reciprocal and an FMA's correction where the CPU has FMA and
/// that too gives the 256 products: a vector division takes several times
/// the two FMAs and a multiply (dtf-bench-kernels
/// --benchmark_filter=PixelScale compares the ways on a CPU).
class PixelScale {
public:
  /// Throws std::invalid_argument for a `dtype` other than F32 and F64.
  PixelScale(double scale, DType dtype);
  /// `count` pixels at `in` to `count` values of the dtype at `out`.
  void operator()(const uint8_t *in, size_t count, void *out) const;
  /// How f32 pixels are converted: "reciprocal", "division" or "table"
  /// (f64's multiply is "multiply").
  const char *way() const;

private:
  enum class FloatWay { Reciprocal, Division, Table };

  DType dtype;
  double scale;
  std::array<float, 256> floats{};
  /// N and 1/N (as floats) where the scale is about 1/N.
  float divisor = 0.0f;
  float reciprocal = 0.0f;
  FloatWay floatWay = FloatWay::Table;
};

std::vector<std::pair<std::string, Tensor>>
readColumns(const std::vector<InputSpec> &specs,
            const std::map<std::string, ExampleType> &placeholders,
            const std::map<std::string, IdTable> &tables = {});

} // namespace dtf::data
