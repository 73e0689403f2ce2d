#!/usr/bin/env python3
"""The TensorFlow peer: TensorFlow's classic distributed MNIST trainer
(mnist_replica.py / dist_mnist) on the same model as examples/mnist_mlp.mlir.

784-100-10 MLP, relu, softmax, the summed cross-entropy on clipped
probabilities, Adam(0.01), batches of 100, a global step; between-graph
replication with tf.compat.v1.train.Server, ClusterSpec and
replica_device_setter; SyncReplicasOptimizer in --sync mode. One process per
task, on the hosts of --ps_hosts/--worker_hosts. With several PS tasks the
setter places whole variables round-robin; --min_slice_size partitions the big
ones over them (min_max_variable_partitioner), as dtf-run --min_slice_size. Prints the same lines as
dtf-run so that bench/run_study.py parses both alike:

  <time>: Worker i: training step N done (global step: G)
  Worker i: training ended after N local steps
  Training elapsed time: X s
  After G training step(s), validation cross entropy = L, validation accuracy = A

Each worker trains on its own contiguous shard of the training set,
reshuffled each epoch, as dtf-run's workers do. Validation runs on the whole
test set in batches of 100 and averages the per-batch (summed) cross-entropy,
as dtf-run does.

A PS task serves until the file --done_file exists (TensorFlow's
server.join() never returns; the benchmark creates the file when the workers
are done).
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_replica_data import load_split  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

IMAGE_PIXELS = 28


class Shard:
    def __init__(self, images, labels, worker, num_workers):
        n = images.shape[0]
        begin, end = n * worker // num_workers, n * (worker + 1) // num_workers
        self.images, self.labels = images[begin:end], labels[begin:end]
        self.rng = np.random.RandomState(1000 + worker)
        self.order = self.rng.permutation(end - begin)
        self.next = 0

    def next_batch(self, batch):
        if self.next + batch > len(self.order):
            self.order = self.rng.permutation(len(self.order))
            self.next = 0
        idx = self.order[self.next:self.next + batch]
        self.next += batch
        return self.images[idx], self.labels[idx]


def model_variables(hidden_units, min_slice_size=0, num_ps=1):
    """hid_w, hid_b, sm_w, sm_b. Whole variables (replica_device_setter
    places them round-robin over the PS tasks), or with min_slice_size > 0
    created by get_variable under min_max_variable_partitioner(num_ps,
    min_slice_size): a variable bigger than min_slice_size bytes is split
    along dimension 0 into at most num_ps partitions (hid_w, 313,600 bytes,
    into two of 392x100 with 65536 and 2 PS tasks), each a variable of its own
    that the setter places round-robin, as dtf-run --min_slice_size does. A
    PartitionedVariable reads as the concatenation of its partitions, so the
    model computes the same."""
    if min_slice_size <= 0:
        hid_w = tf1.Variable(tf1.truncated_normal(
            [IMAGE_PIXELS * IMAGE_PIXELS, hidden_units],
            stddev=1.0 / IMAGE_PIXELS), name="hid_w")
        hid_b = tf1.Variable(tf1.zeros([hidden_units]), name="hid_b")
        sm_w = tf1.Variable(tf1.truncated_normal(
            [hidden_units, 10], stddev=1.0 / np.sqrt(hidden_units)),
            name="sm_w")
        sm_b = tf1.Variable(tf1.zeros([10]), name="sm_b")
        return hid_w, hid_b, sm_w, sm_b
    partitioner = tf1.min_max_variable_partitioner(
        max_partitions=num_ps, min_slice_size=min_slice_size)
    with tf1.variable_scope(tf1.get_variable_scope(), partitioner=partitioner):
        hid_w = tf1.get_variable(
            "hid_w", [IMAGE_PIXELS * IMAGE_PIXELS, hidden_units],
            initializer=tf1.truncated_normal_initializer(stddev=1.0 / IMAGE_PIXELS))
        hid_b = tf1.get_variable("hid_b", [hidden_units],
                                 initializer=tf1.zeros_initializer())
        sm_w = tf1.get_variable(
            "sm_w", [hidden_units, 10],
            initializer=tf1.truncated_normal_initializer(
                stddev=1.0 / np.sqrt(hidden_units)))
        sm_b = tf1.get_variable("sm_b", [10], initializer=tf1.zeros_initializer())
    return hid_w, hid_b, sm_w, sm_b


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ps_hosts", required=True)
    p.add_argument("--worker_hosts", required=True)
    p.add_argument("--job_name", required=True)
    p.add_argument("--task_index", type=int, default=0)
    p.add_argument("--sync", action="store_true")
    p.add_argument("--train_steps", type=int, default=10000)
    p.add_argument("--batch_size", type=int, default=100)
    p.add_argument("--hidden_units", type=int, default=100)
    p.add_argument("--learning_rate", type=float, default=0.01)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--log_every", type=int, default=100)
    p.add_argument("--done_file", default="")
    p.add_argument("--intra_op_threads", type=int, default=1)
    p.add_argument("--min_slice_size", type=int, default=0,
                   help="partition variables bigger than this many bytes "
                        "along dimension 0 over the PS tasks, each partition "
                        "at least this big (min_max_variable_partitioner; "
                        "0 = whole variables, placed round-robin)")
    p.add_argument("--start_barrier", default="",
                   help="a directory: every worker waits there for the others "
                        "before its timed loop (TensorFlow's processes take "
                        "tens of seconds to start on a busy machine)")
    a = p.parse_args()

    ps_hosts = a.ps_hosts.split(",")
    worker_hosts = a.worker_hosts.split(",")
    num_workers = len(worker_hosts)
    cluster = tf1.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    config = tf1.ConfigProto(intra_op_parallelism_threads=a.intra_op_threads,
                             inter_op_parallelism_threads=a.intra_op_threads)
    server = tf1.train.Server(cluster, job_name=a.job_name,
                              task_index=a.task_index, config=config)
    if a.job_name == "ps":
        print("PS task %d serving at %s" % (a.task_index, ps_hosts[a.task_index]),
              flush=True)
        while not (a.done_file and os.path.exists(a.done_file)):
            time.sleep(0.05)
        print("PS task %d stopped" % a.task_index, flush=True)
        sys.stdout.flush()
        os._exit(0)

    is_chief = a.task_index == 0
    train_x, train_y = load_split(a.data, "train")
    test_x, test_y = load_split(a.data, "t10k")
    shard = Shard(train_x, train_y, a.task_index, num_workers)

    worker_device = "/job:worker/task:%d/cpu:0" % a.task_index
    with tf1.device(tf1.train.replica_device_setter(
            worker_device=worker_device, ps_device="/job:ps/cpu:0",
            cluster=cluster)):
        global_step = tf1.Variable(0, name="global_step", trainable=False,
                                   dtype=tf.int64)
        hid_w, hid_b, sm_w, sm_b = model_variables(a.hidden_units, a.min_slice_size,
                                                   len(ps_hosts))

        x = tf1.placeholder(tf.float32, [None, IMAGE_PIXELS * IMAGE_PIXELS])
        y_ = tf1.placeholder(tf.float32, [None, 10])
        hid = tf.nn.relu(tf1.nn.xw_plus_b(x, hid_w, hid_b))
        y = tf.nn.softmax(tf1.nn.xw_plus_b(hid, sm_w, sm_b))
        cross_entropy = -tf.reduce_sum(y_ * tf1.log(tf.clip_by_value(y, 1e-10, 1.0)))
        correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

        opt = tf1.train.AdamOptimizer(a.learning_rate)
        hooks = []
        if a.sync:
            opt = tf1.train.SyncReplicasOptimizer(
                opt, replicas_to_aggregate=num_workers,
                total_num_replicas=num_workers, name="mnist_sync_replicas")
            hooks.append(opt.make_session_run_hook(is_chief, num_tokens=0))
        train_step = opt.minimize(cross_entropy, global_step=global_step)

    sess_config = tf1.ConfigProto(
        allow_soft_placement=True, log_device_placement=False,
        device_filters=["/job:ps", "/job:worker/task:%d" % a.task_index],
        intra_op_parallelism_threads=a.intra_op_threads,
        inter_op_parallelism_threads=a.intra_op_threads)
    if is_chief:
        print("Worker 0: initializing the variables", flush=True)
    else:
        print("Worker %d: waiting for the chief to initialize" % a.task_index,
              flush=True)
    with tf1.train.MonitoredTrainingSession(
            master=server.target, is_chief=is_chief, hooks=hooks,
            config=sess_config, save_checkpoint_secs=None,
            save_summaries_steps=None, save_summaries_secs=None,
            log_step_count_steps=0) as sess:
        print("Worker %d: training to global step %d (%d workers, %s)" %
              (a.task_index, a.train_steps, num_workers,
               "sync" if a.sync else "async"), flush=True)
        if a.start_barrier:
            open(os.path.join(a.start_barrier, "ready%d" % a.task_index), "w").close()
            while len(os.listdir(a.start_barrier)) < num_workers:
                time.sleep(0.01)
        start = time.time()
        local_step = 0
        step = 0
        while True:
            bx, by = shard.next_batch(a.batch_size)
            _, step = sess.run([train_step, global_step],
                               feed_dict={x: bx, y_: by})
            local_step += 1
            if a.log_every > 0 and local_step % a.log_every == 0:
                print("%f: Worker %d: training step %d done (global step: %d)" %
                      (time.time(), a.task_index, local_step, step), flush=True)
            if step >= a.train_steps:
                break
        elapsed = time.time() - start
        print("Worker %d: training ended after %d local steps" %
              (a.task_index, local_step))
        print("Training elapsed time: %f s" % elapsed, flush=True)

        # Validation with the final parameters, in batches of 100 as dtf-run.
        # (Read through the raw session: the sync hooks must not run.)
        raw = sess._tf_sess() if hasattr(sess, "_tf_sess") else sess
        loss_sum = acc_sum = 0.0
        batches = test_x.shape[0] // a.batch_size
        for b in range(batches):
            s = slice(b * a.batch_size, (b + 1) * a.batch_size)
            l, acc = raw.run([cross_entropy, accuracy],
                             feed_dict={x: test_x[s], y_: test_y[s]})
            loss_sum += l
            acc_sum += acc
        final_step = raw.run(global_step)
        print("After %d training step(s), validation cross entropy = %g, "
              "validation accuracy = %g" %
              (final_step, loss_sum / batches, acc_sum / batches), flush=True)
    # Exit at once: in sync mode the chief's queue runners would otherwise
    # wait for workers that are gone.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
