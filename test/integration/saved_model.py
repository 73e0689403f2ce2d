"""A model DTF trained, exported for serving (dtf-run --export_saved_model)
and checked against DTF's own inference (dtf-run --predict), in TensorFlow
where the bench venv has it (issue 34's acceptance: the same outputs on
1,000 test examples within 1e-5).

Each case trains briefly on a local cluster with --logdir, exports the
newest checkpoint as a SavedModel, and predicts the logits of the first
1,000 Fashion-MNIST test images with `dtf-run --predict`; the predictions
must be finite and mostly right (accuracy at least 0.5). Then, where the
bench venv's TensorFlow is, tf.saved_model.load's serving_default signature
must give the same logits for the same images within 1e-5 (relative to
max(1, |logit|)); without TensorFlow that part is skipped, saying so, and
the DTF side still passes or fails.

- mlp: examples/mnist_mlp.mlir (static batch of 100: the signature takes
  batches of 100), 1 PS task, DTF checkpoints.
- mlp-layers: examples/tf/mlp_layers.pbtxt imported (dynamic batch; dropout
  behind a `training` flag, which inference switches off), 2 PS tasks,
  checkpoints in TensorFlow's format.
- cnn: examples/tf/mnist_cnn.pbtxt imported (conv2d, max_pool, reshape).
- lstm: examples/tf/lstm_rows.pbtxt imported (static_rnn over the rows:
  slices, concats, the zero state broadcast to the batch, whose size the
  SavedModel reads from its input), 2 PS tasks, 30 sync steps: accuracy at
  least 0.3 (about 0.5 then).
- ctr: not Fashion-MNIST but a small click-through-rate data set of
  examples/ctr/make_ctr_data.py (2,000 ids over 8 multi-hot features, 3
  crosses of 1,000 buckets) and its Wide & Deep model of
  examples/ctr/make_wide_deep.py (embedding_lookup and embedding_combine
  sum and sqrtn, padding ids -1), every table split by id modulo over 2 PS
  tasks: 200 steps, then the logits of the 1,000 test examples, each
  feature an .npy of its padded ids, must have an AUC of at least 0.6
  (about 0.68 then; the hidden model's is about 0.8), the AUC the worker's
  final validation of the same examples reported.
- ctr-dynamic: as ctr, but the wide part's tables are dynamic tables
  (make_wide_deep.py --dynamic_wide=2: a row for each id met twice) split
  by id modulo over the 2 PS tasks, on data whose crosses are raw 63-bit
  hashes (make_ctr_data.py --cross_buckets=0). The export and the
  prediction make each table a fixed one of its rows sorted by id and a
  default row for the ids it never created (zeros: what training reads for
  them); the test counts, from the checkpoint, the test examples' ids the
  tables lack (some must be, so that the default row is read), and checks
  the predictions' AUC against the worker's final validation as ctr does.
  The job is then restarted with --checkpoint_format=tf, which saves the
  same step as a bundle; with the DTF file gone, the export and the
  prediction read the bundle, and the predictions must be the same, bit
  for bit.
"""

import argparse
import array
import ast
import gzip
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import checkpoints
import cluster
import events

EXAMPLES = 1000
IMAGES = os.path.join(cluster.DATA, "t10k-images-idx3-ubyte.gz")
LABELS = os.path.join(cluster.DATA, "t10k-labels-idx1-ubyte.gz")


def write_npy(path, descr, shape, data):
    """A version 1.0 .npy file of raw `data`."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def read_npy_f32(path):
    """(shape, values) of a little-endian float32 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    cluster.check(data[:8] == b"\x93NUMPY\x01\x00", "%s is not a version 1.0 .npy file" % path)
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode())
    cluster.check(header["descr"] == "<f4", "%s holds %s, not float32" % (path, header["descr"]))
    values = array.array("f")
    values.frombytes(data[10 + length:])
    return header["shape"], values


def read_examples(path, dense, slots):
    """{feature: [values of each example]} of the TFRecord file of
    make_ctr_data.py's tf.train.Example records: `dense` floats of
    "dense", each int64 feature's ids padded with -1 to `slots[name]`."""
    columns = {"label": [], "dense": []}
    columns.update((name, []) for name in slots)
    for record in events.read_records(path):
        example = {}
        for _, _, features in events.fields(record):  # Example.features
            for _, _, entry in events.fields(features):  # Features.feature
                entry = dict((number, value) for number, _, value in events.fields(entry))
                name = entry[1].decode()
                kind, values = next((number, value) for number, _, value
                                    in events.fields(entry[2]))
                (_, _, packed), = events.fields(values)
                if kind == 2:  # float_list
                    example[name] = list(struct.unpack("<%df" % (len(packed) // 4), packed))
                else:  # int64_list, packed varints
                    ids, pos = [], 0
                    while pos < len(packed):
                        value, pos = events._varint(packed, pos)
                        ids.append(value)
                    example[name] = ids
        cluster.check(len(example["dense"]) == dense, "an example's dense has %d values"
                      % len(example["dense"]))
        columns["label"].append(example["label"][0])
        columns["dense"].append(example["dense"])
        for name, length in slots.items():
            columns[name].append(example[name] + [-1] * (length - len(example[name])))
    return columns


def auc(scores, labels):
    """The area under the ROC curve of `scores` against 0/1 labels."""
    order = sorted(range(len(labels)), key=scores.__getitem__)
    positives = sum(labels)
    negatives = len(labels) - positives
    rank_sum = sum(rank for rank, i in enumerate(order, 1) if labels[i])
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def run(argv, what):
    print("running: " + " ".join(argv))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    cluster.check(result.returncode == 0, "%s failed (exit %d):\n%s\n%s"
                  % (what, result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    return result


def export(args, logdir, model):
    """dtf-run --export_saved_model of the newest checkpoint of `logdir`;
    returns the SavedModel's directory."""
    saved_model = os.path.join(args.work, "saved_model")
    exported = run([args.dtf_run, "--export_saved_model=" + saved_model, "--logdir=" + logdir,
                    model], "the export")
    print(exported.stdout.strip())
    cluster.check(os.path.isfile(os.path.join(saved_model, "saved_model.pb")),
                  "no saved_model.pb in " + saved_model)
    return saved_model


def model_of(args, case):
    if case == "mlp":
        return os.path.join(cluster.ROOT, "examples", "mnist_mlp.mlir"), "x", []
    name = {"mlp-layers": "mlp_layers", "cnn": "mnist_cnn", "lstm": "lstm_rows"}[case]
    model = os.path.join(args.work, name + ".mlir")
    run([args.dtf_translate, "--import-graphdef",
         os.path.join(cluster.ROOT, "examples", "tf", name + ".pbtxt"), "--outputs=accuracy",
         "-o", model], "the import")
    labels = "labels" if case == "cnn" else "y"
    data = []
    for flag, split in (("--input", "train"), ("--eval_input", "t10k")):
        data += ["%s=x=idx:%s/%s-images-idx3-ubyte.gz,scale=1/255" % (flag, cluster.DATA, split),
                 "%s=%s=idx:%s/%s-labels-idx1-ubyte.gz" % (flag, labels, cluster.DATA, split)]
    return model, "x", data


def check_case(args, case):
    model, input_name, data = model_of(args, case)
    logdir = os.path.join(args.work, "logdir")
    flags = {"mlp": ["--ps=1", "--train_steps=200"],
             "mlp-layers": ["--ps=2", "--train_steps=200", "--batch_size=100",
                            "--checkpoint_format=tf"],
             "cnn": ["--ps=1", "--train_steps=100", "--batch_size=50", "--sync"],
             "lstm": ["--ps=2", "--train_steps=30", "--batch_size=100", "--sync"]}[case]
    run([args.dtf_run, "--local", "--workers=2", "--progress=false", "--logdir=" + logdir]
        + flags + data + [model], "training")

    saved_model = export(args, logdir, model)

    with gzip.open(IMAGES) as f:
        pixels = f.read()[16:16 + EXAMPLES * 784]
    with gzip.open(LABELS) as f:
        labels = f.read()[8:8 + EXAMPLES]
    images = os.path.join(args.work, "images.npy")
    write_npy(images, "|u1", (EXAMPLES, 28, 28), pixels)
    predictions = os.path.join(args.work, "logits.npy")
    binding = "--predict=%s=npy:%s,scale=1/255" % (input_name, images)
    run([args.dtf_run, binding, "--predict_output=" + predictions, "--logdir=" + logdir, model],
        "the prediction")
    shape, logits = read_npy_f32(predictions)
    cluster.check(shape == (EXAMPLES, 10), "the predictions have shape %s" % (shape,))
    cluster.check(all(math.isfinite(v) for v in logits), "a prediction is not finite")
    right = sum(1 for i in range(EXAMPLES)
                if max(range(10), key=lambda k: logits[10 * i + k]) == labels[i])
    print("%s: DTF's predictions of %d test images: accuracy %.3f"
          % (case, EXAMPLES, right / EXAMPLES))
    least = 0.3 if case == "lstm" else 0.5
    cluster.check(right >= least * EXAMPLES,
                  "accuracy %.3f is below %.1f" % (right / EXAMPLES, least))

    if case == "mlp":
        # The labels are an input of no output the export needs; an output
        # that needs them does, and says so.
        unbound = subprocess.run([args.dtf_run, binding, "--outputs=result:1",
                                  "--predict_output=" + predictions, "--logdir=" + logdir,
                                  model], capture_output=True, text=True, timeout=600)
        cluster.check(unbound.returncode == 1 and "placeholder 'y_'" in unbound.stderr,
                      "no error naming the unbound labels:\n" + unbound.stderr[-2000:])

    compare_with_tensorflow(args, case, saved_model, predictions, {input_name: images})


def compare_with_tensorflow(args, case, saved_model, predictions, inputs):
    """TensorFlow's serving_default logits of `inputs` ({signature input:
    .npy file}, uint8 images scaled by 1/255 as the bindings scale them)
    against DTF's `predictions`, within 1e-5; skipped, saying so, without
    TensorFlow."""
    python = args.tf_python
    probe = subprocess.run([python, "-c", "import tensorflow"], capture_output=True) \
        if python and os.path.exists(python) else None
    if not probe or probe.returncode != 0:
        print("SKIP (TensorFlow's side only): TensorFlow is not installed in %s "
              "(bash bench/setup_venv.sh installs it)" % (python or "a venv"))
        return
    compared = subprocess.run(
        ["nice", "-n", "10", python, os.path.join(os.path.dirname(__file__), "saved_model_tf.py"),
         saved_model, predictions, "logits"]
        + ["%s=%s" % (name, path) for name, path in sorted(inputs.items())],
        capture_output=True, text=True, timeout=600)
    cluster.check(compared.returncode == 0,
                  "TensorFlow did not run the SavedModel:\n" + compared.stderr[-3000:])
    line = [l for l in compared.stdout.splitlines() if l.startswith("max_difference")]
    cluster.check(line, "TensorFlow printed no difference:\n" + compared.stdout[-3000:])
    absolute, relative = (float(v) for v in line[-1].split()[1:])
    print("%s: TensorFlow's serving_default against dtf-run --predict on %d examples: "
          "largest difference %.3g (%.3g relative to max(1, |logit|))"
          % (case, EXAMPLES, absolute, relative))
    cluster.check(relative <= 1e-5, "TensorFlow's logits differ from DTF's by %.3g" % relative)


def check_ctr(args, dynamic):
    """The case ctr, or with `dynamic` ctr-dynamic."""
    case = "ctr-dynamic" if dynamic else "ctr"
    data = os.path.join(args.work, "data")
    ctr = os.path.join(cluster.ROOT, "examples", "ctr")
    run([sys.executable, os.path.join(ctr, "make_ctr_data.py"), "--out", data,
         "--train_shards", "1", "--examples_per_shard", "5000", "--test_examples", str(EXAMPLES),
         "--total_rows", "2000", "--cross_buckets", "0" if dynamic else "1000", "--jobs", "1"],
        "the data")
    model = os.path.join(args.work, "wide_deep.mlir")
    generated = run([sys.executable, os.path.join(ctr, "make_wide_deep.py"),
                     "--meta", os.path.join(data, "meta.json"), "--batch", "100", "--dim", "8",
                     "--hidden", "16", "--shards", "2", "--strategy", "mod"]
                    + (["--dynamic_wide", "2"] if dynamic else []), "the model")
    with open(model, "w") as f:
        f.write(generated.stdout)
    logdir = os.path.join(args.work, "logdir")
    training = [args.dtf_run, "--local", "--ps=2", "--workers=1", "--progress=false",
                "--logdir=" + logdir, "--train_steps=200", "--batch_size=100",
                "--input_file=" + os.path.join(data, "inputs.txt"), model]
    trained = run(training, "training")
    validated = cluster.AUC.findall(trained.stdout + trained.stderr)
    cluster.check(validated, "the training reported no validation AUC")

    saved_model = export(args, logdir, model)

    with open(os.path.join(data, "meta.json")) as f:
        features = json.load(f)["features"]
    slots = {feature["name"]: feature["max_ids"]
             for feature in features["categorical"] + features["crosses"]}
    columns = read_examples(os.path.join(data, "test-00000-of-00001.tfrecord"),
                            features["dense"]["values"], slots)
    cluster.check(len(columns["label"]) == EXAMPLES, "the test split holds %d examples"
                  % len(columns["label"]))
    inputs = {}
    for name, rows in columns.items():
        if name == "label":
            continue
        path = os.path.join(args.work, name + ".npy")
        flat = [value for row in rows for value in row]
        if name == "dense":
            write_npy(path, "<f4", (EXAMPLES, len(rows[0])), struct.pack("<%df" % len(flat), *flat))
        else:
            write_npy(path, "<i8", (EXAMPLES, len(rows[0])), struct.pack("<%dq" % len(flat), *flat))
        inputs[name] = path
    predictions = os.path.join(args.work, "logits.npy")
    predict = [args.dtf_run, "--predict_output=" + predictions, "--logdir=" + logdir] \
        + ["--predict=%s=npy:%s" % item for item in sorted(inputs.items())] + [model]
    run(predict, "the prediction")
    if dynamic:
        count_absent_ids(os.path.join(logdir, "model.ckpt-200.dtf"), columns)
    shape, logits = read_npy_f32(predictions)
    cluster.check(shape == (EXAMPLES, 1), "the predictions have shape %s" % (shape,))
    cluster.check(all(math.isfinite(v) for v in logits), "a prediction is not finite")
    area = auc(list(logits), columns["label"])
    print("%s: DTF's predictions of %d test examples: AUC %.3f"
          % (case, EXAMPLES, area))
    cluster.check(area >= 0.6, "AUC %.3f is below 0.6" % area)
    # The worker validated the final step on the same examples with the
    # tables' shards on the PS tasks; the prediction joins them into whole
    # tables, which a wrong order of the interleaved rows would show.
    final = float(validated[-1][0])
    cluster.check(abs(area - final) <= 0.005, "the predictions' AUC %.4f is not the final "
                  "validation's %.4f: are the shards joined right?" % (area, final))
    compare_with_tensorflow(args, case, saved_model, predictions, inputs)
    if not dynamic:
        return

    # The same step as a TensorFlow bundle: the restarted job has nothing
    # to train and saves the step it restored.
    again = run(training + ["--checkpoint_format=tf"], "the restart saving a bundle")
    cluster.check("saved checkpoint %s/model.ckpt-200 " % logdir in again.stdout,
                  "no bundle of step 200:\n" + again.stdout[-3000:])
    os.remove(os.path.join(logdir, "model.ckpt-200.dtf"))
    with open(predictions, "rb") as f:
        from_dtf = f.read()
    export(args, logdir, model)
    run(predict, "the prediction from the bundle")
    with open(predictions, "rb") as f:
        cluster.check(f.read() == from_dtf, "the predictions from the bundle differ from "
                      "those from the DTF checkpoint of the same step")
    print("%s: the bundle of step 200 exports, and predicts as the DTF checkpoint" % case)


def count_absent_ids(checkpoint, columns):
    """Counts the test examples' ids (not padding) that the dynamic tables
    of `checkpoint` never created, by feature, and checks there are some:
    they read the default row."""
    _, saved = checkpoints.read(checkpoint)
    shards = {}  # feature: {K: local ids of shard K}
    for name, (_, ids) in saved.items():
        if name.endswith("/ids"):
            table, _, shard = name[:-len("/ids")].rpartition("/part_")
            shards.setdefault(table[:-len("/weights")], {})[int(shard)] = ids
    cluster.check(shards, "%s holds no dynamic table" % checkpoint)
    counts = {}
    for feature, parts in sorted(shards.items()):
        # Shard K of N holds the ids N * local + K.
        created = set(len(parts) * local + shard
                      for shard, ids in parts.items() for local in ids)
        ids = [value for row in columns[feature] for value in row if value != -1]
        counts[feature] = (sum(1 for value in ids if value not in created), len(ids))
    absent = sum(absent for absent, _ in counts.values())
    print("ctr-dynamic: %d of the %d ids of the test examples are not in the dynamic tables "
          "(%s): they read the default row"
          % (absent, sum(total for _, total in counts.values()),
             ", ".join("%s %d of %d" % (feature, absent, total)
                       for feature, (absent, total) in sorted(counts.items()))))
    cluster.check(absent > 0, "every id of the test examples is in the dynamic tables: "
                  "the default row is never read")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--dtf-translate", required=True)
    parser.add_argument("--tf-python", default="")
    parser.add_argument("--case", required=True,
                        choices=["mlp", "mlp-layers", "cnn", "lstm", "ctr", "ctr-dynamic"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        args.work = work
        if args.case in ("ctr", "ctr-dynamic"):
            cluster.run_test(lambda: check_ctr(args, args.case == "ctr-dynamic"))
        else:
            cluster.run_test(lambda: check_case(args, args.case))


if __name__ == "__main__":
    main()
