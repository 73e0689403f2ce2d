#!/usr/bin/env python3
"""Streaming input (dtf-run --input_mode=stream): the benchmark of issue 32.

Four parts, each printed as it runs and written as a table of
bench/results/streaming-input.md:

  memory      The MLP of examples/image_label_mlp.mlir on 1 PS task and 2
              async workers, streamed (--shuffle_buffer=10000,
              --num_epochs=0), --memory_steps global steps, on Fashion-MNIST
              (60k), and on data of 1 GB and 4 GB (bench/make_stream_data.py,
              written on demand under --scratch). Each task runs under
              /usr/bin/time: its peak RSS (ru_maxrss, the kernel's VmHWM at
              exit). The working set is a worker's peak RSS in memory mode
              on one shard of Fashion-MNIST (7,500 examples) less those
              examples' floats; the buffers are the shuffle buffer, the
              batches the reader holds and its chunks (runtime/data/
              Streaming.h): 784 pixel bytes + 1 i64 per example in the
              shuffle buffer and the chunks, 784 f32 + 1 i64 in batches. Acceptance: a
              streamed worker's peak RSS <= working set + buffers + 300 MB,
              and at 4 GB within 50 MB of 1 GB. In memory mode on 60k for
              contrast. --log_every=1: the time from the tasks' start to
              each worker's first step line; acceptance <= 2 s.
  throughput  1 PS task and 1, then 2 workers (--throughput_workers) on
              Fashion-MNIST (8 plain shards), streamed against
              --input_mode=memory, alternating, --throughput_reps pairs
              (11: the machine's speed drifts between runs); 8000
              global steps a worker (--train_steps for 2: runs of 2000 a
              worker measured 1.5 s of steady state, and their medians
              moved by up to 0.06 between bench runs of one build, those
              of 8000 by about 0.01); global steps/s of
              the steady part (the step lines of all workers between 20%
              and 95% of the steps). Acceptance: streamed >= 0.9x memory
              (median over the paired runs). The input wait % the workers'
              log shows.
  reader      build/bin/dtf-bench-reader against bench/tfdata_reader.py
              (tf.data) on the Fashion-MNIST shards, plain and gzip, 1 and 2
              threads, batch 100, no shuffle in either, --reader_epochs
              passes; alternating, --reps runs each, median records/s.
              Acceptance: DTF >= tf.data at each thread count.
  balance     3 async workers, --num_epochs=1, worker 2 slowed by
              --debug_step_delay_ms (twice the step time a worker of the
              3-worker cluster shows in a calibration run, so ~3x slower);
              a 256 MB data set in 4 MB units. The epoch's wall time (first
              step line to the last worker's last step line) against the
              examples trained over the sum of the workers' rates (each
              worker's examples/s while all three trained). Acceptance:
              <= 1.2x. Units per worker, and the acquires refused to pace the end
              (DataCoordinator.h), from PS task 0's data lines.

    build/bench-venv/bin/python bench/streaming_input.py \\
        [--parts memory,throughput,reader,balance] [--scratch DIR] [--keep]

TensorFlow is needed by the reader part only. The data sets are deleted at
the end unless --keep. Every task has one compute thread
(OPENBLAS_NUM_THREADS=1); the machine may be shared: compare within a run.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODEL = os.path.join(ROOT, "examples", "image_label_mlp.mlir")
CONVERTER = os.path.join(ROOT, "examples", "fashion_mnist_to_tfrecord.py")
MAKE_DATA = os.path.join(HERE, "make_stream_data.py")
TFDATA = os.path.join(HERE, "tfdata_reader.py")
REPORT = os.path.join(HERE, "results", "streaming-input.md")
sys.path.insert(0, HERE)
from run_study import Task, free_ports  # noqa: E402

BATCH = 100
# A parsed example in memory: 784 float32 pixels and an int64 label.
EXAMPLE_BYTES = 784 * 4 + 8
# As the chunks and the shuffle buffer hold it: the pixels as the records'
# bytes (Streaming.h, Column), converted as a batch is assembled.
STORED_BYTES = 784 + 8
FASHION_EXAMPLES = 60000
FASHION_SHARD = 7500
MB = 1e6

STEP = re.compile(r"^(\d+\.\d+): Worker (\d+): training step (\d+) done \(global step: (\d+)\)")
INPUT = re.compile(r"Worker (\d+): input: ([0-9.]+) records/s, ([0-9.]+) MB/s, buffer (\d+) of "
                   r"(\d+) examples, waited for input (\d+)% of the last (\d+) steps' time")
INPUT_END = re.compile(r"Worker (\d+): input: (\d+) records \((\d+) bytes\) read in (\d+) units, "
                       r"(\d+) bad records? skipped, waited ([0-9.]+) s for input, (\d+) examples? "
                       r"left over at the end")
ELAPSED = re.compile(r"Training elapsed time: ([0-9.]+) s")
PS_DATA = re.compile(r"PS task 0 data: epoch (\d+), (\d+) epochs? complete, (\d+) records trained, "
                     r"(\d+) in doubt, (\d+) duplicates? \((\d+) units per epoch\)")
PS_CPU = re.compile(r"PS task 0 CPU per update while serving: ([0-9.]+) ms")
PS_UNITS = re.compile(r"PS task 0 data: worker (\d+) took (\d+) units, trained (\d+) records"
                      r"(?:, was refused (\d+) unit)?")
READER = re.compile(r"(?:reader|tf\.data): (\d+) records in ([0-9.]+) s: ([0-9.]+) records/s, "
                    r"([0-9.]+) MB/s")


def log(message):
    print(message, flush=True)


def run_cluster(args, workers, flags, task_extra=None, timeout=600):
    """1 PS task and `workers` workers on loopback, to the workers' end.
    Returns {"start": unix time of the first task's start, "out": {name:
    output}, "rss_mb": {name: peak RSS MB}, "error": None or text}."""
    task_extra = task_extra or {}
    ports = free_ports(1 + workers)
    common = [args.dtf_run, "--ps_hosts=localhost:%d" % ports[0],
              "--worker_hosts=" + ",".join("localhost:%d" % p for p in ports[1:]),
              "--inter_op_parallelism_threads=1"]
    env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    names = ["ps0"] + ["worker%d" % i for i in range(workers)]
    tasks = []
    worker_argv = []
    error = None
    start = time.time()
    try:
        for name in names:
            job, index = ("ps", 0) if name == "ps0" else ("worker", int(name[6:]))
            argv = (common + ["--job_name=" + job, "--task_index=%d" % index] + flags
                    + task_extra.get(name, []) + [MODEL])
            tasks.append(Task(name, argv, extra_env=env))
            if name == "worker0":
                worker_argv = argv
        deadline = start + timeout
        for t in tasks[1:]:
            code = t.wait(deadline - time.time())
            if code != 0:
                error = "%s %s" % (t.name, "did not finish in %d s" % timeout if code is None
                                   else "exited with status %d" % code)
                break
        if tasks[0].wait(60 if not error else 1) is None and not error:
            error = "ps0 did not stop within 60 s of the workers' end"
    finally:
        for t in tasks:
            t.kill()
    result = {"start": start, "out": {}, "rss_mb": {}, "error": error,
              "argv": worker_argv}
    for t in tasks:
        out, rss_kb, _, _ = t.finish()
        result["out"][t.name] = out
        result["rss_mb"][t.name] = rss_kb / 1024.0 if rss_kb else None
    if error:
        log("  ERROR: " + error)
        for name, out in result["out"].items():
            log("  --- %s (last lines) ---\n%s" % (name, "\n".join(out.splitlines()[-15:])))
    return result


def step_lines(out):
    """(time, worker, local step, global step) of every step line."""
    lines = []
    for line in out.splitlines():
        m = STEP.match(line)
        if m:
            lines.append((float(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))))
    return lines


def all_steps(result):
    lines = []
    for name, out in result["out"].items():
        if name.startswith("worker"):
            lines += step_lines(out)
    return sorted(lines)


def input_figures(result):
    """Per worker: the mean of its 'waited for input P%' lines (all but the
    first), and its end line's figures."""
    figures = {}
    for name, out in result["out"].items():
        if not name.startswith("worker"):
            continue
        waits = [int(m.group(6)) for m in INPUT.finditer(out)]
        end = INPUT_END.search(out)
        elapsed = ELAPSED.search(out)
        figures[name] = {
            "wait_pct_lines": statistics.mean(waits[1:]) if len(waits) > 1 else
            (waits[0] if waits else None),
            "records": int(end.group(2)) if end else None,
            "units": int(end.group(4)) if end else None,
            "wait_s": float(end.group(6)) if end else None,
            "left_over": int(end.group(7)) if end else None,
            "elapsed_s": float(elapsed.group(1)) if elapsed else None,
        }
    return figures


def ps_data(result):
    out = result["out"].get("ps0", "")
    m = PS_DATA.search(out)
    data = None
    if m:
        data = {"epoch": int(m.group(1)), "epochs_complete": int(m.group(2)),
                "trained": int(m.group(3)), "in_doubt": int(m.group(4)),
                "duplicates": int(m.group(5)), "units_per_epoch": int(m.group(6))}
    # (units taken, records trained, acquires refused at the last epoch's end)
    units = {int(m.group(1)): (int(m.group(2)), int(m.group(3)), int(m.group(4) or 0))
             for m in PS_UNITS.finditer(out)}
    return data, units


def ps_cpu_ms(result):
    m = PS_CPU.search(result["out"].get("ps0", ""))
    return float(m.group(1)) if m else None


def input_flags(pattern, mode, extra=()):
    return (["--input_mode=" + mode, "--batch_size=%d" % BATCH,
             "--input=image=tfrecord:%s,scale=1/255" % pattern,
             "--input=label=tfrecord:%s" % pattern] + list(extra))


# ---------------------------------------------------------------- data sets

def fashion_data(args, compression="none"):
    out = os.path.join(args.scratch, "fashion-" + compression)
    if not glob.glob(os.path.join(out, "train-*")):
        log("writing Fashion-MNIST shards (%s) to %s" % (compression, out))
        subprocess.run([sys.executable, CONVERTER, "--out", out, "--train-shards", "8",
                        "--compression", compression, "--id"], check=True,
                       stdout=subprocess.DEVNULL)
        for test in glob.glob(os.path.join(out, "test-*")):
            os.unlink(test)
    return out


def big_data(args, size, shards=16):
    out = os.path.join(args.scratch, "fashion-" + size)
    meta = os.path.join(out, "meta.json")
    if not os.path.exists(meta):
        log("writing %s of records to %s" % (size, out))
        subprocess.run([sys.executable, MAKE_DATA, "--out=" + out, "--bytes=" + size,
                        "--shards=%d" % shards, "--compression=none", "--kind=fashion"],
                       check=True)
    files = glob.glob(os.path.join(out, "train-*"))
    total = sum(os.path.getsize(f) for f in files)
    try:
        examples = json.load(open(meta)).get("examples") or json.load(open(meta))["train"]["examples"]
    except Exception:
        examples = None
    return out, total, examples


def data_examples(directory):
    """Examples of a data set: meta.json's, else counted by framing."""
    meta = os.path.join(directory, "meta.json")
    if os.path.exists(meta):
        m = json.load(open(meta))
        for key in ("train_examples", "examples"):
            if isinstance(m.get(key), int):
                return m[key]
        if isinstance(m.get("train"), dict) and "examples" in m["train"]:
            return m["train"]["examples"]
    return None


# ---------------------------------------------------------------- part 1

def buffer_estimate(shuffle, prefetch=2, readers=2, chunk=256):
    """Bytes the streamed input may hold (Streaming.h's bound), parsed."""
    shuffle_bytes = shuffle * STORED_BYTES
    batches = (1 + prefetch) * BATCH * EXAMPLE_BYTES
    chunks = (2 * readers + 1) * chunk * STORED_BYTES
    unsettled = 64 * BATCH * EXAMPLE_BYTES  # kMaxUnsettledBatches, at most
    return {"shuffle": shuffle_bytes, "batches": batches, "chunks": chunks,
            "unsettled_max": unsettled,
            "total": shuffle_bytes + batches + chunks + unsettled}


def first_step_seconds(result):
    """Per worker: seconds from the tasks' start to its 'training step 1'
    line (or its first step line)."""
    firsts = {}
    for t, worker, local, _ in all_steps(result):
        if worker not in firsts:
            firsts[worker] = (t - result["start"], local)
    return firsts


def part_memory(args, report):
    log("\n== memory: peak RSS of streamed workers, 1 PS + 2 async workers, "
        "%d global steps ==" % args.memory_steps)
    fashion = fashion_data(args)
    sets = [("Fashion-MNIST, 1 shard (7,500)", os.path.join(fashion, "train-00000-*"), "memory",
             os.path.getsize(glob.glob(os.path.join(fashion, "train-00000-*"))[0]),
             FASHION_SHARD),
            ("Fashion-MNIST (60,000)", os.path.join(fashion, "train-*"), "memory",
             sum(os.path.getsize(f) for f in glob.glob(os.path.join(fashion, "train-*"))),
             FASHION_EXAMPLES),
            ("Fashion-MNIST (60,000)", os.path.join(fashion, "train-*"), "stream",
             sum(os.path.getsize(f) for f in glob.glob(os.path.join(fashion, "train-*"))),
             FASHION_EXAMPLES)]
    for size in ("1G", "4G"):
        directory, total, _ = big_data(args, size)
        sets.append(("%s (%s)" % (size.replace("G", " GB"), "16 shards"),
                     os.path.join(directory, "train-*"), "stream", total,
                     data_examples(directory) or int(total / 852)))
    rows = []
    for label, pattern, mode, nbytes, examples in sets:
        flags = (["--async", "--train_steps=%d" % args.memory_steps, "--log_every=1",
                  "--progress=false"]
                 + input_flags(pattern, mode, ["--shuffle_buffer=%d" % args.shuffle_buffer,
                                               "--num_epochs=0"] if mode == "stream" else []))
        log("%s, %s: %s" % (label, mode, " ".join(flags)))
        r = run_cluster(args, 2, flags)
        firsts = first_step_seconds(r)
        figures = input_figures(r)
        row = {"label": label, "mode": mode, "bytes": nbytes, "examples": examples,
               "rss": r["rss_mb"], "first": firsts, "figures": figures, "error": r["error"],
               "argv": r["argv"], "ps_cpu_ms": ps_cpu_ms(r), "ps_data": ps_data(r)[0]}
        rows.append(row)
        log("  peak RSS MB: %s; first step line after: %s; records read: %s" % (
            ", ".join("%s %.0f" % (n, v) for n, v in sorted(r["rss_mb"].items()) if v),
            ", ".join("worker%d %.2f s" % (w, s) for w, (s, _) in sorted(firsts.items())),
            ", ".join("%s %s" % (n, f["records"]) for n, f in sorted(figures.items()))))
    est = buffer_estimate(args.shuffle_buffer)
    base = rows[0]
    base_rss = [base["rss"].get("worker%d" % i) for i in range(2)]
    base_data = FASHION_SHARD * EXAMPLE_BYTES / 2 ** 20
    working_set = (max(v for v in base_rss if v) - base_data) if any(base_rss) else None
    bound = working_set + est["total"] / 2 ** 20 + 300 if working_set else None
    peaks = {}
    for row in rows:
        if row["mode"] == "stream":
            peaks[row["label"]] = max((row["rss"].get("worker%d" % i) or 0) for i in range(2))
    gb1 = next((v for k, v in peaks.items() if k.startswith("1 GB")), None)
    gb4 = next((v for k, v in peaks.items() if k.startswith("4 GB")), None)
    firsts = [s for row in rows if row["mode"] == "stream" for s, _ in row["first"].values()]
    result = {"rows": rows, "estimate": est, "working_set_mb": working_set, "bound_mb": bound,
              "base_data_mb": base_data, "gb1": gb1, "gb4": gb4,
              "rss_met": bool(bound and all(v <= bound for v in peaks.values())),
              "diff_met": bool(gb1 and gb4 and abs(gb4 - gb1) <= 50),
              "first_max": max(firsts) if firsts else None,
              "first_met": bool(firsts and max(firsts) <= 2.0),
              "steps": args.memory_steps}
    log("  buffers estimate %.1f MB (shuffle %.1f, batches %.1f, chunks %.1f, unsettled at most "
        "%.1f); working set %.0f MB; bound %.0f MB" % (
            est["total"] / 2 ** 20, est["shuffle"] / 2 ** 20, est["batches"] / 2 ** 20,
            est["chunks"] / 2 ** 20, est["unsettled_max"] / 2 ** 20, working_set or 0, bound or 0))
    if gb1 and gb4:
        log("  4 GB - 1 GB peak RSS: %+.0f MB" % (gb4 - gb1))
    report["memory"] = result


# ---------------------------------------------------------------- part 2

def steady_rate(result, train_steps, lo=0.2, hi=0.95):
    lines = [l for l in all_steps(result) if lo * train_steps <= l[3] <= hi * train_steps]
    if len(lines) < 2:
        return None
    first, last = lines[0], lines[-1]
    return (last[3] - first[3]) / (last[0] - first[0]) if last[0] > first[0] else None


def part_throughput(args, report):
    fashion = fashion_data(args)
    pattern = os.path.join(fashion, "train-*")
    results = []
    for workers in args.throughput_workers:
        steps = args.train_steps * workers // 2
        log("\n== throughput: streamed against memory, Fashion-MNIST, 1 PS + %d async worker(s), "
            "%d global steps, %d runs each ==" % (workers, steps, args.throughput_reps))
        runs = []
        for rep in range(args.throughput_reps):
            order = ("stream", "memory") if rep % 2 == 0 else ("memory", "stream")
            for mode in order:
                flags = (["--async", "--train_steps=%d" % steps, "--log_every=100",
                          "--progress=false"]
                         + input_flags(pattern, mode,
                                       ["--shuffle_buffer=%d" % args.shuffle_buffer,
                                        "--num_epochs=0"] if mode == "stream" else []))
                r = run_cluster(args, workers, flags)
                rate = steady_rate(r, steps) if not r["error"] else None
                figures = input_figures(r)
                waits = [f["wait_pct_lines"] for f in figures.values()
                         if f["wait_pct_lines"] is not None]
                wait_s = [f["wait_s"] for f in figures.values() if f["wait_s"] is not None]
                elapsed = [f["elapsed_s"] for f in figures.values() if f["elapsed_s"]]
                run = {"rep": rep, "mode": mode, "rate": rate,
                       "wait_pct": statistics.mean(waits) if waits else None,
                       "wait_s": wait_s, "elapsed": elapsed, "error": r["error"],
                       "argv": r["argv"], "ps_cpu_ms": ps_cpu_ms(r)}
                runs.append(run)
                log("  rep %d %-6s: %s global steps/s (steady), PS CPU per update %s ms%s" % (
                    rep, mode, "%.1f" % rate if rate else "-", fmt(run["ps_cpu_ms"], "%.3f"),
                    "; input wait %.1f%% of step time (log lines), %s s in all" % (
                        run["wait_pct"], "/".join("%.2f" % w for w in wait_s)) if waits else ""))
        stream = [r["rate"] for r in runs if r["mode"] == "stream" and r["rate"]]
        memory = [r["rate"] for r in runs if r["mode"] == "memory" and r["rate"]]
        ratios = []
        for rep in range(args.throughput_reps):
            s = [r["rate"] for r in runs if r["rep"] == rep and r["mode"] == "stream" and r["rate"]]
            m = [r["rate"] for r in runs if r["rep"] == rep and r["mode"] == "memory" and r["rate"]]
            if s and m:
                ratios.append(s[0] / m[0])
        ratio = statistics.median(ratios) if ratios else None
        # The middle half of the pairs: this shared machine's speed drifts
        # by a third between runs, so the spread is part of the figure.
        quartiles = (statistics.quantiles(ratios, n=4)[::2] if len(ratios) >= 4 else None)
        results.append({"workers": workers, "runs": runs, "stream": stream, "memory": memory,
                        "ratios": ratios, "ratio": ratio, "quartiles": quartiles,
                        "met": bool(ratio and ratio >= 0.9), "steps": steps})
        if ratio:
            log("  streamed/memory: %.3fx median of %d paired runs (%s)" % (
                ratio, len(ratios), ", ".join("%.3f" % x for x in ratios)))
    report["throughput"] = results


# ---------------------------------------------------------------- part 3

def part_reader(args, report):
    log("\n== reader: dtf-bench-reader against tf.data, Fashion-MNIST shards, batch %d, "
        "%d passes, %d runs each ==" % (BATCH, args.reader_epochs, args.reps))
    rows = []
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", OPENBLAS_NUM_THREADS="1")
    for compression in ("none", "gzip"):
        pattern = os.path.join(fashion_data(args, compression), "train-*")
        for threads in (1, 2):
            cmds = {
                "dtf": [args.reader, "--input=image=tfrecord:%s,scale=1/255" % pattern,
                        "--input=label=tfrecord:%s" % pattern, "--placeholder=image=f32:784",
                        "--placeholder=label=i64:", "--threads=%d" % threads,
                        "--batch=%d" % BATCH, "--epochs=%d" % args.reader_epochs,
                        "--shuffle_buffer=0", "--cycle_length=4"],
                "tf.data": [args.python, TFDATA, "--files=" + pattern, "--threads=%d" % threads,
                            "--batch=%d" % BATCH, "--epochs=%d" % args.reader_epochs,
                            "--feature=image:bytes", "--feature=label:int64",
                            "--scale=%r" % (1 / 255)],
            }
            got = {"dtf": [], "tf.data": []}
            errors = []
            for rep in range(args.reps):
                order = ("dtf", "tf.data") if rep % 2 == 0 else ("tf.data", "dtf")
                for system in order:
                    p = subprocess.run(cmds[system], capture_output=True, text=True, env=env,
                                       timeout=600)
                    m = READER.search(p.stdout + p.stderr)
                    if p.returncode != 0 or not m:
                        errors.append("%s exit %d: %s" % (system, p.returncode,
                                                          (p.stdout + p.stderr)[-500:]))
                        continue
                    got[system].append((float(m.group(3)), float(m.group(4))))
            row = {"compression": compression, "threads": threads, "runs": got,
                   "errors": errors, "cmds": cmds}
            for system in got:
                rates = [g[0] for g in got[system]]
                row[system] = statistics.median(rates) if rates else None
                row[system + "_mb"] = statistics.median([g[1] for g in got[system]]) if rates else None
            row["ratio"] = row["dtf"] / row["tf.data"] if row["dtf"] and row["tf.data"] else None
            rows.append(row)
            log("  %-4s %d thread%s: DTF %s records/s (%s), tf.data %s records/s (%s)%s" % (
                compression, threads, "s" if threads > 1 else " ",
                "%.0f" % row["dtf"] if row["dtf"] else "-",
                ", ".join("%.0f" % g[0] for g in got["dtf"]),
                "%.0f" % row["tf.data"] if row["tf.data"] else "-",
                ", ".join("%.0f" % g[0] for g in got["tf.data"]),
                ": %.2fx" % row["ratio"] if row["ratio"] else ""))
            for e in errors:
                log("    ERROR " + e)
    report["reader"] = {"rows": rows, "epochs": args.reader_epochs,
                        "met": all(r["ratio"] and r["ratio"] >= 1.0 for r in rows)}


# ---------------------------------------------------------------- part 4

def worker_rates(result, workers, until):
    """Each worker's examples/s from its step lines before `until`."""
    rates = {}
    lines = all_steps(result)
    for w in range(workers):
        mine = [l for l in lines if l[1] == w and l[0] <= until]
        if len(mine) >= 2 and mine[-1][0] > mine[0][0]:
            rates[w] = (mine[-1][2] - mine[0][2]) * BATCH / (mine[-1][0] - mine[0][0])
    return rates


def part_balance(args, report):
    log("\n== balance: 3 async workers, one epoch, worker 2 slowed ~3x ==")
    directory, total, _ = big_data(args, args.balance_data, shards=8)
    pattern = os.path.join(directory, "train-*")
    examples = data_examples(directory)
    common = ["--async", "--train_steps=1000000000", "--progress=false",
              "--shuffle_buffer=%d" % args.shuffle_buffer,
              "--input_unit_mb=%d" % args.balance_unit_mb]
    # Calibration: the step time of a worker of the 3-worker cluster.
    cal = run_cluster(args, 3, ["--async", "--train_steps=%d" % args.calibration_steps,
                                "--log_every=50", "--progress=false"]
                      + input_flags(pattern, "stream", common[3:] + ["--num_epochs=0"]))
    lines = all_steps(cal)
    step_ms = []
    for w in range(3):
        mine = [l for l in lines if l[1] == w]
        mine = mine[len(mine) // 5:]
        if len(mine) >= 2:
            step_ms.append((mine[-1][0] - mine[0][0]) / (mine[-1][2] - mine[0][2]) * 1000)
    if not step_ms:
        report["balance"] = {"error": "calibration failed: " + str(cal["error"])}
        return
    step = statistics.median(step_ms)
    delay = max(1, int(round(2 * step)))
    log("  calibration: step time %.2f ms per worker (%s) -> --debug_step_delay_ms=%d" % (
        step, ", ".join("%.2f" % s for s in step_ms), delay))
    flags = (["--log_every=1"] + input_flags(pattern, "stream", common + ["--num_epochs=1"]))
    r = run_cluster(args, 3, flags, {"worker2": ["--debug_step_delay_ms=%d" % delay]},
                    timeout=900)
    result = {"delay_ms": delay, "cal_step_ms": step_ms, "examples": examples,
              "bytes": total, "error": r["error"], "argv": r["argv"]}
    if r["error"]:
        report["balance"] = result
        return
    lines = all_steps(r)
    ends = {w: max(l[0] for l in lines if l[1] == w) for w in range(3)}
    first_end = min(ends.values())
    rates = worker_rates(r, 3, first_end)
    data, units = ps_data(r)
    trained = data["trained"] if data else None
    wall = max(ends.values()) - lines[0][0]
    ideal = trained / sum(rates.values()) if trained and rates else None
    figures = input_figures(r)
    result.update({"wall_s": wall, "ideal_s": ideal, "ratio": wall / ideal if ideal else None,
                   "rates": rates, "ends": {w: e - lines[0][0] for w, e in ends.items()},
                   "ps": data, "units": units, "figures": figures,
                   "local_steps": {w: max(l[2] for l in lines if l[1] == w) for w in range(3)}})
    result["met"] = bool(result["ratio"] and result["ratio"] <= 1.2)
    log("  rates examples/s: %s (worker 2 %.2fx slower than the others' mean)" % (
        ", ".join("worker%d %.0f" % (w, v) for w, v in sorted(rates.items())),
        statistics.mean([rates[0], rates[1]]) / rates[2] if len(rates) == 3 else 0))
    log("  epoch wall %.2f s, ideal %.2f s (%s records / %.0f examples/s): %.3fx" % (
        wall, ideal or 0, trained, sum(rates.values()), result["ratio"] or 0))
    log("  workers ended at %s s; units taken %s; PS: %s" % (
        ", ".join("%.2f" % v for _, v in sorted(result["ends"].items())),
        ", ".join("worker%d %d (%d records, %d refused)" % (w, u[0], u[1], u[2])
                  for w, u in sorted(units.items())),
        data))
    report["balance"] = result


# ---------------------------------------------------------------- report

def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def fmt(v, spec="%.1f"):
    return spec % v if v is not None else "-"


def met(flag):
    return "**met**" if flag else "**not met**"


def write_report(args, report, command):
    lines = ["# Streaming input (bench/streaming_input.py)", "",
             "```sh", command, "```", "",
             "| | |", "|---|---|",
             "| machine | %s, %d cores, %s |" % (cpu_model(), os.cpu_count(), report["mem_total"]),
             "| run | %s to %s |" % (report["started"], report["ended"]),
             "| DTF commit | %s |" % report["commit"],
             "| load average (1/5/15 min) | start %s, end %s |" % (report["load_start"],
                                                                   report["load_end"]),
             "| model | examples/image_label_mlp.mlir (784-100-10 MLP), batch %d, 1 PS task, "
             "one compute thread per task |" % BATCH, ""]
    lines += ["## Acceptance", "", "| target | measured | met? |", "|---|---|---|"]
    m = report.get("memory")
    if m:
        peaks = ", ".join("%s %.0f MB" % (row["label"], max((row["rss"].get("worker%d" % i) or 0)
                                                            for i in range(2)))
                          for row in m["rows"] if row["mode"] == "stream")
        lines.append("| streamed worker's peak RSS <= working set + buffers + 300 MB | %s; bound "
                     "%.0f MB (working set %.0f + buffers %.0f + 300) | %s |" % (
                         peaks, m["bound_mb"] or 0, m["working_set_mb"] or 0,
                         m["estimate"]["total"] / 2 ** 20, met(m["rss_met"])))
        lines.append("| peak RSS at 4 GB within 50 MB of 1 GB | %s MB against %s MB: %s MB | %s |" % (
            fmt(m["gb4"], "%.0f"), fmt(m["gb1"], "%.0f"),
            fmt(m["gb4"] - m["gb1"] if m["gb1"] and m["gb4"] else None, "%+.0f"),
            met(m["diff_met"])))
        lines.append("| tasks' start to each worker's first step line <= 2 s (streamed) | at most "
                     "%s s | %s |" % (fmt(m["first_max"], "%.2f"), met(m["first_met"])))
    throughput = report.get("throughput") or []
    for t in throughput:
        lines.append("| streamed >= 0.9x in-memory global steps/s, %d worker(s) | %s (median of "
                     "%d paired runs) | %s |" % (t["workers"], fmt(t["ratio"], "%.3fx"),
                                                 len(t["ratios"]), met(t["met"])))
    rd = report.get("reader")
    if rd:
        lines.append("| DTF reader >= tf.data records/s, same threads | %s | %s |" % (
            "; ".join("%s %dT %s" % (r["compression"], r["threads"], fmt(r["ratio"], "%.2fx"))
                      for r in rd["rows"]), met(rd["met"])))
    b = report.get("balance")
    if b:
        lines.append("| one epoch, a 3x slower worker: wall <= 1.2x the combined rates' time | "
                     "%s | %s |" % (fmt(b.get("ratio"), "%.3fx") if not b.get("error")
                                    else "failed: " + b["error"], met(b.get("met"))))
    lines.append("")

    if m:
        est = m["estimate"]
        lines += ["## 1. Memory", "",
                  "1 PS task, 2 async workers, %d global steps, `--log_every=1`; streamed runs "
                  "with `--num_epochs=0 --shuffle_buffer=%d` (defaults otherwise: "
                  "`--reader_threads=2 --cycle_length=4 --input_unit_mb=64 --prefetch=2`). "
                  "Peak RSS is each task's ru_maxrss (/usr/bin/time %%M: the kernel's VmHWM "
                  "at exit)." % (m["steps"], args.shuffle_buffer), "",
                  "| data | mode | file bytes | examples | records read w0 / w1 | peak RSS ps0 / "
                  "w0 / w1 MB | first step line after (s) w0 / w1 | training elapsed s | "
                  "PS task 0 CPU per update ms |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for row in m["rows"]:
            rec = " / ".join(str(row["figures"].get("worker%d" % i, {}).get("records") or "-")
                             for i in range(2))
            lines.append("| %s | %s | %.0f MB | %d | %s | %s | %s | %s | %s |%s" % (
                row["label"], row["mode"], row["bytes"] / MB, row["examples"] or 0, rec,
                " / ".join(fmt(row["rss"].get(n), "%.0f") for n in ("ps0", "worker0", "worker1")),
                " / ".join(fmt(row["first"].get(i, (None,))[0], "%.2f") for i in range(2)),
                " / ".join(fmt(row["figures"].get("worker%d" % i, {}).get("elapsed_s"), "%.1f")
                           for i in range(2)), fmt(row["ps_cpu_ms"], "%.3f"),
                " failed: " + row["error"] if row["error"] else ""))
        lines += ["",
                  "Buffer estimate (examples of %d bytes in the shuffle buffer and the chunks: "
                  "784 pixels as bytes + an i64 label; %d bytes in batches: 784 f32 + the "
                  "label): the shuffle buffer %.1f MB, the batch being assembled and 2 prefetched %.1f MB, "
                  "5 chunks of 256 records %.1f MB, at most 64 unsettled batches %.1f MB: "
                  "**%.1f MB**. The working set: a worker's peak RSS in memory mode on one shard "
                  "(%.0f MB) less that shard's %d examples' floats (%.1f MB): **%.0f MB**. "
                  "Bound: **%.0f MB**." % (
                      STORED_BYTES, EXAMPLE_BYTES, est["shuffle"] / 2 ** 20,
                      est["batches"] / 2 ** 20,
                      est["chunks"] / 2 ** 20, est["unsettled_max"] / 2 ** 20,
                      est["total"] / 2 ** 20,
                      max((m["rows"][0]["rss"].get("worker%d" % i) or 0) for i in range(2)),
                      FASHION_SHARD, m["base_data_mb"], m["working_set_mb"] or 0,
                      m["bound_mb"] or 0), "",
                  "In-memory mode on 1 GB or 4 GB is not run: 1 GB of records is about 1.26M "
                  "examples, about 4 GB of floats, loaded before the first step. The in-memory "
                  "run on 60,000 examples shows the contrast at a size that fits.", ""]
    if throughput:
        lines += ["## 2. Throughput", "",
                  "Fashion-MNIST, 8 plain shards (60,000 examples), 1 PS task and 1 or 2 async "
                  "workers (on this machine's cores, 2 workers and the PS task leave no core "
                  "for the input's threads), %d global steps a worker, `--log_every=100`, "
                  "streamed (`--input_mode=stream --num_epochs=0 --shuffle_buffer=%d`) against "
                  "`--input_mode=memory`, alternating. Global steps/s over the step lines of "
                  "the workers between 20%% and 95%% of the global steps (the steady part). "
                  "Input wait: the mean of the workers' `waited for input P%%` lines (the first "
                  "left out), and the end line's seconds waited per worker." % (
                      args.train_steps // 2, args.shuffle_buffer), ""]
        for t in throughput:
            lines += ["### %d worker(s), %d global steps" % (t["workers"], t["steps"]), "",
                      "| rep | mode | global steps/s | input wait % (lines) | waited s per worker | "
                      "training elapsed s per worker | PS task 0 CPU per update ms |",
                      "|---|---|---|---|---|---|---|"]
            for r in t["runs"]:
                lines.append("| %d | %s | %s | %s | %s | %s | %s |%s" % (
                    r["rep"], r["mode"], fmt(r["rate"]), fmt(r["wait_pct"]),
                    " / ".join("%.2f" % w for w in r["wait_s"]) or "-",
                    " / ".join("%.1f" % e for e in r["elapsed"]) or "-",
                    fmt(r["ps_cpu_ms"], "%.3f"),
                    " failed: " + r["error"] if r["error"] else ""))
            lines += ["", "Streamed: median %s global steps/s (%s); memory: median %s (%s); "
                      "streamed/memory per pair: %s; median **%s**." % (
                          fmt(statistics.median(t["stream"]) if t["stream"] else None),
                          ", ".join("%.1f" % x for x in t["stream"]),
                          fmt(statistics.median(t["memory"]) if t["memory"] else None),
                          ", ".join("%.1f" % x for x in t["memory"]),
                          ", ".join("%.3f" % x for x in t["ratios"]),
                          fmt(t["ratio"], "%.3fx")
                          + (" (middle half of the pairs %.3f-%.3f)" % tuple(t["quartiles"])
                             if t.get("quartiles") else "")), ""]
    if rd:
        r0 = rd["rows"][0] if rd["rows"] else None
        lines += ["## 3. Reader alone", "",
                  "The Fashion-MNIST shards (8 files, 60,000 records; plain, and gzip as "
                  "fashion_mnist_to_tfrecord.py writes it), %d passes, batch %d, no shuffle in "
                  "either, the files in the page cache. DTF: `%s`. tf.data: `%s` "
                  "(bench/tfdata_reader.py; TensorFlow's pools pinned to the thread count, "
                  "times the iteration after the first batch). Alternating, median of the runs. "
                  "MB/s: the records' bytes as read, decompressed." % (
                      rd["epochs"], BATCH,
                      " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                               for c in r0["cmds"]["dtf"]) if r0 else "",
                      " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                               for c in r0["cmds"]["tf.data"]) if r0 else ""), "",
                  "| files | threads | DTF records/s (runs) | DTF MB/s | tf.data records/s (runs) "
                  "| tf.data MB/s | DTF / tf.data |", "|---|---|---|---|---|---|---|"]
        for r in rd["rows"]:
            lines.append("| %s | %d | %s (%s) | %s | %s (%s) | %s | %s |" % (
                r["compression"], r["threads"], fmt(r["dtf"], "%.0f"),
                ", ".join("%.0f" % g[0] for g in r["runs"]["dtf"]), fmt(r["dtf_mb"]),
                fmt(r["tf.data"], "%.0f"), ", ".join("%.0f" % g[0] for g in r["runs"]["tf.data"]),
                fmt(r["tf.data_mb"]), fmt(r["ratio"], "%.2fx")))
            for e in r["errors"]:
                lines.append("| | | error: %s | | | | |" % e.replace("\n", " ")[:300])
        lines.append("")
    if b:
        lines += ["## 4. Balance", ""]
        if b.get("error") and "wall_s" not in b:
            lines += ["Failed: %s" % b["error"], ""]
        else:
            lines += [
                "3 async workers, `--num_epochs=1`, make_stream_data.py %s in 8 plain shards "
                "(%d examples, %.0f MB) handed out in units of `--input_unit_mb=%d`, "
                "`--shuffle_buffer=%d`, `--log_every=1`. Worker 2 sleeps "
                "`--debug_step_delay_ms=%d` after each step: twice the step time a worker showed "
                "in a calibration run of the same cluster (%s ms). The epoch's wall time: from "
                "the first step line of any worker to the last worker's last step line. The "
                "combined rates' time: the records trained (PS task 0) over the sum of the "
                "workers' examples/s, each from its step lines while all three trained." % (
                    args.balance_data, b["examples"] or 0, b["bytes"] / MB, args.balance_unit_mb,
                    args.shuffle_buffer, b["delay_ms"],
                    ", ".join("%.2f" % s for s in b["cal_step_ms"])), "",
                "| worker | examples/s | local steps | ended at (s) | units taken (PS) | "
                "refused at the end (PS) | records trained (PS) | records read | input waited s "
                "| left over |",
                "|---|---|---|---|---|---|---|---|---|---|"]
            for w in range(3):
                f = b["figures"].get("worker%d" % w, {})
                u = b["units"].get(w, (None, None, None))
                lines.append("| %d%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    w, " (slowed)" if w == 2 else "", fmt(b["rates"].get(w), "%.0f"),
                    b["local_steps"].get(w), fmt(b["ends"].get(w), "%.2f"), u[0], u[2], u[1],
                    f.get("records"), fmt(f.get("wait_s"), "%.2f"), f.get("left_over")))
            ps = b["ps"] or {}
            lines += ["", "PS task 0: %s records trained, %s in doubt, %s duplicates, %s epochs "
                      "complete, %s units per epoch. Epoch wall time **%.2f s**; combined rates' "
                      "time %.2f s (%s / %.0f examples/s): **%.3fx**." % (
                          ps.get("trained"), ps.get("in_doubt"), ps.get("duplicates"),
                          ps.get("epochs_complete"), ps.get("units_per_epoch"), b["wall_s"],
                          b["ideal_s"] or 0, ps.get("trained"), sum(b["rates"].values()),
                          b["ratio"] or 0), ""]
    if report.get("notes"):
        lines += ["## Notes", ""] + report["notes"] + [""]
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    with open(args.report, "w") as f:
        f.write("\n".join(lines))
    log("\nwrote " + args.report)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="memory,throughput,reader,balance")
    parser.add_argument("--scratch", default="/tmp/dtf-stream-bench")
    parser.add_argument("--keep", action="store_true", help="keep the data sets")
    parser.add_argument("--dtf_run", default=os.path.join(ROOT, "build", "bin", "dtf-run"))
    parser.add_argument("--reader", default=os.path.join(ROOT, "build", "bin", "dtf-bench-reader"))
    parser.add_argument("--python", default=sys.executable, help="python with TensorFlow")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--throughput_reps", type=int, default=11,
                        help="pairs of throughput runs (streamed, in memory) per worker count")
    parser.add_argument("--shuffle_buffer", type=int, default=10000)
    parser.add_argument("--memory_steps", type=int, default=2000)
    parser.add_argument("--train_steps", type=int, default=16000,
                        help="global steps of the 2-worker throughput runs (half per worker)")
    parser.add_argument("--throughput_workers", type=lambda v: [int(x) for x in v.split(",")],
                        default=[1, 2], help="worker counts of the throughput part")
    parser.add_argument("--reader_epochs", type=int, default=5)
    parser.add_argument("--balance_data", default="256M")
    parser.add_argument("--balance_unit_mb", type=int, default=4)
    parser.add_argument("--calibration_steps", type=int, default=1500)
    parser.add_argument("--report", default=REPORT)
    args = parser.parse_args()
    parts = args.parts.split(",")
    unknown = set(parts) - {"memory", "throughput", "reader", "balance"}
    if unknown:
        sys.exit("unknown parts: %s" % ", ".join(sorted(unknown)))
    os.makedirs(args.scratch, exist_ok=True)
    command = "build/bench-venv/bin/python bench/streaming_input.py " + " ".join(sys.argv[1:])
    try:
        commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    mem_total = next((l.split(":", 1)[1].strip() for l in open("/proc/meminfo")
                      if l.startswith("MemTotal")), "?")
    report = {"started": datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S +0000"), "load_start": " ".join(open("/proc/loadavg").read().split()[:3]),
        "commit": commit, "mem_total": mem_total + " RAM"}
    try:
        for part in ("memory", "throughput", "reader", "balance"):
            if part in parts:
                try:
                    globals()["part_" + part](args, report)
                except Exception as error:  # a part's failure is written down, the rest run
                    log("part %s failed: %r" % (part, error))
                    report.setdefault("notes", []).append("Part %s failed: `%r`." % (part, error))
    finally:
        report["ended"] = datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M:%S +0000")
        report["load_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
        write_report(args, report, command)
        if not args.keep:
            shutil.rmtree(args.scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
