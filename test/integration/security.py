"""Transport security of a real cluster:

- tls: certificates made with openssl at test time; a PS task with mutual
  TLS and a cluster token (--cluster_token_file). A worker without the token
  and one with a wrong token are refused (a one-line error naming the PS
  address and UNAUTHENTICATED) and change nothing: the real chief then
  initializes the variables itself, and the TLS cluster trains. So are
  workers with the token but without TLS, and with a certificate of another
  CA (each refused with an error naming the PS address).
- loopback: without TLS a PS task cannot be reached at 127.0.0.2 (nor at
  a non-loopback address of the machine, where it has one), while with
  --insecure_bind_all it can; inconsistent security flags are one-line
  errors.
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile

import cluster

SKIP = 77


def make_certificates(directory, prefix=""):
    """A CA and one certificate (localhost, 127.0.0.1) every task uses:
    PREFIXca.pem, PREFIXtask.pem and PREFIXtask.key."""
    script = """
set -e
cd "$1"
p="$2"
echo 'subjectAltName = DNS:localhost, IP:127.0.0.1' > san.cnf
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=dtf-test-ca \
    -keyout ${p}ca.key -out ${p}ca.pem
openssl req -newkey rsa:2048 -nodes -subj /CN=dtf-task -keyout ${p}task.key -out ${p}task.csr
openssl x509 -req -in ${p}task.csr -CA ${p}ca.pem -CAkey ${p}ca.key -CAcreateserial -days 2 \
    -extfile san.cnf -out ${p}task.pem
"""
    subprocess.run(["bash", "-c", script, "make", directory, prefix], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tls(args):
    if not shutil.which("openssl"):
        print("SKIP: no openssl(1) to make test certificates (apt-get install openssl)")
        sys.exit(SKIP)
    directory = tempfile.mkdtemp(prefix="dtf-tls-")
    try:
        make_certificates(directory)
        make_certificates(directory, "other-")
        token_file = os.path.join(directory, "token")
        with open(token_file, "w") as f:
            f.write("s3cret-cluster-token\n")
        tls_flags = ["--tls_cert=" + os.path.join(directory, "task.pem"),
                     "--tls_key=" + os.path.join(directory, "task.key"),
                     "--tls_ca=" + os.path.join(directory, "ca.pem")]
        c = cluster.Cluster(args.dtf_run, 1, 2,
                            ["--async", "--train_steps=500", "--log_every=100",
                             "--rpc_deadline_ms=5000"] + tls_flags,
                            task_extra={"ps0": ["--cluster_token_file=" + token_file],
                                        "worker0": ["--cluster_token_file=" + token_file],
                                        "worker1": ["--cluster_token_file=" + token_file]},
                            start_workers=False)
        try:
            c.ps[0].wait_for(r"mutual TLS, cluster token required", 60)
            address = c.ps_hosts
            chief = c.argv("worker", 0)
            base = [a for a in chief if not a.startswith("--cluster_token_file=")]
            untrusted = [a for a in chief if not a.startswith("--tls_")] + [
                "--tls_cert=" + os.path.join(directory, "other-task.pem"),
                "--tls_key=" + os.path.join(directory, "other-task.key"),
                "--tls_ca=" + os.path.join(directory, "other-ca.pem")]
            plaintext = [a for a in chief if not a.startswith("--tls_")]
            # Rogue chiefs: each would initialize the variables if let in.
            for name, argv, refusal in [
                    ("no token", base, "UNAUTHENTICATED"),
                    ("a wrong token", base + ["--cluster_token=guess"], "UNAUTHENTICATED"),
                    ("the token but no TLS", plaintext, "not reachable"),
                    ("the token and a certificate of another CA", untrusted, "not reachable")]:
                # The TLS handshake fails: to the client the PS never comes
                # up, for as long as it waits for it.
                argv = ([a for a in argv if a != cluster.MLP] +
                        ["--connect_timeout_ms=3000", cluster.MLP])
                result = subprocess.run(argv, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, timeout=60)
                lines = result.stdout.strip().splitlines()
                print("rogue chief with %s: exit %d: %s" % (name, result.returncode, lines[-1:]))
                cluster.check(result.returncode != 0, "a chief with %s was let in" % name)
                cluster.check(refusal in lines[-1] and address in lines[-1],
                              "the rogue chief's error does not say %s at %s: %r"
                              % (refusal, address, lines[-1]))
            c.workers = [c.start("worker", i) for i in range(2)]
            for worker in c.workers:
                cluster.check(worker.wait(240) == 0, worker.name + " failed")
            cluster.check(c.ps[0].wait(60) == 0, "ps0 did not stop")
        finally:
            c.kill_all()
        cluster.check("Worker 0: initialized the variables" in c.workers[0].output(),
                      "the real chief found the variables initialized: a rogue got in")
        for worker in c.workers:
            loss, accuracy, step = cluster.validation(worker)
            print("%s: accuracy %.4f at global step %d over TLS" % (worker.name, accuracy, step))
            cluster.check(step >= 500 and accuracy >= 0.7,
                          "%s: step %d, accuracy %.4f" % (worker.name, step, accuracy))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def other_address():
    """An IPv4 address of this machine other than loopback, or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1; nothing is sent
            address = s.getsockname()[0]
        return None if address.startswith("127.") else address
    except OSError:
        return None


def loopback(args):
    c = cluster.Cluster(args.dtf_run, 1, 1, ["--train_steps=10"], start_workers=False)
    try:
        c.ps[0].wait_for(r"no TLS: listening on loopback only", 60)
        c.ps[0].wait_for(r"serving .* gradients", 60)
        port = int(c.ps_hosts.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        # 127.0.0.2 reaches this machine too, but not a socket bound to
        # 127.0.0.1: a PS listening on every interface would accept there
        # (bind_all() below shows it does), one on loopback only does not.
        for address in ["127.0.0.2"] + ([other_address()] if other_address() else []):
            cluster.check(not accepts(address, port),
                          "the PS accepts connections at %s:%d" % (address, port))
            print("%s:%d refuses connections: loopback only" % (address, port))
        c.workers = [c.start("worker", 0)]
        cluster.check(c.workers[0].wait(120) == 0, "worker0 failed")
        cluster.check(c.ps[0].wait(60) == 0, "ps0 did not stop")
    finally:
        c.kill_all()


def accepts(address, port):
    try:
        with socket.create_connection((address, port), timeout=5):
            return True
    except (ConnectionRefusedError, socket.timeout):
        return False


def bind_all(args):
    """The positive control of loopback(): with --insecure_bind_all the PS
    accepts connections at 127.0.0.2."""
    c = cluster.Cluster(args.dtf_run, 1, 1, ["--train_steps=10", "--insecure_bind_all"],
                        start_workers=False)
    try:
        c.ps[0].wait_for(r"serving .* gradients", 60)
        port = int(c.ps_hosts.rsplit(":", 1)[1])
        cluster.check(accepts("127.0.0.2", port),
                      "--insecure_bind_all: the PS refuses connections at 127.0.0.2:%d" % port)
        print("--insecure_bind_all: 127.0.0.2:%d accepts connections" % port)
    finally:
        c.kill_all()


def bad_flags(args):
    """Inconsistent security and reliability flags: a one-line error each."""
    ps = "--ps_hosts=localhost:%d" % cluster.free_ports(1)[0]
    base = [args.dtf_run, ps, "--worker_hosts=localhost:1", "--job_name=ps"]
    for flags, expected in [
            (["--tls_cert=/x.pem"], "--tls_cert, --tls_key and --tls_ca: give all three"),
            (["--tls_cert=/nonexistent.pem", "--tls_key=/k", "--tls_ca=/c"],
             "--tls_cert: cannot read /nonexistent.pem"),
            (["--cluster_token_file=/nonexistent"], "--cluster_token_file: cannot read"),
            (["--cluster_token=a", "--cluster_token_file=/etc/hostname"], "exclude each other"),
            (["--recovery_timeout_ms=-1"], "--recovery_timeout_ms: must be >= 0"),
            (["--keep_checkpoints=-2"], "--keep_checkpoints: must be >= 0")]:
        result = subprocess.run(base + flags + [cluster.MLP], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=60)
        lines = result.stdout.strip().splitlines()
        print("%s: exit %d: %s" % (" ".join(flags), result.returncode, lines))
        cluster.check(result.returncode != 0 and len(lines) == 1 and expected in lines[0],
                      "%s: expected one line with %r" % (flags, expected))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    parser.add_argument("--case", choices=["tls", "loopback"], required=True)
    args = parser.parse_args()
    {"tls": tls, "loopback": loopback}[args.case](args)
    if args.case == "loopback":
        bind_all(args)
        bad_flags(args)
    print("PASS")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print("FAIL: %s" % error)
        sys.exit(1)
