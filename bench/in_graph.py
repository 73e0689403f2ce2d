#!/usr/bin/env python3
"""In-graph replication against between-graph, in the same run.

Configurations, each a whole `dtf-run --local` cluster (one executor thread
per task and one OpenBLAS thread, as the study runs DTF):

- between-graph sync, 1 PS + 2 workers, examples/mnist_mlp.mlir: the peer;
- in-graph, two towers (--towers=2), 1 PS + 2 workers, the same model;
- between-graph sync, 2 PS + 2 workers, the same model: the peer of
- in-graph, model parallel, 2 PS + 2 workers, examples/model_parallel_mlp.mlir.

The repetitions are interleaved (bench/local_runs.py); each figure is
reported with its ratio to the between-graph peer of the same repetition.
Bytes are tensor payloads per global step: what each task received
(in-graph, from the tasks' own traffic lines) or pulled and pushed
(between-graph workers).

  python3 bench/in_graph.py --dtf_run=build/bin/dtf-run [--steps=1000] [--reps=3]

Writes bench/results/in-graph.json; bench/report.py adds its table to
REPORT.md.
"""

import argparse
import os

import local_runs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MLP = os.path.join(ROOT, "examples", "mnist_mlp.mlir")
MODEL_PARALLEL = os.path.join(ROOT, "examples", "model_parallel_mlp.mlir")

CONFIGS = [
    {"name": "between-graph sync, 1 PS + 2 workers", "key": "between-1ps",
     "ps": 1, "flags": ["--sync"], "model": MLP},
    {"name": "in-graph, two towers, 1 PS + 2 workers", "key": "towers",
     "ps": 1, "flags": ["--towers=2"], "model": MLP, "peer": "between-1ps"},
    {"name": "between-graph sync, 2 PS + 2 workers", "key": "between-2ps",
     "ps": 2, "flags": ["--sync"], "model": MLP},
    {"name": "in-graph, model parallel, 2 PS + 2 workers", "key": "model-parallel",
     "ps": 2, "flags": [], "model": MODEL_PARALLEL, "peer": "between-2ps"},
]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dtf_run", default=os.path.join(ROOT, "build", "bin", "dtf-run"))
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--out", default=os.path.join(HERE, "results", "in-graph.json"))
    args = p.parse_args()
    for config in CONFIGS:
        config["flags"] = config["flags"] + ["--data=" + args.data]
    local_runs.study(CONFIGS, args, "python3 bench/in_graph.py --steps=%d --reps=%d"
                     % (args.steps, args.reps))


if __name__ == "__main__":
    main()
