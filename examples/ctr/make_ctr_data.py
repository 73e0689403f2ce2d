#!/usr/bin/env python3
"""Writes synthetic click-through-rate data as TFRecord shards of tf.train.Example.

Criteo-like data for a Wide & Deep model with sparse embeddings: one Example
per ad impression, with the features

  label   int64_list: 1 (clicked) or 0
  dense   float_list: --dense_features values, integer counts (heavy-tailed,
          many zeros, as Criteo's I1..I13) as log(1 + count) / log(65536),
          clipped to [0, 1]
  c0..cN  int64_list: --categorical multi-hot features, each 1 to --max_ids
          distinct ids of [0, vocab) drawn Zipf-like (a few ids are common,
          most rare), the popular ids scattered over [0, vocab); the
          vocabularies' sizes halve from c0 to cN and sum to --total_rows
  x0..xM  int64_list: --crosses hashed crosses, xK = c(2K) x c(2K+1) (the
          default 3 are the pairs the hidden model crosses: x0 = c0 x c1,
          x1 = c2 x c3, x2 = c4 x c5): one id of [0, --cross_buckets) per
          pair of an id of c(2K) and an id of c(2K+1) (with
          --cross_buckets=0 a raw 63-bit hash, which only a dynamic table,
          make_wide_deep.py --dynamic_wide, can hold), as TensorFlow's
          crossed_column(hash_bucket_size=--cross_buckets) produces them
          (in the pairs' order, collisions kept), hashed with mix() below
          (not TensorFlow's FingerprintCat64: the ids differ from TF's, the
          structure is the same)

written to <out>/train-0000K-of-0000N.tfrecord[.gz|.zlib] and
<out>/test-00000-of-00001.tfrecord[.gz|.zlib] (--compression: none, the
default, gzip or zlib, each file compressed as a whole as TensorFlow's
TFRecordOptions writes it), with <out>/meta.json (the features,
vocabulary sizes, L = --max_ids, counts, the bindings below) and
<out>/inputs.txt (the same bindings for dtf-run --input_file). The crosses
are precomputed in the data rather than computed in the graph
(TensorFlow's SparseCrossHashed op behind crossed_column): both systems
read the same cross ids from the files, neither spends step time on
hashing, and neither needs a hash op of the other's. DTF reads them with

  dtf-run --batch_size=256 \\
    --input=label=tfrecord:<out>/train-* \\
    --input=dense=tfrecord:<out>/train-* \\
    --input=c0=tfrecord:<out>/train-*,varlen ... --input=c7=tfrecord:<out>/train-*,varlen \\
    --input=x0=tfrecord:<out>/train-*,varlen ... --input=x2=tfrecord:<out>/train-*,varlen \\
    --eval_input=label=tfrecord:<out>/test-* ... model.mlir

for placeholders label (f32 [B] or i64 [B]), dense (f32 [B, 13]), c0..c7
(i64 [B, 5], each example's ids padded with -1) and x0..x2 (i64 [B, 25]),
and TensorFlow with tf.io.VarLenFeature(tf.int64) for c0..c7 and x0..x2.

The label is drawn from a hidden logistic model, the same for every shard:
every (feature, id) has a weight and a factor computed from a hash of
(seed, feature, id), never stored (a vocabulary of 10M ids costs no
memory); the logit adds the features' weights (summed over an example's
ids / sqrt(count)), a linear term of the dense values and products of
factors of a few pairs of features (crosses c0 x c1, c2 x c3, ...), scaled
so that the hidden model's own AUC is about 0.78 and the base CTR about
--ctr (0.25), its offset calibrated on a sample before the shards are
written. The run prints the test split's CTR and the AUC of the hidden
probabilities on it (the best any model can do). Everything is
deterministic by --seed, whatever --jobs.

Only the standard library is needed (examples/tfrecord_writer.py frames the
records); shards are written by --jobs processes, each file under a
temporary name renamed when complete.
"""

import argparse
import json
import math
import multiprocessing
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tfrecord_writer import COMPRESSIONS, SUFFIXES, field, float_feature, \
    int64_feature, varint, write_records  # noqa: E402

MASK = 0xFFFFFFFFFFFFFFFF
# The logit's scale: for a normal score, sigmoid(b + 1.25 z) with a base
# rate of 0.25 separates clicks with an AUC of 0.78.
LOGIT_SCALE = 1.25
# The shares of the score's variance: categorical weights, dense, crosses.
SHARE_CATEGORICAL, SHARE_DENSE, SHARE_CROSS = 0.8, 0.4, 0.45
LOG_CAP = math.log(65536.0)
# Ids of rank below this are looked up in a table, not hashed.
CACHED_RANKS = 4096
CALIBRATION_EXAMPLES = 20000
# The key of the crosses' hash: a cross's ids depend on the ids crossed
# only, not on --seed, as TensorFlow's crossed_column's do.
CROSS_KEY = 0x43524F5353  # "CROSS"
# Raw hashed ids (--cross_buckets=0) keep 63 bits: int64 ids >= 0.
RAW_HASH_MASK = (1 << 63) - 1


def mix(x):
    """splitmix64's finalizer: 64 well-mixed bits of x."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def hash_parts(parts):
    """One hash of a tuple of integers."""
    h = 0
    for part in parts:
        h = mix(h ^ (part & MASK))
    return h


def cross_pairs(crosses):
    """The features xK crosses: (2K, 2K + 1) for K < crosses."""
    return [(2 * k, 2 * k + 1) for k in range(crosses)]


def cross_ids(cross, first, second, buckets):
    """The ids of cross number `cross` of two features' ids: one per pair,
    first's ids outermost, as TensorFlow's SparseCrossHashed orders them;
    in [0, buckets), or raw 63-bit hashes with buckets 0 (for a dynamic
    table, which needs no vocabulary)."""
    ids = []
    for a in first:
        key = mix(mix(CROSS_KEY ^ cross) ^ a)
        if buckets:
            ids.extend(mix(key ^ b) % buckets for b in second)
        else:
            ids.extend(mix(key ^ b) & RAW_HASH_MASK for b in second)
    return ids


def unit(bits):
    """32 bits as a value of [-sqrt(3), sqrt(3)]: mean 0, variance 1."""
    return (bits / 2147483648.0 - 1.0) * 1.7320508075688772


def vocab_sizes(total_rows, categorical):
    """Sizes halving from c0 on, summing to total_rows, each at least 1."""
    shares = [0.5 ** i for i in range(categorical)]
    sizes = [max(1, int(total_rows * s / sum(shares))) for s in shares]
    sizes[0] += total_rows - sum(sizes)
    if sizes[0] < 1:
        sys.exit("--total_rows=%d: too few for %d features" % (total_rows, categorical))
    return sizes


class Model:
    """The hidden model and the features' distributions, from the flags."""

    def __init__(self, params):
        self.params = params
        seed = params["seed"]
        self.seed_key = mix(seed & MASK)
        self.vocab = params["vocab"]
        self.max_ids = params["max_ids"]
        self.zipf = params["zipf"]
        n_cat, n_dense = len(self.vocab), params["dense_features"]
        key = lambda *parts: mix(self.seed_key ^ mix(hash_parts(parts)))  # noqa: E731
        self.feature_key = [key(1, f) for f in range(n_cat)]
        # Each feature's importance, in [0.5, 1.5].
        self.importance = [0.5 + (key(2, f) >> 32) / 4294967296.0 for f in range(n_cat)]
        # Ranks are scattered over [0, vocab) by rank * a + b mod vocab.
        self.scatter = []
        for f, size in enumerate(self.vocab):
            a = key(3, f) % size | 1
            while math.gcd(a, size) != 1:
                a += 1
            self.scatter.append((a % size if size > 1 else 0, key(4, f) % size))
        # Inverse CDF of the density (r + 1)^-s over ranks r of [0, vocab).
        self.zipf_c = [1.0 - (size + 1.0) ** (1.0 - self.zipf) for size in self.vocab]
        self.zipf_e = 1.0 / (1.0 - self.zipf)
        self.most_ids = [min(self.max_ids, size) for size in self.vocab]
        self.inverse_sqrt = [0.0] + [1.0 / math.sqrt(k) for k in range(1, self.max_ids + 1)]
        # The most common ranks' (id, weight, factor, varint of id).
        self.table = [[self._hidden(f, r) for r in range(min(CACHED_RANKS, size))]
                      for f, size in enumerate(self.vocab)]
        # Dense counts: exp(mu + sigma * N(0, 1)), floored.
        self.dense_mu = [-0.5 + 3.5 * (key(5, j) >> 32) / 4294967296.0 for j in range(n_dense)]
        self.dense_sigma = [0.5 + 1.3 * (key(6, j) >> 32) / 4294967296.0 for j in range(n_dense)]
        self.dense_weight = [unit(key(7, j) >> 32) for j in range(n_dense)]
        self.crosses = [(2 * i, 2 * i + 1) for i in range(min(3, n_cat // 2))]
        self.importance_norm = math.sqrt(sum(a * a for a in self.importance)) or 1.0
        self.dense_norm = math.sqrt(sum(c * c for c in self.dense_weight)) or 1.0
        self.cross_norm = math.sqrt(len(self.crosses)) or 1.0
        calibration = params.get("calibration")
        if calibration:
            (self.dense_mean, self.dense_std, self.score_mean, self.score_std,
             self.offset) = calibration

    def _hidden(self, f, rank):
        size = self.vocab[f]
        a, b = self.scatter[f]
        feature_id = (rank * a + b) % size
        h = mix(self.feature_key[f] ^ feature_id)
        return (feature_id, unit(h & 0xFFFFFFFF), unit(h >> 32), varint(feature_id))

    def draw(self, rng):
        """One example's features: ids per feature (with their weights and
        factors), dense values; and its score's parts."""
        random_ = rng.random
        gauss = rng.gauss
        categorical = []
        weight_sum = 0.0
        factors = []
        e = self.zipf_e
        for f, size in enumerate(self.vocab):
            count = 1 + int(random_() * self.most_ids[f])
            c, table = self.zipf_c[f], self.table[f]
            seen = set()
            entries = []
            weights = factor = 0.0
            while len(entries) < count:
                rank = int((1.0 - random_() * c) ** e) - 1
                if rank >= size:
                    rank = size - 1
                entry = table[rank] if rank < CACHED_RANKS else self._hidden(f, rank)
                if entry[0] in seen:
                    continue
                seen.add(entry[0])
                entries.append(entry)
                weights += entry[1]
                factor += entry[2]
            scale = self.inverse_sqrt[count]
            weight_sum += self.importance[f] * scale * weights
            factors.append(scale * factor)
            categorical.append(entries)
        dense = []
        for mu, sigma in zip(self.dense_mu, self.dense_sigma):
            count = int(math.exp(mu + sigma * gauss(0.0, 1.0)))
            value = math.log1p(count) / LOG_CAP
            dense.append(value if value < 1.0 else 1.0)
        cross = sum(factors[i] * factors[j] for i, j in self.crosses)
        return (categorical, dense, weight_sum / self.importance_norm,
                cross / self.cross_norm)

    def dense_term(self, dense):
        return sum(w * (x - m) / s for w, x, m, s in
                   zip(self.dense_weight, dense, self.dense_mean, self.dense_std)) / self.dense_norm

    def score(self, categorical_term, dense, cross_term):
        return (SHARE_CATEGORICAL * categorical_term + SHARE_DENSE * self.dense_term(dense) +
                SHARE_CROSS * cross_term)

    def probability(self, score):
        z = self.offset + LOGIT_SCALE * (score - self.score_mean) / self.score_std
        return 1.0 / (1.0 + math.exp(-z))


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def calibrate(params):
    """The dense values' means and deviations, the score's, and the logit's
    offset that makes the base rate params["ctr"], from a sample."""
    model = Model(params)
    rng = random.Random("%d:calibration" % params["seed"])
    sample = [model.draw(rng)[1:] for _ in range(CALIBRATION_EXAMPLES)]
    n = len(sample)
    columns = list(zip(*(dense for dense, _, _ in sample)))
    dense_mean = [sum(col) / n for col in columns]
    dense_std = [math.sqrt(max(sum((x - m) ** 2 for x in col) / n, 1e-12))
                 for col, m in zip(columns, dense_mean)]
    model.dense_mean, model.dense_std = dense_mean, dense_std
    scores = [model.score(c, d, x) for d, c, x in sample]
    score_mean = sum(scores) / n
    score_std = math.sqrt(sum((s - score_mean) ** 2 for s in scores) / n) or 1.0
    z = [LOGIT_SCALE * (s - score_mean) / score_std for s in scores]
    low, high = -10.0, 10.0
    for _ in range(50):
        offset = (low + high) / 2
        if sum(sigmoid(offset + v) for v in z) / n < params["ctr"]:
            low = offset
        else:
            high = offset
    return (dense_mean, dense_std, score_mean, score_std, (low + high) / 2)


def auc(probabilities, labels):
    """The area under the ROC curve of scores against 0/1 labels."""
    order = sorted(range(len(labels)), key=probabilities.__getitem__)
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum = sum(rank for rank, i in enumerate(order, 1) if labels[i])
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


_MODEL = None


def _init_worker(params):
    global _MODEL
    _MODEL = Model(params)


def write_shard(task):
    """Writes one shard; returns its statistics."""
    split, shard, shards, count, path = task
    model = _MODEL
    params = model.params
    rng = random.Random("%d:%s:%d" % (params["seed"], split, shard))
    names = [("c%d" % f).encode() for f in range(len(model.vocab))]
    name_fields = [field(1, name) for name in names]
    buckets = params["cross_buckets"]
    crosses = [(k, i, j, field(1, ("x%d" % k).encode()))
               for k, (i, j) in enumerate(cross_pairs(params["crosses"]))]
    label_entries = [field(1, field(1, b"label") + field(2, int64_feature([v]))) for v in (0, 1)]
    n_dense = params["dense_features"]
    # The dense entry's bytes before its values, whose length is fixed.
    dense_entry = field(1, field(1, b"dense") + field(2, float_feature([0.0] * n_dense)))
    dense_entry_prefix = dense_entry[:len(dense_entry) - 4 * n_dense]
    pack_dense = struct.Struct("<%df" % n_dense).pack
    stats = {"examples": count, "clicks": 0, "ids": 0, "features": len(model.vocab)}
    keep = split == "test"
    probabilities, labels = [], []

    def examples():
        for _ in range(count):
            categorical, dense, categorical_term, cross_term = model.draw(rng)
            p = model.probability(model.score(categorical_term, dense, cross_term))
            label = 1 if rng.random() < p else 0
            stats["clicks"] += label
            if keep:
                probabilities.append(p)
                labels.append(label)
            parts = [label_entries[label], dense_entry_prefix, pack_dense(*dense)]
            for name_field, entries in zip(name_fields, categorical):
                stats["ids"] += len(entries)
                ids = b"".join(entry[3] for entry in entries)
                parts.append(field(1, name_field + field(2, field(3, field(1, ids)))))
            for k, i, j, name_field in crosses:
                ids = cross_ids(k, [entry[0] for entry in categorical[i]],
                                [entry[0] for entry in categorical[j]], buckets)
                packed = b"".join(varint(x) for x in ids)
                parts.append(field(1, name_field + field(2, field(3, field(1, packed)))))
            yield field(1, b"".join(parts))

    start = time.time()
    write_records(path, examples(), compression=params["compression"])
    stats["seconds"] = time.time() - start
    stats["path"] = path
    stats["split"] = split
    if keep:
        stats["auc"] = auc(probabilities, labels)
    return stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="directory of the TFRecord files")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--train_shards", type=int, default=8)
    parser.add_argument("--examples_per_shard", type=int, default=125000)
    parser.add_argument("--test_examples", type=int, default=100000)
    parser.add_argument("--dense_features", type=int, default=13)
    parser.add_argument("--categorical", type=int, default=8,
                        help="categorical features c0, c1, ...")
    parser.add_argument("--max_ids", type=int, default=5,
                        help="most ids of a categorical feature per example (L)")
    parser.add_argument("--total_rows", type=int, default=1000000,
                        help="the categorical vocabularies' sizes together")
    parser.add_argument("--zipf", type=float, default=1.1,
                        help="exponent of the ids' power law (> 1)")
    parser.add_argument("--ctr", type=float, default=0.25, help="the base click rate")
    parser.add_argument("--crosses", type=int, default=3,
                        help="hashed crosses x0, x1, ...: xK = c(2K) x c(2K+1)")
    parser.add_argument("--cross_buckets", type=int, default=100000,
                        help="hash buckets of each cross (crossed_column's hash_bucket_size); "
                             "0: raw 63-bit hashes, for a dynamic table")
    parser.add_argument("--compression", choices=COMPRESSIONS, default="none",
                        help="each file compressed as a whole (default none)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes writing shards")
    args = parser.parse_args()
    for name in ("train_shards", "examples_per_shard", "test_examples", "categorical",
                 "max_ids", "total_rows", "jobs"):
        if getattr(args, name) < 1:
            sys.exit("--%s: must be at least 1" % name)
    if args.dense_features < 0:
        sys.exit("--dense_features: must be at least 0")
    if args.crosses < 0:
        sys.exit("--crosses: must be at least 0")
    if args.cross_buckets < 0:
        sys.exit("--cross_buckets: must be at least 0 (0: raw 63-bit hashes)")
    if 2 * args.crosses > args.categorical:
        sys.exit("--crosses=%d: crossing c(2K) x c(2K+1) needs --categorical of at least %d, not %d"
                 % (args.crosses, 2 * args.crosses, args.categorical))
    if args.zipf <= 1.0:
        sys.exit("--zipf: must be above 1")
    if not 0.0 < args.ctr < 1.0:
        sys.exit("--ctr: must be in (0, 1)")
    if args.total_rows < args.categorical:
        sys.exit("--total_rows=%d: fewer than --categorical=%d"
                 % (args.total_rows, args.categorical))

    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)
    params = {"seed": args.seed, "vocab": vocab_sizes(args.total_rows, args.categorical),
              "max_ids": args.max_ids, "zipf": args.zipf, "ctr": args.ctr,
              "dense_features": args.dense_features, "compression": args.compression,
              "crosses": args.crosses, "cross_buckets": args.cross_buckets}
    names = ["c%d" % f for f in range(args.categorical)]
    for name, size in zip(names, params["vocab"]):
        print("%s: vocabulary of %d ids, 1 to %d per example"
              % (name, size, min(args.max_ids, size)))
    crosses = [{"name": "x%d" % k, "pair": [names[i], names[j]],
                "max_ids": min(args.max_ids, params["vocab"][i]) *
                min(args.max_ids, params["vocab"][j])}
               for k, (i, j) in enumerate(cross_pairs(args.crosses))]
    for cross in crosses:
        print("%s = %s x %s: %s, 1 to %d ids per example"
              % (cross["name"], cross["pair"][0], cross["pair"][1],
                 "%d hash buckets" % args.cross_buckets if args.cross_buckets
                 else "raw 63-bit hashes", cross["max_ids"]))

    start = time.time()
    params["calibration"] = calibrate(params)
    print("hidden model calibrated on %d examples in %.1f s (logit offset %.3f)"
          % (CALIBRATION_EXAMPLES, time.time() - start, params["calibration"][4]))

    suffix = SUFFIXES[args.compression]
    tasks = [("train", k, args.train_shards, args.examples_per_shard,
              os.path.join(out, "train-%05d-of-%05d%s" % (k, args.train_shards, suffix)))
             for k in range(args.train_shards)]
    tasks.append(("test", 0, 1, args.test_examples,
                  os.path.join(out, "test-00000-of-00001%s" % suffix)))
    start = time.time()
    results = []
    if args.jobs == 1:
        _init_worker(params)
        for task in tasks:
            results.append(write_shard(task))
            report(results[-1])
    else:
        with multiprocessing.Pool(min(args.jobs, len(tasks)), _init_worker, (params,)) as pool:
            for result in pool.imap_unordered(write_shard, tasks):
                results.append(result)
                report(result)
    seconds = time.time() - start
    total = sum(r["examples"] for r in results)
    print("%d examples in %.1f s: %.0f examples/s with %d processes"
          % (total, seconds, total / seconds, min(args.jobs, len(tasks))))

    train = [r for r in results if r["split"] == "train"]
    test = [r for r in results if r["split"] == "test"][0]
    train_examples = sum(r["examples"] for r in train)
    train_ctr = sum(r["clicks"] for r in train) / train_examples
    test_ctr = test["clicks"] / test["examples"]
    print("CTR: train %.4f, test %.4f; the hidden model's AUC on the test split: %.4f"
          % (train_ctr, test_ctr, test["auc"]))

    bindings = {"train": [], "eval": []}
    for split, pattern in (("train", "train-*"), ("eval", "test-*")):
        files = os.path.join(out, pattern)
        bindings[split] = (["label=tfrecord:%s" % files, "dense=tfrecord:%s" % files] +
                           ["%s=tfrecord:%s,varlen" % (name, files)
                            for name in names + [cross["name"] for cross in crosses]])
    meta = {
        "generator": "examples/ctr/make_ctr_data.py",
        "seed": args.seed,
        "features": {
            "label": {"kind": "int64_list", "values": 1,
                      "placeholder": "f32 [B] (or [B, 1], or i64)"},
            "dense": {"kind": "float_list", "values": args.dense_features,
                      "placeholder": "f32 [B, %d]" % args.dense_features},
            "categorical": [
                {"name": name, "kind": "int64_list", "varlen": True, "vocab_size": size,
                 "min_ids": 1, "max_ids": min(args.max_ids, size),
                 "placeholder": "i64 [B, %d]" % args.max_ids}
                for name, size in zip(names, params["vocab"])],
            "crosses": [
                {"name": cross["name"], "pair": cross["pair"], "kind": "int64_list",
                 "varlen": True, "buckets": args.cross_buckets, "min_ids": 1,
                 "max_ids": cross["max_ids"], "hash": "mix() of make_ctr_data.py",
                 "placeholder": "i64 [B, %d]" % cross["max_ids"]}
                for cross in crosses],
        },
        "max_ids": args.max_ids,
        "padding_id": -1,
        "total_rows": sum(params["vocab"]),
        "zipf": args.zipf,
        "train": {"files": os.path.join(out, "train-*"), "shards": args.train_shards,
                  "examples_per_shard": args.examples_per_shard, "examples": train_examples,
                  "ctr": round(train_ctr, 6)},
        "test": {"files": os.path.join(out, "test-*"), "examples": test["examples"],
                 "ctr": round(test_ctr, 6), "hidden_model_auc": round(test["auc"], 6)},
        "compression": args.compression,
        "dtf_run": ["--input=" + b for b in bindings["train"]] +
                   ["--eval_input=" + b for b in bindings["eval"]],
    }
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "inputs.txt"), "w") as f:
        f.write("# dtf-run --input_file for the data of examples/ctr/make_ctr_data.py\n")
        for b in bindings["train"]:
            f.write("input %s\n" % b)
        for b in bindings["eval"]:
            f.write("eval_input %s\n" % b)
    print("%s, %s" % (os.path.join(out, "meta.json"), os.path.join(out, "inputs.txt")))


def report(result):
    print("%s: %d examples, CTR %.3f, %.2f ids per feature, %.0f examples/s"
          % (result["path"], result["examples"], result["clicks"] / result["examples"],
             result["ids"] / result["examples"] / result["features"],
             result["examples"] / result["seconds"]), flush=True)


if __name__ == "__main__":
    main()
