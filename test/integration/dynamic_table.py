"""Dynamic embedding tables (#dtf.dynamic_table) train and survive a PS
restart with every created row and its slots.

The Wide & Deep model of examples/ctr with its wide part in dynamic tables
(examples/ctr/make_wide_deep.py --dynamic_wide=2: rows created for the ids
met at least twice, each table split by mod over both PS tasks, FTRL's two
slots following the rows), on data whose crosses are raw 63-bit hashes
(make_ctr_data.py --cross_buckets=0: no vocabulary, only a dynamic table
can hold them), in sync mode on 2 PS tasks and 2 workers with a checkpoint
every 100 steps. PS task 1 crashes (SIGKILL) right after the update that
takes the global step to a random step in [150, 250] and is restarted: it
restores the newest checkpoint, and, with the workers held so that nothing
is applied, both PS tasks serve exactly that checkpoint: every dynamic
table's rows, their ids and their slots, beside the fixed tables. Then
training runs to the end and beats a trivial AUC by a margin; the PS
tasks' TensorBoard events hold each table's rows.
"""

import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import checkpoints
import cluster
import events
import recovery

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GENERATOR = os.path.join(ROOT, "examples", "ctr", "make_ctr_data.py")
MODEL_GENERATOR = os.path.join(ROOT, "examples", "ctr", "make_wide_deep.py")
INTERVAL = 100
TRAIN_STEPS = 400
DYNAMIC = re.compile(r"dynamic table '([^']+)': (\d+) rows, (\d+) created since start")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--snapshot", required=True, help="dtf-snapshot")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print("seed %d (rerun with --seed %d)" % (seed, seed))
    crash_at = random.Random(seed).randint(150, 250)
    scratch = tempfile.mkdtemp(prefix="dtf-dynamic-")
    try:
        data = os.path.join(scratch, "data")
        subprocess.run([sys.executable, GENERATOR, "--out", data, "--train_shards", "2",
                        "--examples_per_shard", "10000", "--test_examples", "4000",
                        "--total_rows", "20000", "--cross_buckets", "0", "--jobs", "1"],
                       check=True, capture_output=True)
        model = os.path.join(scratch, "wide_deep.mlir")
        with open(model, "w") as f:
            subprocess.run([sys.executable, MODEL_GENERATOR, "--meta",
                            os.path.join(data, "meta.json"), "--dynamic_wide", "2",
                            "--shards", "2", "--strategy", "mod"], check=True, stdout=f)
        logdir = os.path.join(scratch, "logdir")
        c = cluster.Cluster(
            args.dtf_run, 2, 2,
            ["--input_file=" + os.path.join(data, "inputs.txt"), "--sync",
             "--train_steps=%d" % TRAIN_STEPS, "--log_every=50", "--logdir=" + logdir,
             "--save_checkpoint_steps=%d" % INTERVAL, "--save_summaries_steps=50",
             "--recovery_timeout_ms=60000", "--rpc_deadline_ms=3000"],
            model=model, task_extra={"ps1": ["--debug_crash_at_step=%d" % crash_at]})
        try:
            recovery.crash(c, 1, crash_at)
            c.task_extra = {}
            restored = recovery.restart_crashed_ps(args, c, logdir, 1)
            cluster.check(restored == recovery.newest_due_before(crash_at, INTERVAL),
                          "ps1 crashed at step %d and restored step %d" % (crash_at, restored))
            for task in c.workers + c.ps:
                cluster.check(task.wait(600) == 0, task.name + " failed")
        finally:
            c.kill_all()
        # What the restore brought back: the checkpoint's dynamic tables,
        # each with its ids and FTRL's two slots, rows aligned.
        _, saved = checkpoints.read(os.path.join(logdir, "model.ckpt-%d.dtf" % restored))
        tables = sorted(name[:-len("/ids")] for name in saved if name.endswith("/ids"))
        cluster.check(any(name.startswith("x0/weights/part_") for name in tables),
                      "the checkpoint of step %d holds no dynamic table of the crosses: %s"
                      % (restored, sorted(saved)))
        for table in tables:
            rows = saved[table][0][0]
            part = table[table.rindex("/part_"):]
            whole = table[:-len(part)]
            for slot in (whole + "/Ftrl" + part, whole + "/Ftrl_1" + part):
                cluster.check(slot in saved and saved[slot][0][0] == rows,
                              "%s: %d rows, but its slot %s holds %s" % (
                                  table, rows, slot, saved.get(slot, [None])[0]))
            cluster.check(saved[table + "/ids"][0] == [rows] and rows > 0,
                          "%s: %d rows, ids %s" % (table, rows, saved[table + "/ids"][0]))
        print("the checkpoint of step %d holds %d dynamic tables, %d rows in all, each "
              "with its ids and slots" % (restored, len(tables),
                                          sum(saved[t][0][0] for t in tables)))
        # The restarted task went on creating rows past the restored ones.
        created = {}
        for ps in c.ps:
            for name, rows, _ in DYNAMIC.findall(ps.output()):
                created[name] = int(rows)
        for table in tables:
            cluster.check(created.get(table, 0) >= saved[table][0][0],
                          "%s ended with %s rows, fewer than the %d restored"
                          % (table, created.get(table), saved[table][0][0]))
        for worker in c.workers:
            auc, _, step = cluster.validation_auc(worker)
            print("%s: validation AUC %.4f after %d steps" % (worker.name, auc, step))
            cluster.check(auc > 0.6, "%s: AUC %.4f does not beat 0.5 by 0.1"
                          % (worker.name, auc))
        scalars = set()
        for path in glob.glob(os.path.join(logdir, "ps_*", "events.out.tfevents.*")):
            for event in events.read_events(path):
                scalars |= set(event["values"])
        for table in tables:
            cluster.check("dynamic_table/%s/rows" % table in scalars,
                          "no TensorBoard scalar of %s's rows: %s" % (table, sorted(scalars)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    cluster.run_test(main)
