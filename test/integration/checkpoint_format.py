#!/usr/bin/env python3
"""dtf-run's checkpoints in TensorFlow's format (--checkpoint_format=tf) on a
real local cluster.

- tf: the MLP trains 200 steps on 2 PS tasks (hid_w sharded in 2), saving a
  bundle every 100 steps and keeping 2: model.ckpt-100 and model.ckpt-200,
  one data file per PS task, and the `checkpoint` file naming them. The job
  restarted on that --logdir with 3 PS tasks resumes at step 200 on every
  PS task and validates exactly as the first job did. With the newest
  bundle's .index truncated, then (separately) a byte of one of its .data
  files changed, every PS task of the restart warns naming that file and
  all restore model.ckpt-100.
- tensorflow: for the MLP (hid_w partitioned over 2 PS tasks) and the
  imported autoencoder.pbtxt, DTF trains and saves a DTF checkpoint, then
  the job restarted with --checkpoint_format=tf saves the same step as a
  bundle; TensorFlow's tf.train.load_checkpoint reads every tensor of the
  bundle bit-exact against the DTF file (read by checkpoints.py, shards
  joined), and tf.compat.v1.train.Saver restores the MLP's hid_w, saved by
  2 PS tasks, into 3 partitions. Skipped (77) without the bench venv's
  TensorFlow.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import cluster

HERE = os.path.dirname(os.path.abspath(__file__))
PIXELS = "idx:%s/%%s-images-idx3-ubyte.gz,scale=1/255" % cluster.DATA
SKIP = 77


def run_local(args, ps, flags, model):
    argv = [args.dtf_run, "--local", "--ps=%d" % ps, "--workers=1",
            "--progress=false"] + flags + [model]
    print("running: " + " ".join(argv))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    cluster.check(result.returncode == 0, "the run failed (exit %d):\n%s\n%s" % (
        result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    return result


def check_restored(output, prefix, step, tasks):
    for task in range(tasks):
        line = "PS task %d: restored its variables from %s (global step %d" % (
            task, prefix, step)
        cluster.check(line in output, "no '%s':\n%s" % (line, output[-3000:]))


def check_fell_back(output, path, older, tasks):
    """Every PS task warned about `path` and restored `older`."""
    for task in range(tasks):
        warned = [l for l in output.splitlines()
                  if "PS task %d: warning: checkpoint %s " % (task, path) in l
                  and "trying the previous one" in l]
        cluster.check(warned, "PS task %d did not warn about %s:\n%s" % (
            task, path, output[-3000:]))
    print(warned[0])
    check_restored(output, older, int(older.rsplit("-", 1)[1]), tasks)


def tf_case(args):
    logdir = os.path.join(args.work, "logdir")
    flags = ["--min_slice_size=100000", "--logdir=" + logdir, "--checkpoint_format=tf",
             "--save_checkpoint_steps=100", "--save_checkpoint_secs=0",
             "--keep_checkpoints=2"]
    first = run_local(args, 2, flags + ["--train_steps=200"], cluster.MLP)
    step, loss, accuracy = cluster.validation_text(first.stdout)
    cluster.check(step == 200, "the first job validated at step %d" % step)
    saved = sorted(n for n in os.listdir(logdir) if n.startswith("model.ckpt"))
    expected = ["model.ckpt-%d.%s" % (s, suffix) for s in (100, 200)
                for suffix in ("data-00000-of-00002", "data-00001-of-00002", "index")]
    cluster.check(saved == expected, "the logdir holds %s, not %s" % (saved, expected))
    with open(os.path.join(logdir, "checkpoint")) as f:
        state = f.read()
    cluster.check('model_checkpoint_path: "model.ckpt-200"' in state and
                  'all_model_checkpoint_paths: "model.ckpt-100"' in state,
                  "the checkpoint file says:\n" + state)

    newest = os.path.join(logdir, "model.ckpt-200")
    previous = os.path.join(logdir, "model.ckpt-100")
    resumed = run_local(args, 3, flags + ["--train_steps=200"], cluster.MLP)
    check_restored(resumed.stdout, newest, 200, 3)
    resumed_step, resumed_loss, resumed_accuracy = cluster.validation_text(resumed.stdout)
    print("2 PS tasks: step %d loss %s accuracy %s; resumed on 3: step %d loss %s "
          "accuracy %s" % (step, loss, accuracy, resumed_step, resumed_loss,
                           resumed_accuracy))
    cluster.check((resumed_step, resumed_loss, resumed_accuracy) == (step, loss, accuracy),
                  "the resumed job validates differently")

    # The newest index cut short, then one byte of a data file changed: the
    # restart falls back to the previous bundle (and, trained no further,
    # saves nothing over the damaged one).
    index = newest + ".index"
    with open(index, "rb") as f:
        index_bytes = f.read()
    with open(index, "wb") as f:
        f.write(index_bytes[:len(index_bytes) // 2])
    truncated = run_local(args, 3, flags + ["--train_steps=100"], cluster.MLP)
    check_fell_back(truncated.stdout, index, previous, 3)
    with open(index, "wb") as f:
        f.write(index_bytes)

    data = newest + ".data-00001-of-00002"
    with open(data, "r+b") as f:
        f.seek(os.path.getsize(data) // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xff]))
    corrupt = run_local(args, 3, flags + ["--train_steps=100"], cluster.MLP)
    check_fell_back(corrupt.stdout, data, previous, 3)
    cluster.check(cluster.validation_text(corrupt.stdout)[0] == 100, "the fall-back did not validate "
                  "at step 100")


def tensorflow_case(args):
    python = args.tf_python
    if not python or not os.path.exists(python) or subprocess.run(
            [python, "-c", "import tensorflow"], capture_output=True).returncode:
        print("SKIP: TensorFlow is not installed in %s (bash bench/setup_venv.sh "
              "installs it)" % (python or "a venv"))
        sys.exit(SKIP)
    autoencoder = os.path.join(args.work, "autoencoder.mlir")
    subprocess.run([args.dtf_translate, "--import-graphdef",
                    os.path.join(cluster.ROOT, "examples", "tf", "autoencoder.pbtxt"),
                    "--outputs=mse", "-o", autoencoder], check=True)
    models = [
        ("mnist_mlp", cluster.MLP, ["--min_slice_size=100000"]),
        ("autoencoder", autoencoder, ["--batch_size=128", "--input=x=" + PIXELS % "train",
                                      "--eval_input=x=" + PIXELS % "t10k"]),
    ]
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2",
               CUDA_VISIBLE_DEVICES="")
    for name, model, flags in models:
        logdir = os.path.join(args.work, name)
        flags = flags + ["--logdir=" + logdir, "--train_steps=50"]
        run_local(args, 2, flags + ["--checkpoint_format=dtf"], model)
        again = run_local(args, 2, flags + ["--checkpoint_format=tf"], model)
        cluster.check("saved checkpoint %s/model.ckpt-50 " % logdir in again.stdout,
                      "no bundle of step 50:\n" + again.stdout[-3000:])
        checked = subprocess.run(
            ["nice", "-n", "10", python, os.path.abspath(__file__), "--check", logdir,
             "--partitioned", "hid_w" if name == "mnist_mlp" else ""],
            env=env, timeout=600)
        cluster.check(checked.returncode == 0, "TensorFlow's check of %s failed" % name)


def check(logdir, partitioned):
    """Runs in the Python that has TensorFlow: its reading of the bundle of
    step 50 against the DTF file of the same step."""
    import numpy as np
    import tensorflow as tf

    sys.path.insert(0, HERE)
    import checkpoints

    dtypes = {"f": np.float32, "d": np.float64, "i": np.int32, "q": np.int64, "B": np.bool_}
    step, tensors = checkpoints.read(os.path.join(logdir, "model.ckpt-50.dtf"))
    expected = {}
    for name, (shape, values) in checkpoints.merge_shards(tensors).items():
        expected[name] = np.frombuffer(values.tobytes(),
                                       dtypes[values.typecode]).reshape(shape)

    prefix = tf.train.latest_checkpoint(logdir)
    assert prefix == os.path.join(logdir, "model.ckpt-50"), prefix
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    assert sorted(shapes) == sorted(expected), (sorted(shapes), sorted(expected))
    for name, want in expected.items():
        got = reader.get_tensor(name)
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        assert got.tobytes() == want.tobytes(), name
    print("TensorFlow %s read the %d tensors of %s bit-exact as DTF saved them"
          % (tf.__version__, len(expected), prefix))
    if not partitioned:
        return

    # Saved as 2 slices by 2 PS tasks, restored into 3 partitions.
    v1 = tf.compat.v1
    want = expected[partitioned]
    with tf.Graph().as_default():
        variable = v1.get_variable(partitioned, shape=want.shape, dtype=tf.float32,
                                   partitioner=v1.fixed_size_partitioner(3))
        saver = v1.train.Saver({partitioned: variable})
        with v1.Session() as session:
            saver.restore(session, prefix)
            parts = session.run(list(variable))
    assert len(parts) == 3, [p.shape for p in parts]
    assert np.concatenate(parts).tobytes() == want.tobytes(), partitioned
    print("TensorFlow restored %s into 3 partitions" % partitioned)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtf-run")
    parser.add_argument("--dtf-translate", default="")
    parser.add_argument("--tf-python", default="")
    parser.add_argument("--case", choices=["tf", "tensorflow"])
    parser.add_argument("--check", help="(internal) the logdir TensorFlow checks")
    parser.add_argument("--partitioned", default="",
                        help="(internal) a variable TensorFlow restores in 3 partitions")
    args = parser.parse_args()
    if args.check:
        check(args.check, args.partitioned)
        return
    with tempfile.TemporaryDirectory() as work:
        args.work = work
        cluster.run_test(lambda: {"tf": tf_case, "tensorflow": tensorflow_case}[args.case](args))


if __name__ == "__main__":
    main()
