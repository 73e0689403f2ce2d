"""Trains the MLP on Fashion-MNIST with 1 PS and 2 workers as real processes
on loopback and checks the test accuracy (and, in sync mode, that the global
step counts the applied aggregates)."""

import argparse
import re

import cluster


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--mode", choices=["async", "sync"], required=True)
    parser.add_argument("--train-steps", type=int, default=600)
    args = parser.parse_args()

    c = cluster.Cluster(args.dtf_run, 1, 2,
                        ["--" + args.mode, "--train_steps=%d" % args.train_steps,
                         "--log_every=100"])
    try:
        for worker in c.workers:
            cluster.check(worker.wait(600) == 0, worker.name + " failed")
        cluster.check(c.ps[0].wait(60) == 0, "ps0 failed")
    finally:
        c.kill_all()

    for worker in c.workers:
        loss, accuracy, step = cluster.validation(worker)
        print("%s: validation accuracy %.4f, cross entropy %.4f, global step %d"
              % (worker.name, accuracy, loss, step))
        cluster.check(accuracy >= 0.80, "%s: accuracy %.4f < 0.80" % (worker.name, accuracy))
        cluster.check(step >= args.train_steps,
                      "%s: global step %d < %d" % (worker.name, step, args.train_steps))
    if args.mode == "sync":
        applied = re.search(r"applied (\d+) aggregates", c.ps[0].output())
        cluster.check(applied, "ps0 did not report its applied aggregates")
        steps = {cluster.validation(w)[2] for w in c.workers}
        cluster.check(steps == {int(applied.group(1))},
                      "global step %s != applied aggregates %s"
                      % (steps, applied.group(1)))


if __name__ == "__main__":
    cluster.run_test(main)
