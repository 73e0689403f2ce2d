"""A click-through-rate model with embedding tables trains on a real cluster.

examples/ctr/wide_deep.mlir (Wide & Deep: 16 embedding tables of 1M rows
in all and the wide weights of 3 hashed crosses; the deep part trained by
Adagrad, the wide part by FTRL), whole or with --shards each table split
by rows over the PS tasks (--strategy div or mod), on 2 PS tasks and 2
workers, on data that examples/ctr/make_ctr_data.py writes for the test
(20,000 training examples of 8 multi-hot features and their crosses, read
as padded `varlen` features), in async or sync mode. The workers look the tables up by rows and push sparse
gradients; no table is ever pulled or pushed whole, which the traffic
shows: a whole pull of the 1M x 16 floats would be 64 MB a step. Every
worker's validation AUC must beat a trivial classifier's 0.5 by 0.1 (the
hidden model's own AUC is about 0.78; 300 steps reach about 0.65), and the
final checkpoint holds the tables and their optimizers' slots (Adagrad's
accumulator, FTRL's accumulator and linear term); the
validation AUC and log loss are TensorBoard scalars too.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import checkpoints
import cluster
import events

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL = os.path.join(ROOT, "examples", "ctr", "wide_deep.mlir")
GENERATOR = os.path.join(ROOT, "examples", "ctr", "make_ctr_data.py")
MODEL_GENERATOR = os.path.join(ROOT, "examples", "ctr", "make_wide_deep.py")
STEPS = 300
LOCAL_STEPS = re.compile(r"training ended after (\d+) local steps")
TRAFFIC = re.compile(r"RPC traffic: pulled (\d+) bytes in (\d+) pulls, pushed (\d+) bytes")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--mode", choices=["async", "sync"], default="async")
    parser.add_argument("--shards", type=int, default=1,
                        help="split each table by rows into this many shards")
    parser.add_argument("--strategy", choices=["div", "mod"], default="mod")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "data")
        subprocess.run([sys.executable, GENERATOR, "--out", data, "--train_shards", "2",
                        "--examples_per_shard", "10000", "--test_examples", "4000",
                        "--total_rows", "20000", "--jobs", "1"],
                       check=True, capture_output=True)
        model = MODEL
        if args.shards > 1:
            model = os.path.join(scratch, "wide_deep.mlir")
            with open(model, "w") as f:
                subprocess.run([sys.executable, MODEL_GENERATOR, "--shards", str(args.shards),
                                "--strategy", args.strategy], check=True, stdout=f)
        logdir = os.path.join(scratch, "logdir")
        flags = ["--input_file=" + os.path.join(data, "inputs.txt"),
                 "--train_steps=%d" % STEPS, "--log_every=100", "--logdir=" + logdir]
        if args.mode == "sync":
            flags.append("--sync")
        c = cluster.Cluster(args.dtf_run, 2, 2, flags, model=model)
        try:
            for task in c.workers + c.ps:
                cluster.check(task.wait(600) == 0, task.name + " failed")
        finally:
            c.kill_all()
        files = sorted(glob.glob(os.path.join(logdir, "model.ckpt-*.dtf")))
        cluster.check(files, "no checkpoint in the logdir")
        _, tensors = checkpoints.read(files[-1])
        # Tables and slots as variables, whole or in shards of their rows.
        parts = (["/part_%d" % shard for shard in range(args.shards)]
                 if args.shards > 1 else [""])
        for table in ["c0/embedding", "c0/embedding/Adagrad", "c7/weights",
                      "c7/weights/Ftrl", "c7/weights/Ftrl_1", "x2/weights",
                      "x2/weights/Ftrl", "x2/weights/Ftrl_1"]:
            for part in parts:
                cluster.check(table + part in tensors, "the checkpoint lacks %s: %s"
                              % (table + part, sorted(tensors)))
        rows = sum(tensors["c0/embedding" + part][0][0] for part in parts)
        cluster.check(rows == 501963 and tensors["c0/embedding" + parts[0]][0][1] == 16,
                      "c0/embedding holds %d rows in %s" % (rows, parts))
        # TensorBoard gets the AUC and the log loss of the validation.
        event_files = glob.glob(os.path.join(logdir, "worker_0", "events.out.tfevents.*"))
        cluster.check(event_files, "no event file of worker 0")
        last = events.read_events(event_files[0])[-1]
        cluster.check(set(last["values"]) == {"validation/loss", "validation/auc",
                                              "validation/log_loss"},
                      "last event of worker 0: %s" % last)
        cluster.check(last["values"]["validation/auc"] > 0.6,
                      "validation/auc %s" % last["values"])
    for worker in c.workers:
        auc, log_loss, step = cluster.validation_auc(worker)
        traffic = TRAFFIC.search(worker.output())
        cluster.check(traffic, "%s reported no traffic" % worker.name)
        pulled, pulls = int(traffic.group(1)), int(traffic.group(2))
        print("%s: validation AUC %.4f, log loss %.4f after %d steps; pulled %d bytes "
              "in %d pulls" % (worker.name, auc, log_loss, step, pulled, pulls))
        cluster.check(auc > 0.6, "%s: AUC %.4f does not beat 0.5 by 0.1" % (worker.name, auc))
        # The tables hold 69 MB: whole pulls would bring that every step.
        # Rows of a batch's distinct ids are about 0.2 MB.
        local = LOCAL_STEPS.search(worker.output())
        cluster.check(local, "%s reported no local steps" % worker.name)
        per_step = pulled / max(int(local.group(1)), 1)
        print("%s: %.0f bytes pulled per step" % (worker.name, per_step))
        cluster.check(per_step < 1000 * 1000,
                      "%s pulled %.0f bytes a step: whole tables?" % (worker.name, per_step))


if __name__ == "__main__":
    cluster.run_test(main)
