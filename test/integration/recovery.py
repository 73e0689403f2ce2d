"""Recovery from killed tasks, with checkpoints (--logdir) and
--recovery_timeout_ms, on a real loopback cluster:

- ps-restart: sync mode, 1 PS and 2 workers, a checkpoint every 100 steps.
  The PS crashes (SIGKILL) right after the update that takes the global
  step to a random N (--debug_crash_at_step) and is restarted: it restores
  exactly the newest checkpoint due before N (so at most one checkpoint
  interval of steps is lost), the workers recover and resume from the
  restored global step, and the run reaches --train_steps with accuracy
  >= 0.80.
- chaos: async mode, 2 PS tasks and 2 workers. PS task 1, worker 1 and the
  chief are each killed at a random step and restarted; every PS task is
  rolled back to the checkpoint PS task 1 restored; the run finishes with
  accuracy >= 0.80.
- give-up: the PS killed and not restarted: the workers retry for
  --recovery_timeout_ms, then exit non-zero naming the PS address.
- resume: a finished run's --logdir with its newest checkpoint truncated
  and the one before corrupted: a new cluster warns about both, restores
  the third newest and trains on from its global step.
"""

import argparse
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time

import cluster

RESTORED = re.compile(r"restored its variables from (\S+) \(global step (\d+)")


def finish(c, timeout=150):
    """Every task exits 0 within `timeout` seconds in all: well inside the
    test's CTest timeout, so that a hang fails here, with the tasks' output
    above, rather than being killed silently."""
    deadline = time.time() + timeout
    for task in c.workers + c.ps:
        left = max(1.0, deadline - time.time())
        cluster.check(task.wait(left) == 0, task.name + " failed")


def check_accuracy(c, train_steps, minimum=0.80):
    for worker in c.workers:
        loss, accuracy, step = cluster.validation(worker)
        print("%s: validation accuracy %.4f, global step %d" % (worker.name, accuracy, step))
        cluster.check(accuracy >= minimum,
                      "%s: accuracy %.4f < %.2f" % (worker.name, accuracy, minimum))
        cluster.check(step >= train_steps,
                      "%s: global step %d < %d" % (worker.name, step, train_steps))


def ps_restart(args, logdir, rng):
    interval = 100
    train_steps = 1500
    # The PS crashes (SIGKILL, --debug_crash_at_step) right after the update
    # that takes the global step to crash_at, before any worker hears of
    # it: the step the crash loses is known exactly.
    crash_at = rng.randint(300, 1000)
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--sync", "--train_steps=%d" % train_steps, "--log_every=1",
                         "--logdir=" + logdir, "--save_checkpoint_steps=%d" % interval,
                         "--recovery_timeout_ms=60000", "--rpc_deadline_ms=3000"],
                        task_extra={"ps0": ["--debug_crash_at_step=%d" % crash_at]})
    try:
        code = c.ps[0].wait(120)
        cluster.check(code == -signal.SIGKILL and
                      "crashing at step %d" % crash_at in c.ps[0].output(),
                      "ps0 exited with %s, not by its crash at step %d" % (code, crash_at))
        c.task_extra = {}
        ps = c.restart("ps", 0)
        match = ps.wait_for(RESTORED.pattern, 60)
        restored = int(match.group(2))
        lost = crash_at - restored
        print("ps0 crashed at global step %d and restored global step %d from %s: "
              "lost %d steps (checkpoint interval %d)"
              % (crash_at, restored, match.group(1), lost, interval))
        # In sync mode no step completes without the chief's push, and the
        # chief pushes for step k + 1 only after it saved the checkpoint due
        # at step k: the newest checkpoint at a crash at step N is the last
        # multiple of the interval below N, and at most one interval is lost.
        expected = interval * ((crash_at - 1) // interval)
        cluster.check(restored == expected,
                      "restored global step %d, not %d, the newest checkpoint due "
                      "before step %d" % (restored, expected, crash_at))
        cluster.check(0 < lost <= interval,
                      "lost %d steps, more than the checkpoint interval %d" % (lost, interval))
        finish(c)
    finally:
        c.kill_all()
    for worker in c.workers:
        cluster.check("recovered after" in worker.output(),
                      worker.name + " did not report its recovery")
        # The first step line after the recovery continues from the restore.
        text = worker.output()
        after = text[text.index("recovered after"):]
        first = re.search(cluster.GLOBAL_STEP, after)
        cluster.check(first and restored < int(first.group(1)) <= restored + 2,
                      "%s resumed at %s, not right after step %d"
                      % (worker.name, first and first.group(1), restored))
    applied = re.search(r"stopped at step (\d+)", c.ps[0].output())
    cluster.check(applied and int(applied.group(1)) == train_steps,
                  "ps0 stopped at step %s" % (applied and applied.group(1)))
    check_accuracy(c, train_steps)


def chaos(args, logdir, rng):
    interval = 100
    train_steps = 2000
    # A short pause per step keeps the run long enough for three kills.
    c = cluster.Cluster(args.dtf_run, 2, 2,
                        ["--async", "--train_steps=%d" % train_steps, "--log_every=5",
                         "--logdir=" + logdir, "--save_checkpoint_steps=%d" % interval,
                         "--recovery_timeout_ms=60000", "--rpc_deadline_ms=3000",
                         "--debug_step_delay_ms=3"])
    try:
        points = sorted(rng.sample(range(250, 1500), 3))
        victims = [("ps", 1), ("worker", 1), ("worker", 0)]
        rng.shuffle(victims)
        for (job, index), step in zip(victims, points):
            cluster.wait_for_global_step(c.workers, step, 120)
            tasks = c.ps if job == "ps" else c.workers
            seen = cluster.current_global_step(c.workers)
            tasks[index].kill()
            print("killed %s%d at global step ~%d" % (job, index, seen))
            time.sleep(rng.uniform(0.2, 1.0))
            task = c.restart(job, index)
            if job == "ps":
                match = task.wait_for(RESTORED.pattern, 60)
                print("ps1 restored global step %s (lost ~%d steps)"
                      % (match.group(2), seen - int(match.group(2))))
                c.workers[0].wait_for(r"restored the model from the checkpoint "
                                      r"of global step %s on every PS task"
                                      % match.group(2), 90)
        finish(c)
    finally:
        c.kill_all()
    check_accuracy(c, train_steps)


def resume(args, logdir, rng):
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--async", "--train_steps=300", "--log_every=50",
                         "--logdir=" + logdir, "--save_checkpoint_steps=50",
                         "--keep_checkpoints=4"])
    try:
        finish(c)
    finally:
        c.kill_all()
    files = sorted((int(re.search(r"ckpt-(\d+)", f).group(1)), f)
                   for f in os.listdir(logdir) if f.endswith(".dtf"))
    cluster.check(len(files) == 4, "kept %d checkpoints, not 4: %s" % (len(files), files))
    (good, _), (corrupt, corrupt_file), (truncated, truncated_file) = files[-3:]
    path = os.path.join(logdir, truncated_file)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 3)
    path = os.path.join(logdir, corrupt_file)
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0x40]))

    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--async", "--train_steps=600", "--log_every=1",
                         "--logdir=" + logdir, "--save_checkpoint_steps=50"])
    try:
        finish(c)
    finally:
        c.kill_all()
    ps = c.ps[0].output()
    cluster.check(re.search(r"warning: .*ckpt-%d\.dtf is invalid: truncated" % truncated, ps),
                  "no warning about the truncated checkpoint")
    cluster.check(re.search(r"warning: .*ckpt-%d\.dtf is invalid: .*checksum" % corrupt, ps),
                  "no warning about the corrupt checkpoint")
    match = RESTORED.search(ps)
    cluster.check(match and int(match.group(2)) == good,
                  "restored %s, not step %d" % (match and match.group(2), good))
    # Each worker's first step starts from the restored global step (the
    # other worker may have taken a few steps meanwhile).
    first = min(int(m.group(1)) for w in c.workers for m in w.matches(cluster.GLOBAL_STEP))
    cluster.check(good < first <= good + 10,
                  "the first step line says global step %d, not just after %d"
                  % (first, good))
    print("skipped the truncated (%d) and corrupt (%d) checkpoints, resumed at %d"
          % (truncated, corrupt, good))
    check_accuracy(c, 600, minimum=0.0)


def give_up(args, logdir, rng):
    """The PS never comes back: with --recovery_timeout_ms the workers give
    up after it, exiting non-zero with an error that names the PS address."""
    timeout_ms = 3000
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--async", "--train_steps=100000", "--log_every=10",
                         "--recovery_timeout_ms=%d" % timeout_ms, "--rpc_deadline_ms=2000"])
    try:
        cluster.wait_for_global_step(c.workers, rng.randint(50, 300), 120)
        killed_at = time.time()
        c.ps[0].kill()
        address = c.ps_hosts
        for worker in c.workers:
            code = worker.wait(60)
            elapsed = time.time() - killed_at
            last = worker.output().strip().splitlines()[-1]
            print("%s: exit %d after %.1fs: %r" % (worker.name, code, elapsed, last))
            cluster.check(code != 0, "%s exited 0 without its PS" % worker.name)
            cluster.check(timeout_ms / 1000.0 <= elapsed < timeout_ms / 1000.0 + 15,
                          "%s gave up after %.1fs" % (worker.name, elapsed))
            cluster.check(address in last and "gave up recovering" in last,
                          "%s's last line: %r" % (worker.name, last))
    finally:
        c.kill_all()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--case", choices=["ps-restart", "chaos", "resume", "give-up"],
                        required=True)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print("seed %d (rerun with --seed %d)" % (seed, seed))
    rng = random.Random(seed)
    logdir = tempfile.mkdtemp(prefix="dtf-recovery-")
    try:
        {"ps-restart": ps_restart, "chaos": chaos, "resume": resume,
         "give-up": give_up}[args.case](
            args, logdir, rng)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print("FAIL: %s" % error)
        sys.exit(1)
