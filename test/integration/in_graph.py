"""In-graph replication on real loopback clusters: one graph over the
cluster's devices, partitioned by the compiler and driven by worker 0.

- model-parallel: examples/model_parallel_mlp.mlir (hidden layer on worker
  0, softmax layer, loss and accuracy on worker 1) on 2 PS tasks and 2
  workers trains to test accuracy >= 0.80 in 2000 steps, and the tasks'
  own traffic lines show what crossed between the two workers each step:
  the hidden activations (100x100 float32) one way, their gradient and the
  two scalar results (loss, accuracy) that worker 0 returns the other.
- towers: examples/mnist_mlp.mlir as two towers (--towers=2), each on its
  half of the batch on its own worker, trains to test accuracy >= 0.80.
- one-tower: the same model as one tower in-graph computes the same first
  10 losses as a between-graph sync run with one worker, to 1e-5: the
  same batches, the same initial values, the same updates.
- kill-worker: worker 1 of the model-parallel run killed mid-run; worker 0
  exits non-zero within the RPC deadline, naming it, and the PS tasks stop.
- recover: the same with --recovery_timeout_ms and checkpoints, and worker 1
  started again: the run resumes from the last checkpoint and finishes.
  While the master holds after the restore (--debug_hold_after_restore),
  dtf-snapshot reads every task's variables: together exactly the
  checkpoint's, Adam's slots, the beta powers and the global step included,
  each equal to its saved value.
- token: a run with a cluster token (every worker-service call carries it,
  --local's progress polls too).
- trace: --trace merges every task's ops and transfers into one timeline,
  and --local shows the progress of the global step.
- errors: a model that cannot run the way the flags ask is one line naming
  the file or the flag, before any task starts.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import checkpoints
import cluster

MODEL_PARALLEL = os.path.join(cluster.ROOT, "examples", "model_parallel_mlp.mlir")
TRAFFIC = (r"Task %s: graph (\w+) received (\d+) bytes in (\d+) steps "
           r"\((\d+) bytes/step\) from %s")
ACTIVATIONS = 100 * 100 * 4


def received_per_step(task, receiver, sender, graph):
    """Bytes/step the `receiver` task reports having received from `sender`
    in the training steps of `graph`."""
    for match in task.matches(TRAFFIC % (re.escape(receiver), re.escape(sender))):
        if match.group(1) == graph:
            return int(match.group(4))
    raise AssertionError("%s printed no traffic of %s from %s" % (task.name, graph, sender))


def finish(c, timeout=600):
    for task in c.workers + c.ps:
        cluster.check(task.wait(timeout) == 0,
                      "%s failed:\n%s" % (task.name, task.output()[-3000:]))


def model_parallel(args):
    c = cluster.Cluster(args.dtf_run, 2, 2, ["--train_steps=2000", "--log_every=500"],
                        model=MODEL_PARALLEL)
    try:
        finish(c)
    finally:
        c.kill_all()
    loss, accuracy, step = cluster.validation(c.workers[0])
    cluster.check(step == 2000, "validated after %d steps" % step)
    cluster.check(accuracy >= 0.80, "test accuracy %.4f < 0.80" % accuracy)
    to_worker1 = received_per_step(c.workers[1], "/job:worker/task:1",
                                   "/job:worker/task:0", "main_worker_1")
    to_worker0 = received_per_step(c.workers[0], "/job:worker/task:0",
                                   "/job:worker/task:1", "main_worker_0")
    cluster.check(to_worker1 == ACTIVATIONS,
                  "worker 1 received %d bytes/step from worker 0, not the %d of "
                  "the hidden activations" % (to_worker1, ACTIVATIONS))
    cluster.check(to_worker0 == ACTIVATIONS + 2 * 4,
                  "worker 0 received %d bytes/step from worker 1, not the %d of "
                  "the activations' gradient and the two scalar results"
                  % (to_worker0, ACTIVATIONS + 8))
    print("model parallel: accuracy %.4f after %d steps; per step %d bytes "
          "worker0 -> worker1, %d bytes worker1 -> worker0"
          % (accuracy, step, to_worker1, to_worker0))


def towers(args):
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--towers=2", "--train_steps=1000", "--log_every=500"])
    try:
        finish(c)
    finally:
        c.kill_all()
    loss, accuracy, step = cluster.validation(c.workers[0])
    cluster.check(accuracy >= 0.80, "test accuracy %.4f < 0.80" % accuracy)
    # Each tower's batch half (50x784 float32) goes to its worker; the
    # other worker's is sliced where the placeholder lives.
    half_batch = 50 * 784 * 4
    to_worker1 = received_per_step(c.workers[1], "/job:worker/task:1",
                                   "/job:worker/task:0", "main_worker_1")
    cluster.check(to_worker1 >= half_batch,
                  "worker 1 received %d bytes/step from worker 0, less than "
                  "its half of the batch" % to_worker1)
    print("two towers: accuracy %.4f after %d steps" % (accuracy, step))


def first_losses(args, flags, name):
    logdir = os.path.join(args.logdir, name)
    c = cluster.Cluster(args.dtf_run, 1, 1,
                        flags + ["--train_steps=10", "--logdir=" + logdir,
                                 "--save_summaries_steps=1"])
    try:
        finish(c)
    finally:
        c.kill_all()
    return cluster.training_losses(logdir)


def one_tower(args):
    in_graph = first_losses(args, ["--towers=1"], "in-graph")
    between = first_losses(args, ["--sync", "--replication=between-graph"],
                           "between-graph")
    cluster.check(len(in_graph) == 10 and len(between) == 10,
                  "expected 10 losses each, got %d and %d" % (len(in_graph), len(between)))
    for (step_a, loss_a), (step_b, loss_b) in zip(in_graph, between):
        cluster.check(step_a == step_b and abs(loss_a - loss_b) <= 1e-5,
                      "step %d: in-graph loss %r, between-graph %r"
                      % (step_a, loss_a, loss_b))
    print("one tower: the first 10 losses equal between-graph's (last %r)"
          % in_graph[-1][1])


def kill_worker(args):
    deadline_ms = 3000
    c = cluster.Cluster(args.dtf_run, 2, 2,
                        ["--train_steps=1000000", "--log_every=100",
                         "--rpc_deadline_ms=%d" % deadline_ms],
                        model=MODEL_PARALLEL)
    try:
        c.workers[0].wait_for(r"training step 200 done", 120)
        killed_at = time.time()
        c.workers[1].kill()
        code = c.workers[0].wait(60)
        elapsed = time.time() - killed_at
        cluster.check(code != 0, "worker0 exited 0 after worker 1 died")
        cluster.check(elapsed < deadline_ms / 1000.0 + 5,
                      "worker0 took %.1fs to notice" % elapsed)
        last = c.workers[0].output().strip().splitlines()[-1]
        cluster.check("/job:worker/task:1" in last,
                      "worker0's last line does not name worker 1: %r" % last)
        for ps in c.ps:
            cluster.check(ps.wait(30) == 0, "%s did not stop after the master" % ps.name)
        print("worker0: %r after %.1fs" % (last, elapsed))
    finally:
        c.kill_all()


def check_restored(args, c, path):
    """Every task of the in-graph cluster holds exactly the variables of the
    checkpoint `path`, by name and value; together they hold all of it."""
    _, saved = checkpoints.read(path)
    held = set()
    tasks = [("/job:ps/task:%d" % i, a) for i, a in enumerate(c.ps_hosts.split(","))] + \
            [("/job:worker/task:%d" % i, a) for i, a in enumerate(c.worker_hosts.split(","))]
    for name, address in tasks:
        _, tensors = checkpoints.snapshot(args.snapshot,
                                          ["--worker=" + address, "--task=" + name])
        for variable, value in tensors.items():
            cluster.check(variable in saved, "%s holds %s, which %s lacks"
                          % (name, variable, path))
            cluster.check(value == saved[variable], "%s holds %s unlike %s"
                          % (name, variable, path))
        held |= set(tensors)
    cluster.check(held == set(saved), "the tasks hold %s; %s holds %s"
                  % (sorted(held), path, sorted(saved)))
    return saved


def recover(args):
    """Worker 1 killed and started again: the master waits for it,
    registers its partitions again, restores every task from the last
    checkpoint, which every task then holds exactly, and finishes the run."""
    logdir = os.path.join(args.logdir, "recover")
    release = os.path.join(args.logdir, "release")
    c = cluster.Cluster(args.dtf_run, 2, 2,
                        ["--train_steps=600", "--log_every=10", "--logdir=" + logdir,
                         "--save_checkpoint_steps=50", "--recovery_timeout_ms=60000",
                         "--rpc_deadline_ms=3000"],
                        model=MODEL_PARALLEL,
                        task_extra={"worker0": ["--debug_hold_after_restore",
                                                "--debug_release_file=" + release]})
    try:
        c.workers[0].wait_for(r"training step 230 done", 120)
        c.workers[1].kill()
        c.workers[0].wait_for(r"waiting up to 60000 ms for the cluster to recover", 30)
        c.restart("worker", 1)
        restored = c.workers[0].wait_for(
            r"restored every task's variables from (\S+) \(global step (\d+)\)", 60)
        c.workers[0].wait_for(r"holding after the restore", 30)
        saved = check_restored(args, c, restored.group(1))
        with open(release, "w"):
            pass
        resumed = c.workers[0].wait_for(r"resuming at global step (\d+)", 60)
        finish(c)
    finally:
        c.kill_all()
    step = int(resumed.group(1))
    cluster.check(step == int(restored.group(2)),
                  "resumed at global step %d, restored %s" % (step, restored.group(0)))
    cluster.check(200 <= step <= 250 and step % 50 == 0,
                  "resumed at global step %d, not the last checkpoint" % step)
    slots = sorted(name for name in saved if "/Adam" in name or "_power" in name)
    cluster.check(slots and "global_step" in saved,
                  "the checkpoint holds no optimizer state to check: %s" % sorted(saved))
    loss, accuracy, final = cluster.validation(c.workers[0])
    cluster.check(final == 600, "validated after %d steps" % final)
    cluster.check(accuracy >= 0.75, "test accuracy %.4f after recovery" % accuracy)
    print("recovered from the checkpoint of global step %d, which every task held "
          "exactly (%d variables, %s among them); accuracy %.4f after %d"
          % (step, len(saved), ", ".join(slots), accuracy, final))


def token(args):
    """TLS-less loopback with a cluster token: every worker-service call
    carries it, and the run trains."""
    c = cluster.Cluster(args.dtf_run, 2, 2,
                        ["--train_steps=50", "--cluster_token=in-graph-secret"],
                        model=MODEL_PARALLEL)
    try:
        finish(c)
    finally:
        c.kill_all()
    cluster.check("cluster token required" in c.workers[1].output(),
                  "worker 1 did not require the token")
    cluster.validation(c.workers[0])
    # --local's progress carries the token too.
    result = subprocess.run([args.dtf_run, "--local", "--ps=2", "--workers=2",
                             "--train_steps=500", "--cluster_token=in-graph-secret",
                             MODEL_PARALLEL],
                            capture_output=True, text=True, timeout=300)
    cluster.check(result.returncode == 0, "the --local run failed:\n" + result.stderr[-2000:])
    cluster.check(re.search(r"progress: global step \d+/500", result.stdout),
                  "no progress with a cluster token:\n" + result.stdout[-2000:])
    print("a run with a cluster token trains and shows its progress")


def trace(args):
    """--trace with --local: one timeline with a process per task; every
    task's partitions show their ops and their transfers (dtf.send and
    dtf.recv spans naming the tensor) of the first steps."""
    path = os.path.join(args.logdir, "trace.json")
    result = subprocess.run([args.dtf_run, "--local", "--ps=2", "--workers=2",
                             "--train_steps=500", "--trace=" + path, "--trace_steps=3",
                             MODEL_PARALLEL],
                            capture_output=True, text=True, timeout=300)
    cluster.check(result.returncode == 0, "the run failed:\n" + result.stderr[-3000:])
    # --local's progress reads the global step from the task that holds it.
    cluster.check(re.search(r"progress: global step \d+/500", result.stdout),
                  "no progress line:\n" + result.stdout[-2000:])
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    processes = {e["pid"]: e["args"]["name"].split()[0] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    cluster.check(sorted(processes.values()) == ["ps0", "ps1", "worker0", "worker1"],
                  "process tracks %s" % processes)
    spans = [e for e in events if e["ph"] == "X"]
    for pid, name in processes.items():
        mine = [e for e in spans if e["pid"] == pid]
        transfers = {e["name"] for e in mine if e["cat"] == "transfer"}
        cluster.check(transfers == {"dtf.send", "dtf.recv"},
                      "%s: transfer spans %s" % (name, transfers))
        cluster.check(all("tensor_name" in e["args"] for e in mine
                          if e["cat"] == "transfer"),
                      "%s: a transfer without its tensor name" % name)
        cluster.check(any(e["cat"] == "op" for e in mine), "%s: no op spans" % name)
    steps = [e for e in spans if processes[e["pid"]] == "worker0" and e["cat"] == "step"]
    cluster.check(len(steps) == 3, "%d master steps traced, not 3" % len(steps))
    # The activations cross from worker 0 to worker 1 in every traced step.
    sent = [e for e in spans if processes[e["pid"]] == "worker0"
            and e["name"] == "dtf.send" and "relu" in e["args"]["tensor_name"]]
    received = [e for e in spans if processes[e["pid"]] == "worker1"
                and e["name"] == "dtf.recv" and "relu" in e["args"]["tensor_name"]]
    cluster.check(len(sent) == 3 and len(received) == 3,
                  "%d sends and %d recvs of the activations" % (len(sent), len(received)))
    print("trace: %d spans over %s" % (len(spans), sorted(processes.values())))


def expect_error(args, flags, model, expected):
    """One error line (a compiler error may add notes) that names
    `expected`, a non-zero exit, and no task started."""
    result = subprocess.run([args.dtf_run, "--local", "--ps=2", "--workers=2"] +
                            flags + [model], capture_output=True, text=True,
                            timeout=120)
    lines = [line for line in result.stderr.strip().splitlines()
             if ": note: " not in line]
    cluster.check(result.returncode != 0, "%s exited 0" % flags)
    cluster.check(len(lines) == 1 and expected in lines[0],
                  "%s: expected one line with %r, got %r" % (flags, expected, lines))
    cluster.check("serving" not in result.stdout, "%s started tasks" % flags)
    print("%s: %s" % (" ".join(flags), lines[0]))


def errors(args):
    expect_error(args, ["--replication=between-graph"], MODEL_PARALLEL,
                 "model_parallel_mlp.mlir")
    expect_error(args, ["--replication=sideways"], MODEL_PARALLEL, "--replication")
    expect_error(args, ["--towers=2", "--replication=between-graph"], cluster.MLP,
                 "--towers")
    expect_error(args, ["--towers=3"], cluster.MLP, "--towers=3")
    expect_error(args, ["--sync"], MODEL_PARALLEL, "--sync")
    expect_error(args, ["--towers=2"], MODEL_PARALLEL, "model_parallel_mlp.mlir")


CASES = {"model-parallel": model_parallel, "towers": towers, "one-tower": one_tower,
         "kill-worker": kill_worker, "recover": recover, "token": token, "trace": trace,
         "errors": errors}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--snapshot", required=True, help="dtf-snapshot")
    parser.add_argument("--case", choices=sorted(CASES), required=True)
    args = parser.parse_args()
    args.logdir = tempfile.mkdtemp(prefix="dtf-in-graph-")
    try:
        CASES[args.case](args)
    finally:
        shutil.rmtree(args.logdir, ignore_errors=True)


if __name__ == "__main__":
    cluster.run_test(main)
