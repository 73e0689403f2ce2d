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
//   --input=cat_ids=tfrecord:data/train-*,feature=cat,varlen
//   --input=x=npz:train.npz,key=images
//   --input=x=npy:images.npy
//
// FORMAT is idx, npy, npz or tfrecord; a tfrecord PATH is one or more
// glob(3) patterns separated by ':' (data/a-*:more/b-*). The options:
//
//   feature=F   tfrecord: the Example feature to read (default: NAME)
//   key=K       npz: the archive member K.npy (default: NAME)
//   scale=S     multiply every value by S (a number or a fraction, 1/255);
//               the values become the placeholder's float type
//   onehot=N    class ids in [0, N) become one-hot rows of N floats
//   varlen      tfrecord: the feature is a ragged int64_list of ids
//               (tf.io.VarLenFeature) feeding an i64 or i32 placeholder of
//               shape [batch, L]: each example's ids fill a row of L,
//               padded with -1 (the padding id, an empty slot to an
//               embedding lookup); a list of more than L ids is an error
//               naming the file, record and feature, and an example without
//               the feature has an empty list; a negative id, or one past
//               the table the placeholder's ids look up, is an error naming
//               the file, record, feature and table. Padded rows rather
//               than ids plus offsets keep the compiled program's shapes
//               static (runtime/ABI.md, "Ragged features (varlen)").
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
  /// A file, or for tfrecord glob(3) patterns of files separated by ':'.
  std::string path;
  /// The feature (tfrecord) or array (npz) to read.
  std::string member;
  std::optional<double> scale;
  std::optional<int64_t> oneHotClasses;
  /// A ragged int64 feature padded to the placeholder's rows (tfrecord).
  bool varlen = false;
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
