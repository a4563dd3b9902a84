"""slinky.conf from Python: parse/get/set, checks, diff classes, hostlists, merge, render."""
import json
import os

import pytest

import slinky

SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../../shared"))
FIXTURES = os.path.join(SHARED, "upstream", "slinky", "fixtures")

BASE = "ClusterName=ci\nSlurmctldHost=localhost\n# comment\nKillWait=30  # trailing\n" \
       "NodeName=n[1-2] CPUs=2\nPartitionName=p Nodes=ALL\n"


def test_get_set_one_line():
    assert slinky.conf.get(BASE, "killwait") == "30"
    assert slinky.conf.get(BASE, "NoSuchKey") is None
    new = slinky.conf.set(BASE, "KillWait", "45")
    changed = [(a, b) for a, b in zip(BASE.splitlines(), new.splitlines()) if a != b]
    assert changed == [("KillWait=30  # trailing", "KillWait=45  # trailing")]
    assert slinky.conf.get(new, "KillWait") == "45"
    with pytest.raises(slinky.InvalidError):
        slinky.conf.set(BASE, "NodeName", "x")


def test_record_set():
    new = slinky.conf.record_set(BASE, "PartitionName", "p", "MaxTime", 60)
    changed = [(a, b) for a, b in zip(BASE.splitlines(), new.splitlines()) if a != b]
    assert changed == [("PartitionName=p Nodes=ALL", "PartitionName=p Nodes=ALL MaxTime=60")]
    with pytest.raises(slinky.NotFoundError):
        slinky.conf.record_set(BASE, "PartitionName", "nosuch", "MaxTime", 1)


def test_parse_error_position():
    with pytest.raises(slinky.ParseError) as ei:
        slinky.conf.get("ClusterName=x\nMessageTimeout=25 TCPTimeout=7\n", "x")
    assert (ei.value.line, ei.value.column) == (2, 18)
    assert 'Parse error in file slurm.conf line 2: " TCPTimeout=7"' in ei.value.message


def test_check():
    ok, findings = slinky.conf.check(BASE, version="22.05")
    assert ok and not [f for f in findings if f[2] == "error"]
    ok, findings = slinky.conf.check(BASE + "FooBar=1\nPreemptType=preempt/qos\n", version="22.05")
    assert not ok
    msgs = [(f[0], f[3]) for f in findings if f[2] == "error"]
    assert (7, "_parse_next_key: Parsing error at unrecognized key: FooBar") in msgs
    assert (8, "PreemptType and PreemptMode values incompatible") in msgs
    ok, _ = slinky.conf.check("AuthType=auth/slurm\nSlurmctldHost=h\n", version="24.11")
    assert ok
    ok, _ = slinky.conf.check("AuthType=auth/slurm\nSlurmctldHost=h\n", version="22.05")
    assert not ok
    ok, _ = slinky.conf.check("CgroupPlugin=cgroup/v2\n", kind="cgroup")
    assert ok


def test_diff_classes():
    d = slinky.conf.diff(BASE, BASE + "AccountingStorageEnforce=associations,limits,qos\n", "22.05")
    assert d["class"] == "restart-slurmctld"
    assert [(c["key"], c["old"], c["new"]) for c in d["changes"]] == \
        [("AccountingStorageEnforce", None, "associations,limits,qos")]
    assert slinky.conf.diff(BASE, BASE + "KillWait=1\n")["class"] == "reconfigure"
    grown = BASE + "NodeName=n3 CPUs=2\n"
    assert slinky.conf.diff(BASE, grown, "22.05")["class"] == "fatal-on-reconfigure"
    assert slinky.conf.diff(BASE, grown, "24.11")["class"] == "reconfigure"
    assert slinky.conf.diff(BASE, BASE.replace("n[1-2]", "n1,n2"))["changes"] == []


def test_hostlists():
    assert slinky.conf.hostlist_expand("node[001-003,010]") == ["node001", "node002", "node003", "node010"]
    assert slinky.conf.hostlist_compress(["n3", "n1", "n2"]) == "n[3,1-2]"
    assert slinky.conf.hostlist_compress([]) == ""
    with pytest.raises(slinky.ParseError):
        slinky.conf.hostlist_expand("n[3-1]")


def test_merge_cases():
    with open(os.path.join(FIXTURES, "merged_config_cases.json")) as f:
        cases = json.load(f)["cases"]
    assert len(cases) == 11
    for c in cases:
        assert slinky.conf.merge_parameters(c["confRaw"], c["mergeParameters"]) == c["want"], c["name"]


def test_render_external_fixture():
    ctl = {"apiVersion": "slinky.slurm.net/v1beta1", "kind": "Controller",
           "metadata": {"name": "slurm", "namespace": ""},
           "spec": {"external": True, "externalConfig": {"host": "my-controller", "port": 6817}}}
    with open(os.path.join(FIXTURES, "external_minimal_default.conf")) as f:
        assert slinky.conf.render([ctl]) == f.read()
    ctl["spec"]["external"] = False
    out = slinky.conf.render([ctl], version="22.05", local_dir="/tmp/x", ports=(1, 2, 3))
    assert "AuthType=auth/munge\n" in out and "SlurmctldPort=1\n" in out
    assert slinky.conf.render([ctl], file="cgroup") == "CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n"
    with pytest.raises(slinky.InvalidError):
        slinky.conf.render([])
