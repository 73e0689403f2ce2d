"""Staleness control of async training: --max_staleness drops the pushes
computed more than K updates before they land, so that no applied push is
staler than K (the PS task's staleness line) and the dropped ones are
counted; with --divide_lr_by_staleness every push of staleness above 0
has its learning rate divided, and the model trains; by default none is;
both flags are refused with --sync, naming the flag.
"""

import argparse
import re
import subprocess

import cluster

STOPPED = re.compile(r"PS task 0 stopped at step (\d+): applied (\d+) updates of "
                     r"(\d+) pushes, dropped (\d+) stale pushes")
STALENESS = re.compile(r"PS task 0 staleness: (.*) \(mean ([\d.]+), max (\d+)\)"
                       r"; steps divided by 1 \+ staleness: (\d+ pushes|off)")
# An untrained model scores 0.10; 3 async workers reach about 0.8.
ACCURACY = 0.6


def run(dtf_run, workers, flags, steps):
    argv = [dtf_run, "--local", "--ps=1", "--workers=%d" % workers, "--progress=false",
            "--async", "--train_steps=%d" % steps] + flags + [cluster.MLP]
    print("running: " + " ".join(argv))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    cluster.check(result.returncode == 0, "the run failed (exit %d):\n%s\n%s" % (
        result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    stopped, staleness = STOPPED.search(result.stdout), STALENESS.search(result.stdout)
    accuracy = cluster.ACCURACY.search(result.stdout)
    cluster.check(stopped and staleness and accuracy,
                  "no PS stop lines or validation:\n" + result.stdout[-3000:])
    histogram = dict(bucket.split(":") for bucket in staleness.group(1).split())
    divided = staleness.group(4)
    return ([int(g) for g in stopped.groups()], float(staleness.group(2)),
            int(staleness.group(3)), float(accuracy.group(2)), int(histogram.get("0", 0)),
            None if divided == "off" else int(divided.split()[0]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--train-steps", type=int, default=600)
    args = parser.parse_args()

    for flag in ["--max_staleness=2", "--divide_lr_by_staleness"]:
        refused = subprocess.run([args.dtf_run, "--local", "--sync", flag, cluster.MLP],
                                 capture_output=True, text=True, timeout=60)
        name = flag.lstrip("-").split("=")[0]
        cluster.check(refused.returncode == 2 and "--" + name in refused.stderr,
                      "--sync %s: exit %d, %r" % (flag, refused.returncode, refused.stderr))

    # Three workers push at staleness 2 on average: a bound of 1 drops some.
    (step, applied, pushes, dropped), mean, most, accuracy, _, _ = run(
        args.dtf_run, 3, ["--max_staleness=1"], args.train_steps)
    print("--max_staleness=1: step %d, applied %d of %d pushes, dropped %d; staleness "
          "mean %.2f, max %d; accuracy %.4f" % (step, applied, pushes, dropped, mean,
                                                most, accuracy))
    cluster.check(most <= 1, "an applied push had staleness %d > 1" % most)
    cluster.check(dropped > 0, "no push was dropped: the bound was never reached")
    # Each worker stops once its pull shows the target: the other two may
    # each land one more update.
    cluster.check(step == applied and args.train_steps <= step <= args.train_steps + 2,
                  "step %d, %d applied, for %d steps" % (step, applied, args.train_steps))
    cluster.check(accuracy >= ACCURACY, "accuracy %.4f < %.2f" % (accuracy, ACCURACY))

    # The flag divides the rate of every push that was stale at all.
    (step, applied, pushes, dropped), mean, most, accuracy, fresh, divided = run(
        args.dtf_run, 3, ["--divide_lr_by_staleness"], args.train_steps)
    print("--divide_lr_by_staleness: applied %d of %d pushes, %d of staleness 0, %s divided; staleness "
          "mean %.2f, max %d; accuracy %.4f" % (applied, pushes, fresh, divided, mean, most,
                                                accuracy))
    cluster.check(dropped == 0 and applied == pushes,
                  "%d of %d pushes applied, %d dropped" % (applied, pushes, dropped))
    cluster.check(divided == applied - fresh and divided > 0,
                  "%s pushes divided, where %d of %d were stale" % (divided, applied - fresh,
                                                                   applied))
    cluster.check(accuracy >= ACCURACY, "accuracy %.4f < %.2f" % (accuracy, ACCURACY))

    _, _, _, _, _, divided = run(args.dtf_run, 3, [], args.train_steps)
    cluster.check(divided is None, "the defaults: %s pushes divided" % divided)


if __name__ == "__main__":
    cluster.run_test(main)
