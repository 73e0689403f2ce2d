#!/usr/bin/env python3
"""Warm start (dtf-run --init_from_checkpoint) on a real local cluster.

- dtf: the MLP trains 200 steps on 2 PS tasks (hid_w sharded in 2) and
  saves a DTF checkpoint; a job of 3 PS tasks (hid_w in 3 shards)
  warm-started from that directory validates at global step 0 exactly as
  the first job's last validation (the same printed loss and accuracy), and
  says so on each PS task; started again on its own --logdir it restores
  its own checkpoint, ignores --init_from_checkpoint (a path that does not
  exist) and trains on: the loss after 100 more steps is finite and not
  worse. A shape mismatch of the assignment map is one error naming both
  names and shapes, before any task starts.
- tensorflow: examples/tf/autoencoder.py trains 300 steps in TensorFlow and
  saves with tf.compat.v1.train.Saver; the imported autoencoder.pbtxt
  warm-starts from that bundle and its first validation loss and MSE equal
  TensorFlow's on the same examples within 1e-5; 100 more steps leave it
  finite and not worse. Skipped (77) without the bench venv's TensorFlow.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile

import cluster

PIXELS = "idx:%s/%%s-images-idx3-ubyte.gz,scale=1/255" % cluster.DATA


def run_local(args, ps, flags, model, expect_ok=True):
    argv = [args.dtf_run, "--local", "--ps=%d" % ps, "--workers=1",
            "--progress=false"] + flags + [model]
    print("running: " + " ".join(argv))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if expect_ok:
        cluster.check(result.returncode == 0,
                      "the run failed (exit %d):\n%s\n%s" % (
                          result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    return result


def dtf_case(args):
    first_logdir = os.path.join(args.work, "first")
    sharding = ["--min_slice_size=100000"]
    first = run_local(args, 2, sharding + ["--train_steps=200", "--logdir=" + first_logdir],
                      cluster.MLP)
    step, loss, accuracy = cluster.validation_text(first.stdout)
    cluster.check(step == 200, "the first job validated at step %d" % step)

    second_logdir = os.path.join(args.work, "second")
    warm = run_local(args, 3, sharding + ["--train_steps=0", "--logdir=" + second_logdir,
                                          "--init_from_checkpoint=" + first_logdir],
                     cluster.MLP)
    for task in range(3):
        cluster.check("PS task %d: warm start:" % task in warm.stdout,
                      "PS task %d did not warm-start:\n%s" % (task, warm.stdout[-3000:]))
    cluster.check("Worker 0: started every PS task from --init_from_checkpoint=%s at "
                  "global step 0" % first_logdir in warm.stdout,
                  "the chief did not say where the model started:\n" + warm.stdout[-3000:])
    warm_step, warm_loss, warm_accuracy = cluster.validation_text(warm.stdout)
    print("first job: step %d loss %s accuracy %s; warm-started on 3 PS tasks: "
          "step %d loss %s accuracy %s" % (step, loss, accuracy, warm_step, warm_loss,
                                           warm_accuracy))
    cluster.check(warm_step == 0, "the warm start's global step is %d, not 0" % warm_step)
    cluster.check((warm_loss, warm_accuracy) == (loss, accuracy),
                  "the warm-started model validates as %s/%s, the checkpointed one as %s/%s"
                  % (warm_loss, warm_accuracy, loss, accuracy))

    resumed = run_local(args, 3, sharding + [
        "--train_steps=100", "--logdir=" + second_logdir,
        "--init_from_checkpoint=" + os.path.join(args.work, "nonexistent")], cluster.MLP)
    cluster.check("--init_from_checkpoint ignored" in resumed.stdout,
                  "the job did not say it ignores --init_from_checkpoint:\n"
                  + resumed.stdout[-3000:])
    resumed_step, resumed_loss, _ = cluster.validation_text(resumed.stdout)
    print("resumed from its own checkpoint: step %d loss %s" % (resumed_step, resumed_loss))
    cluster.check(resumed_step == 100, "the resumed job validated at step %d" % resumed_step)
    cluster.check(math.isfinite(float(resumed_loss)) and
                  float(resumed_loss) <= 1.05 * float(loss),
                  "loss %s after 100 more steps, %s before" % (resumed_loss, loss))

    mismatch = run_local(args, 2, ["--train_steps=0", "--init_from_checkpoint=" + first_logdir,
                                   "--init_assignment_map=sm_w:hid_w"], cluster.MLP,
                         expect_ok=False)
    cluster.check(mismatch.returncode != 0 and
                  "variable 'hid_w' (f32[784,100]) does not match tensor 'sm_w' (f32[100,10])"
                  in mismatch.stderr and "PS task" not in mismatch.stdout,
                  "no early error for a shape mismatch:\n%s\n%s" % (mismatch.stdout[-2000:],
                                                                     mismatch.stderr[-2000:]))


def tensorflow_case(args):
    python = args.tf_python
    probe = subprocess.run([python, "-c", "import tensorflow"], capture_output=True) \
        if python and os.path.exists(python) else None
    if not probe or probe.returncode != 0:
        print("SKIP: TensorFlow is not installed in %s (bash bench/setup_venv.sh "
              "installs it)" % (python or "a venv"))
        sys.exit(77)
    prefix = os.path.join(args.work, "tf", "model.ckpt")
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1")
    trained = subprocess.run(
        ["nice", "-n", "10", python, os.path.join(cluster.ROOT, "examples", "tf", "autoencoder.py"),
         "--train_steps=300", "--save_checkpoint=" + prefix],
        capture_output=True, text=True, timeout=900, env=env)
    cluster.check(trained.returncode == 0, "TensorFlow's run failed:\n" + trained.stderr[-3000:])
    line = [l for l in trained.stdout.splitlines() if l.startswith("validation_as_dtf_run")]
    cluster.check(line, "TensorFlow printed no validation:\n" + trained.stdout[-3000:])
    fields = line[-1].split()
    tf_loss, tf_mse = float(fields[2]), float(fields[4])

    model = os.path.join(args.work, "autoencoder.mlir")
    subprocess.run([args.dtf_translate, "--import-graphdef",
                    os.path.join(cluster.ROOT, "examples", "tf", "autoencoder.pbtxt"),
                    "--outputs=mse", "-o", model], check=True)
    data = ["--batch_size=128", "--input=x=" + PIXELS % "train",
            "--eval_input=x=" + PIXELS % "t10k"]
    warm = run_local(args, 2, data + ["--train_steps=0",
                                      "--init_from_checkpoint=" + os.path.dirname(prefix)], model)
    step, loss, mse = cluster.validation_text(warm.stdout)
    print("TensorFlow after 300 steps: validation loss %.9g mse %.9g; DTF warm-started: "
          "step %d loss %s mse %s" % (tf_loss, tf_mse, step, loss, mse))
    cluster.check(step == 0, "the warm start's global step is %d, not 0" % step)
    cluster.check(abs(float(loss) - tf_loss) <= 1e-5 and abs(float(mse) - tf_mse) <= 1e-5,
                  "DTF's first validation (loss %s, mse %s) is not TensorFlow's (%.9g, %.9g)"
                  % (loss, mse, tf_loss, tf_mse))

    trained_on = run_local(args, 2, data + ["--train_steps=100",
                                            "--init_from_checkpoint=" + prefix], model)
    later_step, later_loss, _ = cluster.validation_text(trained_on.stdout)
    print("DTF 100 steps on from the warm start: step %d loss %s" % (later_step, later_loss))
    cluster.check(math.isfinite(float(later_loss)) and float(later_loss) <= 1.05 * tf_loss,
                  "loss %s after 100 more steps, %.9g at the warm start" % (later_loss, tf_loss))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--dtf-translate", default="")
    parser.add_argument("--tf-python", default="")
    parser.add_argument("--case", required=True, choices=["dtf", "tensorflow"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        args.work = work
        cluster.run_test(lambda: {"dtf": dtf_case, "tensorflow": tensorflow_case}[args.case](args))


if __name__ == "__main__":
    main()
