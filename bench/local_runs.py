"""Whole `dtf-run --local` clusters side by side: the runner of the studies
that compare DTF configurations with each other in one run (in_graph.py,
inputs.py).

Each configuration is a dict with a "name", a "key", "ps" (PS tasks),
"flags", a "model" and, optionally, the "peer" key of the configuration it
is compared with. Every task runs one executor thread and one OpenBLAS
thread, as the study runs DTF. The repetitions are interleaved (every
configuration once, then again), so that all see the same load on this
shared machine, and each figure's ratio to its peer is taken within a
repetition.
"""

import json
import os
import re
import statistics
import subprocess
import time

ELAPSED = re.compile(r"\[worker0\] Training elapsed time: ([0-9.]+) s")
VALID = re.compile(r"\[worker0\] After (\d+) training step\(s\), validation cross "
                   r"entropy = [-0-9.e+naif]+, validation accuracy = ([-0-9.e+naif]+)")
IN_GRAPH_TRAFFIC = re.compile(r"\[worker0\] In-graph traffic: (\S+) received (\d+) bytes/step")
RPC_TRAFFIC = re.compile(r"\[(worker\d+)\] Worker \d+: RPC traffic: pulled (\d+) bytes in "
                         r"\d+ pulls, pushed (\d+) bytes")
LOCAL_STEPS = re.compile(r"\[(worker\d+)\] Worker \d+: training ended after (\d+) local steps")


def run(config, args):
    """One run of `config`: global steps/s of training, accuracy, bytes per
    step per task; or the error and the log's tail."""
    argv = [args.dtf_run, "--local", "--ps=%d" % config["ps"], "--workers=2",
            "--train_steps=%d" % args.steps, "--log_every=0", "--progress=false",
            "--inter_op_parallelism_threads=1", "--rpc_deadline_ms=60000"
            ] + config["flags"] + [config["model"]]
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


def study(configs, args, command):
    """Runs `configs` --reps times, interleaved; writes args.out (JSON with
    the command, the medians per configuration and every run)."""
    runs = {c["key"]: [] for c in configs}
    for rep in range(args.reps):
        for config in configs:
            record = run(config, args)
            runs[config["key"]].append(record)
            print("rep %d %-50s %s" % (rep + 1, config["name"],
                                       record.get("error") or
                                       "%.1f steps/s, accuracy %.4f" % (
                                           record["global_steps_per_s"], record["accuracy"])),
                  flush=True)
    summary = []
    for config in configs:
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
                row["ratios"] = ratios
                row["peer"] = peer
        summary.append(row)
        print("%-50s %s" % (config["name"], json.dumps({k: v for k, v in row.items()
                                                        if k not in ("name", "key")})))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"command": command, "steps": args.steps, "reps": args.reps,
                   "summary": summary, "runs": runs}, f, indent=1)
    print("wrote " + args.out)
