#!/usr/bin/env python3
"""DTF's CPU kernels on a CPU that OpenBLAS does not know, against
TensorFlow in the same run.

OpenBLAS 0.3.21 picks its GEMM kernels by the CPU's model number and falls
back to its generic SSE3 kernels (Prescott) on a model it does not know, as
on Intel's family 6 model 207; DTF then ran 3 to 4 times slower there.
runtime/core/CpuKernels.h now runs float GEMMs on oneDNN, whose kernels
follow the CPU's features, whenever OpenBLAS's kernel is narrower than
AVX2 on a CPU that has it. OPENBLAS_CORETYPE=PRESCOTT forces the same
fallback on any x86-64 CPU, so this script reproduces the cause on the
machine it runs on. Three DTF variants, each repetition back to back with
TensorFlow's cluster:

- shipped: the environment as it is (OpenBLAS's own choice of kernel);
- generic, chosen by features: OPENBLAS_CORETYPE=PRESCOTT, DTF chooses
  (oneDNN where it has AVX2);
- generic, forced: OPENBLAS_CORETYPE=PRESCOTT DTF_CPU_GEMM=openblas, what
  DTF ran before on such a CPU.

It also runs dtf-bench-kernels' BM_GemmOn (each GEMM library at the MLP's
shapes) with and without the forced core. Writes bench/results/
cpu-kernels.{json,md}; the CPU that gave the numbers is named there.

  build/bench-venv/bin/python bench/cpu_kernels.py [--steps=5000] [--reps=3]

(bash bench/setup_venv.sh makes the venv with TensorFlow.)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_study  # noqa: E402

GENERIC = {"OPENBLAS_CORETYPE": "PRESCOTT"}
VARIANTS = [
    ("shipped", {}),
    ("generic, chosen by features", dict(GENERIC)),
    ("generic, forced (before)", dict(GENERIC, DTF_CPU_GEMM="openblas")),
]


def cpu_name():
    """The CPU as /proc/cpuinfo and its family/model give it."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if ":" in line:
                key, value = (s.strip() for s in line.split(":", 1))
                fields.setdefault(key, value)
            if not line.strip() and fields:
                break
    flags = fields.get("flags", "").split()
    widest = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return "%s (%s, family %s model %s, %s)" % (
        fields.get("model name", "?"), fields.get("vendor_id", "?"),
        fields.get("cpu family", "?"), fields.get("model", "?"), widest)


def with_env(extra):
    """os.environ with the variant's variables, and neither of them unless
    the variant sets it."""
    env = dict(os.environ)
    for name in ("OPENBLAS_CORETYPE", "DTF_CPU_GEMM"):
        env.pop(name, None)
    env.update(extra)
    return env


def kernels_line(dtf_run, extra):
    out = subprocess.run([dtf_run, "--version"], capture_output=True, text=True,
                         env=with_env(extra)).stdout
    return next((l for l in out.splitlines() if l.startswith("CPU kernels:")), out.strip())


def gemm_bench(build, extra):
    exe = os.path.join(build, "bin", "dtf-bench-kernels")
    r = subprocess.run([exe, "--benchmark_filter=BM_GemmOn", "--benchmark_format=json",
                        "--benchmark_min_time=0.2", "--benchmark_repetitions=3",
                        "--benchmark_report_aggregates_only=true"],
                       capture_output=True, text=True,
                       env=dict(with_env(extra), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    rows = {}
    for b in json.loads(r.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            rows[b["run_name"]] = b["real_time"]
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out", default=os.path.join(HERE, "results", "cpu-kernels"))
    args = p.parse_args()
    # The options run_study.run_cluster reads (its command line's).
    study = argparse.Namespace(dtf_run=os.path.join(args.build, "bin", "dtf-run"),
                               dtf_run_baseline="", dtf_variant=[],
                               python=sys.executable, blas_threads=1, timeout=1800,
                               data="/usr/share/datasets/fashion-mnist")
    results = {"command": "build/bench-venv/bin/python bench/cpu_kernels.py " +
                          " ".join(sys.argv[1:]),
               "cpu": cpu_name(), "commit": run_study.git_commit(),
               "started": time.strftime("%Y-%m-%d %H:%M:%S %z"), "steps": args.steps,
               "kernels": {name: kernels_line(study.dtf_run, extra) for name, extra in VARIANTS},
               "gemm": {"OpenBLAS's choice": gemm_bench(args.build, {}),
                        "OPENBLAS_CORETYPE=PRESCOTT": gemm_bench(args.build, GENERIC)},
               "runs": []}
    print("CPU: " + results["cpu"], flush=True)
    saved = dict(os.environ)
    for workers in [int(w) for w in args.workers.split(",")]:
        for rep in range(args.reps):
            for name, extra in [("TensorFlow", {})] + VARIANTS:
                os.environ.clear()
                os.environ.update(with_env(extra))
                try:
                    r = run_study.run_cluster("tf" if name == "TensorFlow" else "dtf", workers,
                                              False, args.steps, study)
                finally:
                    os.environ.clear()
                    os.environ.update(saved)
                r.update(variant=name, rep=rep)
                results["runs"].append(r)
                print("%d workers, rep %d, %-28s %s" % (
                    workers, rep, name, r.get("error") or "%.1f global steps/s, accuracy %.4f"
                    % (r["global_steps_per_s"], r["accuracy"])), flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(args.out + ".md", "w") as f:
        f.write(report(results))
    print(report(results))


def report(results):
    lines = ["# CPU kernels on a CPU OpenBLAS does not know", "",
             "`%s`, commit %s, %s. CPU: **%s**. Async, 1 PS task, %d global steps, "
             "one compute thread per task (OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1); "
             "`OPENBLAS_CORETYPE=PRESCOTT` forces OpenBLAS's generic SSE3 kernels, "
             "as OpenBLAS 0.3.21 falls back to on an Intel family 6 model 207 "
             "(bench/cpu_kernels.py says why)." % (
                 results["command"].strip(), results["commit"], results["started"],
                 results["cpu"], results["steps"]), "",
             "| DTF variant | kernels (`dtf-run --version`) |", "| --- | --- |"]
    for name, line in results["kernels"].items():
        lines.append("| %s | %s |" % (name, line.replace("CPU kernels: ", "")))
    lines += ["", "Global steps/s (median and range over the repetitions) and, per "
              "repetition, DTF over TensorFlow's run right before it:", "",
              "| workers | system | runs | global steps/s | x TensorFlow | test accuracy |",
              "| ---: | --- | ---: | ---: | ---: | ---: |"]
    ok = [r for r in results["runs"] if "error" not in r]
    for workers in sorted({r["workers"] for r in ok}):
        tf = {r["rep"]: r for r in ok if r["workers"] == workers and r["variant"] == "TensorFlow"}
        for name in ["TensorFlow"] + [v for v, _ in VARIANTS]:
            runs = [r for r in ok if r["workers"] == workers and r["variant"] == name]
            if not runs:
                continue
            rates = [r["global_steps_per_s"] for r in runs]
            ratios = [r["global_steps_per_s"] / tf[r["rep"]]["global_steps_per_s"]
                      for r in runs if r["rep"] in tf]
            accuracy = [r["accuracy"] for r in runs]
            lines.append("| %d | %s | %d | %.0f (%.0f-%.0f) | %s | %.4f (%.4f-%.4f) |" % (
                workers, "TensorFlow" if name == "TensorFlow" else "DTF, " + name, len(runs),
                statistics.median(rates), min(rates), max(rates),
                "" if name == "TensorFlow" else "%.2fx (%.2f-%.2f)" % (
                    statistics.median(ratios), min(ratios), max(ratios)),
                statistics.median(accuracy), min(accuracy), max(accuracy)))
    failed = [r for r in results["runs"] if "error" in r]
    if failed:
        lines += ["", "Failed runs: " + "; ".join("%s %dw rep %d: %s" % (
            r["variant"], r["workers"], r["rep"], r["error"]) for r in failed)]
    lines += ["", "The MLP's GEMMs on one thread, each library (`dtf-bench-kernels "
              "--benchmark_filter=BM_GemmOn`, median of 3, µs):", "",
              "| GEMM (library/M/K/N/ta/tb) | OpenBLAS's choice | OPENBLAS_CORETYPE=PRESCOTT |",
              "| --- | ---: | ---: |"]
    own, generic = results["gemm"]["OpenBLAS's choice"], results["gemm"]["OPENBLAS_CORETYPE=PRESCOTT"]
    for name in own:
        label = name.replace("BM_GemmOn/", "").replace("oneDNN:0", "OpenBLAS").replace(
            "oneDNN:1", "oneDNN")
        lines.append("| %s | %.1f | %.1f |" % (label, own[name], generic.get(name, float("nan"))))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
