//===- InputSpec.h - Which file feeds which placeholder -------------------===//
//
// dtf-run binds a model's placeholders to data by name, one input each:
//
//   --input=NAME=FORMAT:PATH[,KEY=VALUE...]
//
//   --input=x=idx:train-images-idx3-ubyte.gz,scale=1/255
//   --input=y_=idx:train-labels-idx1-ubyte.gz,onehot=10
//   --input=image=tfrecord:data/train-*.tfrecord.gz,feature=image_raw,scale=1/255
//   --input=label=tfrecord:data/train-*.tfrecord.gz
//   --input=x=npz:train.npz,key=images
//   --input=x=npy:images.npy
//
// FORMAT is idx, npy, npz or tfrecord. The options:
//
//   feature=F   tfrecord: the Example feature to read (default: NAME)
//   key=K       npz: the archive member K.npy (default: NAME)
//   scale=S     multiply every value by S (a number or a fraction, 1/255);
//               the values become the placeholder's float type
//   onehot=N    class ids in [0, N) become one-hot rows of N floats
//
// An input file (--input_file) holds the same bindings one per line, as
// `input NAME=SPEC` or `eval_input NAME=SPEC`, with # comments; its errors
// name the file and line.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtf::data {

struct InputSpec {
  std::string placeholder;
  /// "idx", "npy", "npz" or "tfrecord".
  std::string format;
  /// A file, or for tfrecord a glob(3) pattern of files.
  std::string path;
  /// The feature (tfrecord) or array (npz) to read.
  std::string member;
  std::optional<double> scale;
  std::optional<int64_t> oneHotClasses;
  /// Where the binding was written ("--input" or "inputs.txt:3"), for
  /// errors.
  std::string origin;
};

/// Parses `NAME=FORMAT:PATH[,KEY=VALUE...]`. Throws std::invalid_argument
/// whose message starts with `origin`.
InputSpec parseInputSpec(const std::string &text, const std::string &origin);

/// The bindings of an input file.
struct InputBindings {
  std::vector<InputSpec> train;
  std::vector<InputSpec> eval;
};

/// Reads an input file (see above). Throws std::invalid_argument naming the
/// file and line.
InputBindings readInputFile(const std::string &path);

} // namespace dtf::data
