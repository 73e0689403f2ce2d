#!/usr/bin/env python3
"""The scaling study: DTF against TensorFlow's own parameter-server training
on the same model, cluster shapes and step count, in the same run.

For each repetition and each configuration (1 PS with 1, 2, 3 workers; sync
and async) it runs DTF's cluster and then TensorFlow's, back to back, so
that both see the same load on the machine; every task is a process of its
own under /usr/bin/time (peak RSS, CPU time). Then (--ps_rows) 2 PS tasks
with 2 async workers, the variables placed whole round-robin and sharded
(hid_w split over both PS tasks), each repetition. Optionally 1 PS + 2 workers on
network namespaces joined by a bridge (--netns), sync and async, in two
shapes (--netns_shapes): 3 hosts (PS, worker, worker) and 2 hosts (PS beside
worker 0 on one, worker 1 on the other). Writes results.json;
bench/report.py turns it into REPORT.md and the plot.

Invoked by bench/run.sh; see there for the command line.
"""

import argparse
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER_LINE = re.compile(r"training ended after (\d+) local steps")
ELAPSED = re.compile(r"Training elapsed time: ([0-9.]+) s")
VALID = re.compile(r"After (\d+) training step\(s\), validation cross entropy = "
                   r"([-0-9.e+naif]+), validation accuracy = ([-0-9.e+naif]+)")
TRAFFIC = re.compile(r"RPC traffic: pulled (\d+) bytes in (\d+) pulls, pushed "
                     r"(\d+) bytes in (\d+) pushes")
# dtf-run's PS tasks; TensorFlow's print "PS task N stopped" alone.
PS_LINE = re.compile(r"PS task (\d+) stopped at step (\d+): applied (\d+) \w+ of "
                     r"(\d+) pushes, dropped (\d+) stale")
# dtf-run's PS task at its end: the staleness of the pushes it applied.
PS_STALENESS = re.compile(r"PS task (\d+) staleness: (.*) \(mean ([0-9.]+), max (\d+)\)")
# dtf-run's PS task at its end: its CPU per update, start-up left out.
PS_SERVING_CPU = re.compile(r"PS task (\d+) CPU per update while serving: ([0-9.]+) ms")
# dtf-run's PS task at start-up: the gradients (variables it updates) it holds.
PS_SERVING = re.compile(r"PS task (\d+) serving (\d+) gradients")
# The 2-PS rows' sharding: variables bigger than this many bytes are split
# along dimension 0 over the PS tasks (hid_w, 784x100 f32 = 313,600 bytes,
# into two shards of 392x100), by dtf-run --min_slice_size and by
# tf_replica.py --min_slice_size (TensorFlow's min_max_variable_partitioner).
SHARD_MIN_SLICE_BYTES = 65536


def free_ports(n, host="127.0.0.1"):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind((host, 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Task:
    def __init__(self, name, argv, netns=None, extra_env=None):
        self.name = name
        self.timefile = tempfile.NamedTemporaryFile(prefix="dtfbench-time-", delete=False).name
        self.logfile = tempfile.NamedTemporaryFile(prefix="dtfbench-log-", delete=False).name
        cmd = ["/usr/bin/time", "-f", "%M %e %U %S", "-o", self.timefile] + argv
        if netns:
            cmd = ["ip", "netns", "exec", netns] + cmd
        env = dict(os.environ)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        env.update(extra_env or {})
        self.log = open(self.logfile, "w")
        # A session of its own: kill() reaches the task under /usr/bin/time.
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        # The whole group: killing /usr/bin/time alone would leave the task
        # running, holding its port for the next run.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def finish(self):
        self.log.close()
        out = open(self.logfile).read()
        rss = wall = cpu = None
        try:
            fields = open(self.timefile).read().split()
            # "Command exited with non-zero status N" may precede the fields.
            rss, wall, user, sys_ = fields[-4:]
            rss, wall, cpu = int(rss), float(wall), float(user) + float(sys_)
        except Exception:
            pass
        for f in (self.timefile, self.logfile):
            try:
                os.unlink(f)
            except OSError:
                pass
        return out, rss, wall, cpu


def dtf_systems(args):
    """The DTF systems a run may name, each as (dtf-run binary, extra flags):
    "dtf", the build under test; "dtf-baseline", --dtf_run_baseline (e.g.
    built at an earlier commit); and each --dtf_variant NAME=FLAGS, the
    build under test with FLAGS. Run the same way beside each other and the
    peers, alternating within each repetition: before/after comparisons and
    option studies in one run."""
    systems = {"dtf": (args.dtf_run, []), "dtf-baseline": (args.dtf_run_baseline, [])}
    for variant in args.dtf_variant:
        name, _, flags = variant.partition("=")
        systems[name] = (args.dtf_run, flags.split())
    return systems


def run_cluster(system, workers, sync, steps, args, hosts=None, netns=None,
                num_ps=1, sharded=False):
    """Runs one training job on num_ps PS tasks and `workers` workers; returns
    its figures (or an error). hosts and netns, when given, list the PS tasks
    first. Without `sharded`, whole variables are placed round-robin over the
    PS tasks (dtf-run's default --ps_strategy, TensorFlow's
    replica_device_setter); with it, variables bigger than
    SHARD_MIN_SLICE_BYTES are split over them."""
    n = num_ps + workers
    on_loopback = hosts is None
    if on_loopback:
        ports = free_ports(n)
        hosts = ["127.0.0.1:%d" % p for p in ports]
    ps_hosts, worker_hosts = ",".join(hosts[:num_ps]), ",".join(hosts[num_ps:])
    done_file = tempfile.mktemp(prefix="dtfbench-done-")
    common = ["--ps_hosts=" + ps_hosts, "--worker_hosts=" + worker_hosts,
              "--train_steps=%d" % steps, "--data=" + args.data,
              "--log_every=1000"]
    if sharded:
        common.append("--min_slice_size=%d" % SHARD_MIN_SLICE_BYTES)
    dtf = dtf_systems(args)
    if system in dtf:
        exe = [dtf[system][0]] + dtf[system][1]
        # One executor thread, as TensorFlow's inter-op pool of 1.
        common += ["--sync" if sync else "--async",
                   "--rpc_deadline_ms=60000",
                   "--inter_op_parallelism_threads=1"]
        if not on_loopback:
            # Without TLS a PS task listens on loopback only; the namespaces'
            # bridge is private to this machine.
            common.append("--insecure_bind_all")
        tail = [os.path.join(ROOT, "examples", "mnist_mlp.mlir")]
    else:
        exe = [args.python, os.path.join(HERE, "tf_replica.py")]
        barrier = tempfile.mkdtemp(prefix="dtfbench-barrier-")
        common += ["--done_file=" + done_file, "--start_barrier=" + barrier] + (["--sync"] if sync else [])
        tail = []
    names = ["ps%d" % i for i in range(num_ps)] + ["worker%d" % i for i in range(workers)]
    jobs = [("ps", i) for i in range(num_ps)] + [("worker", i) for i in range(workers)]
    tasks = []
    t0 = time.time()
    error = None
    codes = {}
    try:
        for name, (job, index) in zip(names, jobs):
            ns = netns[len(tasks)] if netns else None
            # One compute thread per task for both systems: TensorFlow's
            # intra/inter-op pools of 1 (tf_replica.py), DTF's executor pool and
            # its GEMM library's pool of 1 (OpenBLAS's, or oneDNN's OpenMP team).
            extra = ({"OPENBLAS_NUM_THREADS": str(args.blas_threads),
                      "OMP_NUM_THREADS": str(args.blas_threads)}
                     if system in dtf else {})
            tasks.append(Task(name, exe + common + ["--job_name=" + job, "--task_index=%d" % index] + tail, ns, extra))
            if job == "ps":
                time.sleep(0.2)
        deadline = t0 + args.timeout
        for t in tasks[num_ps:]:
            codes[t.name] = t.wait(deadline - time.time())
            if codes[t.name] is None:
                error = "%s did not finish within %d s" % (t.name, args.timeout)
                break
            if codes[t.name] != 0:
                error = "%s exited with status %d" % (t.name, codes[t.name])
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM): no task may outlive the study, nor
        # hold a port or a namespace.
        for t in tasks:
            t.kill()
        raise
    workers_done = time.time()
    open(done_file, "w").close()
    # The PS tasks stop by themselves (DTF's chief stops them; TensorFlow's
    # see the done file): their last lines are the PS figures.
    stop_by = time.time() + (20 if not error else 2)
    for t in tasks[:num_ps]:
        if t.wait(stop_by - time.time()) is None:
            t.kill()
    for t in tasks:
        t.kill()
    total = time.time() - t0
    try:
        os.unlink(done_file)
    except OSError:
        pass
    if system not in dtf:
        subprocess.run(["rm", "-rf", barrier])
    result = {"system": system, "workers": workers, "mode": "sync" if sync else "async",
              "num_ps": num_ps, "sharded": bool(sharded),
              "min_slice_size": SHARD_MIN_SLICE_BYTES if sharded else 0,
              "steps": steps, "netns": bool(netns), "tasks": {}, "launch_to_done_s": workers_done - t0,
              "total_s": total}
    outs = {}
    for t in tasks:
        out, rss, wall, cpu = t.finish()
        outs[t.name] = out
        result["tasks"][t.name] = {"peak_rss_kb": rss, "wall_s": wall, "cpu_s": cpu}
    local_steps, elapsed, traffic = {}, {}, {}
    for name in names[num_ps:]:
        out = outs[name]
        m = WORKER_LINE.search(out)
        e = ELAPSED.search(out)
        if m and e:
            local_steps[name] = int(m.group(1))
            elapsed[name] = float(e.group(1))
        tr = TRAFFIC.search(out)
        if tr:
            traffic[name] = [int(g) for g in tr.groups()]
    v = VALID.search(outs["worker0"])
    if error or not v or len(elapsed) != workers:
        result["error"] = error or "missing output lines"
        result["log_tail"] = {k: o[-1500:] for k, o in outs.items()}
        return result
    train_s = max(elapsed.values())
    result.update({
        "train_s": train_s,
        "global_step": int(v.group(1)),
        "local_steps": local_steps,
        "global_steps_per_s": int(v.group(1)) / train_s,
        "examples_per_s": 100 * sum(local_steps.values()) / train_s,
        "cross_entropy": float(v.group(2)),
        "accuracy": float(v.group(3)),
    })
    if traffic:
        per = []
        for name, (pb, pulls, sb, pushes) in traffic.items():
            per.append((pb + sb) / max(local_steps[name], 1))
        result["bytes_per_step_per_worker"] = sum(per) / len(per)
        result["traffic"] = traffic
    # Each PS task's figures (dtf-run's), under "ps_tasks" by name; "ps" is
    # ps0's, as before there were several.
    ps_tasks = {}
    for name in names[:num_ps]:
        line = PS_LINE.search(outs[name])
        if line:
            ps_tasks[name] = {"step": int(line.group(2)), "applied": int(line.group(3)),
                              "pushes": int(line.group(4)), "stale": int(line.group(5))}
        serving = PS_SERVING.search(outs[name])
        if serving:
            ps_tasks.setdefault(name, {})["gradients"] = int(serving.group(2))
        serving_cpu = PS_SERVING_CPU.search(outs[name])
        if serving_cpu:
            ps_tasks.setdefault(name, {})["serving_cpu_ms"] = float(serving_cpu.group(2))
        staleness = PS_STALENESS.search(outs[name])
        if staleness:
            ps_tasks.setdefault(name, {})["staleness"] = {
                "histogram": staleness.group(2), "mean": float(staleness.group(3)),
                "max": int(staleness.group(4))}
    if "ps0" in ps_tasks and "applied" in ps_tasks["ps0"]:
        result["ps"] = {k: v for k, v in ps_tasks["ps0"].items() if k != "gradients"}
    if num_ps > 1 and ps_tasks:
        result["ps_tasks"] = ps_tasks
    return result


def loopback_bandwidth(total=1 << 29, chunk=1 << 20):
    """Bytes/s of one TCP stream over loopback (Python, so a lower bound)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    got = [0]

    def reader():
        c, _ = srv.accept()
        buf = bytearray(chunk)
        view = memoryview(buf)
        while True:
            k = c.recv_into(view)
            if not k:
                break
            got[0] += k
        c.close()

    th = threading.Thread(target=reader)
    th.start()
    s = socket.create_connection(("127.0.0.1", port))
    data = b"\0" * chunk
    t = time.time()
    for _ in range(total // chunk):
        s.sendall(data)
    s.close()
    th.join()
    dt = time.time() - t
    srv.close()
    return got[0] / dt


def machine_info():
    info = {"cores": os.cpu_count(), "platform": platform.platform()}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        info["lscpu"] = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except Exception:
        pass
    try:
        info["mem_total"] = open("/proc/meminfo").readline().split(":")[1].strip()
    except Exception:
        pass
    return info


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def kernel_bench(args):
    """Single-core GEMM rate and MLP-shaped GEMM times from dtf-bench-kernels."""
    exe = os.path.join(os.path.dirname(args.dtf_run), "dtf-bench-kernels")
    if not os.path.exists(exe):
        return {"skipped": "dtf-bench-kernels not built"}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = {}
    for reps in range(args.reps):
        r = subprocess.run([exe, "--benchmark_format=json", "--benchmark_min_time=0.2",
                            "--benchmark_filter=BM_Matmul|BM_ApplyAdam"],
                           capture_output=True, text=True, env=env)
        try:
            data = json.loads(r.stdout)
        except Exception:
            return {"skipped": "dtf-bench-kernels failed: " + r.stderr[-300:]}
        for b in data["benchmarks"]:
            out.setdefault(b["name"], []).append(
                {"real_time": b["real_time"], "cpu_time": b["cpu_time"], "time_unit": b["time_unit"],
                 "flops": b.get("FLOP/s")})
    return out


def git_commit():
    """The commit the study measures, "-dirty" if the tree has changes."""
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def torch_ref(args, steps):
    if args.skip.get("torch"):
        return {"skipped": args.skip["torch"]}
    res = []
    for threads in (1, os.cpu_count()):
        r = subprocess.run([args.torch_python or args.python, os.path.join(HERE, "torch_ref.py"), "--steps=%d" % steps,
                            "--threads=%d" % threads, "--data=" + args.data],
                           capture_output=True, text=True)
        try:
            res.append(json.loads(r.stdout.strip().splitlines()[-1]))
        except Exception:
            return {"skipped": "torch_ref.py failed: " + r.stderr[-400:]}
    return res


def netns_setup(prefix="dtfb"):
    """Three namespaces (ps, w0, w1) on a bridge; returns their addresses."""
    names = [prefix + "-ps", prefix + "-w0", prefix + "-w1"]
    addrs = ["10.77.0.1", "10.77.0.2", "10.77.0.3"]
    br = prefix + "-br"
    netns_teardown(prefix)
    cmds = [["ip", "link", "add", br, "type", "bridge"], ["ip", "link", "set", br, "up"]]
    for i, (ns, addr) in enumerate(zip(names, addrs)):
        host, peer = "%s-v%d" % (prefix, i), "%s-p%d" % (prefix, i)
        cmds += [["ip", "netns", "add", ns],
                 ["ip", "link", "add", host, "type", "veth", "peer", "name", peer],
                 ["ip", "link", "set", peer, "netns", ns],
                 ["ip", "link", "set", host, "master", br],
                 ["ip", "link", "set", host, "up"],
                 ["ip", "netns", "exec", ns, "ip", "addr", "add", addr + "/24", "dev", peer],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", peer, "up"],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"]]
    for c in cmds:
        r = subprocess.run(c, capture_output=True, text=True)
        if r.returncode != 0:
            netns_teardown(prefix)
            raise RuntimeError("%s: %s" % (" ".join(c), r.stderr.strip()))
    # Reachability check.
    r = subprocess.run(["ip", "netns", "exec", names[1], "ping", "-c", "1", "-W", "2", addrs[0]],
                       capture_output=True, text=True)
    if r.returncode != 0:
        # ping may be missing; the runs themselves will tell.
        pass
    return names, addrs


# The namespace mode's cluster shapes: the namespace (index into
# netns_setup's names) of ps0, worker0 and worker1.
NETNS_SHAPES = {"3-host": (0, 1, 2), "2-host": (0, 0, 2)}


def netns_cluster(shape, names, addrs, port):
    """Hosts and namespaces of ps0, worker0, worker1 for a shape; the tasks
    take consecutive ports from port, so that two tasks on one host differ."""
    where = NETNS_SHAPES[shape]
    hosts = ["%s:%d" % (addrs[h], port + i) for i, h in enumerate(where)]
    return hosts, [names[h] for h in where]


def netns_teardown(prefix="dtfb"):
    for i in range(3):
        subprocess.run(["ip", "link", "del", "%s-v%d" % (prefix, i)], capture_output=True)
    subprocess.run(["ip", "link", "del", prefix + "-br"], capture_output=True)
    for n in ("ps", "w0", "w1"):
        subprocess.run(["ip", "netns", "del", "%s-%s" % (prefix, n)], capture_output=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--workers", default="1,2,3")
    p.add_argument("--modes", default="async,sync")
    p.add_argument("--systems", default="dtf,tf")
    p.add_argument("--netns", default="on", choices=["on", "off"])
    p.add_argument("--netns_steps", type=int, default=0, help="0 = --steps")
    p.add_argument("--netns_shapes", default="3-host,2-host",
                   help="namespace mode shapes: 3-host (PS, worker, worker), "
                        "2-host (PS beside worker 0, worker 1); its modes are --modes")
    p.add_argument("--netns_only", action="store_true",
                   help="run only the network-namespace mode (e.g. into a "
                        "supplementary --out=results-netns.json)")
    p.add_argument("--timeout", type=int, default=1800)
    p.add_argument("--dtf_run", default=os.path.join(ROOT, "build", "bin", "dtf-run"))
    p.add_argument("--dtf_run_baseline", default="",
                   help="another dtf-run (e.g. built at an earlier commit), run "
                        "as the system 'dtf-baseline' (add it to --systems)")
    p.add_argument("--dtf_variant", action="append", default=[],
                   help="NAME=FLAGS: dtf-run with these extra flags, run as the "
                        "system NAME (add it to --systems), e.g. "
                        "'dtf-divide=--divide_lr_by_staleness'")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--skip_tf", default="")
    p.add_argument("--skip_torch", default="")
    p.add_argument("--torch_python", default="",
                   help="the Python that has torch (default: --python)")
    p.add_argument("--out", default=os.path.join(HERE, "results", "results.json"))
    p.add_argument("--command", default="")
    p.add_argument("--blas_threads", type=int, default=1,
                   help="OPENBLAS_NUM_THREADS and OMP_NUM_THREADS of DTF's tasks")
    p.add_argument("--deadline_s", type=float, default=0,
                   help="start no new cluster run after this many seconds (0 = none)")
    p.add_argument("--ps_rows", default="on", choices=["on", "off"],
                   help="after the 1-PS configurations, 2 PS tasks with 2 async "
                        "workers, variables whole (round-robin) and sharded "
                        "(--min_slice_size=%d), each repetition" % SHARD_MIN_SLICE_BYTES)
    args = p.parse_args()
    args.skip = {"tf": args.skip_tf, "torch": args.skip_torch}

    systems = [s for s in args.systems.split(",") if s]
    if "dtf-baseline" in systems and not args.dtf_run_baseline:
        p.error("--systems=...dtf-baseline needs --dtf_run_baseline")
    if "tf" in systems and args.skip_tf:
        print("TensorFlow peer skipped: " + args.skip_tf, flush=True)
        systems.remove("tf")
    workers_list = [int(w) for w in args.workers.split(",")]
    modes = args.modes.split(",")

    results = {"command": args.command, "steps": args.steps, "reps": args.reps,
               "machine": machine_info(), "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
               "loadavg_start": loadavg(), "skipped": {k: v for k, v in args.skip.items() if v},
               "runs": [], "netns_runs": [], "blas_threads": args.blas_threads,
               "ps_rows": args.ps_rows == "on" and not args.netns_only,
               "commit": git_commit()}

    def save():
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out + ".tmp", "w") as f:
            json.dump(results, f, indent=1)
        os.replace(args.out + ".tmp", args.out)

    print("machine: %s cores, %s; load %s" % (results["machine"]["cores"],
          results["machine"].get("cpu_model"), " ".join(loadavg())), flush=True)
    results["kernels"] = kernel_bench(args)
    results["loopback_bytes_per_s"] = [loopback_bandwidth() for _ in range(args.reps)]
    print("loopback: %s MB/s" % ", ".join("%.0f" % (b / 1e6) for b in results["loopback_bytes_per_s"]), flush=True)
    save()

    # Configuration-major: every repetition of one configuration before the
    # next, so that a --deadline_s cut leaves whole configurations; DTF and
    # TensorFlow alternate within each repetition.
    t_start = time.time()
    configs = [(m, w) for m in modes for w in workers_list]
    priority = [("async", 2), ("async", 1), ("async", 3)]
    configs.sort(key=lambda c: priority.index(c) if c in priority else len(priority))

    def out_of_time():
        return args.deadline_s and time.time() - t_start > args.deadline_s

    if args.netns_only:
        configs = []
    for mode, w in configs:
        for rep in range(args.reps):
            for system in systems:
                if out_of_time():
                    results["cut_by_deadline"] = True
                    continue
                r = run_cluster(system, w, mode == "sync", args.steps, args)
                r["rep"] = rep
                r["loadavg"] = loadavg()
                results["runs"].append(r)
                if "error" in r:
                    print("rep %d %s %s %dw: ERROR %s" % (rep, system, mode, w, r["error"]), flush=True)
                else:
                    print("rep %d %-3s %-5s %dw: %7.1f global steps/s, %8.0f ex/s, acc %.4f, train %.1f s (load %s)"
                          % (rep, system, mode, w, r["global_steps_per_s"], r["examples_per_s"],
                             r["accuracy"], r["train_s"], " ".join(r["loadavg"])), flush=True)
                save()
    # 2 PS tasks (issue 16): async, 2 workers, whole variables placed
    # round-robin and then sharded, DTF and TensorFlow alternating within
    # each repetition.
    if args.ps_rows == "on" and not args.netns_only:
        for rep in range(args.reps):
            for sharded in (False, True):
                for system in systems:
                    if out_of_time():
                        results["cut_by_deadline"] = True
                        continue
                    r = run_cluster(system, 2, False, args.steps, args, num_ps=2, sharded=sharded)
                    r["rep"] = rep
                    r["loadavg"] = loadavg()
                    results["runs"].append(r)
                    what = "2 PS %-9s" % ("sharded" if sharded else "whole")
                    if "error" in r:
                        print("rep %d %s async 2w %s: ERROR %s" % (rep, system, what, r["error"]), flush=True)
                    else:
                        served = ", ".join("%s %d" % (n, t["gradients"]) for n, t in
                                           sorted(r.get("ps_tasks", {}).items()) if "gradients" in t)
                        print("rep %d %-3s async 2w %s: %7.1f global steps/s, %8.0f ex/s, acc %.4f, "
                              "train %.1f s%s (load %s)"
                              % (rep, system, what, r["global_steps_per_s"], r["examples_per_s"],
                                 r["accuracy"], r["train_s"],
                                 ", gradients served: " + served if served else "",
                                 " ".join(r["loadavg"])), flush=True)
                    save()
    for rep in range(args.reps if not args.netns_only else 0):
        results.setdefault("torch", []).append(torch_ref(args, args.steps))
        save()

    if args.netns == "on":
        shapes = [x for x in args.netns_shapes.split(",") if x]
        for x in shapes:
            if x not in NETNS_SHAPES:
                p.error("--netns_shapes: unknown shape %r (%s)" % (x, ", ".join(NETNS_SHAPES)))
        if os.geteuid() != 0:
            results["netns_skipped"] = "not root: cannot create network namespaces"
        else:
            # SIGTERM unwinds through the finally below, which removes the
            # namespaces and the bridge.
            previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
            try:
                names, addrs = netns_setup()
                steps = args.netns_steps or args.steps
                # A fresh port range per run: a task of an earlier run that
                # outlived its kill cannot hold the next run's ports.
                port = 2222
                for shape in shapes:
                    for mode in modes:
                        for rep in range(args.reps):
                            for system in systems:
                                # Past the deadline, one repetition of each
                                # shape and mode still runs.
                                if out_of_time() and rep > 0:
                                    results["cut_by_deadline"] = True
                                    continue
                                hosts, spaces = netns_cluster(shape, names, addrs, port)
                                port = 2222 + (port - 2222 + 3) % 3000
                                r = run_cluster(system, 2, mode == "sync", steps, args,
                                                hosts=hosts, netns=spaces)
                                r["shape"] = shape
                                r["placement"] = {t: "%s (%s)" % (ns, h) for t, ns, h in
                                                  zip(("ps0", "worker0", "worker1"), spaces, hosts)}
                                r["rep"] = rep
                                r["loadavg"] = loadavg()
                                results["netns_runs"].append(r)
                                if "error" in r:
                                    print("netns %s rep %d %s %s: ERROR %s" % (shape, rep, system, mode, r["error"]),
                                          flush=True)
                                else:
                                    print("netns %s rep %d %-3s %-5s 2w: %7.1f global steps/s, acc %.4f"
                                          % (shape, rep, system, mode, r["global_steps_per_s"], r["accuracy"]),
                                          flush=True)
                                save()
            except RuntimeError as e:
                results["netns_skipped"] = "cannot set up network namespaces: %s" % e
                print(results["netns_skipped"], flush=True)
            finally:
                netns_teardown()
                signal.signal(signal.SIGTERM, previous)
    results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    results["loadavg_end"] = loadavg()
    save()


if __name__ == "__main__":
    main()
