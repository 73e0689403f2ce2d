"""Kills tasks of a real loopback cluster mid-run:

- worker-async: worker 1 killed in async mode; worker 0 finishes training.
- worker-sync: the same in sync mode with --replicas_to_aggregate=1 of 2.
- worker-sync-restart: sync mode with every worker aggregated: worker 1 is
  killed, and no step completes until it is started again; then the run
  finishes, every step an aggregate of both workers' pushes.
- ps: the PS killed; both workers exit non-zero within the RPC deadline with
  a message naming the PS address.
"""

import argparse
import re
import shutil
import tempfile
import time

import cluster


def kill_worker(args, mode_flags):
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        mode_flags + ["--train_steps=300", "--log_every=10",
                                      "--worker_timeout_ms=4000"])
    try:
        c.workers[1].wait_for(r"training step 20 done", 120)
        c.workers[1].kill()
        cluster.check(c.workers[0].wait(300) == 0, "worker0 failed")
        cluster.check(c.ps[0].wait(90) == 0, "ps0 did not stop after the chief")
    finally:
        c.kill_all()
    loss, accuracy, step = cluster.validation(c.workers[0])
    cluster.check(step >= 300, "worker0 stopped at global step %d" % step)
    print("worker0 finished alone: global step %d, accuracy %.4f" % (step, accuracy))


def restart_sync_worker(args):
    train_steps = 300
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--sync", "--train_steps=%d" % train_steps, "--log_every=1",
                         "--logdir=" + args.logdir, "--save_summaries_steps=1"])
    try:
        c.workers[1].wait_for(r"training step 50 done", 120)
        c.workers[1].kill()
        stalled = cluster.current_global_step(c.workers)
        # The chief's step now needs worker 1's push: watch the run stand
        # still for two seconds (it would have made ~500 steps).
        time.sleep(2)
        now = cluster.current_global_step(c.workers)
        cluster.check(now <= stalled + 1,
                      "the global step went from %d to %d without worker 1" % (stalled, now))
        print("worker1 killed at global step %d: the run waits (global step %d)"
              % (stalled, now))
        c.restart("worker", 1)
        for worker in c.workers:
            cluster.check(worker.wait(300) == 0, worker.name + " failed")
        cluster.check(c.ps[0].wait(90) == 0, "ps0 did not stop after the chief")
    finally:
        c.kill_all()
    stats = re.search(r"applied (\d+) aggregates of (\d+) pushes", c.ps[0].output())
    cluster.check(stats and int(stats.group(1)) == train_steps,
                  "ps0 applied %s aggregates, not %d" % (stats and stats.group(1), train_steps))
    points = cluster.training_losses(args.logdir)
    cluster.check_learning(points, cluster.untrained_loss(points), 1, train_steps)
    for worker in c.workers:
        loss, accuracy, step = cluster.validation(worker)
        cluster.check(step == train_steps, "%s ended at global step %d" % (worker.name, step))


def kill_ps(args):
    deadline_ms = 3000
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--async", "--train_steps=100000", "--log_every=10",
                         "--rpc_deadline_ms=%d" % deadline_ms])
    try:
        for worker in c.workers:
            worker.wait_for(r"training step 20 done", 120)
        killed_at = time.time()
        c.ps[0].kill()
        address = c.ps_hosts.split(",")[0]
        for worker in c.workers:
            code = worker.wait(60)
            elapsed = time.time() - killed_at
            cluster.check(code != 0, "%s exited 0 after the PS died" % worker.name)
            cluster.check(elapsed < deadline_ms / 1000.0 + 10,
                          "%s took %.1fs to notice the dead PS" % (worker.name, elapsed))
            last = worker.output().strip().splitlines()[-1]
            cluster.check(address in last,
                          "%s's last line does not name %s: %r" % (worker.name, address, last))
            print("%s: %r after %.1fs" % (worker.name, last, elapsed))
    finally:
        c.kill_all()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--case", choices=["worker-async", "worker-sync",
                                           "worker-sync-restart", "ps"],
                        required=True)
    args = parser.parse_args()
    args.logdir = tempfile.mkdtemp(prefix="dtf-faults-")
    try:
        run_case(args)
    finally:
        shutil.rmtree(args.logdir, ignore_errors=True)


def run_case(args):
    if args.case == "worker-sync-restart":
        restart_sync_worker(args)
    elif args.case == "worker-async":
        kill_worker(args, ["--async"])
    elif args.case == "worker-sync":
        kill_worker(args, ["--sync", "--replicas_to_aggregate=1"])
    else:
        kill_ps(args)


if __name__ == "__main__":
    cluster.run_test(main)
