"""The examples in examples/python/ run against slinky-apiserver and do what they say."""
import os
import subprocess
import sys
import time

import slinky
from conftest import SRC

EX = os.path.join(SRC, "examples", "python")
DATA = os.environ.get("SLINKY_TEST_DATA", os.path.join(SRC, "tests", "data"))


def run(name, *args, timeout=60, check=True):
    p = subprocess.run([sys.executable, os.path.join(EX, name)] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def nodeset(name, replicas=1):
    return {"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet",
            "metadata": {"name": name},
            "spec": {"controllerRef": {"name": "slurm"}, "replicas": replicas,
                     "partition": {"enabled": True}}}


def test_list_watch_nodesets(client, kubeconfig):
    client.create("namespaces", {"metadata": {"name": "ex-watch"}})
    client.create("nss", nodeset("cpu"), namespace="ex-watch")
    p = subprocess.Popen([sys.executable, os.path.join(EX, "list_watch_nodesets.py"),
                          "--kubeconfig", kubeconfig, "-n", "ex-watch", "--events", "1",
                          "--timeout", "20"], stdout=subprocess.PIPE, text=True)
    first = [p.stdout.readline() for _ in range(2)]
    assert first[0] == "cpu replicas=1 partition=on\n"
    assert first[1].startswith("1 NodeSets at resourceVersion ")
    client.patch("nss", "cpu", {"spec": {"replicas": 3}}, namespace="ex-watch")
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 0 and out == "MODIFIED cpu replicas=3 partition=on\n"


def test_nodeset_pod_labeler(client, kubeconfig):
    client.create("namespaces", {"metadata": {"name": "ex-ctl"}})
    owner = client.create("nss", nodeset("gpu"), namespace="ex-ctl")
    ref = {"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet", "name": "gpu",
           "uid": owner["metadata"]["uid"], "controller": True}
    for i in range(2):
        client.create("pods", {"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": "gpu-%d" % i, "ownerReferences": [ref]},
                               "spec": {"containers": [{"name": "slurmd", "image": "x"}]}},
                      namespace="ex-ctl")
    client.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "other"},
                           "spec": {"containers": [{"name": "c", "image": "x"}]}},
                  namespace="ex-ctl")
    p = run("nodeset_pod_labeler.py", "--kubeconfig", kubeconfig, "-n", "ex-ctl", "--idle", "1.5")
    assert "synced: 1 NodeSets, 3 Pods in ex-ctl" in p.stdout
    assert sorted(l for l in p.stdout.splitlines() if l.startswith("labeled")) == \
        ["labeled pod gpu-0 for NodeSet gpu", "labeled pod gpu-1 for NodeSet gpu"]
    labels = {o["metadata"]["name"]: o["metadata"].get("labels", {})
              for o in client.list("pods", namespace="ex-ctl")["items"]}
    assert labels["gpu-0"] == labels["gpu-1"] == {"slinky.slurm.net/nodeset": "gpu"}
    assert "slinky.slurm.net/nodeset" not in labels["other"]
    # a second run finds nothing to do
    p = run("nodeset_pod_labeler.py", "--kubeconfig", kubeconfig, "-n", "ex-ctl", "--idle", "1")
    assert "labeled" not in p.stdout


def test_slurm_conf_diff():
    res = os.path.join(SRC, "examples", "data", "demo-cluster.yaml")
    p = run("slurm_conf_diff.py", res, "--extra-conf", "MinJobAge=5\n")
    lines = p.stdout.splitlines()
    assert lines[0].endswith("change class: reconfigure"), p.stdout
    assert "  MinJobAge: 2 -> 5 (reconfigure" in p.stdout
    p = run("slurm_conf_diff.py", res, "--set", "AccountingStorageEnforce=associations,limits")
    assert "change class: restart-slurmctld" in p.stdout
    p = run("slurm_conf_diff.py", res, "--extra-conf", "FooBar=1\n", check=False)
    assert p.returncode == 1 and "FooBar" in p.stderr


def test_add_user_replay(tmp_path):
    key = os.path.join(DATA, "ledger", "ed25519.pub")
    args = [str(tmp_path / "l.git"), "alice", "--key-file", key, "--group", "dev",
            "--root", str(tmp_path / "root")]
    p = run("add_user_replay.py", *args)
    assert "alice: uid 65536, recorded user-add, key-add, group-add, member-add" in p.stdout
    assert "replay: posix: add etc/passwd alice" in p.stdout
    with open(tmp_path / "root" / "etc" / "passwd") as f:
        assert f.read().startswith("alice:x:65536:65536:")
    p = run("add_user_replay.py", *args)
    assert "alice: uid 65536, recorded nothing" in p.stdout and "replay: up to date" in p.stdout


def test_cluster_report(client, kubeconfig):
    client.create("namespaces", {"metadata": {"name": "ex-report"}})
    with open(os.path.join(SRC, "examples", "data", "demo-cluster.yaml")) as f:
        docs = slinky.loads_yaml_all(f.read())
    for d in docs:
        if d["kind"] in ("Controller", "NodeSet"):
            d["metadata"]["namespace"] = "ex-report"
            client.create(None, d)
    p = run("cluster_report.py", "--kubeconfig", kubeconfig, "-n", "ex-report", check=False)
    assert "Controller ex-report/demo: valid" in p.stdout, p.stdout + p.stderr
    assert "ConfigMap demo-config: not written yet" in p.stdout
    assert "  NodeSet demo-cpu:" in p.stdout
    # no operator ran: no rendered slurm.conf, so the extraConf alone has no partition
    assert p.returncode == 1 and "No PartitionName" in p.stdout
