#!/usr/bin/env python3
"""What embedding tables cost a cluster as they grow: bytes on the wire and
memory of the Wide & Deep model (examples/ctr) on 2 PS tasks and 2 async
workers.

The same data (examples/ctr/make_ctr_data.py, ids below 1M rows in all)
trains models whose tables hold --rows in all (1M and 10M by default: the
bigger model's tables are 10x longer, the ids the same), and the 1M model
at several batch sizes. For each run: bytes pulled and pushed per step and
worker (from the workers' traffic lines), the rows those bytes stand for,
the peak RSS of each task (/usr/bin/time) beside the bytes of the tables
and slots each PS task holds, and the validation AUC. Beside the bytes,
the distinct ids of a step: the ids a worker asks the PS tasks for and
pushes gradients of, per table summed over the tables (each categorical
feature's ids twice: its deep embedding and its wide weights; each
cross's once), counted from the training files for batches of the run's
size (the workers log no such statistic; the data's examples are
independent draws, so consecutive examples are as good a batch as a
shuffled shard's). A step's bytes split into those rows' (and in a push
their ids) and a rest that is the same for every batch and table size.
Writes bench/results/ctr-scale.{json,md}.

    build/bench-venv/bin/python bench/ctr_scale.py          # or python3
"""

import argparse
import glob
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_study import Task, free_ports  # noqa: E402

TRAFFIC = re.compile(r"RPC traffic: pulled (\d+) bytes in (\d+) pulls, pushed (\d+) bytes in (\d+) pushes")
LOCAL_STEPS = re.compile(r"training ended after (\d+) local steps")
AUC = re.compile(r"validation AUC = ([0-9.]+)")
ELAPSED = re.compile(r"Training elapsed time: ([0-9.]+) s")
DIM = 16


RESOURCE = re.compile(r'dtf.variable "([^"]+)".*!dtf.resource<tensor<([0-9x]*)x?(f32|f64|i64|i32)>>')
FUNCTION = re.compile(r"func.func @(\w+)")
DTYPE_BYTES = {"f32": 4, "f64": 8, "i64": 8, "i32": 4}


def read_varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(data):
    """(field number, payload) of a message's length-delimited fields; the
    other wire types skipped."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        wire = key & 7
        if wire == 2:
            size, pos = read_varint(data, pos)
            yield key >> 3, data[pos:pos + size]
            pos += size
        elif wire == 0:
            _, pos = read_varint(data, pos)
        elif wire == 5:
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise ValueError("wire type %d in a tf.train.Example" % wire)


def example_ids(record, names):
    """The int64 ids of each feature of `names` in one serialized
    tf.train.Example (features: field 1; its feature map: field 1, entries of
    key 1 and Feature 2; int64_list: field 3 of Feature, packed values 1)."""
    ids = {}
    for _, features in fields(record):
        for _, entry in fields(features):
            key, value = None, b""
            for number, payload in fields(entry):
                if number == 1:
                    key = payload.decode()
                elif number == 2:
                    value = payload
            if key not in names:
                continue
            values = []
            for number, int64_list in fields(value):
                if number == 3:
                    for _, packed in fields(int64_list):
                        pos = 0
                        while pos < len(packed):
                            v, pos = read_varint(packed, pos)
                            values.append(v)
            ids[key] = values
    return ids


def records(path):
    """The records of an uncompressed TFRecord file (CRCs not checked)."""
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return
            (length,) = struct.unpack("<Q", header[:8])
            yield f.read(length)
            f.read(4)


def distinct_ids_per_step(meta, batch, batches):
    """The mean number of distinct ids a batch of `batch` training examples
    looks up, per feature summed over the features: {"categorical": of the c
    features (each looked up in a deep and a wide table), "crosses": of the
    x features}, over the first `batches` batches of the training files."""
    categorical = [f["name"] for f in meta["features"]["categorical"]]
    crosses = [f["name"] for f in meta["features"].get("crosses", [])]
    names = set(categorical + crosses)
    totals = {"categorical": 0, "crosses": 0}
    counted = 0
    current = []
    for path in sorted(glob.glob(meta["train"]["files"])):
        for record in records(path):
            current.append(example_ids(record, names))
            if len(current) < batch:
                continue
            for kind, group in (("categorical", categorical), ("crosses", crosses)):
                totals[kind] += sum(len({i for e in current for i in e.get(name, [])})
                                    for name in group)
            counted += 1
            current = []
            if counted == batches:
                return {kind: total / counted for kind, total in totals.items()}
    if not counted:
        raise ValueError("%s: fewer than %d training examples for a batch"
                         % (meta["train"]["files"], batch))
    return {kind: total / counted for kind, total in totals.items()}


def held_bytes(dtf_opt, model):
    """Bytes of the variables (tables, slots, dense) each PS task holds, as
    the compiled program places them."""
    text = subprocess.run([dtf_opt, "--dtf-training-pipeline", model], check=True,
                          capture_output=True, text=True).stdout
    held, function = {}, None
    for line in text.splitlines():
        f = FUNCTION.search(line)
        if f:
            function = f.group(1)
            continue
        v = RESOURCE.search(line)
        if v and function and function.startswith("ps_"):
            count = 1
            for dim in filter(None, v.group(2).split("x")):
                count *= int(dim)
            held[function] = held.get(function, 0) + count * DTYPE_BYTES[v.group(3)]
    return [held.get("ps_%d" % i, 0) for i in range(2)]


def run(dtf_run, model, inputs, steps, timeout):
    ports = free_ports(4)
    ps_hosts = ",".join("localhost:%d" % p for p in ports[:2])
    worker_hosts = ",".join("localhost:%d" % p for p in ports[2:])
    common = [dtf_run, "--ps_hosts=" + ps_hosts, "--worker_hosts=" + worker_hosts,
              "--input_file=" + inputs, "--train_steps=%d" % steps, "--log_every=1000000"]
    tasks = [Task("ps%d" % i, common + ["--job_name=ps", "--task_index=%d" % i, model])
             for i in range(2)]
    tasks += [Task("worker%d" % i, common + ["--job_name=worker", "--task_index=%d" % i, model])
              for i in range(2)]
    try:
        for t in tasks:
            code = t.wait(timeout)
            if code != 0:
                raise RuntimeError("%s exited with %s" % (t.name, code))
    finally:
        for t in tasks:
            t.kill()
    result = {}
    for t in tasks:
        out, rss, wall, cpu = t.finish()
        entry = {"peak_rss_kb": rss}
        if t.name.startswith("worker"):
            traffic = TRAFFIC.search(out)
            local = int(LOCAL_STEPS.search(out).group(1))
            entry.update(local_steps=local, pulled=int(traffic.group(1)),
                         pushed=int(traffic.group(3)),
                         auc=float(AUC.search(out).group(1)),
                         elapsed_s=float(ELAPSED.search(out).group(1)))
        result[t.name] = entry
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtf-run", default=os.path.join(ROOT, "build", "bin", "dtf-run"))
    parser.add_argument("--dtf-opt", default=os.path.join(ROOT, "build", "bin", "dtf-opt"))
    parser.add_argument("--rows", default="1000000,10000000", help="rows of the tables in all")
    parser.add_argument("--batches", default="64,256,1024", help="batch sizes of the 1M model")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--id_batches", type=int, default=40,
                        help="batches of the training files to count distinct ids in")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "ctr-scale"))
    args = parser.parse_args()
    rows_list = [int(r) for r in args.rows.split(",")]
    batches = [int(b) for b in args.batches.split(",")]
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown CPU")
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "data")
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "ctr", "make_ctr_data.py"),
                        "--out", data, "--train_shards", "2", "--examples_per_shard", "20000",
                        "--test_examples", "4000", "--total_rows", str(min(rows_list))],
                       check=True, capture_output=True)
        inputs = os.path.join(data, "inputs.txt")
        with open(os.path.join(data, "meta.json")) as f:
            meta = json.load(f)
        distinct = {b: distinct_ids_per_step(meta, b, args.id_batches)
                    for b in sorted({256} | set(batches))}
        plan = [(rows, 256) for rows in rows_list] + [(min(rows_list), b) for b in batches if b != 256]
        for rows, batch in plan:
            model = os.path.join(scratch, "model-%d-%d.mlir" % (rows, batch))
            with open(model, "w") as f:
                subprocess.run([sys.executable, os.path.join(ROOT, "examples", "ctr", "make_wide_deep.py"),
                                "--meta", os.path.join(data, "meta.json"), "--total_rows", str(rows),
                                "--batch", str(batch)], check=True, stdout=f)
            started = time.time()
            tasks = run(args.dtf_run, model, inputs, args.steps, args.timeout)
            workers = [tasks["worker0"], tasks["worker1"]]
            steps = sum(w["local_steps"] for w in workers)
            ids = distinct[batch]
            entry = {"rows": rows, "batch": batch, "tasks": tasks,
                     "distinct_ids_per_step": ids,
                     # Each categorical id is a row of a deep and of a wide table.
                     "table_ids_per_step": 2 * ids["categorical"] + ids["crosses"],
                     "pulled_per_step": sum(w["pulled"] for w in workers) / steps,
                     "pushed_per_step": sum(w["pushed"] for w in workers) / steps,
                     "auc": workers[0]["auc"], "wall_s": time.time() - started,
                     "held_bytes": held_bytes(args.dtf_opt, model)}
            runs.append(entry)
            print("rows %d, batch %d: %.0f distinct ids/step, pulled %.0f B/step, pushed %.0f B/step, "
                  "PS RSS %d/%d MB, worker RSS %d/%d MB, AUC %.4f"
                  % (rows, batch, entry["table_ids_per_step"], entry["pulled_per_step"],
                     entry["pushed_per_step"],
                     tasks["ps0"]["peak_rss_kb"] // 1024, tasks["ps1"]["peak_rss_kb"] // 1024,
                     tasks["worker0"]["peak_rss_kb"] // 1024, tasks["worker1"]["peak_rss_kb"] // 1024,
                     entry["auc"]), flush=True)
    with open(args.out + ".json", "w") as f:
        json.dump({"cpu": cpu, "steps": args.steps, "runs": runs}, f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write("# Embedding tables as they grow (bench/ctr_scale.py)\n\n")
        f.write("%s, 2 cores; Wide & Deep (examples/ctr/make_wide_deep.py: 8 features, "
                "deep tables of %d floats (Adagrad) and wide tables of 1 per row, for them and "
                "for %d hashed crosses of %s buckets (FTRL)), 2 PS tasks "
                "and 2 async workers on loopback, %d global steps; the same data "
                "(make_ctr_data.py, ids of %d rows) for every model. Bytes per step are one "
                "worker's, over both PS tasks; held is what each PS task holds "
                "(tables, slots, dense variables: round-robin placement puts the deep "
                "tables on ps1, the wide ones on ps0); issue 31 asks each PS task's peak "
                "RSS to stay within 1.2x what it holds + 100 MB.\n\n"
                % (cpu, DIM, len(meta["features"].get("crosses", [])),
                   ",".join(sorted({"%d" % c["buckets"] for c in meta["features"].get("crosses", [])}))
                   or "no", args.steps, min(rows_list)))
        f.write("| table rows | batch | pulled B/step | pushed B/step | held ps0 / ps1 MB | "
                "peak RSS ps0 / ps1 MB | peak RSS worker0 / worker1 MB | AUC |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
        for r in runs:
            t = r["tasks"]
            f.write("| %d | %d | %.0f | %.0f | %.0f / %.0f | %d / %d | %d / %d | %.4f |\n"
                    % (r["rows"], r["batch"], r["pulled_per_step"], r["pushed_per_step"],
                       r["held_bytes"][0] / 2**20, r["held_bytes"][1] / 2**20,
                       t["ps0"]["peak_rss_kb"] // 1024,
                       t["ps1"]["peak_rss_kb"] // 1024, t["worker0"]["peak_rss_kb"] // 1024,
                       t["worker1"]["peak_rss_kb"] // 1024, r["auc"]))
        f.write("\n## Bytes against distinct ids\n\n"
                "A step's distinct ids, counted from the training files for batches of the "
                "run's size (%d batches): per feature, summed over the 8 categorical features "
                "(each id is a row of its deep table, %d floats, and of its wide table, 1 "
                "float) and over the crosses (1 float); table ids: the rows a worker pulls "
                "and pushes a step. Rows' bytes: those rows' floats, and in a push each "
                "row's int64 id too. The rest is the same for every batch size and table "
                "size: the dense variables (layers, linear weights), which travel whole. "
                "The bytes follow the ids, not the tables' rows.\n\n" % (args.id_batches, DIM))
        f.write("| table rows | batch | distinct ids/step: categorical / crosses | table ids/step "
                "| pulled B/step | of which rows / rest | pushed B/step | of which rows + ids / "
                "rest |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
        for r in runs:
            ids = r["distinct_ids_per_step"]
            rows_bytes = 4 * ((DIM + 1) * ids["categorical"] + ids["crosses"])
            pushed_rows = rows_bytes + 8 * r["table_ids_per_step"]
            f.write("| %d | %d | %.0f / %.0f | %.0f | %.0f | %.0f / %.0f | %.0f | %.0f / %.0f |\n"
                    % (r["rows"], r["batch"], ids["categorical"], ids["crosses"],
                       r["table_ids_per_step"], r["pulled_per_step"], rows_bytes,
                       r["pulled_per_step"] - rows_bytes, r["pushed_per_step"], pushed_rows,
                       r["pushed_per_step"] - pushed_rows))
    print("wrote %s.md and .json" % args.out)


if __name__ == "__main__":
    main()
