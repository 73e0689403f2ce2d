//===- InputsTest.cpp - Data files bound to placeholders ------------------===//

#include "runtime/data/Inputs.h"
#include "runtime/data/Examples.h"
#include "runtime/data/InputSpec.h"
#include "runtime/data/Npy.h"
#include "runtime/data/Records.h"

#include "runtime/core/tests/TestUtil.h"

#include "example.pb.h"

#include <gtest/gtest.h>
#include <zip.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
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

} // namespace
} // namespace dtf::data
