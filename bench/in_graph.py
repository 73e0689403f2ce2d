#!/usr/bin/env python3
"""In-graph replication against between-graph, in the same run.

Configurations, each a whole `dtf-run --local` cluster (one executor thread
per task and one OpenBLAS thread, as the study runs DTF):

- between-graph sync, 1 PS + 2 workers, examples/mnist_mlp.mlir: the peer;
- in-graph, two towers (--towers=2), 1 PS + 2 workers, the same model;
- between-graph sync, 2 PS + 2 workers, the same model: the peer of
- in-graph, model parallel, 2 PS + 2 workers, examples/model_parallel_mlp.mlir.

The repetitions are interleaved (every configuration once, then again), so
that all see the same load on this shared machine; each figure is reported
with its ratio to the between-graph peer of the same repetition. Bytes are
tensor payloads per global step: what each task received (in-graph, from the
tasks' own traffic lines) or pulled and pushed (between-graph workers).

  python3 bench/in_graph.py --dtf_run=build/bin/dtf-run [--steps=1000] [--reps=3]

Writes bench/results/in-graph.json; bench/report.py adds its table to
REPORT.md.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import time

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

ELAPSED = re.compile(r"\[worker0\] Training elapsed time: ([0-9.]+) s")
VALID = re.compile(r"\[worker0\] After (\d+) training step\(s\), validation cross "
                   r"entropy = [-0-9.e+naif]+, validation accuracy = ([-0-9.e+naif]+)")
IN_GRAPH_TRAFFIC = re.compile(r"\[worker0\] In-graph traffic: (\S+) received (\d+) bytes/step")
RPC_TRAFFIC = re.compile(r"\[(worker\d+)\] Worker \d+: RPC traffic: pulled (\d+) bytes in "
                         r"\d+ pulls, pushed (\d+) bytes")
LOCAL_STEPS = re.compile(r"\[(worker\d+)\] Worker \d+: training ended after (\d+) local steps")


def run(config, args):
    argv = [args.dtf_run, "--local", "--ps=%d" % config["ps"], "--workers=2",
            "--train_steps=%d" % args.steps, "--log_every=0", "--progress=false",
            "--inter_op_parallelism_threads=1", "--rpc_deadline_ms=60000",
            "--data=" + args.data] + config["flags"] + [config["model"]]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    started = time.time()
    result = subprocess.run(argv, capture_output=True, text=True, env=env,
                            timeout=args.timeout)
    out = result.stdout + result.stderr
    elapsed, valid = ELAPSED.search(out), VALID.search(out)
    if result.returncode != 0 or not elapsed or not valid:
        return {"error": "exit %d" % result.returncode, "log_tail": out[-2000:]}
    steps = int(valid.group(1))
    train_s = float(elapsed.group(1))
    record = {"global_steps_per_s": steps / train_s, "accuracy": float(valid.group(2)),
              "steps": steps, "wall_s": time.time() - started}
    received = {task: int(b) for task, b in IN_GRAPH_TRAFFIC.findall(out)}
    if received:
        record["bytes_per_step"] = received
    else:
        local = {w: int(n) for w, n in LOCAL_STEPS.findall(out)}
        record["bytes_per_step"] = {
            "/job:worker/task:%s" % w[len("worker"):]:
                (int(pulled) + int(pushed)) // max(local.get(w, 1), 1)
            for w, pulled, pushed in RPC_TRAFFIC.findall(out)}
    return record


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dtf_run", default=os.path.join(ROOT, "build", "bin", "dtf-run"))
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--out", default=os.path.join(HERE, "results", "in-graph.json"))
    args = p.parse_args()
    runs = {c["key"]: [] for c in CONFIGS}
    for rep in range(args.reps):
        for config in CONFIGS:
            record = run(config, args)
            runs[config["key"]].append(record)
            print("rep %d %-45s %s" % (rep + 1, config["name"],
                                       record.get("error") or
                                       "%.1f steps/s, accuracy %.4f" % (
                                           record["global_steps_per_s"], record["accuracy"])),
                  flush=True)
    summary = []
    for config in CONFIGS:
        ok = [r for r in runs[config["key"]] if "error" not in r]
        row = {"name": config["name"], "key": config["key"], "runs": len(ok)}
        if ok:
            row["global_steps_per_s"] = statistics.median(r["global_steps_per_s"] for r in ok)
            row["accuracy"] = statistics.median(r["accuracy"] for r in ok)
            row["bytes_per_step"] = ok[-1]["bytes_per_step"]
        peer = config.get("peer")
        if peer:
            ratios = [a["global_steps_per_s"] / b["global_steps_per_s"]
                      for a, b in zip(runs[config["key"]], runs[peer])
                      if "error" not in a and "error" not in b]
            if ratios:
                row["ratio_to_peer"] = statistics.median(ratios)
                row["peer"] = peer
        summary.append(row)
        print("%-45s %s" % (config["name"], json.dumps({k: v for k, v in row.items()
                                                        if k not in ("name", "key")})))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"command": "python3 bench/in_graph.py --steps=%d --reps=%d"
                              % (args.steps, args.reps),
                   "steps": args.steps, "reps": args.reps, "summary": summary,
                   "runs": runs}, f, indent=1)
    print("wrote " + args.out)


if __name__ == "__main__":
    main()
