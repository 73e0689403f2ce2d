#!/usr/bin/env python3
"""The TensorFlow peer of examples/ctr/make_wide_deep.py: the same Wide & Deep
CTR model in tf.compat.v1, trained by TensorFlow's own parameter servers on
the TFRecord files of examples/ctr/make_ctr_data.py.

Written as a TF1 user writes it: one process per task of a ClusterSpec
(tf.distribute.Server; a PS task serves until --done_file exists, as
bench/tf_replica.py), variables placed by replica_device_setter, each table
a tf.compat.v1.get_variable, split by rows with fixed_size_partitioner
(--shards) into partitions "NAME/part_K" that the setter places
round-robin, looked up with tf.nn.embedding_lookup_sparse (combiner sqrtn
for the deep embeddings, sum for the wide weights, partition_strategy
--strategy) on tf.io.VarLenFeature inputs parsed with parse_example from
the same files with tf.data (Dataset.shard by worker, as dtf-run's workers
take every N-th example; shuffled in a buffer of --shuffle_buffer examples,
where dtf-run permutes its whole shard in memory: the examples are
independent draws, so the order matters little; batches of --batch_size).

The model, variable by variable as make_wide_deep.py names DTF's:
c0/embedding .. (truncated normal, stddev 1/sqrt(dim)) combined by sqrtn,
concatenated with the dense features, dnn/hiddenlayer_K/kernel and /bias
(truncated normal of stddev sqrt(2 / (fan_in + fan_out)), zeros) through
relu to dnn/logits/kernel and /bias; the wide part c0/weights .. and the
crosses' x0/weights .. (zeros) summed per example, linear/dense/weights and
linear/bias. Mean sigmoid cross-entropy. As DNNLinearCombinedClassifier
trains it: FtrlOptimizer (learning_rate min(0.2, 1/sqrt(linear columns)),
power -0.5, initial accumulator 0.1, no L1/L2) minimizes over the linear
variables, AdagradOptimizer(--learning_rate) over the rest, the two train
ops grouped before the global step's increment; --linear_optimizer=adagrad
trains everything with the one Adagrad. Asynchronous between-graph
replication under MonitoredTrainingSession.

Prints the lines of dtf-run so that the benchmark parses both alike:

  <time>: Worker i: training step N done (global step: G)
  Worker i: training ended after N local steps
  Training elapsed time: X s
  Worker i: R global steps/s over its timed window (global step G)
  After G training step(s), validation loss = L, validation AUC = A, validation log loss = LL

The timed window starts when every worker has its initialized session
(--start_barrier), as dtf-run's starts after the chief's initialization;
it ends when the global step reaches --train_steps. Then the chief
evaluates the whole test file with tf.compat.v1.metrics.auc (200
thresholds, as dtf-run's streaming AUC) and the mean log loss of the
clipped probabilities (eps 1e-7, as dtf-run's).

--write_graphdef=PATH writes the training graph instead (no cluster, no
data: label, dense and each feature as placeholders, the features as
tf.compat.v1.sparse_placeholder; fetches "loss", "probabilities", the
train op "train"), text when PATH ends in .pbtxt, for
dtf-translate --import-graphdef.

    build/bench-venv/bin/python bench/tf_wide_deep.py --meta=DATA/meta.json \\
        --ps_hosts=localhost:2222,localhost:2223 \\
        --worker_hosts=localhost:2224,localhost:2225 --job_name=worker --task_index=0
"""

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "ctr"))
import make_ctr_data  # noqa: E402  (the data's vocabulary split)
import make_wide_deep  # noqa: E402  (the linear part's learning rate)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

# Clipping of the probabilities in the log loss, as dtf-run's
# (runtime/core/Metrics.h, tf.keras.backend.epsilon()).
LOG_LOSS_EPSILON = 1e-7


class Config:
    """The model's shape and training, from the flags and the data's meta.json."""

    def __init__(self, args):
        if args.meta:
            with open(args.meta) as f:
                meta = json.load(f)
            features = meta["features"]
            self.vocab = [feature["vocab_size"] for feature in features["categorical"]]
            self.dense = features["dense"]["values"]
            self.crosses = [(cross["name"], cross["buckets"])
                            for cross in features.get("crosses", [])]
            self.train_files = meta["train"]["files"]
            self.test_files = meta["test"]["files"]
        else:  # make_ctr_data.py's defaults, as make_wide_deep.py assumes
            self.vocab = make_ctr_data.vocab_sizes(1000000, 8)
            self.dense = 13
            self.crosses = [("x%d" % k, 100000) for k in range(3)]
            self.train_files = self.test_files = None
        if args.total_rows:
            self.vocab = make_ctr_data.vocab_sizes(args.total_rows, len(self.vocab))
        self.categorical = ["c%d" % k for k in range(len(self.vocab))]
        self.dim = args.dim
        self.hidden = [int(units) for units in args.hidden.split(",") if units]
        self.learning_rate = args.learning_rate
        self.linear_optimizer = args.linear_optimizer
        self.shards = args.shards
        self.strategy = args.strategy
        self.linear_columns = len(self.vocab) + len(self.crosses) + (1 if self.dense else 0)


def create_variables(config):
    """Every variable of the model, by make_wide_deep.py's names: a dict of
    name to variable (a PartitionedVariable for a table with --shards > 1),
    a dict of name to the variables it is made of (its partitions, or
    itself) and the names of the linear part's."""
    partitioner = (tf1.fixed_size_partitioner(config.shards) if config.shards > 1 else None)
    zeros = tf1.zeros_initializer()
    variables, parts, linear = {}, {}, []

    def table(name, rows, width, initializer):
        variables[name] = tf1.get_variable(name, [rows, width], partitioner=partitioner,
                                           initializer=initializer)
        parts[name] = list(variables[name]) if partitioner else [variables[name]]

    seed = 1
    for name, rows in zip(config.categorical, config.vocab):
        table(name + "/embedding", rows, config.dim,
              tf1.truncated_normal_initializer(stddev=1.0 / math.sqrt(config.dim), seed=seed))
        seed += 1
        table(name + "/weights", rows, 1, zeros)
        linear.append(name + "/weights")
    for name, buckets in config.crosses:
        table(name + "/weights", buckets, 1, zeros)
        linear.append(name + "/weights")
    width = config.dim * len(config.vocab) + config.dense
    for layer, units in enumerate(config.hidden + [1]):
        scope = "dnn/hiddenlayer_%d" % layer if layer < len(config.hidden) else "dnn/logits"
        variables[scope + "/kernel"] = tf1.get_variable(
            scope + "/kernel", [width, units],
            initializer=tf1.truncated_normal_initializer(
                stddev=math.sqrt(2.0 / (width + units)), seed=seed))
        seed += 1
        variables[scope + "/bias"] = tf1.get_variable(scope + "/bias", [units],
                                                      initializer=zeros)
        width = units
    variables["linear/dense/weights"] = tf1.get_variable(
        "linear/dense/weights", [config.dense, 1], initializer=zeros)
    variables["linear/bias"] = tf1.get_variable("linear/bias", [1], initializer=zeros)
    linear += ["linear/dense/weights", "linear/bias"]
    for name, variable in variables.items():
        parts.setdefault(name, [variable])
    return variables, parts, linear


def model_logits(features, variables, config):
    """The logits [B, 1] of a batch: features["dense"] (f32 [B, dense]) and a
    SparseTensor of int64 ids per categorical feature and cross."""
    deep = [tf1.nn.embedding_lookup_sparse(variables[name + "/embedding"], features[name], None,
                                          combiner="sqrtn", partition_strategy=config.strategy)
            for name in config.categorical]
    net = tf.concat(deep + [features["dense"]], axis=1)
    for layer in range(len(config.hidden) + 1):
        scope = "dnn/hiddenlayer_%d" % layer if layer < len(config.hidden) else "dnn/logits"
        net = tf.nn.bias_add(tf.matmul(net, variables[scope + "/kernel"]),
                             variables[scope + "/bias"])
        if layer < len(config.hidden):
            net = tf.nn.relu(net)
    wide = tf.matmul(features["dense"], variables["linear/dense/weights"])
    for name in config.categorical + [name for name, _ in config.crosses]:
        wide += tf1.nn.embedding_lookup_sparse(variables[name + "/weights"], features[name], None,
                                              combiner="sum", partition_strategy=config.strategy)
    wide = tf.nn.bias_add(wide, variables["linear/bias"])
    return tf.add(wide, net, name="logits")


def training_graph(features, config):
    """The variables, the loss, the probabilities and the train op of a batch
    of `features` (label f32 [B, 1] too), as DNNLinearCombinedClassifier
    builds them: one optimizer per part, both grouped before the global
    step's increment."""
    global_step = tf1.train.get_or_create_global_step()
    variables, parts, linear = create_variables(config)
    logits = model_logits(features, variables, config)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=features["label"], logits=logits), name="loss")
    probabilities = tf.sigmoid(logits, name="probabilities")
    linear_vars = [v for name in linear for v in parts[name]]
    dnn_vars = [v for name in variables if name not in linear for v in parts[name]]
    deep_optimizer = tf1.train.AdagradOptimizer(config.learning_rate)
    if config.linear_optimizer == "ftrl":
        linear_optimizer = tf1.train.FtrlOptimizer(
            make_wide_deep.linear_learning_rate(config.linear_columns),
            learning_rate_power=-0.5, initial_accumulator_value=0.1,
            l1_regularization_strength=0.0, l2_regularization_strength=0.0)
        train_ops = [deep_optimizer.minimize(loss, var_list=dnn_vars),
                     linear_optimizer.minimize(loss, var_list=linear_vars)]
    else:
        train_ops = [deep_optimizer.minimize(loss, var_list=dnn_vars + linear_vars)]
    # One op named "train" (a resource variable's assign_add ignores a name).
    with tf.control_dependencies(train_ops):
        train = tf.group(tf1.assign_add(global_step, 1), name="train")
    return {"variables": variables, "loss": loss, "probabilities": probabilities,
            "train": train, "global_step": global_step}


def feature_spec(config):
    spec = {"label": tf.io.FixedLenFeature([1], tf.int64),
            "dense": tf.io.FixedLenFeature([config.dense], tf.float32)}
    for name in config.categorical + [name for name, _ in config.crosses]:
        spec[name] = tf.io.VarLenFeature(tf.int64)
    return spec


def parse(config):
    spec = feature_spec(config)

    def parse_batch(serialized):
        features = tf.io.parse_example(serialized, spec)
        features["label"] = tf.cast(features["label"], tf.float32)
        return features
    return parse_batch


def write_graphdef(path, config, ps_tasks):
    """The training graph with placeholders for inputs, as a TF1 script
    exports it for serving or import."""
    graph = tf.Graph()
    with graph.as_default(), tf1.device(tf1.train.replica_device_setter(
            ps_tasks=ps_tasks, worker_device="/job:worker")):
        features = {"label": tf1.placeholder(tf.float32, [None, 1], name="label"),
                    "dense": tf1.placeholder(tf.float32, [None, config.dense], name="dense")}
        for name in config.categorical + [name for name, _ in config.crosses]:
            features[name] = tf1.sparse_placeholder(tf.int64, [None, None], name=name)
        training_graph(features, config)
    graph_def = graph.as_graph_def()
    directory, name = os.path.split(os.path.abspath(path))
    tf.io.write_graph(graph_def, directory, name, as_text=path.endswith(".pbtxt"))
    print("wrote %s (%d nodes)" % (path, len(graph_def.node)))


def serve_ps(server, args, ps_hosts):
    del server  # serves until the process exits
    print("PS task %d serving at %s" % (args.task_index, ps_hosts[args.task_index]), flush=True)
    while not (args.done_file and os.path.exists(args.done_file)):
        time.sleep(0.05)
    print("PS task %d stopped" % args.task_index, flush=True)
    os._exit(0)


def evaluate(sess, model):
    """AUC and log loss of the whole test file, on the variables' current
    values: (validation loss, AUC, log loss). The metrics' local variables
    are zero from the session's start."""
    sess.run(model["eval_init"])
    updates = [model["auc"][1], model["log_loss"][1], model["eval_loss"][1]]
    while True:
        try:
            sess.run(updates)
        except tf.errors.OutOfRangeError:
            break
    auc, log_loss, loss = sess.run([model["auc"][0], model["log_loss"][0],
                                    model["eval_loss"][0]])
    return loss, auc, log_loss


def train_worker(server, cluster, config, args, num_workers):
    is_chief = args.task_index == 0
    worker_device = "/job:worker/task:%d" % args.task_index
    with tf1.device(tf1.train.replica_device_setter(
            worker_device=worker_device, ps_device="/job:ps", cluster=cluster)):
        files = tf.data.Dataset.list_files(config.train_files, shuffle=False)
        train = (tf.data.TFRecordDataset(files)
                 .shard(num_workers, args.task_index)
                 .shuffle(args.shuffle_buffer, seed=1000 + args.task_index)
                 .repeat()
                 .batch(args.batch_size, drop_remainder=True)
                 .map(parse(config))
                 .prefetch(1))
        features = tf1.data.make_one_shot_iterator(train).get_next()
        model = training_graph(features, config)
    # The evaluation's iterator and metric variables stay on this worker.
    with tf1.device(worker_device):
        test_files = tf.data.Dataset.list_files(config.test_files, shuffle=False)
        test = (tf.data.TFRecordDataset(test_files)
                .batch(args.batch_size)
                .map(parse(config)))
        iterator = tf1.data.make_initializable_iterator(test)
        eval_features = iterator.get_next()
        eval_logits = model_logits(eval_features, model["variables"], config)
        eval_probabilities = tf.sigmoid(eval_logits)
        clipped = tf.clip_by_value(eval_probabilities, LOG_LOSS_EPSILON, 1.0 - LOG_LOSS_EPSILON)
        label = eval_features["label"]
        model["eval_init"] = iterator.initializer
        model["auc"] = tf1.metrics.auc(label, eval_probabilities, num_thresholds=200)
        model["log_loss"] = tf1.metrics.mean(
            -(label * tf1.log(clipped) + (1.0 - label) * tf1.log(1.0 - clipped)))
        model["eval_loss"] = tf1.metrics.mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=label, logits=eval_logits))

    threads = args.intra_op_threads
    sess_config = tf1.ConfigProto(
        allow_soft_placement=True,
        device_filters=["/job:ps", "/job:worker/task:%d" % args.task_index],
        intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    print("Worker %d: %s" % (args.task_index, "initializing the variables" if is_chief
                             else "waiting for the chief to initialize"), flush=True)
    with tf1.train.MonitoredTrainingSession(
            master=server.target, is_chief=is_chief, config=sess_config,
            save_checkpoint_secs=None, save_summaries_steps=None,
            save_summaries_secs=None, log_step_count_steps=0) as sess:
        print("Worker %d: training to global step %d (%d workers, async, batches of %d)"
              % (args.task_index, args.train_steps, num_workers, args.batch_size), flush=True)
        if args.start_barrier:
            open(os.path.join(args.start_barrier, "ready%d" % args.task_index), "w").close()
            while len(os.listdir(args.start_barrier)) < num_workers:
                time.sleep(0.01)
        start = time.time()
        local_step = step = 0
        while step < args.train_steps:
            _, step = sess.run([model["train"], model["global_step"]])
            local_step += 1
            if args.log_every > 0 and local_step % args.log_every == 0:
                print("%f: Worker %d: training step %d done (global step: %d)"
                      % (time.time(), args.task_index, local_step, step), flush=True)
        elapsed = time.time() - start
        print("Worker %d: training ended after %d local steps" % (args.task_index, local_step))
        print("Training elapsed time: %f s" % elapsed, flush=True)
        print("Worker %d: %.1f global steps/s over its timed window (global step %d)"
              % (args.task_index, step / elapsed, step), flush=True)
        if is_chief:
            raw = sess._tf_sess() if hasattr(sess, "_tf_sess") else sess
            loss, auc, log_loss = evaluate(raw, model)
            print("After %d training step(s), validation loss = %g, validation AUC = %g, "
                  "validation log loss = %g" % (raw.run(model["global_step"]), loss, auc,
                                                log_loss), flush=True)
    sys.stdout.flush()
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--meta", help="meta.json of make_ctr_data.py (the data and its features)")
    parser.add_argument("--ps_hosts", default="")
    parser.add_argument("--worker_hosts", default="")
    parser.add_argument("--job_name", choices=["ps", "worker"])
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--train_steps", type=int, default=1000, help="the global step to stop at")
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--dim", type=int, default=16, help="embedding width")
    parser.add_argument("--hidden", default="64,32", help="units of the relu layers")
    parser.add_argument("--learning_rate", type=float, default=0.05,
                        help="the deep part's Adagrad learning rate")
    parser.add_argument("--linear_optimizer", choices=["ftrl", "adagrad"], default="ftrl")
    parser.add_argument("--total_rows", type=int, default=0,
                        help="size the tables for this many rows in all, as make_wide_deep.py")
    parser.add_argument("--shards", type=int, default=1,
                        help="split each table by rows into this many partitions")
    parser.add_argument("--strategy", choices=["div", "mod"], default="mod")
    parser.add_argument("--shuffle_buffer", type=int, default=10000)
    parser.add_argument("--log_every", type=int, default=100)
    parser.add_argument("--intra_op_threads", type=int, default=1,
                        help="intra- and inter-op threads of each session")
    parser.add_argument("--done_file", default="",
                        help="a PS task serves until this file exists")
    parser.add_argument("--start_barrier", default="",
                        help="a directory where the workers wait for each other "
                             "before the timed window")
    parser.add_argument("--write_graphdef", default="",
                        help="write the training graph to this file and exit")
    args = parser.parse_args()
    if args.shards < 1:
        sys.exit("--shards: must be at least 1")
    config = Config(args)

    ps_hosts = [h for h in args.ps_hosts.split(",") if h]
    worker_hosts = [h for h in args.worker_hosts.split(",") if h]
    if args.write_graphdef:
        write_graphdef(args.write_graphdef, config, len(ps_hosts) or 2)
        return
    if not ps_hosts or not worker_hosts or not args.job_name:
        sys.exit("--ps_hosts, --worker_hosts and --job_name are needed to train "
                 "(or --write_graphdef)")
    if args.job_name == "worker" and not args.meta:
        sys.exit("--meta: a worker needs the data's meta.json")
    cluster = tf1.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    threads = args.intra_op_threads
    server = tf1.train.Server(cluster, job_name=args.job_name, task_index=args.task_index,
                              config=tf1.ConfigProto(intra_op_parallelism_threads=threads,
                                                     inter_op_parallelism_threads=threads))
    if args.job_name == "ps":
        serve_ps(server, args, ps_hosts)
    train_worker(server, cluster, config, args, len(worker_hosts))


if __name__ == "__main__":
    main()
