"""examples/k8s/tfjob.yaml, as the Kubeflow training operator would run it.

No Kubernetes here: the test checks that the manifest is valid YAML with the
TFJob fields the operator reads (kind, apiVersion, tfReplicaSpecs with PS
and Worker replicas, each a pod template whose container is named
`tensorflow` and exposes the port named `tfjob-port`), then starts every
replica's command on this machine with the TF_CONFIG the operator documents
for its pod:

  {"cluster": {"ps": ["<job>-ps-0.<namespace>.svc:<port>"],
               "worker": ["<job>-worker-0.<namespace>.svc:<port>", ...]},
   "task": {"type": "worker", "index": 1}, "environment": "cloud"}

with one change, the part DNS plays in a cluster: each pod's service name
stands for a loopback port here. Every replica must take the role its
TF_CONFIG gives it and the job must train (fewer steps than the manifest's).
"""

import argparse
import json
import os
import sys

import cluster

MANIFEST = os.path.join(cluster.ROOT, "examples", "k8s", "tfjob.yaml")
IMAGE_ROOT = "/opt/dtf/"  # where examples/k8s/Dockerfile puts the repository
RESTART_POLICIES = {"Always", "OnFailure", "Never", "ExitCode"}


def check_manifest(job):
    cluster.check(job.get("apiVersion") == "kubeflow.org/v1",
                  "apiVersion %r is not kubeflow.org/v1" % job.get("apiVersion"))
    cluster.check(job.get("kind") == "TFJob", "kind %r is not TFJob" % job.get("kind"))
    cluster.check(isinstance(job.get("metadata", {}).get("name"), str),
                  "metadata.name is missing")
    replicas = job.get("spec", {}).get("tfReplicaSpecs")
    cluster.check(isinstance(replicas, dict), "spec.tfReplicaSpecs is missing")
    cluster.check(set(replicas) == {"PS", "Worker"},
                  "tfReplicaSpecs has %s; DTF runs PS and Worker replicas" % sorted(replicas))
    commands = {}
    for kind, spec in replicas.items():
        where = "tfReplicaSpecs.%s" % kind
        cluster.check(isinstance(spec.get("replicas"), int) and spec["replicas"] >= 1,
                      where + ".replicas must be a positive integer")
        cluster.check(spec.get("restartPolicy") in RESTART_POLICIES,
                      where + ".restartPolicy %r" % spec.get("restartPolicy"))
        containers = spec.get("template", {}).get("spec", {}).get("containers", [])
        named = [c for c in containers if c.get("name") == "tensorflow"]
        cluster.check(len(named) == 1, where + ": no container named 'tensorflow'")
        container = named[0]
        cluster.check(isinstance(container.get("image"), str), where + ": no image")
        ports = {p.get("name"): p.get("containerPort") for p in container.get("ports", [])}
        cluster.check(isinstance(ports.get("tfjob-port"), int),
                      where + ": no containerPort named 'tfjob-port'")
        command = container.get("command")
        cluster.check(isinstance(command, list) and command and command[0] == "dtf-run",
                      where + ": the command is not dtf-run: %r" % command)
        model = command[-1]
        cluster.check(model.startswith(IMAGE_ROOT) and
                      os.path.exists(os.path.join(cluster.ROOT, model[len(IMAGE_ROOT):])),
                      where + ": the model %s is not in the image" % model)
        commands[kind] = (spec["replicas"], ports["tfjob-port"], command)
    return commands


def operator_tf_config(job_name, namespace, commands, kind, index):
    """The TF_CONFIG the training operator sets in a replica's pod."""
    def hosts(replica_kind):
        count, port, _ = commands[replica_kind]
        return ["%s-%s-%d.%s.svc:%d" % (job_name, replica_kind.lower(), i, namespace, port)
                for i in range(count)]
    return {"cluster": {"ps": hosts("PS"), "worker": hosts("Worker")},
            "task": {"type": kind.lower(), "index": index}, "environment": "cloud"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtf-run", required=True)
    args = parser.parse_args()
    try:
        import yaml
    except ImportError:
        print("SKIP: python3-yaml is not installed (apt-get install python3-yaml)")
        sys.exit(77)
    with open(MANIFEST) as f:
        job = yaml.safe_load(f)
    commands = check_manifest(job)
    name = job["metadata"]["name"]

    # DNS: each pod's service name is a loopback port of this machine.
    total = sum(count for count, _, _ in commands.values())
    ports = iter(cluster.free_ports(total))
    loopback = {}
    for kind in ("PS", "Worker"):
        for index in range(commands[kind][0]):
            service = "%s-%s-%d.default.svc" % (name, kind.lower(), index)
            loopback["%s:%d" % (service, commands[kind][1])] = "localhost:%d" % next(ports)

    tasks = []
    try:
        for kind in ("PS", "Worker"):
            count, _, command = commands[kind]
            for index in range(count):
                config = operator_tf_config(name, "default", commands, kind, index)
                for job_hosts in config["cluster"].values():
                    job_hosts[:] = [loopback[h] for h in job_hosts]
                argv = ([args.dtf_run] + command[1:-1] +
                        ["--train_steps=300", "--data=" + cluster.DATA,
                         os.path.join(cluster.ROOT, command[-1][len(IMAGE_ROOT):])])
                os.environ["TF_CONFIG"] = json.dumps(config)
                tasks.append(cluster.Task("%s%d" % (kind.lower(), index), argv))
        del os.environ["TF_CONFIG"]
        for task in tasks:
            cluster.check(task.wait(300) == 0, "%s failed" % task.name)
    finally:
        for task in tasks:
            task.kill()
    roles = {"ps0": "PS task 0 serving", "worker0": "Worker 0: initialized the variables",
             "worker1": "Worker 1: training to global step"}
    for task in tasks:
        cluster.check(roles[task.name] in task.output(),
                      "%s did not take its role (%r)" % (task.name, roles[task.name]))
    for task in tasks[1:]:
        cluster.validation(task)
    # The replicas' commands agree: the PS aggregated what the workers pushed.
    cluster.check("aggregates" in tasks[0].output(),
                  "the PS did not run the workers' sync mode")
    print("the TFJob's replicas took their roles from TF_CONFIG and trained")


if __name__ == "__main__":
    cluster.run_test(main)
