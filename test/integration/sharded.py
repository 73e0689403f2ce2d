"""A variable sharded over PS tasks trains, not only compiles.

The MLP on 2 PS tasks and 2 workers with --min_slice_size=65536, as
tf.min_max_variable_partitioner(min_slice_size=64 KiB) shards it: hid_w
(313,600 bytes) is split along dimension 0 into one part per PS task, the
other variables are smaller and stay whole. The final checkpoint holds
both parts of hid_w (and of its Adam slots) and no unsharded hid_w, and the
workers' test accuracy reaches 0.80.

Sync replication, whose steps are the same whatever the scheduling: the
final accuracy of async training varies from run to run (a run of this test
in async mode once ended at 0.786, others at 0.82), and a bound on it would
test the scheduler. The study runs the sharded model async (bench/run.sh).
"""

import argparse
import glob
import os
import tempfile

import checkpoints
import cluster


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as logdir:
        c = cluster.Cluster(args.dtf_run, 2, 2,
                            ["--sync", "--train_steps=2000", "--log_every=500",
                             "--min_slice_size=65536", "--logdir=" + logdir])
        try:
            for task in c.workers + c.ps:
                cluster.check(task.wait(600) == 0, task.name + " failed")
        finally:
            c.kill_all()
        files = sorted(glob.glob(os.path.join(logdir, "model.ckpt-*.dtf")))
        cluster.check(files, "no checkpoint in the logdir")
        _, tensors = checkpoints.read(files[-1])
        parts = sorted(name for name in tensors if name.startswith("hid_w/part_"))
        print("hid_w in the checkpoint: %s" % ", ".join(
            "%s %s" % (name, tensors[name][0]) for name in parts))
        cluster.check(parts == ["hid_w/part_0", "hid_w/part_1"] and "hid_w" not in tensors,
                      "hid_w is not split in two parts: %s" % sorted(tensors))
        rows = sum(tensors[name][0][0] for name in parts)
        cluster.check(rows == 784, "the parts of hid_w hold %d rows, not 784" % rows)
    for worker in c.workers:
        loss, accuracy, step = cluster.validation(worker)
        print("%s: validation accuracy %.4f after %d steps" % (worker.name, accuracy, step))
        cluster.check(accuracy >= 0.80, "%s: accuracy %.4f < 0.80" % (worker.name, accuracy))


if __name__ == "__main__":
    cluster.run_test(main)
