"""Malformed inputs to dtf-run: each must give a one-line error naming what
is wrong, and a non-zero exit, quickly (no hang)."""

import argparse
import os
import socket
import subprocess
import tempfile

import cluster


def run(argv, env=None):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=60, env=env)
    return result.returncode, result.stdout.strip()


def expect_error(name, argv, expected, env=None):
    code, output = run(argv, env)
    lines = output.splitlines()
    print("%s: exit %d: %s" % (name, code, output))
    cluster.check(code != 0, "%s: exit status 0" % name)
    cluster.check(len(lines) == 1 and expected in lines[0],
                  "%s: expected one line with %r, got %r" % (name, expected, output))


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
        expect_error("missing model file",
                     [dtf] + base + [worker, "--job_name=ps",
                                     os.path.join(empty, "absent.mlir")],
                     "absent.mlir")


if __name__ == "__main__":
    cluster.run_test(main)
