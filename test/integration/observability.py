"""What users look at, end to end on a real --local cluster:

- --logdir: one TensorBoard events file per worker in <logdir>/worker_N
  and per PS task in <logdir>/ps_N (the staleness of its updates), read
  back with an independent reader (events.py: framing, CRCs, fields);
- --trace: one merged Chrome trace JSON with a process track per task,
  thread tracks, op kernels, pulls, pushes, sync waits and PS updates;
- progress: plain lines when stdout is not a terminal, a bar with steps/s
  and ETA on a pseudo-terminal;
- the CLI: --helpshort lists every flag with its default, and bad flags
  give one line naming the flag.
"""

import argparse
import json
import os
import pty
import re
import subprocess
import sys
import tempfile

import cluster
import events


def run(argv, timeout=300):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=timeout)
    return result.returncode, result.stdout


def run_on_terminal(argv, timeout=300):
    """Runs `argv` with stdout and stderr on a pseudo-terminal."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm")
    process = subprocess.Popen(argv, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    code = process.wait(timeout)
    return code, b"".join(chunks).decode(errors="replace")


def local_argv(args, extra):
    return [args.dtf_run, "--local", "--ps=1", "--workers=2", "--data=" + cluster.DATA,
            "--log_every=100"] + extra + [cluster.MLP]


def check_events(logdir, dtf_events):
    # TensorBoard runs are the subdirectories; the chief's checkpoints
    # (model.ckpt-*.dtf) share the directory, as TensorFlow's do.
    runs = sorted(entry for entry in os.listdir(logdir)
                  if os.path.isdir(os.path.join(logdir, entry)))
    cluster.check(runs == ["ps_0", "worker_0", "worker_1"], "runs in the logdir: %s" % runs)
    check_ps_events(logdir, "ps_0")
    for run_name in runs[1:]:
        files = os.listdir(os.path.join(logdir, run_name))
        cluster.check(len(files) == 1 and files[0].startswith("events.out.tfevents."),
                      "%s: expected one events file, got %s" % (run_name, files))
        path = os.path.join(logdir, run_name, files[0])
        evs = events.read_events(path)
        cluster.check(evs[0]["file_version"] == "brain.Event:2",
                      "%s: first event %s" % (path, evs[0]))
        summaries = [e for e in evs[1:] if e["values"]]
        training = [e for e in summaries if "loss" in e["values"]]
        cluster.check(len(training) >= 2, "%s: %d training summaries" % (path, len(training)))
        for e in training:
            tags = set(e["values"])
            cluster.check(tags == {"loss", "accuracy", "global_step/sec", "examples/sec"},
                          "%s: tags %s at step %d" % (path, tags, e["step"]))
            cluster.check(e["values"]["global_step/sec"] > 0 and e["values"]["examples/sec"] > 0,
                          "%s: rates %s" % (path, e["values"]))
            cluster.check(0 <= e["values"]["accuracy"] <= 1, "%s: accuracy" % path)
        steps = [e["step"] for e in training]
        cluster.check(steps == sorted(steps) and len(set(steps)) == len(steps),
                      "%s: steps not increasing: %s" % (path, steps))
        last = evs[-1]
        cluster.check(set(last["values"]) == {"validation/loss", "validation/accuracy"},
                      "%s: last event %s" % (path, last))
        cluster.check(last["values"]["validation/accuracy"] > 0.5,
                      "%s: validation accuracy %s" % (path, last["values"]))
        cluster.check(last["step"] >= steps[-1], "%s: validation step" % path)
        times = [e["wall_time"] for e in evs]
        cluster.check(times == sorted(times), "%s: wall times not increasing" % path)
        # DTF's own reader agrees, event for event.
        code, output = run([dtf_events, path])
        cluster.check(code == 0 and len(output.splitlines()) == len(evs),
                      "dtf-events %s: exit %d, %d lines for %d events"
                      % (path, code, len(output.splitlines()), len(evs)))
        print("%s: %d events, training summaries at steps %s, %s"
              % (run_name, len(evs), steps, last["values"]))


def check_ps_events(logdir, run_name):
    """The sync run's PS summaries: the staleness of the pushes applied since
    the previous summary, every 50 of its 300 steps, 0 in sync mode (each
    push is applied at its own step)."""
    files = os.listdir(os.path.join(logdir, run_name))
    cluster.check(len(files) == 1 and files[0].startswith("events.out.tfevents."),
                  "%s: expected one events file, got %s" % (run_name, files))
    path = os.path.join(logdir, run_name, files[0])
    evs = events.read_events(path)
    cluster.check(evs[0]["file_version"] == "brain.Event:2", "%s: first event %s" % (path, evs[0]))
    summaries = [e for e in evs[1:] if e["values"]]
    steps = [e["step"] for e in summaries]
    cluster.check(steps == [50, 100, 150, 200, 250, 300], "%s: summaries at steps %s" % (path, steps))
    for e in summaries:
        cluster.check(e["values"] == {"staleness/mean": 0, "staleness/max": 0},
                      "%s: step %d: %s" % (path, e["step"], e["values"]))
    print("%s: %d events, staleness summaries at steps %s" % (run_name, len(evs), steps))


def check_trace(path, sync, trace_steps):
    with open(path) as f:
        trace = json.load(f)
    evs = trace["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in evs
                 if e["ph"] == "M" and e["name"] == "process_name"}
    names = sorted(name.split()[0] for name in processes.values())
    cluster.check(names == ["ps0", "worker0", "worker1"],
                  "process tracks %s" % processes)
    threads = {}
    for e in evs:
        if e["ph"] == "M" and e["name"] == "thread_name":
            threads.setdefault(e["pid"], set()).add(e["args"]["name"])
    spans = [e for e in evs if e["ph"] == "X"]
    for e in spans:
        cluster.check(isinstance(e["ts"], (int, float)) and e["dur"] >= 0,
                      "bad span %s" % e)
        cluster.check(e["pid"] in processes, "span of an unnamed process: %s" % e)
    by_pid = {}
    for e in spans:
        by_pid.setdefault(e["pid"], []).append(e)
    for pid, name in processes.items():
        mine = by_pid.get(pid, [])
        cats = {e["cat"] for e in mine}
        cluster.check("op" in cats, "%s: no op kernels traced" % name)
        cluster.check(len(threads.get(pid, ())) >= 2, "%s: thread tracks %s"
                      % (name, threads.get(pid)))
        if name.startswith("ps"):
            applies = [e for e in mine if e["name"] == "apply"]
            cluster.check(len(applies) >= 1, "%s: no updates traced" % name)
            continue
        steps = [e for e in mine if e["cat"] == "step"]
        cluster.check(len(steps) == trace_steps,
                      "%s: %d steps traced, not %d" % (name, len(steps), trace_steps))
        rpcs = {e["name"] for e in mine if e["cat"] == "rpc"}
        expected = {"pull ps0", "push ps0"} | ({"wait for step ps0"} if sync else set())
        cluster.check(rpcs == expected, "%s: RPC spans %s" % (name, rpcs))
        # Every kernel ran inside a run of @worker.
        computes = [(e["ts"], e["ts"] + e["dur"]) for e in mine if e["cat"] == "compute"]
        for op in (e for e in mine if e["cat"] == "op"):
            cluster.check(any(b - 1 <= op["ts"] and op["ts"] + op["dur"] <= end + 1
                              for b, end in computes),
                          "%s: op %s outside the step's run" % (name, op))
        kernels = {e["name"] for e in mine if e["cat"] == "op"}
        cluster.check({"dtf.matmul", "dtf.relu_grad"} <= kernels,
                      "%s: kernels %s" % (name, sorted(kernels)))
    print("trace: %d events, processes %s, tracks %s"
          % (len(evs), sorted(processes.values()),
             {processes[p]: sorted(t) for p, t in threads.items()}))


def test_sync_run(args, tmp):
    logdir = os.path.join(tmp, "logs")
    trace = os.path.join(tmp, "trace.json")
    code, output = run(local_argv(args, [
        "--sync", "--train_steps=300", "--logdir=" + logdir, "--save_summaries_steps=50",
        "--trace=" + trace, "--trace_steps=3"]))
    print(output)
    cluster.check(code == 0, "the sync run failed with %d" % code)
    progress = [l for l in output.splitlines() if l.startswith("progress: ")]
    cluster.check(progress, "no progress lines when stdout is not a terminal")
    cluster.check(all(re.match(r"progress: global step \d+/300 \(\d+%\), [0-9.]+ steps/s, ETA ", l)
                      for l in progress), "progress lines: %s" % progress)
    cluster.check("\r" not in output and "\033[" not in output,
                  "terminal control characters in plain output")
    cluster.check(not os.path.exists(trace + ".parts"), "per-task traces left behind")
    cluster.check("wrote the trace of 3 tasks" in output, "no word of the merged trace")
    check_trace(trace, sync=True, trace_steps=3)
    check_events(logdir, os.path.join(os.path.dirname(args.dtf_run), "dtf-events"))


def test_terminal(args):
    code, output = run_on_terminal(local_argv(args, ["--async", "--train_steps=1000"]))
    cluster.check(code == 0, "the run on a terminal failed with %d:\n%s" % (code, output))
    bars = re.findall(r"\[[#.]{30}\] +\d+%  \d+/1000 steps  [0-9.]+ steps/s  ETA [0-9:?]+",
                      output)
    cluster.check(bars, "no progress bar on a terminal:\n%r" % output)
    cluster.check("\r\033[K" in output, "the bar is not redrawn in place")
    cluster.check("progress: global step" not in output, "plain lines on a terminal")
    # Task output still arrives whole, above the bar.
    cluster.check(re.search(r"\[worker0\] After \d+ training step", output),
                  "task output lost on a terminal")
    print("terminal: %d bar redraws, last %r" % (len(bars), bars[-1]))


def test_flags(args, tmp):
    def expect_error(argv, expected):
        code, output = run([args.dtf_run] + argv + [cluster.MLP], timeout=60)
        lines = output.strip().splitlines()
        print("%s: exit %d: %s" % (" ".join(argv), code, output.strip()))
        cluster.check(code != 0, "%s: exit status 0" % argv)
        cluster.check(lines and expected in lines[0],
                      "%s: expected %r in the first line, got %r" % (argv, expected, output))

    expect_error(["--trace_steps=0"], "--trace_steps: must be >= 1, got 0")
    expect_error(["--save_summaries_steps=-1"], "--save_summaries_steps: must be >= 0")
    expect_error(["--local", "--trace=/nonexistent-dir/trace.json"],
                 "--trace: cannot create /nonexistent-dir/trace.json.tmp")
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").close()
    expect_error(["--logdir=" + blocker + "/logs"], "--logdir: cannot create directory")
    expect_error(["--trace_step=3"], "unknown command line flag 'trace_step'")
    expect_error(["--trace_steps=abc"], "flag 'trace_steps'")

    # --helpshort: every flag of dtf-run.cpp with its default.
    source = os.path.join(cluster.ROOT, "tools", "dtf-run", "dtf-run.cpp")
    with open(source) as f:
        flags = re.findall(r"^DEFINE_\w+\((\w+),", f.read(), re.M)
    cluster.check(len(flags) >= 20, "flags found in dtf-run.cpp: %s" % flags)
    code, output = run([args.dtf_run, "--helpshort"], timeout=60)
    blocks = {}
    for block in re.split(r"\n    -", "\n" + output)[1:]:
        blocks[block.split(" ", 1)[0]] = block
    for flag in flags:
        cluster.check(flag in blocks, "--helpshort does not list --%s" % flag)
        cluster.check("default:" in blocks[flag], "--helpshort: --%s has no default" % flag)
    code, full = run([args.dtf_run, "--help"], timeout=60)
    for flag in ("logdir", "trace", "trace_steps", "save_summaries_steps", "progress"):
        cluster.check(re.search(r"-%s \(" % flag, full), "--help does not list --%s" % flag)
    print("--helpshort lists all %d flags with defaults" % len(flags))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test_flags(args, tmp)
        test_sync_run(args, tmp)
    test_terminal(args)
    print("PASS")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print("FAIL: %s" % error)
        sys.exit(1)
