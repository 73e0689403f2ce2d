"""Malformed inputs to dtf-run: each must give a one-line error naming what
is wrong, and a non-zero exit, quickly (no hang). Models that do not compile
are reported once by `--local`, before any task starts."""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import cluster

sys.path.insert(0, os.path.join(cluster.ROOT, "examples"))
from tfrecord_writer import example, int64_feature, write_records  # noqa: E402


def run(argv, env=None):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=60, env=env)
    return result.returncode, result.stdout.strip()


def expect_error(name, argv, expected, env=None):
    """One line with `expected`, a non-zero exit, within 30 s."""
    start = time.time()
    code, output = run(argv, env)
    elapsed = time.time() - start
    lines = output.splitlines()
    print("%s: exit %d after %.1f s: %s" % (name, code, elapsed, output))
    cluster.check(code != 0, "%s: exit status 0" % name)
    cluster.check(elapsed < 30, "%s: took %.1f s" % (name, elapsed))
    cluster.check(len(lines) == 1 and expected in lines[0],
                  "%s: expected one line with %r, got %r" % (name, expected, output))


def mlp_variant(directory, name, edit):
    """examples/mnist_mlp.mlir changed by `edit` (text -> text), as a file."""
    with open(cluster.MLP) as f:
        text = f.read()
    changed = edit(text)
    cluster.check(changed != text, "%s: the edit changed nothing" % name)
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(changed)
    return path


def without_global_step(text):
    text = re.sub(r"\n *%global_step = dtf.variable[^\n]*\n[^\n]*\n", "\n", text)
    return text.replace("\n        global_step %global_step : !dtf.resource<tensor<i64>>", "")


def model_errors(dtf, directory):
    """Models that parse but cannot be trained, under --local and alone."""
    local = [dtf, "--local", "--ps=1", "--workers=2", "--progress=false"]
    # A pass fails: MLIR's error with its location, not the function it is
    # about ("see current operation:" would print pages of IR).
    with_arguments = mlp_variant(
        directory, "arguments.mlir",
        lambda text: text.replace("func.func @main() ->", "func.func @main(%lr: tensor<f32>) ->"))
    expect_error("--local: a pass rejects the model", local + [with_arguments],
                 "arguments.mlir:14:3: error: 'func.func' op takes arguments")

    # Without a global step, --train_steps would never be reached: refused.
    no_step = mlp_variant(directory, "no_global_step.mlir", without_global_step)
    for mode in ["--async", "--sync"]:
        expect_error("--local %s: no global step" % mode,
                     local + [mode, "--train_steps=100", no_step],
                     "no_global_step.mlir:50:5: error: 'dtf.minimize' has no global_step")
    expect_error("a task: no global step",
                 [dtf, "--ps_hosts=localhost:%d" % cluster.free_ports(1)[0],
                  "--worker_hosts=localhost:%d" % cluster.free_ports(1)[0],
                  "--job_name=worker", no_step],
                 "no_global_step.mlir:50:5: error: 'dtf.minimize' has no global_step")

    # A variable that no PS task can hold (4 TB): the PS task says which,
    # with its bytes, before allocating anything, and the cluster stops.
    huge = mlp_variant(
        directory, "huge_variable.mlir",
        lambda text: text.replace(
            "    %sm_b = dtf.variable",
            "    %huge = dtf.variable \"huge\" init(#dtf.zeros)"
            " : !dtf.resource<tensor<1000000x1000000xf32>>\n    %sm_b = dtf.variable"))
    code, output = run(local + ["--rpc_deadline_ms=2000", huge])
    print("--local: a variable too large: exit %d:\n%s" % (code, output))
    cluster.check(code != 0, "a variable too large: exit status 0")
    lines = [line for line in output.splitlines() if "huge" in line]
    cluster.check(len(lines) == 1 and lines[0].startswith("[ps0] dtf-run: PS task /job:ps/task:0: "
                                                         "variable 'huge' (f32[1000000,1000000]) "
                                                         "needs 4000000000000 bytes (4.0 TB)"),
                  "a variable too large: expected one line naming it, got %r" % lines)
    cluster.check("local cluster: ps0 exited with status 1" in output,
                  "a variable too large: the cluster did not stop")


# A CTR model of one multi-hot feature c0 (up to 3 ids per example) looked
# up in two tables: the ids must be rows of the smaller, c0/weights. TABLE
# is where a line may make %table, the handle of c0/embedding's lookup.
CTR_MODEL = """
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() -> tensor<f32> {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %label = dtf.placeholder "label" : tensor<4x1xf32>
    %c0 = dtf.placeholder "c0" : tensor<4x3xi64>
    %emb = dtf.variable "c0/embedding" init(#dtf.zeros) : !dtf.resource<tensor<10x1xf32>>
TABLE    %rows = dtf.embedding_lookup %table[%c0] : !dtf.resource<tensor<10x1xf32>>, tensor<4x3xi64>
    %deep = dtf.embedding_combine sum %rows, %c0 : tensor<4x3x1xf32>, tensor<4x3xi64>
    %w = dtf.variable "c0/weights" init(#dtf.zeros) : !dtf.resource<tensor<7x1xf32>>
    %wrows = dtf.embedding_lookup %w[%c0] : !dtf.resource<tensor<7x1xf32>>, tensor<4x3xi64>
    %wide = dtf.embedding_combine sum %wrows, %c0 : tensor<4x3x1xf32>, tensor<4x3xi64>
    %logit = dtf.add %deep, %wide : tensor<4x1xf32>, tensor<4x1xf32>
    %xent = dtf.sigmoid_cross_entropy_with_logits %logit, %label : tensor<4x1xf32>
    %loss = dtf.reduce_mean %xent : tensor<4x1xf32>
    dtf.minimize %loss : tensor<f32>, #dtf.adagrad<learning_rate = 0.1> global_step %global_step : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
"""


def ctr_errors(dtf, directory):
    """Bad records of a CTR data set: each refused when it is read, naming
    the file, the record and the feature; and a lookup of a table that no
    PS task holds, refused by the compiler."""
    model = os.path.join(directory, "ctr.mlir")
    with open(model, "w") as f:
        f.write(CTR_MODEL.replace("TABLE", "").replace("%table[", "%emb["))
    # The lookup of a handle that no dtf.variable makes.
    unplaced = os.path.join(directory, "unplaced_table.mlir")
    with open(unplaced, "w") as f:
        f.write(CTR_MODEL.replace(
            "TABLE", "    %table = builtin.unrealized_conversion_cast %emb : "
            "!dtf.resource<tensor<10x1xf32>> to !dtf.resource<tensor<10x1xf32>>\n"))

    def record(ids, label=1, without=()):
        features = [("label", int64_feature([label])), ("c0", int64_feature(ids))]
        return example([(name, value) for name, value in features if name not in without])

    def data(name, bad_record=None, at=5):
        records = [record([i % 7, (3 * i) % 7]) for i in range(8)]
        if bad_record is not None:
            records[at] = bad_record
        path = os.path.join(directory, name)
        write_records(path, records)
        return path

    def train(path):
        return [dtf, "--local", "--ps=1", "--workers=1", "--progress=false",
                "--train_steps=2", "--input=label=tfrecord:" + path,
                "--input=c0=tfrecord:%s,varlen" % path, model]

    # The data is good, and trains: an example without c0 (varlen) has no
    # ids, as with tf.io.VarLenFeature.
    good = data("good.tfrecord", record([], without=("c0",)), at=2)
    code, output = run(train(good))
    cluster.check(code == 0, "good CTR data: exit %d:\n%s" % (code, output))

    path = data("id_past_table.tfrecord", record([3, 7]))
    expect_error("an id outside its table", train(path),
                 "%s: record 5: feature 'c0' has id 7, outside table 'c0/weights' "
                 "of 7 rows" % path)
    path = data("negative_id.tfrecord", record([1, -5]), at=2)
    expect_error("a negative id", train(path),
                 "%s: record 2: feature 'c0' has negative id -5 for table 'c0/weights'; "
                 "ids are at least 0, and -1 pads a row" % path)
    path = data("long_list.tfrecord", record([1, 2, 3, 4]), at=4)
    expect_error("more ids than a row holds", train(path),
                 "%s: record 4: varlen feature 'c0' holds 4 values, more than the 3 "
                 "of a row of placeholder 'c0' (i64 [3] per example)" % path)
    path = data("no_label.tfrecord", record([1], without=("label",)), at=3)
    expect_error("an example without a feature", train(path),
                 "%s: record 3: the Example has no feature 'label' (it has: c0)" % path)
    expect_error("a lookup of a table placed nowhere", train(good)[:-1] + [unplaced],
                 "unplaced_table.mlir:9:13: error: 'dtf.embedding_lookup' op looks up "
                 "a table made by 'builtin.unrealized_conversion_cast', not by a "
                 "dtf.variable, so no PS task holds it; look up the dtf.variable itself")


def streaming_errors(dtf, directory):
    """Bad records of a streamed input (--input_mode=stream): under
    --input_errors=fail the worker stops with one line naming the file and
    the record; under skip it goes on, warns and counts. An empty pattern
    is refused before any task starts."""
    model = os.path.join(directory, "ctr_streamed.mlir")
    with open(model, "w") as f:
        f.write(CTR_MODEL.replace("TABLE", "").replace("%table[", "%emb["))
    records = [example([("label", int64_feature([i % 2])), ("c0", int64_feature([i % 7]))])
               for i in range(64)]
    good = os.path.join(directory, "streamed.tfrecord")
    write_records(good, records)
    with open(good, "rb") as f:
        data = f.read()
    size = len(data) // len(records)  # every record frames as many bytes

    def variant(name, contents):
        path = os.path.join(directory, name)
        with open(path, "wb") as f:
            f.write(contents)
        return path

    corrupt = bytearray(data)
    corrupt[10 * size + 14] ^= 0xFF  # in record 10's data
    corrupt = variant("streamed_corrupt.tfrecord", bytes(corrupt))
    truncated = variant("streamed_truncated.tfrecord", data[:-7])
    no_label = os.path.join(directory, "streamed_no_label.tfrecord")
    write_records(no_label, records[:20] + [example([("c0", int64_feature([1]))])] + records[21:])

    def train(path, errors="fail"):
        return [dtf, "--local", "--ps=1", "--workers=1", "--progress=false",
                "--train_steps=1000", "--input_mode=stream", "--num_epochs=1",
                "--input_errors=" + errors, "--input=label=tfrecord:" + path,
                "--input=c0=tfrecord:%s,varlen" % path, model]

    def expect_stop(name, argv, expected):
        start = time.time()
        code, output = run(argv)
        elapsed = time.time() - start
        found = [line for line in output.splitlines() if expected in line]
        print("%s: exit %d after %.1f s: %s" % (name, code, elapsed, found))
        cluster.check(code != 0, "%s: exit status 0:\n%s" % (name, output))
        cluster.check(elapsed < 30, "%s: took %.1f s" % (name, elapsed))
        cluster.check(found, "%s: no line with %r:\n%s" % (name, expected, output))

    expect_stop("a corrupt record, streamed", train(corrupt),
                "%s: record 10 at offset %d: data CRC mismatch" % (corrupt, 10 * size))
    expect_stop("a truncated file, streamed", train(truncated),
                "%s: record 63 at offset %d: truncated" % (truncated, 63 * size))
    expect_stop("an example without a feature, streamed", train(no_label),
                "%s: record 20: the Example has no feature 'label' (it has: c0)" % no_label)
    code, output = run(train(corrupt, "skip"))
    print("a corrupt record, skipped: exit %d" % code)
    cluster.check(code == 0, "--input_errors=skip: exit %d:\n%s" % (code, output))
    cluster.check("skipping a bad record: %s: record 10" % corrupt in output,
                  "--input_errors=skip: no warning naming the record:\n" + output)
    cluster.check("63 records" in output and "1 bad records skipped" in output,
                  "--input_errors=skip: the skipped record is not counted:\n" + output)
    expect_error("an empty pattern, streamed",
                 train(os.path.join(directory, "nothing-*")),
                 "%s: no file matches" % os.path.join(directory, "nothing-*"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    dtf = args.dtf_run
    base = ["--ps_hosts=localhost:%d" % cluster.free_ports(1)[0]]
    worker = "--worker_hosts=localhost:%d" % cluster.free_ports(1)[0]

    expect_error("bad host:port",
                 [dtf, "--ps_hosts=localhost", worker, "--job_name=ps", cluster.MLP],
                 "--ps_hosts entry 0: 'localhost' is not host:port")
    expect_error("task_index out of range",
                 [dtf] + base + [worker, "--job_name=worker", "--task_index=3", cluster.MLP],
                 "--task_index: task index 3 is out of range: job 'worker' has 1 task")
    expect_error("unknown job",
                 [dtf] + base + [worker, "--job_name=chief", cluster.MLP],
                 "--job_name: unknown job 'chief'")
    env = dict(os.environ, TF_CONFIG='{"cluster": {"worker": ["w:1"]}, "task": {"type": "worker"}}')
    expect_error("TF_CONFIG without task.index", [dtf, cluster.MLP],
                 "TF_CONFIG: missing field 'task.index'", env)

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        expect_error("port already in use",
                     [dtf, "--ps_hosts=localhost:%d" % port, worker,
                      "--job_name=ps", "--task_index=0", cluster.MLP],
                     "localhost:%d" % port)

    with tempfile.TemporaryDirectory() as empty:
        expect_error("missing data files",
                     [dtf] + base + [worker, "--job_name=worker", "--data=" + empty,
                      "--rpc_deadline_ms=2000", cluster.MLP],
                     os.path.join(empty, "train-images-idx3-ubyte"))

        broken = os.path.join(empty, "broken.mlir")
        with open(broken, "w") as f:
            f.write("func.func @main() {\n"
                    "  %a = dtf.placeholder \"x\" : tensor<100x784xf32>\n"
                    "  %b = dtf.placeholder \"w\" : tensor<100x10xf32>\n"
                    "  %c = dtf.matmul %a, %b : tensor<100x784xf32>, tensor<100x10xf32>\n"
                    "  return\n}\n")
        expect_error("model that fails to verify",
                     [dtf] + base + [worker, "--job_name=ps", broken],
                     "broken.mlir:4:8: error: inner dimensions differ")
        model_errors(dtf, empty)
        ctr_errors(dtf, empty)
        streaming_errors(dtf, empty)
        expect_error("missing model file",
                     [dtf] + base + [worker, "--job_name=ps",
                                     os.path.join(empty, "absent.mlir")],
                     "absent.mlir")


if __name__ == "__main__":
    cluster.run_test(main)
