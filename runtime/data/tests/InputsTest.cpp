//===- InputsTest.cpp - Data files bound to placeholders ------------------===//

#include "runtime/data/Inputs.h"
#include "runtime/data/Examples.h"
#include "runtime/data/InputSpec.h"
#include "runtime/data/Npy.h"
#include "runtime/data/Records.h"

#include "runtime/core/VectorWidths.h"
#include "runtime/core/tests/TestUtil.h"

#include "example.pb.h"

#include <gtest/gtest.h>
#include <zip.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <unistd.h>

namespace dtf::data {
namespace {

std::string tempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base ? base : "/tmp") + "/dtf-inputs-XXXXXX";
  return ::mkdtemp(pattern.data());
}

/// The bytes of a version 1.0 .npy file.
std::string npy(const std::string &descr, const std::string &shape,
                const void *data, size_t size) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // NumPy pads the header with spaces so that the data starts aligned.
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(static_cast<const char *>(data), size);
  return bytes;
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void writeNpz(const std::string &path,
              const std::vector<std::pair<std::string, std::string>> &members) {
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(archive, nullptr);
  for (const auto &[name, bytes] : members) {
    zip_source_t *source =
        zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    ASSERT_GE(zip_file_add(archive, (name + ".npy").c_str(), source, 0), 0);
  }
  // zip_close writes the archive, reading the members' buffers.
  ASSERT_EQ(zip_close(archive), 0);
}

tensorflow::Example example(const std::vector<float> &image, int64_t label) {
  tensorflow::Example example;
  auto &features = *example.mutable_features()->mutable_feature();
  for (float value : image)
    features["image"].mutable_float_list()->add_value(value);
  features["label"].mutable_int64_list()->add_value(label);
  std::string raw(image.size(), '\0');
  for (size_t i = 0; i < image.size(); ++i)
    raw[i] = static_cast<char>(image[i]);
  features["image_raw"].mutable_bytes_list()->add_value(raw);
  return example;
}

/// A gzip-compressed TFRecord file of `count` examples: image (i, 2i),
/// label i % 3.
void writeExamples(const std::string &path, int first, int count) {
  std::string bytes;
  for (int i = first; i < first + count; ++i)
    bytes += frameRecord(
        example({float(i), float(2 * i)}, i % 3).SerializeAsString());
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, bytes.data(), bytes.size()), int(bytes.size()));
  gzclose(file);
}

using dtf::testing::errorOf;

const std::map<std::string, ExampleType> kModel = {{"x", {DType::F32, {2}}},
                                                   {"label", {DType::I64, {}}},
                                                   {"y_", {DType::F32, {3}}}};

TEST(InputSpecTest, ParsesFormatPathAndOptions) {
  InputSpec spec = parseInputSpec(
      "image=tfrecord:/data/train-*.gz,feature=image_raw,scale=1/255",
      "--input");
  EXPECT_EQ(spec.placeholder, "image");
  EXPECT_EQ(spec.format, "tfrecord");
  EXPECT_EQ(spec.path, "/data/train-*.gz");
  EXPECT_EQ(spec.member, "image_raw");
  EXPECT_DOUBLE_EQ(*spec.scale, 1.0 / 255);
  EXPECT_EQ(parseInputSpec("label=npz:a.npz", "--input").member, "label");
  EXPECT_EQ(*parseInputSpec("y_=idx:l.gz,onehot=10", "--input").oneHotClasses,
            10);
}

TEST(InputSpecTest, ParsesVarlen) {
  InputSpec spec = parseInputSpec(
      "cat_ids=tfrecord:data/train-*,feature=cat,varlen", "--input");
  EXPECT_TRUE(spec.varlen);
  EXPECT_EQ(spec.member, "cat");
  EXPECT_FALSE(parseInputSpec("label=tfrecord:a", "--input").varlen);
  EXPECT_EQ(errorOf([] { parseInputSpec("c=npy:a.npy,varlen", "--input"); }),
            "--input: input of placeholder 'c': option 'varlen' does not "
            "apply to npy (scale, onehot)");
  EXPECT_EQ(errorOf([] { parseInputSpec("c=tfrecord:a,varlen=5", "--input"); }),
            "--input: input of placeholder 'c': option 'varlen=5': varlen "
            "takes no value");
  EXPECT_EQ(errorOf([] {
              parseInputSpec("c=tfrecord:a,varlen,onehot=3", "--input");
            }),
            "--input: input of placeholder 'c': varlen pads integer ids "
            "with -1; it takes no onehot");
  EXPECT_EQ(errorOf([] { parseInputSpec("c=tfrecord:a,xyz=1", "--input"); }),
            "--input: input of placeholder 'c': option 'xyz' does not apply "
            "to tfrecord (scale, onehot, feature, varlen)");
}

TEST(InputSpecTest, RejectsBadBindingsNamingWhere) {
  EXPECT_EQ(errorOf([] { parseInputSpec("x", "--input"); }),
            "--input: 'x' is not NAME=FORMAT:PATH[,KEY=VALUE...]");
  EXPECT_EQ(errorOf([] { parseInputSpec("x=csv:a.csv", "f.txt:3"); }),
            "f.txt:3: input of placeholder 'x': unknown format 'csv' (idx, "
            "npy, npz or tfrecord)");
  EXPECT_EQ(errorOf([] { parseInputSpec("x=npy:a.npy,key=b", "--input"); }),
            "--input: input of placeholder 'x': option 'key' does not apply "
            "to npy (scale, onehot)");
  EXPECT_NE(errorOf([] {
              parseInputSpec("x=npy:a.npy,scale=1/0", "--input");
            }).find("divides by zero"),
            std::string::npos);
}

TEST(InputSpecTest, ReadsAnInputFileAndNamesItsLines) {
  std::string dir = tempDir();
  writeFile(dir + "/inputs.txt", "# the training data\n"
                                 "input x=npy:x.npy  # images\n"
                                 "\n"
                                 "eval_input x=npy:test.npy\n");
  InputBindings bindings = readInputFile(dir + "/inputs.txt");
  ASSERT_EQ(bindings.train.size(), 1u);
  EXPECT_EQ(bindings.train[0].path, "x.npy");
  EXPECT_EQ(bindings.train[0].origin, dir + "/inputs.txt:2");
  ASSERT_EQ(bindings.eval.size(), 1u);
  writeFile(dir + "/bad.txt", "input x=npy:x.npy\ntrain x=npy:x.npy\n");
  EXPECT_EQ(errorOf([&] { readInputFile(dir + "/bad.txt"); }),
            dir + "/bad.txt:2: 'train x=npy:x.npy' is not 'input NAME=SPEC' "
                  "or 'eval_input NAME=SPEC'");
}

TEST(NpyTest, ReadsHeaderShapeAndData) {
  float values[6] = {1, 2, 3, 4, 5, 6};
  Array array = parseNpy(npy("<f4", "(3, 2)", values, sizeof(values)), "a");
  EXPECT_EQ(array.type, ElementType::F32);
  EXPECT_EQ(array.shape, (Shape{3, 2}));
  ASSERT_EQ(array.bytes.size(), sizeof(values));
  EXPECT_EQ(std::memcmp(array.bytes.data(), values, sizeof(values)), 0);
  int64_t one = 7;
  EXPECT_EQ(parseNpy(npy("<i8", "(1,)", &one, 8), "b").shape, (Shape{1}));
}

TEST(NpyTest, RejectsWhatItCannotRead) {
  float values[2] = {1, 2};
  EXPECT_EQ(errorOf([&] {
              parseNpy(npy(">f4", "(2,)", values, sizeof(values)), "b.npy");
            }),
            "b.npy: NumPy dtype '>f4' is not one DTF reads (little-endian "
            "bool, uint8, int32, int64, float32 or float64)");
  EXPECT_EQ(errorOf([&] {
              parseNpy(npy("<f4", "(3,)", values, sizeof(values)), "c.npy");
            }),
            "c.npy: holds 8 bytes of data where its header, float32 [3], "
            "says 12");
  EXPECT_NE(errorOf([] { parseNpy("not numpy", "d.npy"); }).find("d.npy"),
            std::string::npos);
}

TEST(InputsTest, NpzMembersConvertToThePlaceholders) {
  std::string dir = tempDir();
  uint8_t pixels[6] = {0, 255, 51, 102, 0, 0};
  int64_t labels[3] = {2, 0, 1};
  writeNpz(dir + "/train.npz", {{"images", npy("|u1", "(3, 2)", pixels, 6)},
                                {"labels", npy("<i8", "(3,)", labels, 24)}});
  auto columns = readColumns(
      {parseInputSpec("x=npz:" + dir + "/train.npz,key=images,scale=1/255",
                      "--input"),
       parseInputSpec("label=npz:" + dir + "/train.npz,key=labels", "--input"),
       parseInputSpec("y_=npz:" + dir + "/train.npz,key=labels,onehot=3",
                      "--input")},
      kModel);
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].second.toVector<float>(),
            (std::vector<float>{0, 1, 0.2f, 0.4f, 0, 0}));
  EXPECT_EQ(columns[1].second.toVector<int64_t>(),
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(columns[2].second.toVector<float>(),
            (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(errorOf([&] {
              readColumns(
                  {parseInputSpec("x=npz:" + dir + "/train.npz", "--input")},
                  kModel);
            }),
            dir + "/train.npz: no array 'x' (it holds: images, labels)");
}

TEST(InputsTest, RejectsShapesAndTypesThatDoNotFit) {
  std::string dir = tempDir();
  float floats[3] = {0.5f, 1, 2};
  writeFile(dir + "/f.npy", npy("<f4", "(3,)", floats, sizeof(floats)));
  std::string file = dir + "/f.npy";
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("x=npy:" + file, "--input")}, kModel);
            }),
            "--input: input of placeholder 'x' (f32 [2] per example) from " +
                file + ": holds float32 [] per example (1 elements), not 2");
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("label=npy:" + file, "--input")},
                          kModel);
            }),
            "--input: input of placeholder 'label' (i64 [] per example) "
            "from " +
                file +
                ": holds float32 [] per example; floats do not "
                "convert to an integer placeholder");
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("z=npy:" + file, "--input")}, kModel);
            }),
            "--input: the model has no placeholder 'z'");
}

TEST(InputsTest, TFRecordFeaturesFromGlobbedGzipFiles) {
  std::string dir = tempDir();
  writeExamples(dir + "/train-00000-of-00002.gz", 0, 3);
  writeExamples(dir + "/train-00001-of-00002.gz", 3, 2);
  std::string files = dir + "/train-*";
  auto columns = readColumns(
      {parseInputSpec("x=tfrecord:" + files + ",feature=image", "--input"),
       parseInputSpec("label=tfrecord:" + files, "--input"),
       parseInputSpec("y_=tfrecord:" + files + ",feature=label,onehot=3",
                      "--input")},
      kModel);
  EXPECT_EQ(columns[0].second.shape(), (Shape{5, 2}));
  EXPECT_EQ(columns[0].second.toVector<float>(),
            (std::vector<float>{0, 0, 1, 2, 2, 4, 3, 6, 4, 8}));
  EXPECT_EQ(columns[1].second.toVector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 0, 1}));
  // Raw bytes (bytes_list) as uint8 pixels.
  auto raw = readColumns(
      {parseInputSpec("x=tfrecord:" + files + ",feature=image_raw", "--input")},
      kModel);
  EXPECT_EQ(raw[0].second.toVector<float>(),
            (std::vector<float>{0, 0, 1, 2, 2, 4, 3, 6, 4, 8}));
}

TEST(InputsTest, TFRecordErrorsNameTheFileAndRecord) {
  std::string dir = tempDir();
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("label=tfrecord:" + dir + "/none-*",
                                          "--input")},
                          kModel);
            }),
            dir + "/none-*: no file matches");
  writeExamples(dir + "/a.gz", 0, 2);
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("label=tfrecord:" + dir +
                                              "/a.gz,feature=class",
                                          "--input")},
                          kModel);
            }),
            dir + "/a.gz: record 0: the Example has no feature 'class' (it "
                  "has: image, image_raw, label)");
  // A flipped byte in the second record's data; then the file cut short.
  std::string bytes = frameRecord(example({1, 2}, 1).SerializeAsString()) +
                      frameRecord(example({3, 4}, 2).SerializeAsString());
  std::string corrupt = bytes;
  corrupt[bytes.size() - 6] ^= 1;
  writeFile(dir + "/corrupt.tfrecord", corrupt);
  EXPECT_NE(errorOf([&] {
              readColumns(
                  {parseInputSpec("label=tfrecord:" + dir + "/corrupt.tfrecord",
                                  "--input")},
                  kModel);
            }).find("/corrupt.tfrecord: record 1 at offset "),
            std::string::npos);
  writeFile(dir + "/cut.tfrecord", bytes.substr(0, bytes.size() - 10));
  std::string cut = errorOf([&] {
    readColumns(
        {parseInputSpec("label=tfrecord:" + dir + "/cut.tfrecord", "--input")},
        kModel);
  });
  EXPECT_NE(cut.find("/cut.tfrecord: record 1 at offset"), std::string::npos)
      << cut;
  EXPECT_NE(cut.find("truncated"), std::string::npos) << cut;
}

/// An Example with a label, two dense floats and, unless `ids` is null, an
/// int64_list feature "cat" of `ids`.
tensorflow::Example ragged(const std::vector<int64_t> *ids, int64_t label) {
  tensorflow::Example example;
  auto &features = *example.mutable_features()->mutable_feature();
  features["label"].mutable_int64_list()->add_value(label);
  features["dense"].mutable_float_list()->add_value(0.5f);
  features["dense"].mutable_float_list()->add_value(0.25f);
  if (ids) {
    auto *list = features["cat"].mutable_int64_list();
    for (int64_t id : *ids)
      list->add_value(id);
  }
  return example;
}

/// A plain TFRecord file of one Example per entry of `lists`; an entry of
/// nullopt is an Example without "cat".
void writeRagged(
    const std::string &path,
    const std::vector<std::optional<std::vector<int64_t>>> &lists) {
  std::string bytes;
  for (size_t i = 0; i < lists.size(); ++i)
    bytes += frameRecord(ragged(lists[i] ? &*lists[i] : nullptr, int64_t(i))
                             .SerializeAsString());
  writeFile(path, bytes);
}

const std::map<std::string, ExampleType> kCtrModel = {
    {"cat_ids", {DType::I64, {4}}},
    {"cat32", {DType::I32, {4}}},
    {"dense", {DType::F32, {2}}},
    {"wide", {DType::F32, {4}}},
    {"label", {DType::I64, {}}}};

TEST(InputsTest, VarlenFeatureRowsArePaddedWithMinusOne) {
  std::string dir = tempDir();
  std::string file = dir + "/ctr.tfrecord";
  // Lists of 0, 1, 3 and L = 4 ids, and an Example without the feature.
  writeRagged(file, {std::vector<int64_t>{}, std::vector<int64_t>{7},
                     std::vector<int64_t>{3, 0, 9},
                     std::vector<int64_t>{1, 2, 3, 40000000000}, std::nullopt});
  auto columns = readColumns(
      {parseInputSpec("cat_ids=tfrecord:" + file + ",feature=cat,varlen",
                      "--input"),
       parseInputSpec("label=tfrecord:" + file, "--input"),
       parseInputSpec("dense=tfrecord:" + file, "--input")},
      kCtrModel);
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].second.dtype(), DType::I64);
  EXPECT_EQ(columns[0].second.shape(), (Shape{5, 4}));
  EXPECT_EQ(columns[0].second.toVector<int64_t>(),
            (std::vector<int64_t>{-1, -1, -1, -1,          //
                                  7,  -1, -1, -1,          //
                                  3,  0,  9,  -1,          //
                                  1,  2,  3,  40000000000, //
                                  -1, -1, -1, -1}));
  EXPECT_EQ(columns[1].second.toVector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(columns[2].second.shape(), (Shape{5, 2}));

  // An i32 placeholder takes the same rows, when every id fits.
  writeRagged(dir + "/small.tfrecord",
              {std::vector<int64_t>{5, 6}, std::vector<int64_t>{}});
  auto narrow = readColumns({parseInputSpec("cat32=tfrecord:" + dir +
                                                "/small.tfrecord,feature=cat,"
                                                "varlen",
                                            "--input")},
                            kCtrModel);
  EXPECT_EQ(narrow[0].second.dtype(), DType::I32);
  EXPECT_EQ(narrow[0].second.toVector<int32_t>(),
            (std::vector<int32_t>{5, 6, -1, -1, -1, -1, -1, -1}));
}

TEST(InputsTest, VarlenErrorsNameTheFileRecordAndFeature) {
  std::string dir = tempDir();
  std::string file = dir + "/long.tfrecord";
  writeRagged(file, {std::vector<int64_t>{1, 2}, std::vector<int64_t>{},
                     std::vector<int64_t>{1, 2, 3, 4, 5}});
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("cat_ids=tfrecord:" + file +
                                              ",feature=cat,varlen",
                                          "--input")},
                          kCtrModel);
            }),
            file + ": record 2: varlen feature 'cat' holds 5 values, more "
                   "than the 4 of a row of placeholder 'cat_ids' (i64 [4] "
                   "per example)");
  // Without varlen, lists of different lengths name the option.
  EXPECT_EQ(errorOf([&] {
              readColumns(
                  {parseInputSpec("cat_ids=tfrecord:" + file + ",feature=cat",
                                  "--input")},
                  kCtrModel);
            }),
            file + ": record 1: feature 'cat' is a int64_list of 0 values "
                   "where the first example's is a int64_list of 2 (a "
                   "ragged list of ids: bind it with varlen)");
  // Floats are not ids.
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("cat_ids=tfrecord:" + file +
                                              ",feature=dense,varlen",
                                          "--input")},
                          kCtrModel);
            }),
            file + ": record 0: feature 'dense' is a float_list; varlen reads "
                   "an int64_list of ids");
  // Nor is -1, the padding.
  writeRagged(dir + "/negative.tfrecord", {std::vector<int64_t>{4, -1}});
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("cat_ids=tfrecord:" + dir +
                                              "/negative.tfrecord,feature=cat,"
                                              "varlen",
                                          "--input")},
                          kCtrModel);
            }),
            dir + "/negative.tfrecord: record 0: feature 'cat' has negative "
                  "id -1; ids are at least 0, and -1 pads a row");
  // The placeholder must take rows of ids; that is checked before reading.
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("wide=tfrecord:" + dir +
                                              "/none-*,feature=cat,varlen",
                                          "--input")},
                          kCtrModel);
            }),
            "--input: input of placeholder 'wide' (f32 [4] per example): "
            "varlen feeds rows of ids, an i64 or i32 placeholder of shape "
            "[batch, L]");
  EXPECT_NE(errorOf([&] {
              readColumns({parseInputSpec("label=tfrecord:" + file +
                                              ",feature=cat,varlen",
                                          "--input")},
                          kCtrModel);
            }).find("varlen feeds rows of ids"),
            std::string::npos);
  // A feature that is not varlen must be in every example.
  writeRagged(dir + "/missing.tfrecord",
              {std::vector<int64_t>{1}, std::nullopt});
  EXPECT_EQ(errorOf([&] {
              readColumns({parseInputSpec("label=tfrecord:" + dir +
                                              "/missing.tfrecord,feature=cat",
                                          "--input")},
                          kCtrModel);
            }),
            dir + "/missing.tfrecord: record 1: the Example has no feature "
                  "'cat' (it has: dense, label)");
}

TEST(InputsTest, IdsOutsideTheirTableNameTheFileRecordFeatureAndTable) {
  std::string dir = tempDir();
  std::string file = dir + "/ids.tfrecord";
  writeRagged(file, {std::vector<int64_t>{1, 9}, std::nullopt,
                     std::vector<int64_t>{3, 10}});
  auto read = [&](const std::string &binding,
                  const std::map<std::string, IdTable> &tables) {
    return errorOf([&] {
      readColumns({parseInputSpec(binding, "--input")}, kCtrModel, tables);
    });
  };
  std::string varlen = "cat_ids=tfrecord:" + file + ",feature=cat,varlen";
  // Row 9 is the last of 10; 10 is past it, in the third record.
  EXPECT_EQ(read(varlen, {{"cat_ids", {"cat/embedding", 10}}}),
            file + ": record 2: feature 'cat' has id 10, outside table "
                   "'cat/embedding' of 10 rows");
  EXPECT_EQ(read(varlen, {{"cat_ids", {"cat/embedding", 11}}}), "(no error)");
  // Ids of a table that is not the placeholder's are not checked.
  EXPECT_EQ(read(varlen, {{"cat32", {"cat/embedding", 10}}}), "(no error)");
  // A dynamic table takes any id of at least 0, and no negative one.
  std::string hashed = dir + "/hashed.tfrecord";
  writeRagged(hashed,
              {std::vector<int64_t>{40000000000}, std::vector<int64_t>{7, -5}});
  EXPECT_EQ(read("cat_ids=tfrecord:" + hashed + ",feature=cat,varlen",
                 {{"cat_ids", {"hashed", std::nullopt}}}),
            hashed + ": record 1: feature 'cat' has negative id -5 for table "
                     "'hashed'; ids are at least 0, and -1 pads a row");
  // A feature of one id per example (not varlen) is checked as well.
  EXPECT_EQ(read("label=tfrecord:" + file, {{"label", {"classes", 2}}}),
            file + ": record 2: feature 'label' has id 2, outside table "
                   "'classes' of 2 rows");
  EXPECT_EQ(read("label=tfrecord:" + file, {}), "(no error)");
}

/// Protobuf's wire format written by hand, for what the protobuf API does
/// not write: unpacked and split lists, repeated oneof members and map keys,
/// unknown fields.
std::string wireVarint(uint64_t value) {
  std::string out;
  for (; value >= 0x80; value >>= 7)
    out += static_cast<char>(value | 0x80);
  return out + static_cast<char>(value);
}

std::string wireTag(uint32_t field, uint32_t type) {
  return wireVarint(field << 3 | type);
}

std::string wireField(uint32_t field, const std::string &contents) {
  return wireTag(field, 2) + wireVarint(contents.size()) + contents;
}

/// A field of a random wire type that no message of an Example knows: their
/// fields are numbered 1 to 3.
std::string unknownField(std::mt19937_64 &random) {
  uint32_t field = 4 + random() % 1000;
  switch (random() % 4) {
  case 0:
    return wireTag(field, 0) + wireVarint(random());
  case 1:
    return wireTag(field, 1) + std::string(8, '\xff');
  case 2:
    return wireField(field, "unknown");
  default:
    return wireTag(field, 5) + std::string(4, '\x80');
  }
}

/// A Feature's values: its kind (the number of its oneof member, 0 for
/// none) and list.
struct Values {
  int kind = 0;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> bytes;
};

template <typename T> std::string bytesOf(const T *values, size_t count) {
  return std::string(reinterpret_cast<const char *>(values), count * sizeof(T));
}

/// The kind and values of `values` as one string, each bytes value after
/// its size.
std::string describe(const Values &values) {
  std::string out = std::to_string(values.kind) + ":" +
                    bytesOf(values.floats.data(), values.floats.size()) +
                    bytesOf(values.ints.data(), values.ints.size());
  for (const std::string &value : values.bytes)
    out += std::to_string(value.size()) + ":" + value;
  return out;
}

/// The same of the Feature protobuf parsed.
std::string describe(const tensorflow::Feature &feature) {
  Values values;
  values.kind = feature.kind_case();
  values.floats.assign(feature.float_list().value().begin(),
                       feature.float_list().value().end());
  values.ints.assign(feature.int64_list().value().begin(),
                     feature.int64_list().value().end());
  values.bytes.assign(feature.bytes_list().value().begin(),
                      feature.bytes_list().value().end());
  return describe(values);
}

/// `count` random values of `kind`: floats of any bits (NaNs and
/// denormals too), int64s of every length (negative ones take 10 bytes), or
/// bytes values of up to 6 bytes.
Values randomValues(int kind, size_t count, std::mt19937_64 &random) {
  Values values;
  values.kind = kind;
  for (size_t k = 0; kind != 0 && k < count; ++k) {
    if (kind == 1) {
      values.bytes.emplace_back(random() % 7, '\0');
      for (char &c : values.bytes.back())
        c = static_cast<char>(random());
    } else if (kind == 2) {
      auto bits = static_cast<uint32_t>(random());
      float value;
      std::memcpy(&value, &bits, sizeof(value));
      values.floats.push_back(value);
    } else {
      int64_t value = static_cast<int64_t>(random()) >> (random() % 64);
      values.ints.push_back(value);
    }
  }
  return values;
}

/// The contents of a list message holding values [begin, end) of `values`:
/// packed scalars in one run or several, or unpacked, at random.
std::string wireList(const Values &values, size_t begin, size_t end,
                     std::mt19937_64 &random) {
  bool packed = random() % 2;
  std::string list, run;
  for (size_t k = begin; k < end; ++k) {
    std::string value;
    if (values.kind == 1)
      list += wireField(1, values.bytes[k]);
    else if (values.kind == 2)
      value = bytesOf(&values.floats[k], 1);
    else
      value = wireVarint(static_cast<uint64_t>(values.ints[k]));
    if (values.kind != 1 && packed)
      run += value;
    else if (values.kind != 1)
      list += wireTag(1, values.kind == 2 ? 5 : 0) + value;
    if (random() % 8 == 0) {
      if (!run.empty())
        list += wireField(1, run);
      run.clear();
      list += unknownField(random);
    }
  }
  return run.empty() ? list : list + wireField(1, run);
}

/// A Feature holding `values`: its list once or split over its member
/// twice (protobuf merges them), perhaps after a member of another kind
/// (which it replaces), with unknown fields.
std::string wireFeature(const Values &values, std::mt19937_64 &random) {
  std::string feature;
  if (random() % 4 == 0)
    feature += unknownField(random);
  if (values.kind == 0)
    return feature;
  if (random() % 5 == 0) {
    size_t count = random() % 3;
    int other = values.kind % 3 + 1;
    feature += wireField(
        other, wireList(randomValues(other, count, random), 0, count, random));
  }
  size_t count =
      values.floats.size() + values.ints.size() + values.bytes.size();
  size_t split = random() % 4 == 0 ? random() % (count + 1) : count;
  feature += wireField(values.kind, wireList(values, 0, split, random));
  if (split < count)
    feature += wireField(values.kind, wireList(values, split, count, random));
  return feature;
}

/// A field of Features: an entry of the map, key and value in either
/// order.
std::string wireEntry(const std::string &key, const Values &values,
                      std::mt19937_64 &random) {
  std::string name = wireField(1, key);
  // A Feature of no kind may be left out, the default.
  std::string value = values.kind == 0 && random() % 2
                          ? ""
                          : wireField(2, wireFeature(values, random));
  std::string entry = random() % 2 ? name + value : value + name;
  if (random() % 8 == 0)
    entry += unknownField(random);
  return wireField(1, entry);
}

/// A random serialized Example of "f" (3 floats), "i" (2 int64s), "b" (one
/// value of 5 bytes), "v" (0 to 4 ids, or none, or no feature) and some
/// features of other names; `features` gets them. A third are written by
/// the protobuf API; the rest by hand, in shapes that protobuf reads alike:
/// the features split over two Features, keys that come again (the last
/// entry counts), unknown fields at every level.
std::string randomExample(std::mt19937_64 &random,
                          std::map<std::string, Values> &features) {
  features.clear();
  features["f"] = randomValues(2, 3, random);
  features["i"] = randomValues(3, 2, random);
  features["b"] = randomValues(1, 1, random);
  features["b"].bytes[0].resize(5, 'b');
  if (random() % 4 != 0) {
    int kind = random() % 8 == 0 ? 0 : 3;
    features["v"] = randomValues(kind, random() % 5, random);
    for (int64_t &id : features["v"].ints)
      id &= std::numeric_limits<int64_t>::max();
  }
  for (int k = random() % 4; k > 0; --k) {
    std::string name = "x" + std::to_string(random() % 10);
    int kind = random() % 4;
    features[name] = randomValues(kind, random() % 5, random);
  }
  if (random() % 3 == 0) {
    tensorflow::Example example;
    auto &map = *example.mutable_features()->mutable_feature();
    for (const auto &[name, values] : features) {
      tensorflow::Feature &feature = map[name];
      if (values.kind == 1)
        *feature.mutable_bytes_list()->mutable_value() = {values.bytes.begin(),
                                                          values.bytes.end()};
      else if (values.kind == 2)
        *feature.mutable_float_list()->mutable_value() = {values.floats.begin(),
                                                          values.floats.end()};
      else if (values.kind == 3)
        *feature.mutable_int64_list()->mutable_value() = {values.ints.begin(),
                                                          values.ints.end()};
    }
    return example.SerializeAsString();
  }
  std::vector<std::string> names;
  for (const auto &entry : features)
    names.push_back(entry.first);
  std::shuffle(names.begin(), names.end(), random);
  std::vector<std::string> entries;
  for (const std::string &name : names) {
    // An earlier entry of the same key, which the last replaces.
    if (random() % 4 == 0) {
      size_t at = random() % (entries.size() + 1);
      Values replaced = randomValues(random() % 4, 2, random);
      entries.insert(entries.begin() + at, wireEntry(name, replaced, random));
    }
    entries.push_back(wireEntry(name, features[name], random));
  }
  size_t split = random() % 3 == 0 ? random() % (entries.size() + 1) : 0;
  std::string first, second;
  for (size_t k = 0; k < entries.size(); ++k) {
    (k < split ? first : second) += entries[k];
    if (random() % 10 == 0)
      (k < split ? first : second) += unknownField(random);
  }
  std::string example = split > 0 ? wireField(1, first) : "";
  if (random() % 4 == 0)
    example += unknownField(random);
  return example + wireField(1, second);
}

TEST(ExampleParserTest, WireScanMatchesProtobufOnRandomExamples) {
  std::mt19937_64 random(20240611);
  ExampleParser parser({{"f", false, 0, "", std::nullopt, std::nullopt},
                        {"i", false, 0, "", std::nullopt, std::nullopt},
                        {"b", false, 0, "", std::nullopt, std::nullopt},
                        {"v", true, 4, "", std::nullopt, std::nullopt},
                        {"f", false, 0, "", std::nullopt, std::nullopt}});
  std::string floats, ints, bytes, ids;
  const int kExamples = 3000;
  std::map<std::string, Values> features;
  for (int n = 0; n < kExamples; ++n) {
    std::string record = randomExample(random, features);
    // The generator writes what protobuf reads.
    tensorflow::Example example;
    ASSERT_TRUE(example.ParseFromString(record)) << n;
    const auto &map = example.features().feature();
    ASSERT_EQ(map.size(), features.size()) << n;
    for (const auto &[name, values] : features) {
      ASSERT_EQ(map.count(name), 1u) << n << " " << name;
      ASSERT_EQ(describe(map.at(name)), describe(values)) << n << " " << name;
    }
    parser.add(record, "random.tfrecord", n);
    floats += bytesOf(features["f"].floats.data(), 3);
    ints += bytesOf(features["i"].ints.data(), 2);
    bytes += features["b"].bytes[0];
    std::vector<int64_t> row = features["v"].ints;
    row.resize(4, kVarLenPadding);
    ids += bytesOf(row.data(), 4);
  }
  std::vector<Array> arrays = parser.take("random examples");
  ASSERT_EQ(arrays.size(), 5u);
  std::vector<std::pair<ElementType, std::string>> expected = {
      {ElementType::F32, floats},
      {ElementType::I64, ints},
      {ElementType::U8, bytes},
      {ElementType::I64, ids},
      {ElementType::F32, floats}};
  std::vector<int64_t> rows = {3, 2, 5, 4, 3};
  for (size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ(arrays[i].type, expected[i].first) << i;
    EXPECT_EQ(arrays[i].shape, (Shape{kExamples, rows[i]})) << i;
    EXPECT_TRUE(std::string(arrays[i].bytes.begin(), arrays[i].bytes.end()) ==
                expected[i].second)
        << i;
  }
}

/// What a new parser of "f", "i" and "b" makes of `record`: the error, or
/// the type and bytes of each row.
std::string parseNew(const std::string &record) {
  ExampleParser parser({{"f", false, 0, "", std::nullopt, std::nullopt},
                        {"i", false, 0, "", std::nullopt, std::nullopt},
                        {"b", false, 0, "", std::nullopt, std::nullopt}});
  std::string error = errorOf([&] { parser.add(record, "r", 0); });
  if (error != "(no error)")
    return error;
  std::string rows;
  for (const Array &array : parser.take("r"))
    rows += std::string(elementTypeName(array.type)) + ":" +
            std::string(array.bytes.begin(), array.bytes.end()) + ";";
  return rows;
}

/// The same, worked out from what protobuf parses.
std::string parseReference(const std::string &record) {
  tensorflow::Example example;
  if (!example.ParseFromString(record))
    return "r: record 0: not a tf.train.Example";
  const auto &map = example.features().feature();
  std::string rows;
  for (std::string name : {"f", "i", "b"}) {
    auto it = map.find(name);
    if (it == map.end()) {
      std::set<std::string> names;
      for (const auto &entry : map)
        names.insert(entry.first);
      std::string list;
      for (const std::string &present : names)
        list += (list.empty() ? "" : ", ") + present;
      // what() ends at a key's NUL.
      return ("r: record 0: the Example has no feature '" + name +
              "' (it has: " + (list.empty() ? "none" : list) + ")")
          .c_str();
    }
    const tensorflow::Feature &feature = it->second;
    if (feature.has_float_list())
      rows += "float32:" +
              bytesOf(feature.float_list().value().data(),
                      feature.float_list().value_size()) +
              ";";
    else if (feature.has_int64_list())
      rows += "int64:" +
              bytesOf(feature.int64_list().value().data(),
                      feature.int64_list().value_size()) +
              ";";
    else if (feature.bytes_list().value_size() == 1)
      rows += "uint8:" + feature.bytes_list().value(0) + ";";
    else if (feature.has_bytes_list())
      return "r: record 0: feature '" + name + "' is a bytes_list of " +
             std::to_string(feature.bytes_list().value_size()) +
             " values; DTF reads one value of raw bytes per example";
    else
      return "r: record 0: feature '" + name + "' holds no values";
  }
  return rows;
}

TEST(ExampleParserTest, BrokenRecordsFailAsProtobufSays) {
  std::mt19937_64 random(5);
  std::vector<std::string> records;
  std::map<std::string, Values> features;
  for (int n = 0; n < 40; ++n) {
    std::string record = randomExample(random, features);
    records.push_back(record);
    for (size_t size = 0; size < record.size(); ++size)
      records.push_back(record.substr(0, size));
    for (int k = 0; k < 50; ++k) {
      std::string flipped = record;
      flipped[random() % record.size()] ^= static_cast<char>(1 << random() % 8);
      records.push_back(flipped);
    }
  }
  // Each feature holds a value of f's list: its last varint long, an
  // unknown group, field number 0, a float cut short, a varint cut short.
  std::string entries =
      wireField(1, wireField(1, "i") + wireField(2, wireField(3, "\x01"))) +
      wireField(1, wireField(1, "b") + wireField(2, wireField(1, "ab")));
  for (std::string list :
       {wireField(1, std::string(9, '\xff') + '\x01'),
        wireField(1, std::string(9, '\xff') + '\x02'),
        wireField(1, std::string(10, '\xff') + '\x01'), wireTag(7, 3),
        wireTag(7, 3) + wireTag(7, 4), wireTag(0, 0) + '\x01',
        wireField(1, "abcde"), wireTag(1, 5) + "abc", wireField(1, "\x01\x80")})
    records.push_back(wireField(
        1, entries + wireField(1, wireField(1, "f") +
                                      wireField(2, wireField(3, list)))));
  for (int n = 0; n < 500; ++n) {
    std::string garbage(random() % 40, '\0');
    for (char &c : garbage)
      c = static_cast<char>(random());
    records.push_back(garbage);
  }
  std::vector<std::pair<std::string, std::string>> outcomes;
  {
    // Protobuf logs every key it refuses for not being UTF-8.
    int log = ::dup(2);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    for (const std::string &record : records)
      outcomes.emplace_back(parseNew(record), parseReference(record));
    ::dup2(log, 2);
    ::close(null);
    ::close(log);
  }
  int failures = 0;
  for (size_t n = 0; n < records.size(); ++n) {
    EXPECT_EQ(outcomes[n].first, outcomes[n].second) << n;
    failures +=
        outcomes[n].second.find("not a tf.train.Example") != std::string::npos;
  }
  // Most of them are broken, some not.
  EXPECT_GT(failures, int(records.size()) / 2);
  EXPECT_LT(failures, int(records.size()));
}

TEST(PixelScaleTest, GivesWhatMultiplyingEachPixelInDoubleGives) {
  std::vector<uint8_t> pixels(256);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<uint8_t>(255 - i);
  // 1/255 as --input's scale=1/255 makes it (and 1/3, 1/-400, 1.0: divided
  // by N in float), and 0.3, whose float quotients round differently from
  // its double products (looked up). A row of 255 leaves a vector loop's
  // tail.
  for (double scale : {1.0 / 255, 1.0 / 3, 0.3, -2.5e-3, 1.0}) {
    for (size_t first : {0, 1}) {
      SCOPED_TRACE(::testing::Message()
                   << "scale " << scale << ", pixels " << first << "..255");
      size_t count = pixels.size() - first;
      std::vector<float> floats(count);
      std::vector<double> doubles(count);
      PixelScale(scale, DType::F32)(&pixels[first], count, floats.data());
      PixelScale(scale, DType::F64)(&pixels[first], count, doubles.data());
      for (size_t i = 0; i < count; ++i) {
        uint8_t pixel = pixels[first + i];
        double product = static_cast<double>(pixel) * scale;
        EXPECT_EQ(doubles[i], product) << "pixel " << int(pixel);
        EXPECT_EQ(floats[i], static_cast<float>(product))
            << "pixel " << int(pixel);
      }
    }
  }
  EXPECT_THROW(PixelScale(1.0, DType::I64), std::invalid_argument);
}

TEST(PixelScaleTest,
     DividesWhereTheQuotientsAreTheProductsAndLooksUpElsewhere) {
  // The test above checks the values; this one that the fast ways are the
  // ones taken, where they give those values.
  const char *division = hasFmaLevel() ? "reciprocal" : "division";
  for (double scale : {1.0 / 255, 1.0 / 3, -2.5e-3, 1.0})
    EXPECT_STREQ(PixelScale(scale, DType::F32).way(), division) << scale;
  EXPECT_STREQ(PixelScale(0.3, DType::F32).way(), "table");
  EXPECT_STREQ(PixelScale(1.0 / 255, DType::F64).way(), "multiply");
}

} // namespace
} // namespace dtf::data
