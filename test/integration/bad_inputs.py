"""Malformed inputs to dtf-run: each must give a one-line error naming what
is wrong, and a non-zero exit, quickly (no hang). Models that do not compile
are reported once by `--local`, before any task starts."""

import argparse
import os
import re
import socket
import subprocess
import tempfile
import time

import cluster


def run(argv, env=None):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=60, env=env)
    return result.returncode, result.stdout.strip()


def expect_error(name, argv, expected, env=None):
    """One line with `expected`, a non-zero exit, within 30 s."""
    start = time.time()
    code, output = run(argv, env)
    elapsed = time.time() - start
    lines = output.splitlines()
    print("%s: exit %d after %.1f s: %s" % (name, code, elapsed, output))
    cluster.check(code != 0, "%s: exit status 0" % name)
    cluster.check(elapsed < 30, "%s: took %.1f s" % (name, elapsed))
    cluster.check(len(lines) == 1 and expected in lines[0],
                  "%s: expected one line with %r, got %r" % (name, expected, output))


def mlp_variant(directory, name, edit):
    """examples/mnist_mlp.mlir changed by `edit` (text -> text), as a file."""
    with open(cluster.MLP) as f:
        text = f.read()
    changed = edit(text)
    cluster.check(changed != text, "%s: the edit changed nothing" % name)
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(changed)
    return path


def without_global_step(text):
    text = re.sub(r"\n *%global_step = dtf.variable[^\n]*\n[^\n]*\n", "\n", text)
    return text.replace("\n        global_step %global_step : !dtf.resource<tensor<i64>>", "")


def model_errors(dtf, directory):
    """Models that parse but cannot be trained, under --local and alone."""
    local = [dtf, "--local", "--ps=1", "--workers=2", "--progress=false"]
    # A pass fails: MLIR's error with its location, not the function it is
    # about ("see current operation:" would print pages of IR).
    with_arguments = mlp_variant(
        directory, "arguments.mlir",
        lambda text: text.replace("func.func @main() ->", "func.func @main(%lr: tensor<f32>) ->"))
    expect_error("--local: a pass rejects the model", local + [with_arguments],
                 "arguments.mlir:14:3: error: 'func.func' op takes arguments")

    # Without a global step, --train_steps would never be reached: refused.
    no_step = mlp_variant(directory, "no_global_step.mlir", without_global_step)
    for mode in ["--async", "--sync"]:
        expect_error("--local %s: no global step" % mode,
                     local + [mode, "--train_steps=100", no_step],
                     "no_global_step.mlir:50:5: error: 'dtf.minimize' has no global_step")
    expect_error("a task: no global step",
                 [dtf, "--ps_hosts=localhost:%d" % cluster.free_ports(1)[0],
                  "--worker_hosts=localhost:%d" % cluster.free_ports(1)[0],
                  "--job_name=worker", no_step],
                 "no_global_step.mlir:50:5: error: 'dtf.minimize' has no global_step")

    # A variable that no PS task can hold (4 TB): the PS task says which,
    # with its bytes, before allocating anything, and the cluster stops.
    huge = mlp_variant(
        directory, "huge_variable.mlir",
        lambda text: text.replace(
            "    %sm_b = dtf.variable",
            "    %huge = dtf.variable \"huge\" init(#dtf.zeros)"
            " : !dtf.resource<tensor<1000000x1000000xf32>>\n    %sm_b = dtf.variable"))
    code, output = run(local + ["--rpc_deadline_ms=2000", huge])
    print("--local: a variable too large: exit %d:\n%s" % (code, output))
    cluster.check(code != 0, "a variable too large: exit status 0")
    lines = [line for line in output.splitlines() if "huge" in line]
    cluster.check(len(lines) == 1 and lines[0].startswith("[ps0] dtf-run: PS task /job:ps/task:0: "
                                                         "variable 'huge' (f32[1000000,1000000]) "
                                                         "needs 4000000000000 bytes (4.0 TB)"),
                  "a variable too large: expected one line naming it, got %r" % lines)
    cluster.check("local cluster: ps0 exited with status 1" in output,
                  "a variable too large: the cluster did not stop")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    dtf = args.dtf_run
    base = ["--ps_hosts=localhost:%d" % cluster.free_ports(1)[0]]
    worker = "--worker_hosts=localhost:%d" % cluster.free_ports(1)[0]

    expect_error("bad host:port",
                 [dtf, "--ps_hosts=localhost", worker, "--job_name=ps", cluster.MLP],
                 "--ps_hosts entry 0: 'localhost' is not host:port")
    expect_error("task_index out of range",
                 [dtf] + base + [worker, "--job_name=worker", "--task_index=3", cluster.MLP],
                 "--task_index: task index 3 is out of range: job 'worker' has 1 task")
    expect_error("unknown job",
                 [dtf] + base + [worker, "--job_name=chief", cluster.MLP],
                 "--job_name: unknown job 'chief'")
    env = dict(os.environ, TF_CONFIG='{"cluster": {"worker": ["w:1"]}, "task": {"type": "worker"}}')
    expect_error("TF_CONFIG without task.index", [dtf, cluster.MLP],
                 "TF_CONFIG: missing field 'task.index'", env)

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        expect_error("port already in use",
                     [dtf, "--ps_hosts=localhost:%d" % port, worker,
                      "--job_name=ps", "--task_index=0", cluster.MLP],
                     "localhost:%d" % port)

    with tempfile.TemporaryDirectory() as empty:
        expect_error("missing data files",
                     [dtf] + base + [worker, "--job_name=worker", "--data=" + empty,
                      "--rpc_deadline_ms=2000", cluster.MLP],
                     os.path.join(empty, "train-images-idx3-ubyte"))

        broken = os.path.join(empty, "broken.mlir")
        with open(broken, "w") as f:
            f.write("func.func @main() {\n"
                    "  %a = dtf.placeholder \"x\" : tensor<100x784xf32>\n"
                    "  %b = dtf.placeholder \"w\" : tensor<100x10xf32>\n"
                    "  %c = dtf.matmul %a, %b : tensor<100x784xf32>, tensor<100x10xf32>\n"
                    "  return\n}\n")
        expect_error("model that fails to verify",
                     [dtf] + base + [worker, "--job_name=ps", broken],
                     "broken.mlir:4:8: error: inner dimensions differ")
        model_errors(dtf, empty)
        expect_error("missing model file",
                     [dtf] + base + [worker, "--job_name=ps",
                                     os.path.join(empty, "absent.mlir")],
                     "absent.mlir")


if __name__ == "__main__":
    cluster.run_test(main)
