"""What the TF1 tutorial scripts of examples/tf share: reading Fashion-MNIST's
IDX files, the command line, writing the GraphDef, an in-process cluster to
train the graph as replica_device_setter placed it, the training and
evaluation loops (`main`).

Used by mlp_layers.py, cnn_batchnorm.py, lstm_rows.py and autoencoder.py;
not a script itself.
"""

import argparse
import gzip
import os
import socket
import time

import numpy as np

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """An IDX file (gzipped or not) as a numpy array of its dimensions."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        raise ValueError("%s: not an unsigned-byte IDX file" % path)
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * rank).reshape(dims)


def load_fashion_mnist(data_dir=DATA_DIR):
    """(train_images, train_labels, test_images, test_labels): images as
    float32 [N, 784] in [0, 1], labels as int64 [N]."""
    def find(stem):
        for name in (stem + ".gz", stem):
            if os.path.exists(os.path.join(data_dir, name)):
                return os.path.join(data_dir, name)
        raise FileNotFoundError("%s/%s(.gz)" % (data_dir, stem))

    def images(stem):
        return read_idx(find(stem)).reshape(-1, 784).astype(np.float32) / 255.0

    def labels(stem):
        return read_idx(find(stem)).astype(np.int64)

    return (images("train-images-idx3-ubyte"), labels("train-labels-idx1-ubyte"),
            images("t10k-images-idx3-ubyte"), labels("t10k-labels-idx1-ubyte"))


def parse_args(doc, train_steps, batch_size):
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--write_graph", metavar="DIR", default="",
                        help="write the training GraphDef as DIR/<name>.pbtxt and exit")
    parser.add_argument("--train_steps", type=int, default=train_steps)
    parser.add_argument("--batch_size", type=int, default=batch_size)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data_dir", default=DATA_DIR)
    parser.add_argument("--save_checkpoint", metavar="PREFIX", default="",
                        help="after training, save every variable with "
                             "tf.compat.v1.train.Saver at PREFIX (a TensorFlow V2 "
                             "checkpoint, for dtf-run --init_from_checkpoint) and "
                             "print the validation loss and metric as dtf-run "
                             "computes them")
    return parser.parse_args()


def write_graph(tf, graph, directory, name, fetches):
    """Writes graph as directory/name.pbtxt and prints its placeholders and
    the fetches (names of its loss, metric and train op) a worker runs."""
    graph_def = graph.as_graph_def()
    tf.io.write_graph(graph_def, directory, name + ".pbtxt", as_text=True)
    path = os.path.join(directory, name + ".pbtxt")
    print("wrote %s (%d nodes, %d bytes)" % (path, len(graph_def.node), os.path.getsize(path)))
    for node in graph_def.node:
        if node.op in ("Placeholder", "PlaceholderWithDefault"):
            shape = node.attr["shape"].shape
            dims = "unknown" if shape.unknown_rank else \
                "[%s]" % ", ".join("None" if d.size < 0 else str(d.size) for d in shape.dim)
            print("placeholder %s: %s %s %s" % (node.name, node.op,
                                                 tf.as_dtype(node.attr["dtype"].type).name, dims))
    for role, fetch in fetches:
        print("fetch %s: %s (%s)" % (role, getattr(fetch, "op", fetch).name,
                                     getattr(fetch, "op", fetch).type))


def batches(seed, size, *arrays):
    """Endless shuffled minibatches of the arrays (an epoch a permutation)."""
    rng = np.random.RandomState(seed)
    count = len(arrays[0])
    while True:
        order = rng.permutation(count)
        for start in range(0, count - size + 1, size):
            index = order[start:start + size]
            yield tuple(a[index] for a in arrays)


def evaluate(session, metric, feeds, arrays, batch=1000):
    """The mean of metric over arrays fed in batches (each placeholder in
    feeds gets the matching array), weighted by batch size."""
    total, count = 0.0, 0
    for start in range(0, len(arrays[0]), batch):
        feed = {p: a[start:start + batch] for p, a in zip(feeds, arrays)}
        size = len(arrays[0][start:start + batch])
        total += session.run(metric, feed) * size
        count += size
    return total / count


def validate_as_dtf_run(session, fetches, feeds, arrays, batch):
    """The means of fetches over arrays as dtf-run's validation computes
    them: whole batches of `batch` examples in order (the rest left out),
    each fetch's mean over the batches."""
    sums = [0.0] * len(fetches)
    batches = len(arrays[0]) // batch
    for index in range(batches):
        feed = {p: a[index * batch:(index + 1) * batch] for p, a in zip(feeds, arrays)}
        for position, value in enumerate(session.run(fetches, feed)):
            sums[position] += float(value)
    return [total / batches for total in sums]


def free_ports(count):
    ports, sockets = [], []
    for _ in range(count):
        s = socket.socket()
        s.bind(("localhost", 0))
        sockets.append(s)
        ports.append(s.getsockname()[1])
    for s in sockets:
        s.close()
    return ports


def cluster_session(tf, graph, ps_tasks=2):
    """A session on an in-process cluster of ps_tasks PS tasks and one
    worker (gRPC servers on localhost), so the graph runs as placed by
    replica_device_setter: its variables on /job:ps, the rest on
    /job:worker."""
    ports = free_ports(ps_tasks + 1)
    cluster = tf.train.ClusterSpec({
        "ps": ["localhost:%d" % p for p in ports[:ps_tasks]],
        "worker": ["localhost:%d" % ports[ps_tasks]]})
    servers = [tf.distribute.Server(cluster, job_name="ps", task_index=i)
               for i in range(ps_tasks)]
    worker = tf.distribute.Server(cluster, job_name="worker", task_index=0)
    session = tf.Session(worker.target, graph=graph)
    session.servers = servers + [worker]  # kept alive with the session
    return session


class Clock:
    def __init__(self):
        self.start = time.time()

    def seconds(self):
        return time.time() - self.start


def main(tf, doc, name, build, train_steps, batch_size, metric, labeled=True,
         example_shape=None, log_every=1000):
    """The command line of each example: write its GraphDef (--write_graph),
    or train it in TensorFlow and print `test_metric <metric> <value>`.

    `build(seed)` returns the graph and its named tensors: `x`, `y` where
    `labeled`, `training` where the model has a training flag (fed True in
    training steps only), `loss`, the metric, `train_op` and `init`.
    `example_shape` reshapes each example (sequences of rows)."""
    args = parse_args(doc, train_steps, batch_size)
    graph, m = build(args.seed)
    if args.write_graph:
        write_graph(tf, graph, args.write_graph, name,
                    [("loss", m["loss"]), ("metric", m[metric]),
                     ("train", m["train_op"]), ("init", m["init"])])
        return
    train_x, train_y, test_x, test_y = load_fashion_mnist(args.data_dir)
    if example_shape:
        train_x = train_x.reshape((-1,) + tuple(example_shape))
        test_x = test_x.reshape((-1,) + tuple(example_shape))
    inputs = [m["x"], m["y"]] if labeled else [m["x"]]
    train_arrays = [train_x, train_y] if labeled else [train_x]
    test_arrays = [test_x, test_y] if labeled else [test_x]
    clock = Clock()
    with cluster_session(tf, graph) as sess:
        sess.run(m["init"])
        data = batches(args.seed, args.batch_size, *train_arrays)
        for step in range(1, args.train_steps + 1):
            feed = dict(zip(inputs, next(data)))
            if "training" in m:
                feed[m["training"]] = True
            _, loss = sess.run([m["train_op"], m["loss"]], feed)
            if step % log_every == 0 or step == args.train_steps:
                print("step %d loss %.5f (%.0f s)" % (step, loss, clock.seconds()))
        value = evaluate(sess, m[metric], inputs, test_arrays)
        if args.save_checkpoint:
            with graph.as_default():
                saver = tf.train.Saver()
            path = saver.save(sess, args.save_checkpoint)
            print("saved checkpoint %s" % path)
            loss, metric_value = validate_as_dtf_run(
                sess, [m["loss"], m[metric]], inputs, test_arrays, args.batch_size)
            print("validation_as_dtf_run loss %.9g %s %.9g" % (loss, metric, metric_value))
    print("train and test: %.1f s" % clock.seconds())
    print("test_metric %s %.5f" % (metric, value))
