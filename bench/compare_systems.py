#!/usr/bin/env python3
"""A before/after table from one run_study.py run with several systems
(e.g. --systems=dtf,dtf-baseline,tf --dtf_run_baseline=OLD/dtf-run, or
--dtf_variant NAME=FLAGS): per configuration (mode, workers) and system,
the runs' global steps/s and test accuracy as median [min, max], each DTF
system's ratio to TensorFlow (paired within a repetition), and DTF's PS
task 0's push staleness (mean of the runs' means, largest max) and pushes
dropped as stale. Writes Markdown to stdout or --out.

Usage: compare_systems.py RESULTS.json [--out FILE.md] [--title TEXT]
"""
import argparse
import json
import statistics


def mmm(values, fmt):
    if not values:
        return "-"
    return (fmt % statistics.median(values) + " [" + fmt % min(values) + ", "
            + fmt % max(values) + "]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--out", default="")
    parser.add_argument("--title", default="Before and after, one run")
    args = parser.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    runs = [r for r in data["runs"] if "error" not in r and r.get("num_ps", 1) == 1]
    systems = sorted({r["system"] for r in runs}, key=lambda s: (s != "dtf", s))
    configs = sorted({(r["mode"], r["workers"]) for r in runs})
    machine = data.get("machine", {})
    lines = ["# " + args.title, "",
             "Machine: %s cores, %s. Commit %s, started %s; %d steps per run, "
             "%d repetitions, systems alternating within each." % (
                 machine.get("cores"), machine.get("cpu_model"),
                 data.get("commit", "?"), data.get("started", "?"),
                 data.get("steps", 0), data.get("reps", 0)),
             "", "Command: `%s`" % data.get("command", ""), "",
             "| mode | workers | system | global steps/s | test accuracy | x TensorFlow "
             "| staleness mean, max | dropped pushes |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for mode, workers in configs:
        for system in systems:
            mine = [r for r in runs if (r["mode"], r["workers"], r["system"]) == (mode, workers, system)]
            ratios = []
            for r in mine:
                peer = [t for t in runs if (t["mode"], t["workers"], t["system"], t["rep"])
                        == (mode, workers, "tf", r["rep"])]
                if peer and system != "tf":
                    ratios.append(r["global_steps_per_s"] / peer[0]["global_steps_per_s"])
            stale = [r["ps"]["staleness"] for r in mine
                     if "staleness" in r.get("ps", {})]
            dropped = [r["ps"]["stale"] for r in mine if "stale" in r.get("ps", {})]
            lines.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                mode, workers, system,
                mmm([r["global_steps_per_s"] for r in mine], "%.0f"),
                mmm([r["accuracy"] for r in mine], "%.4f"),
                mmm(ratios, "%.2f") if ratios else "-",
                "%.2f, %d" % (statistics.mean(s["mean"] for s in stale),
                              max(s["max"] for s in stale)) if stale else "-",
                mmm(dropped, "%d") if dropped else "-"))
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
