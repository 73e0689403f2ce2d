"""--overlap_pull: an async worker computes each step on the values its
previous push-pull brought while the current one flies. Trains the MLP with
1 PS and 1 worker and checks that it learns (test accuracy, the loss
trajectory), that the global step ends exactly at --train_steps (the worker
stops pushing once a push-pull reports it reached), and that every push was
applied; and that --sync refuses the flag, naming it.
"""

import argparse
import re
import subprocess

import cluster

# One more step of staleness costs accuracy at this learning rate: this run
# reached 0.77-0.82 where it reaches 0.83 without overlap (runtime/rpc/
# README.md, "Where a step's values come from"); an untrained model scores
# 0.10.
OVERLAP_ACCURACY = 0.65


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--train-steps", type=int, default=600)
    args = parser.parse_args()

    refused = subprocess.run([args.dtf_run, "--local", "--sync", "--overlap_pull",
                              cluster.MLP], capture_output=True, text=True, timeout=60)
    cluster.check(refused.returncode == 2 and "--overlap_pull" in refused.stderr,
                  "--sync --overlap_pull: exit %d, %r" % (refused.returncode, refused.stderr))

    c = cluster.train_and_check_learning(args.dtf_run, 1,
                                         ["--async", "--overlap_pull"], args.train_steps)
    worker = c.workers[0]
    cluster.check("pulls overlapped" in worker.output(),
                  "worker0 does not say it overlaps its pulls")
    stats = re.search(r"applied (\d+) updates of (\d+) pushes", c.ps[0].output())
    cluster.check(stats, "ps0 did not report what it applied")
    applied, pushes = int(stats.group(1)), int(stats.group(2))
    cluster.check(applied == pushes == args.train_steps,
                  "%d updates of %d pushes for %d steps" % (applied, pushes, args.train_steps))
    loss, accuracy, step = cluster.validation(worker)
    print("validation accuracy %.4f, cross entropy %.4f, global step %d" % (accuracy, loss, step))
    cluster.check(step == args.train_steps, "global step %d != %d" % (step, args.train_steps))
    cluster.check(accuracy >= OVERLAP_ACCURACY,
                  "accuracy %.4f < %.2f" % (accuracy, OVERLAP_ACCURACY))


if __name__ == "__main__":
    cluster.run_test(main)
