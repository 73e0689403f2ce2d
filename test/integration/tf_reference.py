"""TensorFlow's side of graphdef.py's comparison (run with TensorFlow's
Python): imports a GraphDef, initializes its variables as the graph's own
initializers do, and evaluates the logits and the loss on the first 100
test images of Fashion-MNIST. Writes to --out: the batch (x.npy, y_.npy),
the variables (variables.npz) and TensorFlow's results (tf-loss.bin,
tf-logits.bin, raw float32)."""

import argparse
import gzip
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
DATA = "/usr/share/datasets/fashion-mnist"


def idx(name):
    with gzip.open(os.path.join(DATA, name + ".gz"), "rb") as f:
        data = f.read()
    rank = data[3]
    dims = np.frombuffer(data[4:4 + 4 * rank], dtype=">u4")
    return np.frombuffer(data[4 + 4 * rank:], dtype=np.uint8).reshape(dims)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graph", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    graph_def = tf.GraphDef()
    with open(args.graph) as f:
        from google.protobuf import text_format
        text_format.Parse(f.read(), graph_def)
    x = (idx("t10k-images-idx3-ubyte")[:100].reshape(100, 784) / 255.0).astype(np.float32)
    y_ = np.eye(10, dtype=np.float32)[idx("t10k-labels-idx1-ubyte")[:100]]
    graph = tf.Graph()
    with graph.as_default():
        # The devices of a cluster are not this process's: run on its CPU.
        for node in graph_def.node:
            node.device = ""
        tf.import_graph_def(graph_def, name="")
        variables = [n.name for n in graph_def.node if n.op in ("VariableV2", "VarHandleOp")]
        with tf.Session(graph=graph) as session:
            session.run([graph.get_operation_by_name(v + "/Assign") for v in variables])
            loss, logits = session.run(["cross_entropy:0", "xw_plus_b_1:0"],
                                       {"x:0": x, "y_:0": y_})
            values = {v: session.run(v + ":0") for v in variables
                      if graph.get_operation_by_name(v).type == "VariableV2"}
    np.save(os.path.join(args.out, "x.npy"), x)
    np.save(os.path.join(args.out, "y_.npy"), y_)
    np.savez(os.path.join(args.out, "variables.npz"), **values)
    np.asarray(loss, dtype=np.float32).tofile(os.path.join(args.out, "tf-loss.bin"))
    np.asarray(logits, dtype=np.float32).tofile(os.path.join(args.out, "tf-logits.bin"))
    print("TensorFlow %s: loss %.6f on %d examples" % (tf.__version__, loss, len(x)))


if __name__ == "__main__":
    main()
