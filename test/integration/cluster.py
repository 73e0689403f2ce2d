"""Helpers of the integration tests: real dtf-run processes on loopback."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MLP = os.path.join(ROOT, "examples", "mnist_mlp.mlir")
DATA = "/usr/share/datasets/fashion-mnist"

# The loss and the second result: "cross entropy" and "accuracy" of a
# hand-written model, an imported one's names (dtf.result_names: "loss",
# then its outputs' nodes, e.g. "mse"); not the AUC line below.
ACCURACY = re.compile(r"validation (?:cross entropy|loss) = ([0-9.e+-]+|nan|inf), "
                      r"validation (?!AUC )[\w./>-]+ = ([0-9.e+-]+)")
AFTER_STEPS = re.compile(r"After (\d+) training step")
# What a model with dtf.auc reports instead of an accuracy.
AUC = re.compile(r"validation AUC = ([0-9.]+), validation log loss = ([0-9.e+-]+|nan|inf)")


def free_ports(count):
    """Distinct free loopback ports (held until all are picked)."""
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class Task:
    """One dtf-run process whose output is collected line by line."""

    def __init__(self, name, argv):
        self.name = name
        self.lines = []
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            with self.lock:
                self.lines.append(line.rstrip("\n"))
            sys.stdout.write("[%s] %s" % (self.name, line))
            sys.stdout.flush()

    def output(self):
        with self.lock:
            return "\n".join(self.lines)

    def wait_for(self, pattern, timeout):
        """Waits until a line matches `pattern`; returns the match."""
        deadline = time.time() + timeout
        regex = re.compile(pattern)
        while time.time() < deadline:
            with self.lock:
                for line in self.lines:
                    match = regex.search(line)
                    if match:
                        return match
            if self.process.poll() is not None:
                self.reader.join(5)
                with self.lock:
                    for line in self.lines:
                        match = regex.search(line)
                        if match:
                            return match
                raise AssertionError("%s exited (%s) before printing /%s/"
                                     % (self.name, self.process.returncode, pattern))
            time.sleep(0.05)
        raise AssertionError("%s did not print /%s/ within %ss"
                             % (self.name, pattern, timeout))

    def wait(self, timeout):
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("%s did not exit within %ss" % (self.name, timeout))
        self.reader.join(5)
        return code

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def pause(self):
        """SIGSTOP: the task stops where it is."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self):
        self.process.send_signal(signal.SIGCONT)

    def matches(self, pattern):
        """Every match of `pattern` in the output so far."""
        regex = re.compile(pattern)
        with self.lock:
            return [m for m in (regex.search(line) for line in self.lines) if m]


class Cluster:
    """PS and worker tasks started one by one, so a test can kill any."""

    def __init__(self, dtf_run, num_ps, num_workers, extra, model=MLP,
                 task_extra=None, hosts=None, wrap=None, start_workers=True):
        """`task_extra` maps "ps0", "worker1", ... to flags of that task
        only; `hosts` gives (ps_hosts, worker_hosts) instead of loopback
        ports; `wrap` maps a task name to a command prefix (e.g. `ip netns
        exec NS`); without `start_workers`, the test starts them."""
        if hosts:
            self.ps_hosts, self.worker_hosts = hosts
        else:
            ports = free_ports(num_ps + num_workers)
            self.ps_hosts = ",".join("localhost:%d" % p for p in ports[:num_ps])
            self.worker_hosts = ",".join("localhost:%d" % p for p in ports[num_ps:])
        self.dtf_run = dtf_run
        self.extra = extra
        self.model = model
        self.task_extra = task_extra or {}
        self.wrap = wrap or {}
        self.ps = [self.start("ps", i) for i in range(num_ps)]
        self.workers = ([self.start("worker", i) for i in range(num_workers)]
                        if start_workers else [])

    def argv(self, job, index):
        name = "%s%d" % (job, index)
        return (self.wrap.get(name, []) +
                [self.dtf_run, "--ps_hosts=" + self.ps_hosts,
                 "--worker_hosts=" + self.worker_hosts, "--job_name=" + job,
                 "--task_index=%d" % index, "--data=" + DATA] + self.extra +
                self.task_extra.get(name, []) + [self.model])

    def start(self, job, index):
        return Task("%s%d" % (job, index), self.argv(job, index))

    def restart(self, job, index):
        """Starts a killed task again with the same flags."""
        tasks = self.ps if job == "ps" else self.workers
        tasks[index] = self.start(job, index)
        return tasks[index]

    def kill_all(self):
        for task in self.ps + self.workers:
            task.resume()
            task.kill()


GLOBAL_STEP = r"global step: (\d+)\)"


def current_global_step(tasks):
    """The highest global step of the tasks' latest step lines (the global
    step goes back when the model is restored)."""
    steps = []
    for t in tasks:
        found = t.matches(GLOBAL_STEP)
        if found:
            steps.append(int(found[-1].group(1)))
    return max(steps) if steps else 0


def wait_for_global_step(tasks, step, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if current_global_step(tasks) >= step:
            return
        for t in tasks:
            if t.process.poll() is not None:
                raise AssertionError("%s exited (%s) before global step %d"
                                     % (t.name, t.process.returncode, step))
        time.sleep(0.02)
    raise AssertionError("global step %d not reached within %ss" % (step, timeout))


def validation(task):
    """(cross entropy, accuracy, global step) a worker reported."""
    text = task.output()
    match = ACCURACY.search(text)
    steps = AFTER_STEPS.search(text)
    if not match or not steps:
        raise AssertionError("%s reported no validation result" % task.name)
    return float(match.group(1)), float(match.group(2)), int(steps.group(1))


def validation_text(output):
    """(global step, loss text, second result text) of the validation in a
    run's output, the numbers as printed, so that two runs compare exactly."""
    match = ACCURACY.search(output)
    steps = AFTER_STEPS.search(output)
    check(match and steps, "no validation result:\n" + output[-3000:])
    return int(steps.group(1)), match.group(1), match.group(2)


def validation_auc(task):
    """(AUC, log loss, global step) a worker reported for a model with
    dtf.auc."""
    text = task.output()
    match = AUC.search(text)
    steps = AFTER_STEPS.search(text)
    if not match or not steps:
        raise AssertionError("%s reported no validation AUC" % task.name)
    return float(match.group(1)), float(match.group(2)), int(steps.group(1))


def train_local(dtf_run, flags, model, timeout=600):
    """`dtf-run --local` with 1 PS and 2 workers to the end: (the validation
    accuracy the first worker to finish reports, the run's output); fails
    unless it exits 0 and reports a validation result."""
    argv = [dtf_run, "--local", "--ps=1", "--workers=2", "--progress=false"] + flags + [model]
    print("running: " + " ".join(argv))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    check(result.returncode == 0,
          "the run failed (exit %d):\n%s\n%s" % (result.returncode, result.stdout[-3000:],
                                                 result.stderr[-3000:]))
    match = ACCURACY.search(result.stdout)
    check(match, "no validation result:\n" + result.stdout[-3000:])
    return float(match.group(2)), result.stdout


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run_test(main):
    """Runs a test's main(): PASS, or FAIL with the reason and exit status 1."""
    try:
        main()
    except AssertionError as error:
        print("FAIL: %s" % error)
        sys.exit(1)
    print("PASS")


def event_files(logdir):
    """The paths of the event files in the runs of `logdir`."""
    return {os.path.join(logdir, run, name) for run in os.listdir(logdir)
            if os.path.isdir(os.path.join(logdir, run))
            for name in os.listdir(os.path.join(logdir, run))}


def training_losses(logdir, skip=()):
    """(global step, batch loss) of every step of every worker, from the
    event files that --logdir and --save_summaries_steps=1 write, but those
    in `skip` (paths)."""
    import events  # test/integration/events.py
    points = []
    for run in sorted(os.listdir(logdir)):
        directory = os.path.join(logdir, run)
        if not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            if os.path.join(directory, name) in skip:
                continue
            for event in events.read_events(os.path.join(directory, name)):
                if "loss" in event["values"]:
                    points.append((event["step"], event["values"]["loss"]))
    return sorted(points)


def train_and_check_learning(dtf_run, num_workers, flags, train_steps, model=MLP):
    """Trains `model` (the MLP) on 1 PS and `num_workers` workers with
    `flags` plus --train_steps and a log directory, to the end, and checks
    the loss trajectory (check_learning); returns the Cluster, its tasks
    ended."""
    logdir = tempfile.mkdtemp(prefix="dtf-train-")
    c = Cluster(dtf_run, 1, num_workers,
                flags + ["--train_steps=%d" % train_steps, "--logdir=" + logdir,
                         "--save_summaries_steps=1"], model=model)
    try:
        for worker in c.workers:
            check(worker.wait(600) == 0, worker.name + " failed")
        check(c.ps[0].wait(60) == 0, "ps0 failed")
        points = training_losses(logdir)
        check_learning(points, untrained_loss(points), 1, train_steps)
    finally:
        c.kill_all()
        shutil.rmtree(logdir, ignore_errors=True)
    return c


# Consecutive logged steps whose median check_learning holds against the
# untrained loss.
LOSS_WINDOW = 9


def check_learning(points, baseline, first_step, last_step):
    """The loss trajectory `points` (global step, loss) of the steps
    first_step..last_step against `baseline`, the untrained model's loss,
    which the run itself measured. Training must bring the loss of the
    last tenth of the steps below 0.35 of it (0.16 to 0.22 measured over
    600 steps or more), and after the first third the loss may not come
    back above 0.6 of it: a model re-initialized mid-run, or one that lost
    its training, fails. "The loss" there is the median of LOSS_WINDOW
    consecutive logged steps: async Adam under a CPU hog has single batches
    at up to 0.66 of the untrained loss (a starved worker's stale gradient;
    over both transports, bench/findings.md) and recovers within a few
    steps, where a re-initialized model stays up for hundreds; the medians
    of 6 chaos runs under a hog reached 0.26 to 0.31."""
    points = [(s, l) for s, l in points if first_step <= s <= last_step]
    span = last_step - first_step
    late = [(s, l) for s, l in points if s > first_step + span / 3]
    last = [l for s, l in points if s > first_step + 0.9 * span]
    check(len(late) >= LOSS_WINDOW and last, "too few steps logged: %d" % len(points))
    windows = [(late[i][0], sorted(l for _, l in late[i:i + LOSS_WINDOW])[LOSS_WINDOW // 2])
               for i in range(len(late) - LOSS_WINDOW + 1)]
    worst = max(windows, key=lambda window: window[1])
    mean_last = sum(last) / len(last)
    print("loss: %.2f untrained; mean %.2f over the last tenth of steps %d..%d; a median "
          "of %d steps at most %.2f (from step %d) after the first third"
          % (baseline, mean_last, first_step, last_step, LOSS_WINDOW, worst[1], worst[0]))
    check(mean_last < 0.35 * baseline,
          "the loss of the last tenth of the steps, %.2f, is not below 0.35 of the "
          "untrained model's %.2f" % (mean_last, baseline))
    check(worst[1] < 0.6 * baseline,
          "the loss came back to %.2f (median of %d steps from step %d), near the "
          "untrained model's %.2f (re-initialized?)"
          % (worst[1], LOSS_WINDOW, worst[0], baseline))


# The least test accuracy of the example MLP after a few hundred steps:
# sync runs reach 0.85 to 0.87 here. An async run's final model depends on
# the order its last updates landed in: 0.74 to 0.84 measured at the
# constant learning rate (annealed_mlp says more), so a test that needs a
# tighter bar anneals the rate. Both are far above an untrained model (0.10)
# or one a few dozen steps in (about 0.6); whether the run learned is
# check_learning's to say.
SYNC_ACCURACY = 0.80
ASYNC_ACCURACY = 0.75
# The same MLP trained async with its learning rate annealed (annealed_mlp):
# 0.835 to 0.845 measured under a CPU hog.
ANNEALED_ASYNC_ACCURACY = 0.80

MLP_OPTIMIZER = "#dtf.adam<learning_rate = 0.01>"


def annealed_mlp(train_steps, directory):
    """Writes to `directory` the MLP with its Adam learning rate decayed
    from 0.01 to 0.001 over `train_steps` global steps
    (tf.train.polynomial_decay) and returns its path. Trained async at the
    constant 0.01, the final model is whatever iterate the last (stale)
    updates left: its test accuracy after 600 steps of 2 workers spread
    from 0.74 to 0.84 between runs (sd 0.015 to 0.022 over 110 runs, the
    low end under a CPU hog; 0.7377 once in CI), with no race behind it
    (one worker, where no update is stale, stays within 0.83-0.85 from step
    590 to 610; dividing the rate by the staleness narrowed nothing).
    Annealed, as async training is run to a final model, 20 runs under a
    hog gave 0.835-0.845 (sd 0.003): a bar that holds and still means
    something."""
    with open(MLP) as f:
        text = f.read()
    check(text.count(MLP_OPTIMIZER) == 1,
          "%s does not minimize with %s once" % (MLP, MLP_OPTIMIZER))
    schedule = ("#dtf.adam<learning_rate = 0.01, schedule = #dtf.polynomial_decay<"
                "decay_steps = %d.0, end_learning_rate = 0.001>>" % train_steps)
    path = os.path.join(directory, "mnist_mlp_annealed.mlir")
    with open(path, "w") as f:
        f.write(text.replace(MLP_OPTIMIZER, schedule))
    return path


def untrained_loss(points):
    """The loss of global step 1: computed with the initial variables."""
    check(points and points[0][0] == 1, "no loss logged at global step 1")
    return points[0][1]
