"""Kills tasks of a real loopback cluster mid-run:

- worker-async: worker 1 killed in async mode; worker 0 finishes training.
- worker-sync: the same in sync mode with --replicas_to_aggregate=1 of 2.
- ps: the PS killed; both workers exit non-zero within the RPC deadline with
  a message naming the PS address.
"""

import argparse
import time

import cluster


def kill_worker(args, mode_flags):
    c = cluster.Cluster(args.dtf_run, 1, 2,
                        mode_flags + ["--train_steps=400", "--log_every=10",
                                      "--worker_timeout_ms=4000"])
    try:
        c.workers[1].wait_for(r"training step 20 done", 120)
        c.workers[1].kill()
        cluster.check(c.workers[0].wait(300) == 0, "worker0 failed")
        cluster.check(c.ps[0].wait(90) == 0, "ps0 did not stop after the chief")
    finally:
        c.kill_all()
    loss, accuracy, step = cluster.validation(c.workers[0])
    cluster.check(step >= 400, "worker0 stopped at global step %d" % step)
    print("worker0 finished alone: global step %d, accuracy %.4f" % (step, accuracy))


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
    parser.add_argument("--case", choices=["worker-async", "worker-sync", "ps"],
                        required=True)
    args = parser.parse_args()
    if args.case == "worker-async":
        kill_worker(args, ["--async"])
    elif args.case == "worker-sync":
        kill_worker(args, ["--sync", "--replicas_to_aggregate=1"])
    else:
        kill_ps(args)


if __name__ == "__main__":
    cluster.run_test(main)
