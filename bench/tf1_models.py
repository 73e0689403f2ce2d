#!/usr/bin/env python3
"""DTF against TensorFlow on the TF1 tutorial models of examples/tf.

DTF's training of each imported GraphDef against TensorFlow's own training
of the script (issue 33: each imports, trains on 2 PS + 2 workers, and
reaches TensorFlow's test metric within the spread of its runs).

For each model (every examples/tf/*.py that runs tf1_common.main; its
training steps, batch size and metric are read from the arguments the
script passes to tf1_common.main, so its defaults are the one place they
live):

  import      build/bin/dtf-translate --import-graphdef examples/tf/<model>.pbtxt
              --outputs=<metric>. A model it refuses is listed as "does not
              import yet" with the importer's error line, and not trained.
  TensorFlow  the script itself (build/bench-venv/bin/python, TensorFlow on an
              in-process cluster of 2 PS tasks and one worker) once per
              --seeds seed; its last line `test_metric <metric> <value>` is
              the metric over the 10000 test images.
  DTF         build/bin/dtf-run --local --ps=2 --workers=2 on Fashion-MNIST's
              IDX files, the script's steps (global steps) and batch size,
              async and --sync, --dtf_runs runs each; the metric is worker 0's
              final validation of the fetched output (`validation accuracy`,
              or the autoencoder's `validation mse`), over the test set's
              whole batches.

A sync global step averages both workers' batches, so sync DTF trains on
twice the examples of TensorFlow's single worker in the same global steps
(the learning-rate schedules count global steps). Every command runs under
`nice -n 10` (the machine is shared). Writes a markdown report (--out):
the machine, the commit, the commands, and per model TensorFlow's metric
per seed with its mean and spread (min-max), DTF's per run, and whether each
DTF run is within, better than or worse than TensorFlow's spread. Not a
test: it prints what it measures.

    python3 bench/tf1_models.py
    python3 bench/tf1_models.py --models mlp_layers --seeds 1 --dtf_runs 1

Needs the bench venv (bash bench/setup_venv.sh) and build/bin; exits 77
without the venv.
"""

import argparse
import ast
import datetime
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = "examples/tf"
PYTHON = "build/bench-venv/bin/python"
DTF_TRANSLATE = "build/bin/dtf-translate"
DTF_RUN = "build/bin/dtf-run"
DATA = "/usr/share/datasets/fashion-mnist"
NICE = ["nice", "-n", "10"]
TF_ENV = {"TF_USE_LEGACY_KERAS": "1"}
# What the benchmark reads of a script's call of tf1_common.main.
SETTINGS = ("train_steps", "batch_size", "metric", "labeled")
# Whether a larger value of the metric is better.
HIGHER_IS_BETTER = {"accuracy": True, "mse": False}

TEST_METRIC = re.compile(r"^test_metric (\S+) (\S+)$", re.M)
# The imported models name their results (dtf.result_names): the loss, then
# the fetched output ("accuracy" or "mse").
VALIDATION = re.compile(r"^\[worker0\] After (\d+) training step\(s\), validation loss = "
                        r"(\S+), validation (?:accuracy|mse) = (\S+)$", re.M)


def literal_keywords(arguments):
    """The literal values of keyword arguments (or parameter defaults)."""
    return {name: ast.literal_eval(value) for name, value in arguments
            if isinstance(value, ast.Constant)}


def tutorial_models():
    """{name: settings} of the scripts of examples/tf that call
    tf1_common.main: its train_steps, batch_size, metric and labeled, as the
    script passes them (labeled: tf1_common.main's default otherwise)."""
    with open(os.path.join(ROOT, EXAMPLES, "tf1_common.py")) as f:
        common = ast.parse(f.read())
    main = next(node for node in common.body
                if isinstance(node, ast.FunctionDef) and node.name == "main")
    params = main.args.args[len(main.args.args) - len(main.args.defaults):]
    defaults = literal_keywords((p.arg, d) for p, d in zip(params, main.args.defaults))
    models = {}
    for path in sorted(glob.glob(os.path.join(ROOT, EXAMPLES, "*.py"))):
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "main"
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "tf1_common"):
                given = dict(defaults)
                given.update(literal_keywords((k.arg, k.value) for k in node.keywords))
                settings = {k: given[k] for k in SETTINGS if k in given}
                missing = set(SETTINGS) - set(settings)
                if missing:
                    sys.exit("%s: tf1_common.main's %s are not literal keywords"
                             % (path, ", ".join(sorted(missing))))
                models[os.path.splitext(os.path.basename(path))[0]] = settings
    return models


def idx(stem):
    """Fashion-MNIST's IDX file `stem`, gzipped or not (as tf1_common finds it)."""
    for name in (stem + ".gz", stem):
        if os.path.exists(os.path.join(DATA, name)):
            return os.path.join(DATA, name)
    sys.exit("%s/%s(.gz) is missing: the Fashion-MNIST IDX files are needed" % (DATA, stem))


def shell(argv, env=None):
    """argv as one shell command line."""
    prefix = "".join("%s=%s " % item for item in (env or {}).items())
    return prefix + " ".join(argv)


def run(argv, env=None, timeout=1800):
    """Runs argv in the repository root: (exit status, stdout + stderr,
    seconds)."""
    started = time.time()
    result = subprocess.run(argv, cwd=ROOT, env=dict(os.environ, **(env or {})),
                            capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stdout + result.stderr, time.time() - started


def import_model(name, metric, work):
    """dtf-translate of the model's GraphDef: (argv, the module's path) or
    (argv, None, the importer's error line)."""
    module = os.path.join(work, name + ".mlir")
    argv = NICE + [DTF_TRANSLATE, "--import-graphdef", "%s/%s.pbtxt" % (EXAMPLES, name),
                   "--outputs=" + metric, "-o", module]
    status, output, _ = run(argv, timeout=600)
    if status == 0:
        return argv, module, None
    errors = [line for line in output.splitlines() if "error" in line]
    return argv, None, (errors or output.strip().splitlines() or ["exit %d" % status])[0]


def tf_argv(name, seed):
    return NICE + [PYTHON, "%s/%s.py" % (EXAMPLES, name), "--seed=%d" % seed]


def run_tf(name, settings, seed):
    """TensorFlow's own training of the script: (test metric, seconds)."""
    argv = tf_argv(name, seed)
    status, output, seconds = run(argv, env=TF_ENV)
    found = TEST_METRIC.findall(output)
    if status != 0 or not found or found[-1][0] != settings["metric"]:
        sys.exit("%s failed (exit %d), no `test_metric %s` line:\n%s"
                 % (shell(argv, TF_ENV), status, settings["metric"], output[-3000:]))
    return float(found[-1][1]), seconds


def dtf_argv(settings, module, sync):
    images = "idx:%s,scale=1/255"
    inputs = ["--input=x=" + images % idx("train-images-idx3-ubyte"),
              "--eval_input=x=" + images % idx("t10k-images-idx3-ubyte")]
    if settings["labeled"]:
        inputs += ["--input=y=idx:" + idx("train-labels-idx1-ubyte"),
                   "--eval_input=y=idx:" + idx("t10k-labels-idx1-ubyte")]
    return (NICE + [DTF_RUN, "--local", "--ps=2", "--workers=2", "--progress=false",
                    "--batch_size=%d" % settings["batch_size"],
                    "--train_steps=%d" % settings["train_steps"]]
            + (["--sync"] if sync else []) + inputs + [module])


def run_dtf(settings, module, sync):
    """One dtf-run: {"value", "seconds"} or {"error"} (the exit status and
    the log's last line)."""
    argv = dtf_argv(settings, module, sync)
    status, output, seconds = run(argv)
    found = VALIDATION.findall(output)
    if status != 0 or not found:
        lines = output.strip().splitlines()
        return {"error": "exit %d: %s" % (status, lines[-1] if lines else "no output")}
    steps, _, value = found[-1]
    if int(steps) < settings["train_steps"]:
        return {"error": "validated after %s of %d steps" % (steps, settings["train_steps"])}
    return {"value": float(value), "seconds": seconds}


def verdict(value, low, high, higher_is_better):
    """Where value lies against TensorFlow's spread [low, high]."""
    if low <= value <= high:
        return "within"
    return "better" if (value > high) == higher_is_better else "worse"


def spread(values):
    return "%.5f (%.5f-%.5f)" % (statistics.mean(values), min(values), max(values))


def summary(runs, low, high, higher_is_better):
    """A DTF mode's runs against TensorFlow's spread, in one cell."""
    values = [r["value"] for r in runs if "value" in r]
    failed = len(runs) - len(values)
    if not values:
        return "no run finished", "-"
    counts = {}
    for v in values:
        counts.setdefault(verdict(v, low, high, higher_is_better), []).append(v)
    words = ["%d within" % len(counts.get("within", [])),
             "%d better" % len(counts.get("better", [])),
             "**%d worse**" % len(counts["worse"]) if "worse" in counts else "0 worse"]
    if failed:
        words.append("**%d failed**" % failed)
    return spread(values), ", ".join(words) + " (of %d)" % len(runs)


def machine():
    with open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f
                    if line.startswith("model name")), "unknown CPU")
    return cpu, os.cpu_count()


def git(*args):
    return subprocess.run(["git"] + list(args), cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def tf_version():
    result = subprocess.run(NICE + [PYTHON, "-c", "import tensorflow; print(tensorflow.__version__)"],
                            cwd=ROOT, env=dict(os.environ, **TF_ENV), capture_output=True,
                            text=True, timeout=300)
    return result.stdout.strip() if result.returncode == 0 else "(version unknown)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    models = tutorial_models()
    parser.add_argument("--models", default=",".join(models),
                        help="comma-separated scripts of examples/tf (default: all: %(default)s)")
    parser.add_argument("--seeds", default="1,2,3",
                        help="TensorFlow's runs, one per --seed (default %(default)s)")
    parser.add_argument("--dtf_runs", type=int, default=3,
                        help="dtf-run runs per mode, async and sync (default %(default)s)")
    parser.add_argument("--out", default="bench/results/tf1_models.md",
                        help="the markdown report, relative to the repository root")
    args = parser.parse_args()
    names = args.models.split(",")
    unknown = [n for n in names if n not in models]
    if unknown:
        sys.exit("unknown model(s) %s: examples/tf's tutorial scripts are %s"
                 % (", ".join(unknown), ", ".join(models)))
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.dtf_runs < 1:
        sys.exit("--dtf_runs must be at least 1")
    if not os.path.exists(os.path.join(ROOT, PYTHON)):
        print("SKIP: %s is missing: TensorFlow's side needs the bench venv "
              "(bash bench/setup_venv.sh installs it)" % PYTHON, file=sys.stderr)
        sys.exit(77)
    for binary in (DTF_TRANSLATE, DTF_RUN):
        if not os.access(os.path.join(ROOT, binary), os.X_OK):
            sys.exit("%s is missing: build DTF first (README.md, Building)" % binary)

    work = tempfile.mkdtemp(prefix="tf1_models-")
    cpu, cores = machine()
    load_start = os.getloadavg()
    started = datetime.datetime.now()
    results = []
    for name in names:
        settings = models[name]
        if settings["metric"] not in HIGHER_IS_BETTER:
            sys.exit("%s: no direction known for the metric %r" % (name, settings["metric"]))
        import_cmd, module, error = import_model(name, settings["metric"], work)
        result = {"name": name, "settings": settings, "import": import_cmd, "error": error}
        results.append(result)
        if error:
            print("%s: does not import yet: %s" % (name, error), flush=True)
            continue
        result["tf"] = []
        for seed in seeds:
            value, seconds = run_tf(name, settings, seed)
            result["tf"].append({"seed": seed, "value": value, "seconds": seconds})
            print("%s: TensorFlow seed %d: %s %.5f (%.0f s)"
                  % (name, seed, settings["metric"], value, seconds), flush=True)
        for sync in (False, True):
            mode = "sync" if sync else "async"
            result[mode] = []
            for index in range(args.dtf_runs):
                record = run_dtf(settings, module, sync)
                result[mode].append(record)
                print("%s: DTF %s run %d: %s" % (
                    name, mode, index + 1,
                    "%s %.5f (%.0f s)" % (settings["metric"], record["value"], record["seconds"])
                    if "value" in record else "FAILED " + record["error"]), flush=True)
    load_end = os.getloadavg()

    dirty = " plus uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    command = "python3 bench/tf1_models.py --models %s --seeds %s --dtf_runs %d --out %s" % (
        ",".join(names), ",".join(map(str, seeds)), args.dtf_runs, args.out)
    lines = [
        "# TF1 tutorial models: DTF against TensorFlow (bench/tf1_models.py)",
        "",
        "`%s`" % command,
        "",
        "%s, %d cores, shared with other work (load average %s at the start, %s at the end); "
        "commit %s%s; %s, %.0f minutes. TensorFlow %s."
        % (cpu, cores, " ".join("%.1f" % l for l in load_start),
           " ".join("%.1f" % l for l in load_end), git("rev-parse", "--short", "HEAD"), dirty,
           started.strftime("%Y-%m-%d %H:%M"),
           (datetime.datetime.now() - started).total_seconds() / 60, tf_version()),
        "",
        "Each model trains for its script's default steps and batch size. TensorFlow: the "
        "script itself, one worker and 2 PS tasks on an in-process cluster, its test metric "
        "over the 10000 test images, once per seed. DTF: the committed GraphDef imported by "
        "dtf-translate and trained by `dtf-run --local --ps=2 --workers=2` to the same global "
        "step, async and sync, %d run(s) each (dtf-run has no seed: async runs differ by the "
        "order the updates land in); the metric is worker 0's final validation over the test "
        "set's whole batches. A sync global step averages both workers' batches: twice "
        "TensorFlow's examples in the same global steps. \"within\", \"better\", \"worse\": "
        "a DTF run against the min-max of TensorFlow's seeds (accuracy: higher is better; "
        "mse: lower is better)." % args.dtf_runs,
        "",
        "| model | metric | steps x batch | TensorFlow mean (min-max) | DTF async mean (min-max) "
        "| async against TF's spread | DTF sync mean (min-max) | sync against TF's spread |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    details = []
    for result in results:
        name, settings = result["name"], result["settings"]
        if result["error"]:
            lines.append("| %s | %s | %d x %d | does not import yet | | | | |"
                         % (name, settings["metric"], settings["train_steps"],
                            settings["batch_size"]))
            continue
        tf_values = [r["value"] for r in result["tf"]]
        low, high = min(tf_values), max(tf_values)
        higher = HIGHER_IS_BETTER[settings["metric"]]
        cells = []
        for mode in ("async", "sync"):
            cells += summary(result[mode], low, high, higher)
        lines.append("| %s | %s | %d x %d | %s | %s |" % (
            name, settings["metric"], settings["train_steps"], settings["batch_size"],
            spread(tf_values), " | ".join(cells)))
        module = os.path.join(work, name + ".mlir")
        details += [
            "", "## %s" % name, "", "```sh",
            shell(tf_argv(name, seeds[0]), TF_ENV).replace(
                "--seed=%d" % seeds[0], "--seed=S") + "   # S = %s" % ", ".join(map(str, seeds)),
            shell(result["import"]),
            shell(dtf_argv(settings, module, False)),
            shell(dtf_argv(settings, module, True)),
            "```", "",
            "| run | %s | against TF's spread | seconds (whole command) |" % settings["metric"],
            "| --- | ---: | --- | ---: |"]
        for r in result["tf"]:
            details.append("| TensorFlow, seed %d | %.5f | | %.0f |" % (r["seed"], r["value"],
                                                                       r["seconds"]))
        for mode in ("async", "sync"):
            for index, r in enumerate(result[mode]):
                if "value" in r:
                    details.append("| DTF %s, run %d | %.5f | %s | %.0f |" % (
                        mode, index + 1, r["value"], verdict(r["value"], low, high, higher),
                        r["seconds"]))
                else:
                    details.append("| DTF %s, run %d | failed: %s | | |" % (mode, index + 1,
                                                                          r["error"]))
    refused = [r for r in results if r["error"]]
    if refused:
        details += ["", "## Does not import yet", "",
                    "`%s --import-graphdef examples/tf/<model>.pbtxt --outputs=<metric>`: "
                    "neither TensorFlow nor DTF trains these here." % DTF_TRANSLATE, "",
                    "| model | dtf-translate's error |", "| --- | --- |"]
        details += ["| %s | `%s` |" % (r["name"], r["error"].replace("|", "\\|")) for r in refused]
    out = os.path.join(ROOT, args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines + details) + "\n")
    print("wrote %s" % args.out)


if __name__ == "__main__":
    main()
