"""What a cluster computes, against the same model trained in one process.

- sync: 2 PS tasks (the hidden layer's weights sharded over both, with
  their Adam slots), 2 workers, each training on its own 50 examples every
  step, for 20 steps through the real processes and RPCs. The reference
  (dtf-reference-train: the model with only its gradients and optimizer
  expanded, run by the reference interpreter) trains from the same initial
  checkpoint on the 100 examples as one batch. The loss is a mean, so that
  batch's gradient is the average of the two workers' gradients: the one
  update a sync step applies. Every variable, optimizer slot and beta power
  of the cluster's final checkpoint equals the reference's to 1e-5.
- async: 1 PS task and 1 worker with a batch of one example out of 10, for
  15 steps (a pass and a half, reshuffled in between), a checkpoint after
  every step: each step's variables equal the one-process run's exactly,
  bit for bit, the reference reading the examples in the worker's order
  (dtf-reference-train --batch_size). Every step trains on another example
  than the step before, so a push lost or applied twice shows.

In the sync case each worker's shard of the data is exactly one batch, so
every step sees the same examples on both sides; only their order in the
batch (shuffled by the worker) differs, which changes sums by rounding
only.
"""

import argparse
import gzip
import os
import struct
import subprocess
import tempfile

import checkpoints
import cluster

# The MLP of examples/mnist_mlp.mlir, with 32 hidden units, the mean
# cross-entropy of the batch and glorot_uniform's hidden weights (sharded in
# the sync case, each shard drawing its own samples on its PS task).
MODEL = """
module {
  func.func @main() -> (tensor<f32>, tensor<f32>) {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>
    %hid_w = dtf.variable "hid_w" init(#dtf.random_uniform<minval = -0.0857, maxval = 0.0857, seed = 1>)
        : !dtf.resource<tensor<784x32xf32>>
    %hid_b = dtf.variable "hid_b" init(#dtf.zeros) : !dtf.resource<tensor<32xf32>>
    %sm_w = dtf.variable "sm_w" init(#dtf.truncated_normal<stddev = 0.18, seed = 2>)
        : !dtf.resource<tensor<32x10xf32>>
    %sm_b = dtf.variable "sm_b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
    %x = dtf.placeholder "x" : tensor<BATCHx784xf32>
    %y_ = dtf.placeholder "y_" : tensor<BATCHx10xf32>
    %hid_w_value = dtf.read %hid_w : !dtf.resource<tensor<784x32xf32>>
    %hid_b_value = dtf.read %hid_b : !dtf.resource<tensor<32xf32>>
    %hid_mm = dtf.matmul %x, %hid_w_value : tensor<BATCHx784xf32>, tensor<784x32xf32>
    %hid_lin = dtf.bias_add %hid_mm, %hid_b_value : tensor<BATCHx32xf32>, tensor<32xf32>
    %hid = dtf.relu %hid_lin : tensor<BATCHx32xf32>
    %sm_w_value = dtf.read %sm_w : !dtf.resource<tensor<32x10xf32>>
    %sm_b_value = dtf.read %sm_b : !dtf.resource<tensor<10xf32>>
    %sm_mm = dtf.matmul %hid, %sm_w_value : tensor<BATCHx32xf32>, tensor<32x10xf32>
    %logits = dtf.bias_add %sm_mm, %sm_b_value : tensor<BATCHx10xf32>, tensor<10xf32>
    %y = dtf.softmax %logits : tensor<BATCHx10xf32>
    %clipped = dtf.clip_by_value %y, 1.0e-10, 1.0 : tensor<BATCHx10xf32>
    %log_y = dtf.log %clipped : tensor<BATCHx10xf32>
    %weighted = dtf.mul %y_, %log_y : tensor<BATCHx10xf32>, tensor<BATCHx10xf32>
    %mean = dtf.reduce_mean %weighted : tensor<BATCHx10xf32>
    %loss = dtf.neg %mean : tensor<f32>
    dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.01>
        global_step %global_step : !dtf.resource<tensor<i64>>
    %predicted = dtf.argmax %y, 1 : tensor<BATCHx10xf32>
    %expected = dtf.argmax %y_, 1 : tensor<BATCHx10xf32>
    %correct = dtf.equal %predicted, %expected : tensor<BATCHxi64>, tensor<BATCHxi64>
    %correct_f = dtf.cast %correct : tensor<BATCHxi1> to tensor<BATCHxf32>
    %accuracy = dtf.reduce_mean %correct_f : tensor<BATCHxf32>
    return %loss, %accuracy : tensor<f32>, tensor<f32>
  }
}
"""


def write_model(directory, name, batch):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(MODEL.replace("BATCH", str(batch)))
    return path


def read_idx(path, count):
    """The header and the first `count` items of a gzipped IDX file."""
    with gzip.open(path, "rb") as f:
        magic = f.read(4)
        rank = magic[3]
        dims = list(struct.unpack(">%dI" % rank, f.read(4 * rank)))
        item = 1
        for d in dims[1:]:
            item *= d
        return magic, dims[1:], f.read(count * item)


def write_data(directory, train_count, test_count):
    """IDX files of the first examples of Fashion-MNIST's splits."""
    os.makedirs(directory)
    for split, count in [("train", train_count), ("t10k", test_count)]:
        for kind in ["images-idx3-ubyte", "labels-idx1-ubyte"]:
            name = "%s-%s" % (split, kind)
            magic, dims, items = read_idx(os.path.join(cluster.DATA, name + ".gz"), count)
            with open(os.path.join(directory, name), "wb") as f:
                f.write(magic + struct.pack(">%dI" % (1 + len(dims)), count, *dims) + items)
    return directory


def train_cluster(dtf_run, num_ps, num_workers, data, model, logdir, flags):
    c = cluster.Cluster(dtf_run, num_ps, num_workers,
                        ["--logdir=" + logdir, "--keep_checkpoints=0", "--log_every=1"] + flags,
                        model=model)
    try:
        for task in c.workers + c.ps:
            cluster.check(task.wait(120) == 0, task.name + " failed")
    finally:
        c.kill_all()
    return c


def train_reference(reference, data, model, init, steps, out, flags=()):
    os.makedirs(out)
    subprocess.run([reference, "--data=" + data, "--init=" + init,
                    "--steps=%d" % steps, "--out=" + out] + list(flags) + [model],
                   check=True)


def checkpoint(directory, step):
    return os.path.join(directory, "model.ckpt-%d.dtf" % step)


def sync_sharded(args, work):
    steps, batch = 20, 50
    data = write_data(os.path.join(work, "sync-data"), 2 * batch, batch)
    logdir = os.path.join(work, "sync-logdir")
    c = train_cluster(args.dtf_run, 2, 2, data, write_model(work, "sync.mlir", batch), logdir,
                      ["--data=" + data, "--sync", "--train_steps=%d" % steps,
                       "--min_slice_size=40000"])
    _, initial = checkpoints.read(checkpoint(logdir, 0))
    cluster.check("hid_w/part_1" in initial and "hid_w/Adam/part_1" in initial,
                  "hid_w is not sharded over the 2 PS tasks: %s" % sorted(initial))
    for ps in c.ps:
        cluster.check("applied %d aggregates of %d pushes" % (steps, 2 * steps) in ps.output(),
                      "%s did not apply every worker's push in every step" % ps.name)

    out = os.path.join(work, "sync-reference")
    train_reference(args.reference, data, write_model(work, "sync-reference.mlir", 2 * batch),
                    checkpoint(logdir, 0), steps, out)
    step, trained = checkpoints.read(checkpoint(logdir, steps))
    cluster.check(step == steps, "the final checkpoint is of step %d" % step)
    _, reference = checkpoints.read(checkpoint(out, steps))
    worst, where = checkpoints.max_difference(reference, checkpoints.merge_shards(trained))
    print("sync, 2 PS tasks, 2 workers, %d steps: largest difference from the "
          "one-process reference %.3g (%s)" % (steps, worst, where))
    cluster.check(worst <= 1e-5, "%s differs from the reference by %.3g" % (where, worst))
    # The comparison means something: training moved every variable.
    moved, _ = checkpoints.max_difference(checkpoints.merge_shards(initial), reference)
    cluster.check(moved > 1e-3, "training barely changed the variables (%.3g)" % moved)


def async_exact(args, work):
    steps, examples = 15, 10
    data = write_data(os.path.join(work, "async-data"), examples, 1)
    model = write_model(work, "async.mlir", 1)
    logdir = os.path.join(work, "async-logdir")
    train_cluster(args.dtf_run, 1, 1, data, model, logdir,
                  ["--data=" + data, "--async", "--train_steps=%d" % steps,
                   "--save_checkpoint_steps=1"])
    out = os.path.join(work, "async-reference")
    train_reference(args.reference, data, model, checkpoint(logdir, 0), steps, out,
                    ["--batch_size=1"])
    for step in range(1, steps + 1):
        _, trained = checkpoints.read(checkpoint(logdir, step))
        _, reference = checkpoints.read(checkpoint(out, step))
        worst, where = checkpoints.max_difference(reference, trained)
        cluster.check(worst == 0, "step %d: %s differs from the one-process run by %.3g"
                      % (step, where, worst))
    print("async, 1 PS task, 1 worker, batches of 1 of %d examples: %d steps equal "
          "the one-process run bit for bit" % (examples, steps))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--reference", required=True, help="dtf-reference-train")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dtf-numerics-") as work:
        sync_sharded(args, work)
        async_exact(args, work)


if __name__ == "__main__":
    cluster.run_test(main)
