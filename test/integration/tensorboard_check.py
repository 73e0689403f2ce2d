"""TensorBoard itself reads DTF's event files: trains briefly with --logdir
and loads every worker's and PS task's run with tensorboard's EventAccumulator (which
checks the record CRCs), as TensorBoard finds the runs, then checks the
scalars.

Needs the `tensorboard` Python package, which is not a Debian package of
bookworm: the Python of $DTF_TENSORBOARD_PYTHON, of <build>/tb-venv
(`bash scripts/tensorboard-venv.sh` makes it, from PyPI) or this one when
it can import tensorboard. Without one the check prints why and exits 77,
which ctest reports as skipped.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import cluster

SKIP = 77

# Runs under the Python that has tensorboard; prints {run: {tag: [[step, value], ...]}}.
LOADER = r"""
import json, sys
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.backend.event_processing import event_multiplexer as em
# The runs TensorBoard itself finds under the logdir: the directories that
# hold event files (checkpoints beside them are not runs).
multiplexer = em.EventMultiplexer(size_guidance={ea.SCALARS: 0})
multiplexer.AddRunsFromDirectory(sys.argv[1])
multiplexer.Reload()
result = {}
for run in sorted(multiplexer.Runs()):
    acc = multiplexer.GetAccumulator(run)
    result[run] = {tag: [[s.step, s.value] for s in acc.Scalars(tag)]
                   for tag in acc.Tags()["scalars"]}
print(json.dumps(result))
"""


def find_python(build_dir):
    candidates = []
    if os.environ.get("DTF_TENSORBOARD_PYTHON"):
        candidates.append(os.environ["DTF_TENSORBOARD_PYTHON"])
    candidates.append(os.path.join(build_dir, "tb-venv", "bin", "python"))
    candidates.append(sys.executable)
    for python in candidates:
        if not os.path.exists(python):
            continue
        probe = subprocess.run([python, "-c", "import tensorboard; print(tensorboard.__version__)"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if probe.returncode == 0:
            return python, probe.stdout.strip()
    return None, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()

    python, version = find_python(args.build_dir)
    if not python:
        print("SKIP: the tensorboard Python package is not installed (not in Debian 12); "
              "run `bash scripts/tensorboard-venv.sh` (needs PyPI) or set "
              "DTF_TENSORBOARD_PYTHON to a Python that has it")
        return SKIP
    print("tensorboard %s under %s" % (version, python))

    with tempfile.TemporaryDirectory() as tmp:
        logdir = os.path.join(tmp, "logs")
        result = subprocess.run(
            # Sync: every worker runs every step, so each run has the same summaries.
            [args.dtf_run, "--local", "--ps=1", "--workers=2", "--sync", "--train_steps=200",
             "--data=" + cluster.DATA, "--logdir=" + logdir, "--save_summaries_steps=50",
             "--progress=false", cluster.MLP],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        print(result.stdout)
        cluster.check(result.returncode == 0, "training failed with %d" % result.returncode)
        loaded = subprocess.run([python, "-c", LOADER, logdir], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, timeout=300)
        cluster.check(loaded.returncode == 0,
                      "EventAccumulator failed:\n%s" % loaded.stderr)
        runs = json.loads(loaded.stdout)

    cluster.check(sorted(runs) == ["ps_0", "worker_0", "worker_1"], "runs %s" % sorted(runs))
    # The PS task's run: the staleness of the pushes applied since the
    # previous summary, 0 in sync mode.
    ps = runs.pop("ps_0")
    cluster.check(set(ps) == {"staleness/mean", "staleness/max"}, "ps_0: tags %s" % sorted(ps))
    for tag, points in ps.items():
        cluster.check(points == [[50, 0], [100, 0], [150, 0], [200, 0]],
                      "ps_0: %s: %s" % (tag, points))
    print("ps_0: %s" % {tag: len(points) for tag, points in sorted(ps.items())})
    for run, scalars in runs.items():
        tags = set(scalars)
        expected = {"loss", "accuracy", "global_step/sec", "examples/sec",
                    "validation/loss", "validation/accuracy"}
        cluster.check(tags == expected, "%s: tags %s" % (run, sorted(tags)))
        steps = [step for step, _ in scalars["loss"]]
        cluster.check(steps == [50, 100, 150, 200], "%s: loss at steps %s" % (run, steps))
        for tag in ("accuracy", "global_step/sec", "examples/sec"):
            cluster.check([step for step, _ in scalars[tag]] == steps,
                          "%s: %s at steps %s" % (run, tag, scalars[tag]))
        accuracy = scalars["validation/accuracy"][-1][1]
        cluster.check(0.5 < accuracy <= 1, "%s: validation accuracy %s" % (run, accuracy))
        print("%s: %s" % (run, {tag: len(points) for tag, points in sorted(scalars.items())}))
    print("PASS")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as error:
        print("FAIL: %s" % error)
        sys.exit(1)
