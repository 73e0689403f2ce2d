"""A link cut and restored, on network namespaces: PS task 0 runs in a
namespace of its own, joined to the workers' by a veth pair; its link goes
down for a few seconds mid-run (while the PS holds at a known step,
--debug_hold_at_step), then up again. With --recovery_timeout_ms
the workers ride it out (their RPCs fail, they retry with backoff) and
training finishes; the PS keeps its state, so nothing is restored.

Needs iproute2 and the right to add network namespaces (root, CAP_NET_ADMIN):
it tries `ip netns add`; where that is refused it prints ip's error and exits
77 (skipped)
without them."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import cluster

SKIP = 77


def ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=check)


class Namespaces:
    """A namespace for the PS with a veth pair to the root namespace."""

    def __init__(self):
        tag = os.getpid() % 100000
        self.ns = "dtfps%d" % tag
        self.host_if = "dtfh%d" % tag
        self.ns_if = "dtfn%d" % tag
        # A /24 out of 10.213.0.0/16 unlikely to be in use.
        self.net = "10.213.%d" % (tag % 250 + 1)
        self.host_ip = self.net + ".1"
        self.ns_ip = self.net + ".2"

    def __enter__(self):
        ip("netns", "add", self.ns)
        try:
            ip("link", "add", self.host_if, "type", "veth", "peer", "name", self.ns_if)
            ip("link", "set", self.ns_if, "netns", self.ns)
            ip("addr", "add", self.host_ip + "/24", "dev", self.host_if)
            ip("link", "set", self.host_if, "up")
            self.exec("ip", "addr", "add", self.ns_ip + "/24", "dev", self.ns_if)
            self.exec("ip", "link", "set", self.ns_if, "up")
            self.exec("ip", "link", "set", "lo", "up")
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def exec(self, *argv):
        return subprocess.run(["ip", "netns", "exec", self.ns] + list(argv),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, check=True)

    def prefix(self):
        return ["ip", "netns", "exec", self.ns]

    def link(self, state):
        self.exec("ip", "link", "set", self.ns_if, state)

    def __exit__(self, *exc):
        ip("link", "del", self.host_if, check=False)
        ip("netns", "del", self.ns, check=False)


def can_use_namespaces():
    """None where `ip netns add` works, else why not, in ip's own words."""
    if not shutil.which("ip"):
        return "no ip(8) (apt-get install iproute2)"
    probe = "dtfprobe%d" % os.getpid()
    result = ip("netns", "add", probe, check=False)
    if result.returncode != 0:
        return "ip netns add is not permitted here: " + result.stdout.strip()
    ip("netns", "del", probe, check=False)
    return None


def link_cut(args):
    port = cluster.free_ports(1)[0]
    # The PS holds at global step 300 until this file exists, so that the
    # link goes down mid-run however fast the run trains.
    hold_at = 300
    release = os.path.join(tempfile.mkdtemp(prefix="dtf-netns-"), "release")
    with Namespaces() as net:
        # Workers run in the root namespace; their cluster addresses are
        # names only (workers serve nothing).
        hosts = ("%s:%d" % (net.ns_ip, port), "localhost:1,localhost:2")
        c = cluster.Cluster(
            args.dtf_run, 1, 2,
            ["--async", "--train_steps=1200", "--log_every=10",
             "--recovery_timeout_ms=60000", "--rpc_deadline_ms=1500"],
            hosts=hosts, wrap={"ps0": net.prefix()},
            task_extra={"ps0": ["--insecure_bind_all",
                                "--debug_hold_at_step=%d" % hold_at,
                                "--debug_release_file=" + release]})
        try:
            c.ps[0].wait_for(r"listening on every interface", 60)
            c.ps[0].wait_for(r"holding at step %d" % hold_at, 120)
            net.link("down")
            print("cut the PS's link at global step %d" % hold_at)
            open(release, "w").close()
            c.ps[0].wait_for(r"released at step %d" % hold_at, 60)
            time.sleep(1.0)
            stalled = cluster.current_global_step(c.workers)
            time.sleep(3.0)
            cluster.check(cluster.current_global_step(c.workers) == stalled,
                          "training went on while the link was down")
            net.link("up")
            print("restored the link")
            for worker in c.workers:
                worker.wait_for(r"recovered after", 60)
            for worker in c.workers:
                cluster.check(worker.wait(240) == 0, worker.name + " failed")
            cluster.check(c.ps[0].wait(60) == 0, "ps0 did not stop")
        finally:
            c.kill_all()
            shutil.rmtree(os.path.dirname(release), ignore_errors=True)
    for worker in c.workers:
        loss, accuracy, step = cluster.validation(worker)
        print("%s: accuracy %.4f at global step %d" % (worker.name, accuracy, step))
        cluster.check(step >= 1200, "%s stopped at global step %d" % (worker.name, step))
        cluster.check("restored the model" not in worker.output(),
                      "%s: a link cut must not restore the model" % worker.name)
        cluster.check(re.search(r"(DEADLINE_EXCEEDED|UNAVAILABLE)\); recovering",
                                worker.output()),
                      "%s did not notice the cut" % worker.name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    why = can_use_namespaces()
    if why:
        print("SKIP: %s" % why)
        sys.exit(SKIP)
    link_cut(args)
    print("PASS")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print("FAIL: %s" % error)
        sys.exit(1)
