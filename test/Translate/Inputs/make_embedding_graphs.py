#!/usr/bin/env python3
"""Writes the TF1 embedding-table GraphDefs the importer's lit tests read.

Each graph is a training graph as a tf.compat.v1 user writes it (the ops
TensorFlow 2.21's Python functions build, nothing edited by hand):

  embedding.pbtxt         tf.nn.embedding_lookup of an int64 placeholder on
                          one table, a sigmoid cross-entropy loss, Adagrad
  embedding_sparse.pbtxt  tf.nn.embedding_lookup_sparse of one table on a
                          SparseTensor input, each combiner (sum, mean,
                          sqrtn) without and with per-id weights, Adagrad
  embedding_partitioned_mod.pbtxt, embedding_partitioned_div.pbtxt
                          a table split by fixed_size_partitioner(2), looked
                          up with embedding_lookup and embedding_lookup_sparse
                          by partition_strategy "mod" or "div"
                          (DynamicPartition, Gather, DynamicStitch, Unique)
  wide_deep.pbtxt         a small Wide & Deep on the features of
                          examples/ctr/make_ctr_data.py --categorical=2: wide
                          tables and a linear term trained with FTRL, deep
                          embeddings (partitioned, "mod") and relu layers
                          with Adagrad, resource variables placed on 2 PS
                          tasks by replica_device_setter, the two train ops
                          grouped with the global step's increment

  build/bench-venv/bin/python test/Translate/Inputs/make_embedding_graphs.py
"""

import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "examples", "ctr"))
import make_ctr_data  # noqa: E402  (the vocabulary split of the CTR data)


def logistic_loss(logits, label):
    losses = tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits)
    return tf.reduce_mean(losses, name="loss")


def embedding():
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        ids = tf.placeholder(tf.int64, [None, 3], name="ids")
        label = tf.placeholder(tf.float32, [None, 1], name="label")
        table = tf.get_variable(
            "table", [20, 4], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1))
        rows = tf.nn.embedding_lookup(table, ids)
        logits = tf.reduce_sum(tf.reduce_sum(rows, axis=2), axis=1, keepdims=True)
        loss = logistic_loss(logits, label)
        tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=global_step)
        tf.sigmoid(logits, name="probabilities")
    return graph


def embedding_sparse():
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        ids = tf.sparse_placeholder(tf.int64, [None, None], name="ids")
        weights = tf.sparse_placeholder(tf.float32, [None, None], name="weights")
        label = tf.placeholder(tf.float32, [None, 1], name="label")
        table = tf.get_variable(
            "table", [20, 4], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1))
        combined = []
        for combiner in ["sum", "mean", "sqrtn"]:
            combined.append(tf.nn.embedding_lookup_sparse(
                table, ids, None, combiner=combiner, name=combiner))
            combined.append(tf.nn.embedding_lookup_sparse(
                table, ids, weights, combiner=combiner, name=combiner + "_weighted"))
        features = tf.concat(combined, axis=1)
        logits = tf.reduce_sum(features, axis=1, keepdims=True)
        loss = logistic_loss(logits, label)
        tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=global_step)
    return graph


def embedding_partitioned(strategy):
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        ids = tf.placeholder(tf.int64, [None, 2], name="ids")
        tags = tf.sparse_placeholder(tf.int64, [None, None], name="tags")
        label = tf.placeholder(tf.float32, [None, 1], name="label")
        # 21 rows in 2 shards: 11 and 10, the first shard one row more.
        table = tf.get_variable(
            "table", [21, 4], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1),
            partitioner=tf.fixed_size_partitioner(2))
        rows = tf.nn.embedding_lookup(table, ids, partition_strategy=strategy)
        tagged = tf.nn.embedding_lookup_sparse(
            table, tags, None, combiner="sqrtn", partition_strategy=strategy)
        logits = tf.reduce_sum(rows, axis=[1, 2]) + tf.reduce_sum(tagged, axis=1)
        loss = logistic_loss(tf.reshape(logits, [-1, 1]), label)
        tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=global_step)
    return graph


def wide_deep():
    """DNNLinearCombinedClassifier's structure, written out as a TF1 user
    would: the wide part (a weight per id of each feature and per dense
    feature, a bias) trained by FTRL, the deep part (embeddings combined by
    sqrtn, the dense features, relu layers) by Adagrad."""
    vocab = make_ctr_data.vocab_sizes(20000, 2)
    dense_features, dim, hidden = 13, 8, [16, 8]
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        global_step = tf.train.get_or_create_global_step()
        label = tf.placeholder(tf.float32, [None, 1], name="label")
        dense = tf.placeholder(tf.float32, [None, dense_features], name="dense")
        features = [tf.sparse_placeholder(tf.int64, [None, None], name="c%d" % k)
                    for k in range(len(vocab))]
        with tf.variable_scope("dnn", use_resource=True):
            embedded = []
            for k, (ids, rows) in enumerate(zip(features, vocab)):
                table = tf.get_variable(
                    "c%d/embedding" % k, [rows, dim],
                    initializer=tf.truncated_normal_initializer(stddev=0.25, seed=1 + k),
                    partitioner=tf.fixed_size_partitioner(2))
                embedded.append(tf.nn.embedding_lookup_sparse(
                    table, ids, None, combiner="sqrtn", partition_strategy="mod"))
            net = tf.concat(embedded + [dense], axis=1)
            for layer, units in enumerate(hidden + [1]):
                width = int(net.shape[1])
                kernel = tf.get_variable(
                    "hiddenlayer_%d/kernel" % layer if layer < len(hidden) else "logits/kernel",
                    [width, units],
                    initializer=tf.truncated_normal_initializer(
                        stddev=(2.0 / (width + units)) ** 0.5, seed=10 + layer))
                bias = tf.get_variable(
                    "hiddenlayer_%d/bias" % layer if layer < len(hidden) else "logits/bias",
                    [units], initializer=tf.zeros_initializer())
                net = tf.nn.bias_add(tf.matmul(net, kernel), bias)
                if layer < len(hidden):
                    net = tf.nn.relu(net)
            deep_logits = net
        with tf.variable_scope("linear", use_resource=True):
            wide = tf.matmul(dense, tf.get_variable(
                "dense/weights", [dense_features, 1], initializer=tf.zeros_initializer()))
            for k, (ids, rows) in enumerate(zip(features, vocab)):
                weights = tf.get_variable(
                    "c%d/weights" % k, [rows, 1], initializer=tf.zeros_initializer())
                wide = wide + tf.nn.embedding_lookup_sparse(weights, ids, None, combiner="sum")
            bias = tf.get_variable("bias", [1], initializer=tf.zeros_initializer())
            wide_logits = tf.nn.bias_add(wide, bias)
        logits = tf.add(wide_logits, deep_logits, name="logits")
        loss = logistic_loss(logits, label)
        dnn_train = tf.train.AdagradOptimizer(0.05).minimize(
            loss, var_list=tf.trainable_variables("dnn"))
        linear_train = tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.001).minimize(
            loss, var_list=tf.trainable_variables("linear"))
        with tf.control_dependencies([dnn_train, linear_train]):
            tf.assign_add(global_step, 1, name="train")
        tf.sigmoid(logits, name="probabilities")
    return graph


def main():
    graphs = {
        "embedding": embedding(),
        "embedding_sparse": embedding_sparse(),
        "embedding_partitioned_mod": embedding_partitioned("mod"),
        "embedding_partitioned_div": embedding_partitioned("div"),
        "wide_deep": wide_deep(),
    }
    for name, graph in graphs.items():
        graph_def = graph.as_graph_def()
        tf.io.write_graph(graph_def, HERE, name + ".pbtxt", as_text=True)
        print("wrote %s.pbtxt (%d nodes)" % (name, len(graph_def.node)))


if __name__ == "__main__":
    main()
