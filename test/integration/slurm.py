"""A real Slurm on this machine runs a DTF cluster: `srun -n 3 dtf-run
--cluster_resolver=slurm --ps=1` trains the MLP to test accuracy >= 0.80.

The test writes a one-node Slurm configuration (node `localhost`, every
daemon's state, spool and logs in a temporary directory, no cgroups, munge
with a key of its own on a socket of its own), starts munged, slurmctld and
slurmd in the foreground, waits for the node to be idle, runs the job step
with srun, and stops the daemons whatever happens. It exits 77 (skipped,
with the reason) where Slurm is not installed, where it is not root (slurmd
runs job steps as their user), or where the daemons do not come up. Before
that, and wherever it runs, it checks that a bad job step is one line
naming the variable or the flag.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import cluster

SKIP = 77


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


def write_config(tmp, ports):
    """slurm.conf for one node, `localhost`, whose name resolves here."""
    controller = subprocess.run(["hostname", "-s"], capture_output=True,
                                text=True).stdout.strip() or "localhost"
    for sub in ("state", "spool"):
        os.makedirs(os.path.join(tmp, sub))
    config = os.path.join(tmp, "slurm.conf")
    with open(config, "w") as f:
        f.write("\n".join([
            "ClusterName=dtftest",
            # slurmctld only serves where its host name is the controller's.
            "SlurmctldHost=%s(127.0.0.1)" % controller,
            "SlurmUser=root",
            "SlurmctldPort=%d" % ports[0],
            "SlurmdPort=%d" % ports[1],
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=%s" % os.path.join(tmp, "munge.socket"),
            "StateSaveLocation=" + os.path.join(tmp, "state"),
            "SlurmdSpoolDir=" + os.path.join(tmp, "spool"),
            "SlurmctldPidFile=" + os.path.join(tmp, "slurmctld.pid"),
            "SlurmdPidFile=" + os.path.join(tmp, "slurmd.pid"),
            "SlurmctldLogFile=" + os.path.join(tmp, "slurmctld.log"),
            "SlurmdLogFile=" + os.path.join(tmp, "slurmd.log"),
            # No cgroups: the test runs in containers without them.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none",
            "SchedulerType=sched/builtin",
            "SelectType=select/linear",
            "ReturnToService=2",
            "NodeName=localhost NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN",
            "PartitionName=dtf Nodes=localhost Default=YES MaxTime=INFINITE State=UP",
            ""]))
    return config


class Daemons:
    """munged, slurmctld and slurmd, in the foreground of this test."""

    def __init__(self, tmp, env):
        self.tmp, self.env, self.processes = tmp, env, []

    def start(self, name, argv):
        log = open(os.path.join(self.tmp, name + ".out"), "w")
        self.processes.append((name, subprocess.Popen(
            argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)))

    def log_tail(self):
        text = []
        for name in ("munged", "slurmctld", "slurmd"):
            for suffix in (".out", ".log"):
                path = os.path.join(self.tmp, name + suffix)
                if os.path.exists(path):
                    with open(path, errors="replace") as f:
                        text.append("== %s%s\n%s" % (name, suffix, f.read()[-1500:]))
        return "\n".join(text)

    def stop(self):
        for name, process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


def wait_for_idle_node(env, daemons, timeout):
    deadline = time.time() + timeout
    state = ""
    while time.time() < deadline:
        for name, process in daemons.processes:
            if process.poll() is not None:
                return "%s exited (%s)" % (name, process.returncode)
        result = subprocess.run(["sinfo", "--noheader", "-n", "localhost", "-o", "%t"],
                                env=env, capture_output=True, text=True)
        state = result.stdout.strip()
        if state == "idle":
            return None
        if state.startswith("down") or state.startswith("drain"):
            subprocess.run(["scontrol", "update", "nodename=localhost", "state=resume"],
                           env=env, capture_output=True)
        time.sleep(0.5)
    return "the node is not idle after %ds (sinfo: %r)" % (timeout, state)


def check_bad_steps(args):
    """Outside a job step, or in one that does not fit the flags: one line
    naming the variable or the flag, before any task starts."""
    step = {"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "2",
            "SLURM_STEP_NODELIST": "localhost", "SLURM_STEP_TASKS_PER_NODE": "2"}
    cases = [({}, "SLURM_PROCID is not set"),
             (dict(step, SLURM_STEP_NODELIST="node[1-2"),
              "SLURM_STEP_NODELIST: unbalanced '['"),
             (dict(step, SLURM_STEP_NUM_TASKS="1", SLURM_STEP_TASKS_PER_NODE="1"),
              "--ps=1 does not fit SLURM_STEP_NUM_TASKS=1")]
    for variables, expected in cases:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        env.update(variables)
        result = subprocess.run([args.dtf_run, "--cluster_resolver=slurm", "--ps=1",
                                 cluster.MLP], env=env, capture_output=True,
                                text=True, timeout=60)
        lines = result.stderr.strip().splitlines()
        cluster.check(result.returncode != 0 and len(lines) == 1 and expected in lines[0],
                      "expected one line with %r, got %r" % (expected, lines))
        print("bad step: " + lines[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    check_bad_steps(args)
    tools = ["munged", "slurmctld", "slurmd", "srun", "sinfo", "scontrol"]
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        skip("Slurm is not installed (no %s): apt-get install slurm-wlm munge"
             % ", ".join(missing))
    if os.geteuid() != 0:
        skip("slurmd runs job steps as their user and needs root")

    tmp = tempfile.mkdtemp(prefix="dtf-slurm-")
    os.chmod(tmp, 0o755)
    env = dict(os.environ, SLURM_CONF=write_config(tmp, cluster.free_ports(2)))
    key = os.path.join(tmp, "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    daemons = Daemons(tmp, env)
    try:
        daemons.start("munged", [
            "munged", "--foreground", "--force", "--key-file=" + key,
            "--socket=" + os.path.join(tmp, "munge.socket"),
            "--pid-file=" + os.path.join(tmp, "munged.pid"),
            "--log-file=" + os.path.join(tmp, "munged.log"),
            "--seed-file=" + os.path.join(tmp, "munged.seed")])
        daemons.start("slurmctld", ["slurmctld", "-D", "-i"])
        daemons.start("slurmd", ["slurmd", "-D", "-N", "localhost"])
        problem = wait_for_idle_node(env, daemons, 60)
        if problem:
            skip("the Slurm daemons did not come up: %s\n%s" % (problem, daemons.log_tail()))
        print("slurm: node localhost idle; srun -n 3")
        # Three tasks on the one-CPU node: --overcommit, as a laptop would.
        step = subprocess.run(
            ["srun", "--overcommit", "--ntasks=3", "--nodes=1", "--kill-on-bad-exit=1",
             "--time=10", "--label",
             args.dtf_run, "--cluster_resolver=slurm", "--ps=1",
             "--slurm_port_base=%d" % cluster.free_ports(1)[0],
             "--sync", "--train_steps=1000", "--log_every=250",
             "--data=" + cluster.DATA, cluster.MLP],
            env=env, capture_output=True, text=True, timeout=600)
        output = step.stdout + step.stderr
        print(output[-4000:])
        cluster.check(step.returncode == 0,
                      "srun exited %d:\n%s" % (step.returncode, daemons.log_tail()))
        # --label prefixes each line with the task's SLURM_PROCID.
        for rank, role in ((0, "PS task 0"), (1, "Worker 0"), (2, "Worker 1")):
            cluster.check(re.search(r"^\s*%d: .*%s" % (rank, role), output, re.M),
                          "task %d did not run as %s" % (rank, role))
        accuracies = [float(a) for a in re.findall(
            r"^\s*[12]: After \d+ training step\(s\), validation cross entropy = "
            r"\S+, validation accuracy = ([0-9.]+)", output, re.M)]
        cluster.check(len(accuracies) == 2, "expected both workers' validation lines")
        cluster.check(min(accuracies) >= 0.80, "test accuracy %s < 0.80" % accuracies)
        print("slurm: srun -n 3 trained to test accuracy %s" % accuracies)
    finally:
        daemons.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    cluster.run_test(main)
