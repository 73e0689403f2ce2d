#!/usr/bin/env python3
"""Turns bench/results/results.json (and micro-*.json) into REPORT.md and
scaling.png. Usage: report.py RESULTS_DIR"""

import json
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The MLP's parameters: hid_w 784x100, hid_b 100, sm_w 100x10, sm_b 10.
VARIABLES = {"hid_w": 784 * 100, "hid_b": 100, "sm_w": 100 * 10, "sm_b": 10}
PARAMS = sum(VARIABLES.values())
# FLOPs of one training step of batch 100: the forward GEMMs x*hid_w and
# hid*sm_w, the backward GEMMs x^T*dhid, hid^T*dy and dy*sm_w^T (no gradient
# for the input), 2 FLOPs per multiply-add; element-wise work is < 1 %.
B = 100
GEMM_FLOPS = 2 * B * 784 * 100 * 2 + 2 * B * 100 * 10 * 3
# Bytes of the model's tensors moved per step per worker in each direction
# (f32 values; pull adds the i64 global step).
MODEL_BYTES_PER_STEP = 2 * PARAMS * 4 + 8

# The targets (issue 16), each checked against the same run.
TARGET_PS_CPU_MS = 0.1        # PS task CPU per update applied, async
TARGET_WORKER_GEMM_X = 1.5    # worker CPU per step over the MLP's five GEMMs
TARGET_TF_RATIO = 5.0         # DTF / TensorFlow global steps/s, async, 2 workers
TARGET_RPC_BYTES = 313600     # hid_w in f32: one pull or push of it...
TARGET_RPC_BYTES_PER_S = 3e9  # ...at 3 GB/s or more (dtf-bench-rpc, the local socket)
TARGET_SMALL_PULL_BYTES = 4096  # a 4 KB pull's round trip...
TARGET_SMALL_PULL_RATIO = 2.0   # ...at most 2x the loopback TCP round trip of the same run

# The scaling model's assumptions (scaling_model); its inputs are measured.
RPC_LATENCY_S = 50e-6         # one RPC's round trip on a datacenter network
RPCS_PER_STEP = 2             # a worker's pull and push
LINKS_GBPS = (10, 25, 100)
MODEL_WORKERS = (1, 2, 4, 8, 16, 32)
MODEL_PS_TASKS = (1, 2, 4)


def mmm(values, fmt="%.1f"):
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    return (fmt + " / " + fmt + " / " + fmt) % (min(values), statistics.median(values), max(values))


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def num_ps(r):
    """A run's PS tasks (runs before the 2-PS rows had one)."""
    return r.get("num_ps", 1)


def sharded(r):
    """Whether a run split its big variables over the PS tasks (runs before
    the 2-PS rows did not)."""
    return bool(r.get("sharded", False))


def config_runs(runs, system, mode, workers, ps=1, shard=False):
    """The runs of one configuration, failed ones included; by default the
    1-PS ones, which the main tables are about."""
    return [r for r in runs if r["system"] == system and r["mode"] == mode
            and r["workers"] == workers and num_ps(r) == ps and sharded(r) == shard]


def ok_runs(runs, system, mode, workers, ps=1, shard=False):
    return [r for r in config_runs(runs, system, mode, workers, ps, shard) if "error" not in r]


def paired_ratios(runs, mode, workers, key, ps=1, shard=False):
    ratios = []
    for rep in sorted({r["rep"] for r in runs}, key=str):
        d = [r for r in ok_runs(runs, "dtf", mode, workers, ps, shard) if r["rep"] == rep]
        t = [r for r in ok_runs(runs, "tf", mode, workers, ps, shard) if r["rep"] == rep]
        if d and t and t[0][key]:
            ratios.append(d[0][key] / t[0][key])
    return ratios


def is_ps_task(name):
    return name.startswith("ps")


# The namespace mode's shapes (bench/run_study.py), in the report's order.
NETNS_SHAPE_ORDER = ["3-host", "2-host"]


def ps_cpu_per_update(r):
    """The PS task's CPU seconds (start-up included) over the updates it applied."""
    cpu = r["tasks"].get("ps0", {}).get("cpu_s")
    updates = (r.get("ps") or {}).get("applied") or r.get("global_step")
    return cpu / updates if cpu is not None and updates else None


def worker_cpu_per_step(r):
    """Each worker's CPU seconds (start-up and validation included) over its steps."""
    return [t["cpu_s"] / r["local_steps"][n] for n, t in r["tasks"].items()
            if not is_ps_task(n) and t.get("cpu_s") is not None and r.get("local_steps", {}).get(n)]


def ps_cpu_per_update_tasks(r):
    """{PS task: its CPU seconds (start-up included) over the updates it
    applied}: dtf-run's PS line of that task where there is one, else the
    global steps (TensorFlow's PS tasks print no figures; in async every
    global step updates each PS task that holds a trained variable)."""
    per = {}
    for name, t in r["tasks"].items():
        if not is_ps_task(name) or t.get("cpu_s") is None:
            continue
        line = (r.get("ps_tasks") or {}).get(name) or (r.get("ps") if name == "ps0" else None) or {}
        updates = line.get("applied") or r.get("global_step")
        if updates:
            per[name] = t["cpu_s"] / updates
    return per


def ps_params(k, shard, min_slice_bytes=65536):
    """Parameters on each of k PS tasks: the variables in creation order
    (global_step first) placed round-robin, as dtf-run's default
    --ps_strategy and replica_device_setter do; sharded, a variable bigger
    than min_slice_bytes (f32) is first split along dimension 0 into
    min(k, ceil(bytes / min_slice_bytes)) shards, each placed in turn
    (dtf-run --min_slice_size, min_max_variable_partitioner). With 2 PS
    tasks: whole, ps0 holds global_step, hid_b, sm_b and ps1 hid_w, sm_w;
    sharded, ps0 hid_w/part_1, sm_w and ps1 hid_w/part_0, hid_b, sm_b."""
    tasks = [0] * k
    i = 0
    for name, params in [("global_step", 0)] + list(VARIABLES.items()):
        nbytes = 4 * params
        parts = min(k, -(-nbytes // min_slice_bytes)) if shard and nbytes > min_slice_bytes else 1
        for j in range(parts):
            tasks[i % k] += params // parts + (1 if j < params % parts else 0)
            i += 1
    return tasks


def to_seconds(value, unit):
    return value * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def wall_rate(b, key="bytes_per_second"):
    """A Google Benchmark rate per wall second: its rates are per CPU second
    of the benchmark thread unless the benchmark uses real or manual time
    (its name then ends in /real_time or /manual_time)."""
    if not b.get(key):
        return None
    if "/real_time" in b["run_name"] or "/manual_time" in b["run_name"] or not b["real_time"]:
        return b[key]
    return b[key] * b["cpu_time"] / b["real_time"]


def micro(out, name):
    """micro-*.json's benchmarks, or None where the file is absent."""
    p = os.path.join(out, name)
    return json.load(open(p)) if os.path.exists(p) else None


def per_run(data, run_name, value):
    """value(b) of a benchmark's repetitions (or of its median aggregate where
    only aggregates were reported)."""
    its = [b for b in data["benchmarks"] if b.get("run_name") == run_name
           and b.get("run_type", "iteration") == "iteration"]
    if not its:
        its = [b for b in data["benchmarks"] if b.get("run_name") == run_name
               and b.get("aggregate_name") == "median"]
    return [v for v in (value(b) for b in its) if v is not None]


def kernel_runs(res, out):
    """The MLP-shaped GEMM times: the study's own kernel run, else the
    microbenchmark's runs (micro-kernels.json)."""
    k = res.get("kernels") or {}
    mk = os.path.join(out, "micro-kernels.json")
    if ("skipped" in k or not any(n.startswith("BM_Matmul/") for n in k)) and os.path.exists(mk):
        k = {}
        for b in json.load(open(mk))["benchmarks"]:
            if b.get("run_type") == "iteration":
                k.setdefault(b["run_name"], []).append(
                    {"real_time": b["real_time"], "cpu_time": b["cpu_time"],
                     "time_unit": b["time_unit"], "flops": b.get("FLOP/s")})
    return {n: v for n, v in k.items() if isinstance(v, list)}


def mlp_gemm_s(k):
    """The MLP's five GEMMs (forward 2, backward 3) measured one by one, in
    seconds per step, or None."""
    names = [n for n in k if n.startswith("BM_Matmul/") and "1024" not in n]
    if not names:
        return None
    return sum(med([to_seconds(x.get("cpu_time", x["real_time"]), x.get("time_unit", "us"))
                    for x in k[n]]) for n in names)


def model_inputs(runs):
    """The scaling model's inputs, medians over DTF's async 1- and 2-worker
    runs: PS CPU per update, worker CPU per step, worker wall time per step,
    bytes per step per worker."""
    rs = ok_runs(runs, "dtf", "async", 1) + ok_runs(runs, "dtf", "async", 2)
    bps = [r.get("bytes_per_step_per_worker") for r in rs]
    return {
        "runs": len(rs),
        "ps_cpu_s": med([ps_cpu_per_update(r) for r in rs]),
        "ps_cpu_all": [x for x in (ps_cpu_per_update(r) for r in rs) if x is not None],
        "ps_serving_cpu_all": [(r.get("ps") or {}).get("serving_cpu_ms") for r in rs],
        "worker_cpu_s": med([x for r in rs for x in worker_cpu_per_step(r)]),
        "worker_cpu_all": [x for r in rs for x in worker_cpu_per_step(r)],
        "worker_wall_s": med([r["train_s"] / r["local_steps"][n] for r in rs
                              for n in r.get("local_steps", {}) if r["local_steps"][n]]),
        "bytes_per_step": med(bps) or MODEL_BYTES_PER_STEP,
        "bytes_measured": med(bps) is not None,
    }


def scaling_model(workers, ps_tasks, link_bytes_per_s, worker_cpu_s, ps_cpu_s,
                  bytes_per_step, sync=False, latency_s=RPC_LATENCY_S):
    """Global steps/s of the MLP on N = workers workers and K = ps_tasks PS
    tasks, each on a host of its own, every NIC at link_bytes_per_s.

    Returns (global steps/s, the limiting resource, {resource: its ceiling
    in global steps/s}).

    A worker's step takes t_step = worker_cpu_s (compute and its side of the
    RPCs) + bytes_per_step / link (its pull and push, counted together
    against one link rate) + RPCS_PER_STEP x latency_s (its RPCs to the K PS
    tasks run in parallel). The variables are sharded evenly over the K PS
    tasks: each applies 1/K of every update, at ps_cpu_s / K of CPU, and its
    NIC carries bytes_per_step / K of every step.

    Async: every worker step is a global step,
        min(N / t_step,                       the workers' steps
            K / ps_cpu_s,                     the PS tasks' CPU
            K x link / bytes_per_step,        the PS tasks' NICs
            N x link / bytes_per_step).       the workers' NICs (never below
                                              the first, which includes them)
    Sync: a global step waits for the slowest of the N workers (all take
    t_step; stragglers are not modelled), then for the aggregate: each PS
    task takes the N pushes and serves the N pulls of its share one after
    the other, at the async cost of an update each; the first is hidden in
    the worker's step as in async, the other N - 1 add (N - 1) x ps_cpu_s / K.
    Each PS task's NIC moves N x bytes_per_step / K, which replaces the
    worker's own transfer where it is longer:
        1 / (worker_cpu_s + RPCS_PER_STEP x latency_s
             + max(bytes_per_step, N x bytes_per_step / K) / link
             + (N - 1) x ps_cpu_s / K),
    the same as async for one worker; the limit is the largest of the three
    parts.
    """
    n, k, link = workers, ps_tasks, link_bytes_per_s
    transfer = bytes_per_step / link
    t_step = worker_cpu_s + transfer + RPCS_PER_STEP * latency_s
    if not sync:
        ceilings = {"workers' steps": n / t_step, "PS CPU": k / ps_cpu_s,
                    "PS NIC": k * link / bytes_per_step, "worker NIC": n * link / bytes_per_step}
        limit = min(ceilings, key=ceilings.get)
        return ceilings[limit], limit, ceilings
    parts = {"workers' steps": worker_cpu_s + RPCS_PER_STEP * latency_s,
             "PS NIC" if n > k else "worker NIC": max(bytes_per_step, n * bytes_per_step / k) / link,
             "PS CPU": (n - 1) * ps_cpu_s / k}
    limit = max(parts, key=parts.get)
    return 1 / sum(parts.values()), limit, {p: 1 / t for p, t in parts.items() if t}


def shared_cores_ceiling(cores, workers, worker_cpu_s, ps_cpu_s, sync=False):
    """Global steps/s when all tasks share `cores` cores: a global step costs
    one worker step and one PS update of CPU (async), N of each (sync)."""
    per_step = (worker_cpu_s + ps_cpu_s) * (workers if sync else 1)
    return cores / per_step


def limit_runs(points):
    """[(N, limit, steps/s)] → "limit at N = a–b (x–y steps/s), ..." """
    segs = []
    for n, limit, v in points:
        if segs and segs[-1][0] == limit:
            segs[-1][2], segs[-1][4] = n, v
        else:
            segs.append([limit, n, n, v, v])
    text = []
    for limit, a, b, va, vb in segs:
        ns = "N = %d" % a if a == b else "N = %d–%d" % (a, b)
        vs = "%.0f" % va if round(va) == round(vb) else "%.0f–%.0f" % (va, vb)
        text.append("%s at %s (%s steps/s)" % (limit, ns, vs))
    return ", ".join(text)


def accuracy_rows(runs, base_runs):
    """DTF's median accuracy per configuration against a reference (baseline
    DTF if given, else TensorFlow in the same run), within the run-to-run
    spread: the widest min–max range of this run's DTF, this run's
    TensorFlow and the baseline's DTF runs of that configuration."""
    rows = []
    for mode in ("async", "sync"):
        for workers in (1, 2, 3):
            now = [r["accuracy"] for r in ok_runs(runs, "dtf", mode, workers)]
            tf = [r["accuracy"] for r in ok_runs(runs, "tf", mode, workers)]
            base = [r["accuracy"] for r in ok_runs(base_runs or [], "dtf", mode, workers)]
            ref = base if base_runs is not None else tf
            if not now or not ref:
                continue
            spread = max(max(g) - min(g) for g in (now, tf, base, ref) if g)
            diff = med(now) - med(ref)
            rows.append((mode, workers, med(now), med(ref), diff, spread, abs(diff) <= spread + 1e-9))
    return rows


def rpc_target_runs(data):
    """dtf-bench-rpc's pulls and pushes of TARGET_RPC_BYTES: [(name, wall
    bytes/s, counter bytes/s)], medians over the repetitions."""
    found = []
    if not data:
        return found
    size = str(TARGET_RPC_BYTES)
    names = []
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        parts = name.replace(":", "/").split("/")
        if size in parts and ("pull" in name.lower() or "push" in name.lower()) and name not in names:
            names.append(name)
    for name in names:
        wall = med(per_run(data, name, wall_rate))
        counter = med(per_run(data, name, lambda b: b.get("bytes_per_second")))
        if wall is not None:
            found.append((name, wall, counter))
    return found


def targets_section(w, res, runs, out, base):
    """The targets, each met or not, with the figure measured in this run."""
    w("## Targets\n")
    rows = []

    def verdict(ok):
        return "not measured" if ok is None else ("**met**" if ok else "**not met**")
    inp = model_inputs(runs)
    step = micro(out, "micro-step.json")

    def step_bench(prefix):
        if not step:
            return None, None
        names = sorted({b["run_name"] for b in step["benchmarks"] if b["run_name"].startswith(prefix)},
                       key=lambda n: (not n.endswith("_Executor"), n))
        if not names:
            return None, None
        return names[0], med(per_run(step, names[0], lambda b: to_seconds(b["cpu_time"], b["time_unit"])))

    # PS CPU per update.
    ps = inp["ps_cpu_all"]
    text = "not measured (no DTF async 1- or 2-worker run with the PS task's CPU time)"
    if ps:
        text = "%.3f ms median (%.3f–%.3f over %d runs; the PS task's CPU seconds, start-up " \
               "included, over the updates it applied)" % (med(ps) * 1e3, min(ps) * 1e3, max(ps) * 1e3, len(ps))
        serving = [x for x in inp.get("ps_serving_cpu_all", []) if x is not None]
        if serving:
            text += "; while serving (the PS task's own figure: its CPU from the first update " \
                    "to the stop): %.3f ms median (%.3f–%.3f)" % (
                        med(serving), min(serving), max(serving))
        name, t = step_bench("BM_PsUpdate")
        if t:
            text += "; `%s` (the update alone, no RPC): %.3f ms CPU" % (name, t * 1e3)
    rows.append(("PS CPU per update ≤ %.1f ms (DTF async, 1 and 2 workers)" % TARGET_PS_CPU_MS, text,
                 verdict(med(ps) * 1e3 <= TARGET_PS_CPU_MS if ps else None)))

    # Worker CPU per step against its GEMMs.
    gemm = mlp_gemm_s(kernel_runs(res, out))
    wc = inp["worker_cpu_all"]
    text, ok = "not measured", None
    if wc and gemm:
        x = med(wc) / gemm
        text = "%.3f ms median (%.3f–%.3f over %d workers; CPU seconds, start-up and validation " \
               "included, over its steps) = **%.2fx** the five GEMMs' %.3f ms" % (
                   med(wc) * 1e3, min(wc) * 1e3, max(wc) * 1e3, len(wc), x, gemm * 1e3)
        ok = x <= TARGET_WORKER_GEMM_X
    elif wc:
        text = "%.3f ms median; the GEMMs: not measured" % (med(wc) * 1e3)
    elif gemm:
        text = "worker CPU: not measured; the five GEMMs: %.3f ms" % (gemm * 1e3)
    rows.append(("Worker CPU per step ≤ %.1fx its five GEMMs (DTF async, 1 and 2 workers)"
                 % TARGET_WORKER_GEMM_X, text, verdict(ok)))
    name, t = step_bench("BM_WorkerStep")
    if t:
        rows.append(("same, the step alone (`%s`, dtf-bench-step, no RPC)" % name,
                     "%.3f ms CPU%s" % (t * 1e3, " = **%.2fx** the GEMMs" % (t / gemm) if gemm else ""),
                     verdict(t / gemm <= TARGET_WORKER_GEMM_X if gemm else None)))

    # DTF / TensorFlow.
    r2 = paired_ratios(runs, "async", 2, "global_steps_per_s")
    rows.append(("DTF async, 2 workers ≥ %gx TensorFlow's global steps/s" % TARGET_TF_RATIO,
                 "**%.2fx** median of %d paired repetitions (%.2fx–%.2fx)" % (med(r2), len(r2), min(r2), max(r2))
                 if r2 else "not measured (no paired runs)",
                 verdict(med(r2) >= TARGET_TF_RATIO if r2 else None)))

    # PyTorch.
    d1 = [r["global_steps_per_s"] for r in ok_runs(runs, "dtf", "async", 1)]
    one = [x["steps_per_s"] for rep in (res.get("torch") or []) if isinstance(rep, list)
           for x in rep if x.get("threads") == 1 and x.get("steps_per_s")]
    rows.append(("1 PS + 1 worker (DTF async) ≥ a one-thread PyTorch's steps/s",
                 "%.1f against %.1f global steps/s (medians) = **%.2fx**" % (med(d1), med(one), med(d1) / med(one))
                 if d1 and one else "not measured (%s)" % ("no PyTorch reference" if d1 else "no DTF run"),
                 verdict(med(d1) >= med(one) if d1 and one else None)))

    # Pull and push of hid_w's bytes.
    # The target holds for the local socket, what workers on the PS task's
    # host use; gRPC's figures (workers on other hosts) are shown beside.
    rpc = rpc_target_runs(micro(out, "micro-rpc.json"))
    local = [(n, wall, c) for n, wall, c in rpc if "<Local>" in n and "PushPull" not in n]
    rows.append(("Pull and push of %s bytes ≥ %g GB/s (dtf-bench-rpc, the local socket)"
                 % (format(TARGET_RPC_BYTES, ","), TARGET_RPC_BYTES_PER_S / 1e9),
                 "; ".join("`%s`: %s%.2f GB/s%s per wall second" % (
                     n, "**" if n in [x[0] for x in local] else "", wall / 1e9,
                     "**" if n in [x[0] for x in local] else "")
                     for n, wall, c in rpc) or "not measured",
                 verdict(all(wall >= TARGET_RPC_BYTES_PER_S for _, wall, _ in local) if local else None)))

    # A small pull against the socket's own round trip.
    rpc_data = micro(out, "micro-rpc.json")
    def median_time(prefix):
        if not rpc_data:
            return None
        name = "%s/bytes:%d/real_time" % (prefix, TARGET_SMALL_PULL_BYTES)
        return med(per_run(rpc_data, name, lambda b: to_seconds(b["real_time"], b["time_unit"])))
    tcp, pull_local, pull_grpc = (median_time(p) for p in ("BM_TcpRoundTrip", "BM_Pull<Local>", "BM_Pull<Grpc>"))
    rows.append(("A %s-byte pull ≤ %gx the loopback TCP round trip of the same run (dtf-bench-rpc)"
                 % (format(TARGET_SMALL_PULL_BYTES, ","), TARGET_SMALL_PULL_RATIO),
                 "local socket %.0f µs, TCP round trip %.0f µs: **%.2fx**%s" % (
                     pull_local * 1e6, tcp * 1e6, pull_local / tcp,
                     "; gRPC %.0f µs (%.2fx)" % (pull_grpc * 1e6, pull_grpc / tcp) if pull_grpc else "")
                 if tcp and pull_local else "not measured",
                 verdict(pull_local / tcp <= TARGET_SMALL_PULL_RATIO if tcp and pull_local else None)))

    # Accuracy.
    acc = accuracy_rows(runs, base["runs"] if base else None)
    against = "baseline.json's DTF (%s)" % base.get("commit", "?") if base else "TensorFlow in this run"
    if acc:
        worst = max(acc, key=lambda a: abs(a[4]) - a[5])
        text = "%d of %d configurations within, against %s; the closest to its spread: %s %d worker%s, %.4f against " \
               "%.4f (spread %.4f)" % (sum(a[6] for a in acc), len(acc), against, worst[0], worst[1],
                                       "s" if worst[1] > 1 else "", worst[2], worst[3], worst[5])
    else:
        text = "not measured (no DTF runs with a reference)"
    rows.append(("Test accuracy unchanged within the run-to-run spread", text,
                 verdict(all(a[6] for a in acc) if acc else None)))

    w("| target | measured | met? |\n|---|---|---|")
    for row in rows:
        w("| %s | %s | %s |" % row)
    w("")
    sources = ["`results.json` (run of %s)" % res.get("started", "?")]
    for name in ("micro-kernels.json", "micro-rpc.json", "micro-step.json"):
        data = micro(out, name)
        if data:
            sources.append("`%s` (%s)" % (name, data.get("context", {}).get("date", "?")))
    w("Sources: %s. A task's CPU time is its whole process's (`/usr/bin/time`), so the "
      "per-update and per-step CPU figures are upper bounds of the training loop's. A "
      "transfer rate is per wall second: the RPC's work is in the server's threads too." % ", ".join(sources))
    if acc:
        w("\nAccuracy per configuration: DTF's median against the reference's, %s; the spread "
          "is the widest min–max range among this run's DTF and TensorFlow runs%s of the "
          "configuration:\n" % (against, " and the baseline's DTF runs" if base else ""))
        w("| mode | workers | DTF | reference | difference | spread | within |\n|---|---|---|---|---|---|---|")
        for mode, workers, now, ref, diff, spread, ok in acc:
            w("| %s | %d | %.4f | %.4f | %+.4f | %.4f | %s |" % (mode, workers, now, ref, diff, spread,
                                                              "yes" if ok else "**no**"))
    w("")


def two_ps_runs(runs):
    """The 2-PS rows' configurations present: [(sharded, DTF runs, TensorFlow
    runs, failed runs)], whole placement first."""
    rows = []
    for shard in (False, True):
        cfg = [r for r in runs if num_ps(r) == 2 and sharded(r) == shard
               and r["mode"] == "async" and r["workers"] == 2]
        if cfg:
            rows.append((shard, [r for r in cfg if r["system"] == "dtf" and "error" not in r],
                         [r for r in cfg if r["system"] == "tf" and "error" not in r],
                         [r for r in cfg if "error" in r]))
    return rows


def two_ps_section(w, res, runs):
    """The 2-PS rows (bench/run_study.py --ps_rows): async, 2 workers,
    variables whole (round-robin) and sharded."""
    w("## 2 PS tasks\n")
    rows = two_ps_runs(runs)
    if not rows:
        why = ("`--ps_rows=off`" if res.get("ps_rows") is False else
               "cut by `--deadline_s`" if res.get("cut_by_deadline") and res.get("ps_rows") else
               "this results.json predates them")
        w("Not run (%s). `bench/run_study.py --ps_rows=on` (the default) adds, after the 1-PS "
          "configurations, 2 PS tasks with 2 async workers, each repetition: variables placed "
          "whole and sharded.\n" % why)
        return
    whole, split = ps_params(2, False), ps_params(2, True)
    w("Async, 2 workers, 2 PS tasks. **whole**: the variables placed round-robin in creation "
      "order (dtf-run's default `--ps_strategy=round-robin`, TensorFlow's "
      "`replica_device_setter`): ps0 holds global_step, hid_b and sm_b (%d parameters), ps1 "
      "hid_w and sm_w (%d). **sharded**: variables over 64 KiB split along dimension 0 over "
      "both (`dtf-run --min_slice_size=65536`; `tf_replica.py --min_slice_size=65536`, "
      "TensorFlow's `min_max_variable_partitioner`), so hid_w's two 392x100 halves lie on "
      "ps1 and ps0: ps0 holds hid_w/part_1 and sm_w (%d), ps1 hid_w/part_0, hid_b and sm_b "
      "(%d). PS CPU per update is each PS task's CPU seconds (start-up included) over the "
      "updates it applied (DTF's PS line; TensorFlow's: the global steps), medians; "
      "\"both\" is their sum per run. \"vs. 1 PS\" is the median over the same system's "
      "1 PS, 2 async workers runs of the same step count.\n" % (whole[0], whole[1], split[0], split[1]))
    w("| placement | system | n | global steps/s | DTF / TensorFlow | vs. 1 PS | test accuracy | "
      "PS CPU ms per update: ps0, ps1 | both PS tasks, ms | gradients served: ps0, ps1 |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for shard, dtf, tf, failed in rows:
        rat = paired_ratios(runs, "async", 2, "global_steps_per_s", ps=2, shard=shard)
        for system, rs in (("dtf", dtf), ("tf", tf)):
            errs = [r for r in failed if r["system"] == system]
            if not rs and not errs:
                continue
            per = [ps_cpu_per_update_tasks(r) for r in rs]
            tasks = sorted({n for p in per for n in p})
            one = [r["global_steps_per_s"] for r in ok_runs(runs, system, "async", 2)
                   if rs and r["steps"] == rs[0]["steps"]]
            served = sorted({n for r in rs for n, t in (r.get("ps_tasks") or {}).items() if "gradients" in t})
            w("| %s | %s | %d%s | %s | %s | %s | %s | %s | %s | %s |" % (
                "sharded" if shard else "whole", "DTF" if system == "dtf" else "TensorFlow", len(rs),
                (" (+%d failed: %s)" % (len(errs), errs[0]["error"])) if errs else "",
                mmm([r["global_steps_per_s"] for r in rs]),
                (mmm(rat, "%.2fx") if rat else "–") if system == "dtf" else "",
                "%.2fx" % (med([r["global_steps_per_s"] for r in rs]) / med(one)) if rs and one else "–",
                mmm([r["accuracy"] for r in rs], "%.4f"),
                ", ".join("%.3f" % (med([p.get(n) for p in per]) * 1e3) for n in tasks) or "–",
                mmm([sum(p.values()) * 1e3 for p in per if len(p) == 2], "%.3f"),
                ", ".join("%d" % med([(r.get("ps_tasks") or {}).get(n, {}).get("gradients") for r in rs])
                          for n in served) or "–"))
    w("\n(Gradients served: the trained variables or shards each DTF PS task updates, from its "
      "`PS task N serving G gradients` line; TensorFlow prints none.)\n")


def two_ps_check(w, runs, cores, lb, tw, tp, bps):
    """The model against the 2-PS rows (K = 2, async, 2 workers): each PS
    task's CPU per update predicted as t_ps x its share of the parameters,
    and the global steps/s with K as the parameters over the largest task's
    share (2 when sharded evenly, barely above 1 when hid_w lies whole on one
    task)."""
    rows = [(shard, dtf) for shard, dtf, _, _ in two_ps_runs(runs) if dtf]
    if not rows or not lb:
        return
    w("**Check with 2 PS tasks** (async, 2 workers, loopback; the 2-PS rows above). Each PS "
      "task's CPU per update is predicted as t_ps x its share of the parameters, and K in the "
      "model as the parameters over the largest task's share (K_eff: what the busiest PS "
      "task's ceilings see); the %d-core ceiling is unchanged, a global step still costing "
      "t_w + t_ps of CPU over both PS tasks.\n" % cores)
    w("| placement | parameters ps0, ps1 | PS CPU ms per update ps0, ps1: model | measured (medians) "
      "| both, model | both, measured | K_eff | model (limit) | %d-core ceiling | predicted | "
      "measured (median) | measured / predicted |" % cores)
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    extra = []
    for shard, rs in rows:
        tasks = ps_params(2, shard, rs[0].get("min_slice_size") or 65536)
        k_eff = PARAMS / max(tasks)
        model, limit, _ = scaling_model(2, k_eff, lb, tw, tp, bps)
        shared = shared_cores_ceiling(cores, 2, tw, tp)
        predicted = min(model, shared)
        measured = med([r["global_steps_per_s"] for r in rs])
        per = [ps_cpu_per_update_tasks(r) for r in rs]
        names = ["ps0", "ps1"]
        got = [med([p.get(n) for p in per]) for n in names]
        both = med([sum(p.values()) for p in per if len(p) == 2])
        w("| %s | %s | %s | %s | %.3f | %s | %.2f | %.0f (%s) | %.0f | %.0f | %.1f | %.2f |" % (
            "sharded" if shard else "whole", ", ".join("%d" % t for t in tasks),
            ", ".join("%.3f" % (tp * t / PARAMS * 1e3) for t in tasks),
            ", ".join("%.3f" % (g * 1e3) if g is not None else "–" for g in got),
            tp * 1e3, "%.3f" % (both * 1e3) if both else "–", k_eff, model, limit, shared,
            predicted, measured, measured / predicted))
        if both and both > 1.1 * tp:
            extra.append("%s, %.2fx" % ("sharded" if shard else "whole", both / tp))
    if extra:
        w("\nThe two PS tasks together spent more CPU per update than one PS task's t_ps (%s): "
          "each PS task's start-up (in its CPU time; it weighs most in short runs) and any cost "
          "per push and pull are paid by each task whatever its share, and the model counts "
          "neither (its PS CPU is all proportional to the bytes), so its K-fold PS ceilings "
          "are an upper bound." % "; ".join(extra))
    w("")


def scaling_section(w, res, runs, cores):
    """Past this machine, on paper: scaling_model over N, K and the link."""
    w("## Past this machine, on paper\n")
    inp = model_inputs(runs)
    if not inp["ps_cpu_s"] or not inp["worker_cpu_s"]:
        w("Not measured: the model needs DTF's async 1- or 2-worker runs with their tasks' CPU times.\n")
        return
    tw, tp, bps = inp["worker_cpu_s"], inp["ps_cpu_s"], inp["bytes_per_step"]
    w("A model of DTF's global steps/s on N workers and K PS tasks, each task on a host "
      "of its own (`scaling_model` in `bench/report.py`), from this run's medians over DTF's "
      "async 1- and 2-worker runs (%d runs):\n" % inp["runs"])
    w("- worker CPU per step t_w = %.3f ms (whole process; the workers' wall time per step "
      "here, waiting for the PS and the cores included: %.3f ms);" % (tw * 1e3, inp["worker_wall_s"] * 1e3))
    w("- PS CPU per update t_ps = %.3f ms (whole process), split evenly over K PS tasks "
      "when the variables are sharded;" % (tp * 1e3))
    w("- bytes per step per worker (pull + push) b = %.0f bytes%s;" % (
        bps, "" if inp["bytes_measured"] else " (tensor sizes: not measured)"))
    w("- assumed, not measured: %.0f µs of network latency per RPC, %d RPCs per step "
      "(pull, push; a worker's RPCs to the K PS tasks in parallel); one link rate for a "
      "NIC's pull and push together.\n" % (RPC_LATENCY_S * 1e6, RPCS_PER_STEP))
    w("**Async**: global steps/s = min(N / t_step, K / t_ps, K x link / b, N x link / b), "
      "t_step = t_w + b / link + %d x latency: the workers' steps, the PS tasks' CPU, the "
      "PS tasks' NICs, the workers' NICs. **Sync**: a global step is the slowest worker's "
      "step (all equal: stragglers are not modelled) plus the aggregate, in which each PS "
      "task handles the N pushes and pulls of its share one after another at the async "
      "cost, the first hidden in the worker's step as in async ((N - 1) x t_ps / K), and "
      "its NIC moves N x b / K (replacing the worker's own transfer where longer): "
      "1 / (t_w + %d x latency + max(b, N x b / K) / link + (N - 1) x t_ps / K), the same "
      "as async for one worker; a sync global step trains N batches.\n"
      % (RPCS_PER_STEP, RPCS_PER_STEP))

    # Check against this run.
    lb = med(res.get("loopback_bytes_per_s") or [])
    check = []
    for mode in ("async", "sync"):
        for workers in (1, 2, 3):
            rs = ok_runs(runs, "dtf", mode, workers)
            if not rs or not lb:
                continue
            model, limit, _ = scaling_model(workers, 1, lb, tw, tp, bps, sync=mode == "sync")
            shared = shared_cores_ceiling(cores, workers, tw, tp, sync=mode == "sync")
            predicted = min(model, shared)
            measured = med([r["global_steps_per_s"] for r in rs])
            check.append((mode, workers, model, limit, shared, predicted, measured))
    if check:
        w("**Check against this run** (1 PS, loopback at the measured %.0f MB/s). Here N "
          "workers and the PS share %d cores, so the prediction is min(model, %d cores / "
          "(CPU per global step)), a global step costing t_w + t_ps of CPU (async) or "
          "N x (t_w + t_ps) (sync). The inputs come from the async 1- and 2-worker runs "
          "themselves, so this checks how the model composes them.\n" % (lb / 1e6, cores, cores))
        w("| mode | workers | model (limit) | %d-core ceiling | predicted | measured (median) | measured / predicted |"
          % cores)
        w("|---|---|---|---|---|---|---|")
        for mode, workers, model, limit, shared, predicted, measured in check:
            w("| %s | %d | %.0f (%s) | %.0f | %.0f | %.1f | %.2f |" % (
                mode, workers, model, limit, shared, predicted, measured, measured / predicted))
        for mode in ("async", "sync"):
            errs = [c[6] / c[5] for c in check if c[0] == mode]
            if errs:
                w("\n%s: measured at %.2f–%.2f of the prediction%s." % (
                    mode.capitalize(), min(errs), max(errs),
                    " (the cores bind at N = %s)" % ", ".join(
                        "%d" % c[1] for c in check if c[0] == mode and c[4] < c[2])
                    if any(c[4] < c[2] for c in check if c[0] == mode) else ""))
        sync = [r for wk in (2, 3) for r in ok_runs(runs, "dtf", "sync", wk)]
        if sync:
            ps_sync = med([r["tasks"]["ps0"]["cpu_s"] / r["global_step"] / r["workers"] for r in sync
                           if r["tasks"]["ps0"].get("cpu_s") is not None and r.get("global_step")])
            w_sync = med([x for r in sync for x in worker_cpu_per_step(r)])
            if ps_sync and w_sync:
                w("With 2 and 3 sync workers, the runs used %.3f ms of PS CPU per push and %.3f ms of "
                  "worker CPU per step (medians), against the model's %.3f and %.3f ms%s" % (
                      ps_sync * 1e3, w_sync * 1e3, tp * 1e3, tw * 1e3,
                      ": waiting for the aggregate costs CPU here that the model does not count."
                      if ps_sync > 1.1 * tp or w_sync > 1.1 * tw else "."))
        w("")
    two_ps_check(w, runs, cores, lb, tw, tp, bps)

    # The prediction.
    for gbps in LINKS_GBPS:
        link = gbps * 1e9 / 8
        w("**%d Gb/s** (global steps/s, and the limit):\n" % gbps)
        w("| workers | " + " | ".join("async, %d PS" % k for k in MODEL_PS_TASKS) + " | "
          + " | ".join("sync, %d PS" % k for k in MODEL_PS_TASKS) + " |")
        w("|---|" + "---|" * (2 * len(MODEL_PS_TASKS)))
        for n in MODEL_WORKERS:
            cells = []
            for sync in (False, True):
                for k in MODEL_PS_TASKS:
                    v, limit, _ = scaling_model(n, k, link, tw, tp, bps, sync=sync)
                    cells.append("%.0f (%s)" % (v, limit))
            w("| %d | %s |" % (n, " | ".join(cells)))
        w("")
        for k in MODEL_PS_TASKS:
            pts = [(n,) + scaling_model(n, k, link, tw, tp, bps)[1::-1] for n in MODEL_WORKERS]
            w("- Async, %d PS task%s%s: %s." % (k, "s" if k > 1 else "",
                                                " (sharded)" if k > 1 else "", limit_runs(pts)))
        big = MODEL_WORKERS[-1]
        v1, l1, _ = scaling_model(big, MODEL_PS_TASKS[0], link, tw, tp, bps, sync=True)
        vk, lk, _ = scaling_model(big, MODEL_PS_TASKS[-1], link, tw, tp, bps, sync=True)
        w("- Sync, %d workers: %.0f global steps/s (%.0f examples/s) with %d PS task, limited by %s; "
          "%.0f with %d, limited by %s.\n" % (big, v1, v1 * big * B, MODEL_PS_TASKS[0], l1, vk,
                                              MODEL_PS_TASKS[-1], lk))
    nic = ["%.0f global steps/s at %d Gb/s" % (g * 1e9 / 8 / bps, g) for g in LINKS_GBPS]
    nic = ", ".join(nic[:-1]) + " and " + nic[-1] if len(nic) > 1 else nic[0]
    binds = [(g, n, k) for g in LINKS_GBPS for n in MODEL_WORKERS for k in MODEL_PS_TASKS
             if "NIC" in scaling_model(n, k, g * 1e9 / 8, tw, tp, bps)[1]]
    w("A PS task's NIC ceiling, link / b, is %s, against its CPU's 1 / t_ps = %.0f: "
      "%s" % (nic, 1 / tp, "the NICs limit none of the async predictions above, the PS tasks' "
              "CPU comes first." if not binds else "a NIC limits the async prediction at %s." % ", ".join(
                  "%d Gb/s, N = %d, K = %d" % x for x in binds)))
    w("")
    largest = max(VARIABLES, key=VARIABLES.get)
    share = VARIABLES[largest] / PARAMS
    w("Sharding is what moves the PS limits: placed whole (round-robin) on K PS tasks, %s "
      "holds %.1f%% of the parameters on one task, so that task's CPU and NIC ceilings rise "
      "by at most %.3fx whatever K; sharded evenly, they rise K-fold, as above. The model "
      "counts a PS update's CPU as all proportional to the bytes; a fixed cost per RPC would "
      "not shrink with K, and the PS ceilings would rise by less.\n" % (largest, 100 * share, 1 / share))


def main():
    out = sys.argv[1]
    res = json.load(open(os.path.join(out, "results.json")))
    # Supplementary runs (results-*.json, e.g. configurations a deadline cut)
    # join the main run's.
    extras = []
    for name in sorted(os.listdir(out)):
        if name.startswith("results-") and name.endswith(".json"):
            extra = json.load(open(os.path.join(out, name)))
            extras.append((name, extra))
            for r in extra["runs"]:
                r["rep"] = "%s:%s" % (name, r["rep"])
            res["runs"] += extra["runs"]
            for r in extra.get("netns_runs", []):
                r["rep"] = "%s:%s" % (name, r["rep"])
            res["netns_runs"] = res.get("netns_runs", []) + extra.get("netns_runs", [])
    runs = res["runs"]
    m = res["machine"]
    cores = m.get("cores") or 1
    L = []
    w = L.append
    w("# DTF scaling study: 1, 2 and 3 workers, side by side with TensorFlow\n")
    w("Generated by `bench/report.py` from `results.json` of a real run. **Command:**\n")
    w("```sh\n%s\n```\n" % (res.get("command") or "bash bench/run.sh"))
    for name, extra in extras:
        w("Supplementary run (`%s`, %s to %s, load %s → %s), merged into the tables below:\n" % (
            name, extra.get("started"), extra.get("finished") or "(stopped by hand: no end time)", " ".join(extra.get("loadavg_start", [])),
            " ".join(extra.get("loadavg_end", []))))
        w("```sh\n%s\n```\n" % extra.get("command"))
    w("| | |\n|---|---|")
    w("| machine | %s cores, %s, %s RAM |" % (cores, m.get("cpu_model"), m.get("mem_total")))
    w("| platform | %s |" % m.get("platform"))
    w("| DTF commit | %s |" % res.get("commit", "unknown"))
    w("| run | %s to %s |" % (res.get("started"), res.get("finished", "(unfinished)")))
    w("| load average (1/5/15 min) | start %s, end %s (above the core count, other work competed) |"
      % (" ".join(res.get("loadavg_start", [])), " ".join(res.get("loadavg_end", []))))
    w("| workload | 784-100-10 MLP, batch 100, Adam lr 0.01, Fashion-MNIST, **%d global steps** per run, %d repetitions |"
      % (res["steps"], res["reps"]))
    w("| threads | one compute thread per task for both: DTF with OPENBLAS_NUM_THREADS=%s, TensorFlow with intra/inter-op pools of 1 |"
      % res.get("blas_threads", 1))
    for k, v in res.get("skipped", {}).items():
        w("| %s peer | **skipped**: %s |" % (k, v))
    w("")
    if res["steps"] != 10000:
        w("> **Step count.** The issue's workload is 10000 global steps (the default of "
          "`bench/run.sh`). This committed run used **%d** steps (`--steps=%d`) because the "
          "full study (6 configurations x %d repetitions x 2 systems, TensorFlow's "
          "processes taking a minute or more to start on this shared 2-core machine) does "
          "not fit the time this run had."
          % (res["steps"], res["steps"], res["reps"]))
        w("")
    if res.get("cut_by_deadline"):
        w("> **Deadline.** `--deadline_s` stopped the run before every configuration had "
          "all its repetitions; the tables give the number of runs (n) behind each figure. "
          "Configurations ran in the order async 2, 1, 3 workers, then sync 1, 2, 3%s."
          % ("; the supplementary run above re-ran the configurations it cut, and the "
             "tables merge both runs" if extras else ""))
        w("")
    w("Each figure is **min / median / max** over the repetitions. DTF and TensorFlow "
      "ran back to back within each repetition, so ratios are paired per repetition. "
      "Rates are over the timed training loop only (after start-up, compilation and "
      "initialization, before validation).\n")

    # The same command on a baseline tree (baseline.json: a results.json
    # of the commit before a change), for a change that must not slow DTF.
    base_path = os.path.join(out, "baseline.json")
    base = json.load(open(base_path)) if os.path.exists(base_path) else None
    if base and base.get("steps") != res.get("steps"):
        # Accuracy and speed depend on the step count: a baseline of another
        # length compares nothing.
        w("> **Baseline.** `baseline.json` (DTF %s) ran %s global steps per run, "
          "this run %s: it is not compared; accuracy is checked against "
          "TensorFlow in this run.\n" % (base.get("commit", "?"), base.get("steps"),
                                          res.get("steps")))
        base = None
    targets_section(w, res, runs, out, base)

    # Main table.
    w("## Results per configuration\n")
    w("| mode | workers | system | n | training time s | global steps/s | examples/s | test accuracy | test cross-entropy | bytes/step/worker | peak RSS PS MB | peak RSS worker MB (max) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    configs = []
    for mode in ("async", "sync"):
        for workers in (1, 2, 3):
            configs.append((mode, workers))
            for system in ("dtf", "tf"):
                rs = ok_runs(runs, system, mode, workers)
                errs = [r for r in config_runs(runs, system, mode, workers) if "error" in r]
                if not rs and not errs:
                    continue
                if system == "dtf":
                    bps = mmm([r.get("bytes_per_step_per_worker") for r in rs], "%.0f") + " (measured)"
                else:
                    bps = "%d (tensor sizes)" % MODEL_BYTES_PER_STEP
                w("| %s | %d | %s | %d%s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    mode, workers, "DTF" if system == "dtf" else "TensorFlow", len(rs),
                    (" (+%d failed)" % len(errs)) if errs else "",
                    mmm([r["train_s"] for r in rs], "%.2f"),
                    mmm([r["global_steps_per_s"] for r in rs]),
                    mmm([r["examples_per_s"] for r in rs], "%.0f"),
                    mmm([r["accuracy"] for r in rs], "%.4f"),
                    mmm([r["cross_entropy"] for r in rs], "%.2f"),
                    bps,
                    mmm([r["tasks"]["ps0"]["peak_rss_kb"] / 1024 for r in rs if r["tasks"]["ps0"]["peak_rss_kb"]], "%.0f"),
                    mmm([max(t["peak_rss_kb"] or 0 for n, t in r["tasks"].items() if not is_ps_task(n)) / 1024 for r in rs], "%.0f")))
    w("")
    w("## DTF / TensorFlow (paired per repetition)\n")
    w("| mode | workers | n | global steps/s ratio | examples/s ratio | worker CPU s per local step, DTF | same, TensorFlow |")
    w("|---|---|---|---|---|---|---|")
    ratio_table = {}
    for mode, workers in configs:
        rg = paired_ratios(runs, mode, workers, "global_steps_per_s")
        re_ = paired_ratios(runs, mode, workers, "examples_per_s")
        if not rg:
            continue
        ratio_table[(mode, workers)] = rg

        def cpu_per_step(system):
            vals = []
            for r in ok_runs(runs, system, mode, workers):
                for n, t in r["tasks"].items():
                    if not is_ps_task(n) and t["cpu_s"] is not None and r["local_steps"].get(n):
                        vals.append(t["cpu_s"] / r["local_steps"][n])
            return mmm([v * 1000 for v in vals], "%.2f") + " ms"
        w("| %s | %d | %d | %s | %s | %s | %s |" % (mode, workers, len(rg), mmm(rg, "%.2fx"), mmm(re_, "%.2fx"),
                                               cpu_per_step("dtf"), cpu_per_step("tf")))
    w("\n(Worker CPU per local step is the task's whole CPU time, start-up and "
      "validation included, over its training steps: an upper bound, dominated by "
      "TensorFlow's start-up at short step counts.)\n")

    two_ps_section(w, res, runs)

    if base:
        w("## Before and after\n")
        w("The same command on DTF %s (`baseline.json`, %s to %s, load %s) "
          "and on DTF %s (this run). Each figure is the median over the "
          "repetitions; a ratio is DTF over TensorFlow paired per repetition, "
          "which cancels the load both systems share.\n" % (
              base["commit"], base["started"], base.get("finished", "?"),
              " ".join(base["loadavg_start"]),
              res["commit"]))
        w("| mode | workers | DTF global steps/s before | after | DTF / TensorFlow before | after | DTF worker CPU per local step before | after |")
        w("|---|---|---|---|---|---|---|---|")

        def cpu_ms(rs):
            vals = [t["cpu_s"] / r["local_steps"][n] * 1000
                    for r in rs for n, t in r["tasks"].items()
                    if not is_ps_task(n) and t["cpu_s"] is not None and r["local_steps"].get(n)]
            return med(vals)
        for mode, workers in configs:
            b = ok_runs(base["runs"], "dtf", mode, workers)
            a = ok_runs(runs, "dtf", mode, workers)
            if not a or not b:
                continue
            rb = med(paired_ratios(base["runs"], mode, workers, "global_steps_per_s"))
            ra = med(paired_ratios(runs, mode, workers, "global_steps_per_s"))
            w("| %s | %d | %.1f | %.1f | %s | %s | %.2f ms | %.2f ms |" % (
                mode, workers, med([r["global_steps_per_s"] for r in b]),
                med([r["global_steps_per_s"] for r in a]),
                "%.2fx" % rb if rb else "–", "%.2fx" % ra if ra else "–",
                cpu_ms(b), cpu_ms(a)))
        w("")

    # Compute and network bounds.
    w("## Bounds\n")
    k = kernel_runs(res, out)
    big = [x["flops"] for x in k.get("BM_Matmul/M:1024/K:1024/N:1024/ta:0/tb:0", []) if x.get("flops")]
    # The MLP's five GEMMs (forward 2, backward 3) measured one by one.
    mlp_s = mlp_gemm_s(k)
    gemm = med(big)
    dtf1 = ok_runs(runs, "dtf", "async", 1)
    step_ms = [1000 * r["train_s"] / r["global_step"] for r in dtf1]
    if gemm:
        bound_ms = GEMM_FLOPS / (gemm * cores) * 1000
        bound1_ms = GEMM_FLOPS / gemm * 1000
        w("- Model: %.2f MFLOP per training step (GEMMs of batch 100; element-wise work < 1 %%), "
          "%d parameters." % (GEMM_FLOPS / 1e6, PARAMS))
        w("- Measured single-core SGEMM (OpenBLAS, 1024³, `dtf-bench-kernels`, OPENBLAS_NUM_THREADS=1): "
          "%s GFLOP/s (min/median/max of %d)." % (mmm([b / 1e9 for b in big], "%.1f"), len(big)))
        w("- Compute bound: %.2f MFLOP / (%.1f GFLOP/s x %d cores) = **%.3f ms per step** "
          "(%.3f ms on one core)." % (GEMM_FLOPS / 1e6, gemm / 1e9, cores, bound_ms, bound1_ms))
        if mlp_s:
            w("- The MLP's own five GEMMs, measured one by one on one core: %.0f µs per step "
              "(small GEMMs run below the 1024³ rate)." % (mlp_s * 1e6))
        cpu_ms = []
        for r in dtf1:
            t = r["tasks"]["worker0"]
            if t["cpu_s"] is not None:
                cpu_ms.append(1000 * t["cpu_s"] / r["local_steps"]["worker0"])
        if cpu_ms:
            w("- DTF single worker's CPU time per step (the worker process's whole CPU time, "
              "start-up and validation included, over its steps; contention does not inflate it): "
              "%s ms → %.1fx the one-core compute bound." % (mmm(cpu_ms, "%.2f"), med(cpu_ms) / bound1_ms))
        if step_ms:
            w("- DTF single worker (async, 1 PS + 1 worker): %s ms per step → **%.1fx** the "
              "compute bound (median; %.1fx the one-core bound)." % (
                  mmm(step_ms, "%.2f"), med(step_ms) / bound_ms, med(step_ms) / bound1_ms))
    lb = res.get("loopback_bytes_per_s", [])
    if lb:
        bw = med(lb)
        w("- Loopback TCP (one Python stream, so a lower bound): %s MB/s. A worker's step "
          "moves %.0f KB (pull + push), i.e. **%.3f ms** of loopback transfer at the median "
          "rate." % (mmm([x / 1e6 for x in lb], "%.0f"), MODEL_BYTES_PER_STEP / 1e3,
                     MODEL_BYTES_PER_STEP / bw * 1000))
    a1 = [r["examples_per_s"] for r in ok_runs(runs, "dtf", "async", 1)]
    a3 = [r["examples_per_s"] for r in ok_runs(runs, "dtf", "async", 3)]
    if a1 and a3:
        w("- DTF async scaling 1 → 3 workers: %.2fx in examples/s (medians) on %d cores%s" % (
            med(a3) / med(a1), cores,
            "; 1 PS and 3 workers need at least 4 cores (one per task) to scale." if cores < 4 else "."))
    w("")

    scaling_section(w, res, runs, cores)

    # Network namespaces.
    w("## Multi-host mode: network namespaces on a bridge\n")
    if res.get("netns_skipped"):
        w("Skipped: %s\n" % res["netns_skipped"])
    elif res.get("netns_runs"):
        nr = res["netns_runs"]
        for r in nr:
            # Runs before the shapes were recorded: 3 hosts, async.
            r.setdefault("shape", "3-host")
        shapes = NETNS_SHAPE_ORDER + sorted({r["shape"] for r in nr} - set(NETNS_SHAPE_ORDER))
        w("1 PS + 2 workers on network namespaces joined by veth pairs on a Linux bridge; "
          "the tasks listen on and dial the namespaces' own addresses, so the traffic "
          "between namespaces crosses veth, the bridge and each namespace's TCP/IP stack. "
          "Two shapes: **3-host**, PS, worker 0 and worker 1 each in a namespace of its own; "
          "**2-host**, the PS beside worker 0 in one namespace (their traffic stays on that "
          "namespace's loopback), worker 1 in the other. DTF / TensorFlow is paired per "
          "repetition.\n")
        for shape in shapes:
            placed = [r["placement"] for r in nr if r["shape"] == shape and r.get("placement")]
            if placed:
                w("- %s: %s." % (shape, ", ".join("%s in %s" % kv for kv in placed[0].items())))
            elif any(r["shape"] == shape for r in nr):
                w("- %s: ps0 in dtfb-ps (10.77.0.1), worker0 in dtfb-w0 (10.77.0.2), worker1 in "
                  "dtfb-w1 (10.77.0.3) (runs that did not record their placement)." % shape)
        w("")
        w("| shape | mode | system | n | training time s | global steps/s | DTF / TensorFlow | examples/s | test accuracy | bytes/step/worker |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for shape in shapes:
            for mode in ("async", "sync"):
                cfg = [r for r in nr if r["shape"] == shape and r["mode"] == mode]
                rat = []
                for rep in sorted({r["rep"] for r in cfg}, key=str):
                    d = [r for r in cfg if r["rep"] == rep and r["system"] == "dtf" and "error" not in r]
                    t = [r for r in cfg if r["rep"] == rep and r["system"] == "tf" and "error" not in r]
                    if d and t and t[0]["global_steps_per_s"]:
                        rat.append(d[0]["global_steps_per_s"] / t[0]["global_steps_per_s"])
                for system in ("dtf", "tf"):
                    rs = [r for r in cfg if r["system"] == system and "error" not in r]
                    errs = [r for r in cfg if r["system"] == system and "error" in r]
                    if not rs and not errs:
                        continue
                    w("| %s | %s | %s | %d%s | %s | %s | %s | %s | %s | %s |" % (
                        shape, mode, "DTF" if system == "dtf" else "TensorFlow", len(rs),
                        (" (+%d failed: %s)" % (len(errs), errs[0]["error"])) if errs else "",
                        mmm([r["train_s"] for r in rs], "%.2f"), mmm([r["global_steps_per_s"] for r in rs]),
                        (mmm(rat, "%.2fx") if rat else "–") if system == "dtf" else "",
                        mmm([r["examples_per_s"] for r in rs], "%.0f"), mmm([r["accuracy"] for r in rs], "%.4f"),
                        mmm([r.get("bytes_per_step_per_worker") for r in rs], "%.0f") if system == "dtf"
                        else "%d (tensor sizes)" % MODEL_BYTES_PER_STEP))
        # Against the same system and mode on loopback, where the step counts match.
        same = []
        for shape in shapes:
            for mode in ("async", "sync"):
                for system in ("dtf", "tf"):
                    on_ns = [r for r in nr if r["shape"] == shape and r["mode"] == mode
                             and r["system"] == system and "error" not in r]
                    lo = [r["global_steps_per_s"] for r in ok_runs(runs, system, mode, 2)
                          if on_ns and r["steps"] == on_ns[0]["steps"]]
                    if on_ns and lo:
                        same.append("%s %s %s %.2fx" % (shape, mode, "DTF" if system == "dtf" else "TensorFlow",
                                                        med([r["global_steps_per_s"] for r in on_ns]) / med(lo)))
        if same:
            w("\nGlobal steps/s on the namespaces over the same system and mode on loopback (1 PS + 2 "
              "workers, same step count, medians): %s." % ", ".join(same))
        w("")
    else:
        w("Not run (`--netns=off`).\n")

    # PyTorch.
    w("## PyTorch single-process compute reference\n")
    tr = res.get("torch") or []
    flat = [x for rep in tr if isinstance(rep, list) for x in rep]
    if flat:
        w("PyTorch %s on the CPU, the same model, batch and optimizer in one process "
          "(no parameter server, no network): what one process's compute costs in a "
          "mature framework.\n" % flat[0].get("torch", "?"))
        w("| threads | n | steps/s | examples/s | test accuracy |\n|---|---|---|---|---|")
        for th in sorted({x["threads"] for x in flat}):
            xs = [x for x in flat if x["threads"] == th]
            w("| %d | %d | %s | %s | %s |" % (th, len(xs), mmm([x["steps_per_s"] for x in xs]),
                                             mmm([x["examples_per_s"] for x in xs], "%.0f"),
                                             mmm([x["accuracy"] for x in xs], "%.4f")))
        dtf1 = [r["global_steps_per_s"] for r in ok_runs(runs, "dtf", "async", 1)]
        one = [x["steps_per_s"] for x in flat if x["threads"] == 1]
        if dtf1 and one:
            w("\nDTF async with 1 PS and 1 worker (one thread each, pull and push over "
              "loopback every step): median %.1f global steps/s, **%.2fx** PyTorch's "
              "one-thread steps/s in one process." % (med(dtf1), med(dtf1) / med(one)))
    else:
        reason = res.get("skipped", {}).get("torch") or (tr[0].get("skipped") if tr and isinstance(tr[0], dict) else "not run")
        w("Skipped: %s." % reason)
    w("")

    # Microbenchmarks.
    for name, title in (("micro-kernels.json", "Microbenchmark: CPU kernels (one core)"),
                        ("micro-rpc.json", "Microbenchmark: tensor transfer over gRPC (loopback, in-process PS)"),
                        ("micro-step.json", "Microbenchmark: the MLP's worker step and PS update, Executor and Interpreter (one thread)")):
        p = os.path.join(out, name)
        if not os.path.exists(p):
            continue
        data = json.load(open(p))
        w("## %s\n" % title)
        reps = max([b.get("repetitions", 0) for b in data["benchmarks"]] or [0])
        w("`build/bin/%s` (Google Benchmark, median of %d repetitions).\n" % (
            name.replace("micro-", "dtf-bench-").replace(".json", ""), reps))
        w("| benchmark | wall time | rate per wall second |\n|---|---|---|")
        for b in data["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            rate = ""
            if b.get("FLOP/s"):
                rate = "%.2f GFLOP/s" % (wall_rate(b, "FLOP/s") / 1e9)
            elif b.get("bytes_per_second"):
                rate = "%.0f MB/s" % (wall_rate(b) / 1e6)
            w("| `%s` | %.1f %s | %s |" % (b["run_name"], b["real_time"], b["time_unit"], rate))
        w("")

    in_graph = os.path.join(out, "in-graph.json")
    if os.path.exists(in_graph):
        data = json.load(open(in_graph))
        w("## In-graph replication against between-graph (DTF only)\n")
        w("`%s` (runs of `dtf-run --local`, one thread per task, %d steps, "
          "%d interleaved repetitions; medians). In-graph runs one batch of 100 "
          "per global step over the devices; between-graph sync aggregates one "
          "batch per worker. Bytes: tensor payload per global step, received by "
          "each task (in-graph) or pulled and pushed by each worker "
          "(between-graph).\n" % (data["command"], data["steps"], data["reps"]))
        w("| configuration | runs | global steps/s | vs. its between-graph peer | "
          "accuracy | bytes per step per task |\n|---|---|---|---|---|---|")
        for row in data["summary"]:
            if not row.get("runs"):
                w("| %s | 0 | failed | | | |" % row["name"])
                continue
            traffic = ", ".join("%s: %d" % (task.replace("/job:", "").replace("/task:", ""), b)
                                for task, b in sorted(row["bytes_per_step"].items()))
            ratio = "%.2fx" % row["ratio_to_peer"] if "ratio_to_peer" in row else "(peer)"
            w("| %s | %d | %.1f | %s | %.4f | %s |" % (
                row["name"], row["runs"], row["global_steps_per_s"], ratio,
                row["accuracy"], traffic))
        w("")

    step = os.path.join(out, "micro-step.json")
    if os.path.exists(step):
        medians = {b["run_name"]: b["real_time"]
                   for b in json.load(open(step))["benchmarks"]
                   if b.get("aggregate_name") == "median"}
        for what in ("WorkerStep", "PsUpdate"):
            ex, ip = medians.get("BM_%s_Executor" % what), medians.get("BM_%s_Interpreter" % what)
            if ex and ip:
                w("- %s: the Executor takes **%.2fx** the Interpreter's time." % (
                    {"WorkerStep": "Worker step", "PsUpdate": "PS update"}[what], ex / ip))
        w("")

    inputs = os.path.join(out, "inputs.json")
    if os.path.exists(inputs):
        data = json.load(open(inputs))
        w("## TFRecord input against IDX input (DTF only)\n")
        w("`%s`: examples/mnist_mlp.mlir, between-graph async, 1 PS + 2 workers, "
          "one thread per task, %d steps, %d interleaved repetitions; medians, and "
          "the ratio to the IDX run of the same repetition with its range. "
          "Training time starts after the inputs are read.\n"
          % (data["command"], data["steps"], data["reps"]))
        w("| input | runs | global steps/s | vs. IDX (range) | accuracy |\n"
          "|---|---|---|---|---|")
        for row in data["summary"]:
            if not row.get("runs"):
                w("| %s | 0 | failed | | |" % row["name"])
                continue
            ratio = "(peer)"
            if "ratio_to_peer" in row:
                ratio = "%.2fx (%.2f-%.2f)" % (row["ratio_to_peer"], min(row["ratios"]),
                                               max(row["ratios"]))
            w("| %s | %d | %.1f | %s | %.4f |" % (
                row["name"], row["runs"], row["global_steps_per_s"], ratio,
                row["accuracy"]))
        w("")

    w("## Plot\n\n![scaling](scaling.png)\n")
    w("`scaling.png`: global steps/s and examples/s against workers, median with "
      "min–max bars, DTF and TensorFlow, sync and async; and the paired DTF/TensorFlow ratio.\n")

    w("## Findings (written by hand from the committed run, `bench/findings.md`)\n")
    for line in FINDINGS:
        w("- " + line)
    w("")
    open(os.path.join(out, "REPORT.md"), "w").write("\n".join(L))

    # Plot.
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    for system, color in (("dtf", "tab:blue"), ("tf", "tab:orange")):
        for mode, style in (("async", "-o"), ("sync", "--s")):
            for ax, key in ((axes[0], "global_steps_per_s"), (axes[1], "examples_per_s")):
                xs, ys, lo, hi = [], [], [], []
                for workers in (1, 2, 3):
                    v = [r[key] for r in ok_runs(runs, system, mode, workers)]
                    if v:
                        xs.append(workers)
                        ys.append(med(v))
                        lo.append(med(v) - min(v))
                        hi.append(max(v) - med(v))
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], fmt=style, color=color, capsize=3,
                                label="%s %s" % ("DTF" if system == "dtf" else "TensorFlow", mode))
    for mode, style in (("async", "-o"), ("sync", "--s")):
        xs, ys, lo, hi = [], [], [], []
        for workers in (1, 2, 3):
            r = ratio_table.get((mode, workers))
            if r:
                xs.append(workers)
                ys.append(med(r))
                lo.append(med(r) - min(r))
                hi.append(max(r) - med(r))
        if xs:
            axes[2].errorbar(xs, ys, yerr=[lo, hi], fmt=style, color="tab:green", capsize=3, label=mode)
    axes[2].axhline(TARGET_TF_RATIO, color="red", lw=0.8, ls=":", label="%gx target" % TARGET_TF_RATIO)
    for ax, title in zip(axes, ("global steps/s", "examples/s", "DTF / TensorFlow, global steps/s")):
        ax.set_xlabel("workers (1 PS)")
        ax.set_xticks([1, 2, 3])
        ax.set_title(title)
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("MLP 784-100-10, %d global steps, %d reps, %s cores (%s), shared machine"
                 % (res["steps"], res["reps"], cores, m.get("cpu_model")), fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=110)


# The analysis of the committed run, written by hand (bench/findings.md,
# one finding per paragraph); a new run's numbers will differ from it.
FINDINGS = []
_findings = os.path.join(os.path.dirname(os.path.abspath(__file__)), "findings.md")
if os.path.exists(_findings):
    FINDINGS = [" ".join(p.split()) for p in open(_findings).read().split("\n\n") if p.strip()]

if __name__ == "__main__":
    main()
