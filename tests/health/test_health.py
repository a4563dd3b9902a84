"""health/slurm24 (integration): slinky-health by hand against a real Slurm 24.11
cluster (slurmrestd): a storage threshold set above the free space drains the
node with the slinky-health reason, a later pass resumes it, a node an admin
drained stays drained with the admin's reason through failing and passing runs;
a hanging check is killed at its timeout ("timeout", and the drain says so);
a bad config is refused with file:line before anything runs."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "exporter"))
import s24  # noqa: E402


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


@pytest.fixture(scope="module")
def cl():
    c = s24.Cluster(nodes=2)
    try:
        s24.wait_for(lambda: c.node_state("node1") == "idle" and c.node_state("node2") == "idle", 60, "idle nodes")
        yield c
    finally:
        c.down()


def run(c, conf, node, *extra, check=None):
    args = [s24.HEALTH, "run", "--config", conf, "--node", node, "--url", c.url, "--user", "root",
            "--token-file", c.token_file] + list(extra)
    if check:
        args += ["--check", check]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def good_conf(c, min_free="1M"):
    return write(os.path.join(c.work, f"h-{min_free}.conf"),
                 "# node checks compare with what slurmd registered\nnode_cpus\nnode_memory\nnode_gpus count=0\n"
                 f"storage_writable path=/tmp\nstorage_free path=/tmp min_free={min_free}\n"
                 "storage_inodes path=/tmp min_free=1%\nstorage_latency path=/tmp max=5s warn=2s\nfabric_ib\n"
                 f"fabric_tcp target=127.0.0.1:{c.env['SLURM24_CTLD_PORT']} max=2s\n")


def row(out, check):
    for line in out.splitlines():
        if line.split() and line.split()[0] == check:
            return line.split()
    raise AssertionError(f"no row {check} in:\n{out}")


def test_pass_table_and_healthy(cl):
    r = run(cl, good_conf(cl), "node1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert row(r.stdout, "node_cpus")[1] == "pass"
    assert row(r.stdout, "node_memory")[1] == "pass"
    assert row(r.stdout, "fabric_ib")[1] == "skip" and "no /sys/class/infiniband" in r.stdout
    assert row(r.stdout, f"fabric_tcp:127.0.0.1:{cl.env['SLURM24_CTLD_PORT']}")[1] == "pass"
    assert "node node1 healthy" in r.stdout
    assert cl.node_state("node1") == "idle"
    # a pinned data-parser version works; an unknown one is refused
    r = run(cl, good_conf(cl), "node1", "--api-version", "v0.0.42")
    assert r.returncode == 0 and "node node1 healthy" in r.stdout, r.stdout + r.stderr
    r = run(cl, good_conf(cl), "node1", "--api-version", "v9.9.9")
    assert r.returncode == 3 and "v9.9.9" in r.stderr, r.stdout + r.stderr


def test_fail_drains_then_pass_resumes(cl):
    r = run(cl, good_conf(cl, "100000T"), "node1")
    assert r.returncode == 1, r.stdout + r.stderr
    fr = row(r.stdout, "storage_free:/tmp")
    assert fr[1] == "fail" and fr[3:5] == [">=", "100000T"]
    reason = cl.node_reason("node1")
    assert re.fullmatch(r"slinky-health: storage_free:/tmp: [0-9.]+[KMGTP] \(limit >= 100000T\)", reason), reason
    assert cl.node_state("node1") in ("drained", "draining")
    # --check of a passing check never resumes (the failing one did not run)
    r = run(cl, good_conf(cl), "node1", check="node_cpus")
    assert r.returncode == 0 and "no resume" in r.stdout
    assert cl.node_reason("node1") == reason
    r = run(cl, good_conf(cl), "node1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "resumed node1" in r.stdout
    s24.wait_for(lambda: cl.node_state("node1") == "idle", 20, "node1 idle")
    # (Slurm 24.11 keeps the last reason text after RESUME, as it does for `scontrol update state=resume`)
    assert "DRAIN" not in cl.exec("scontrol show node node1")


def test_admin_drain_is_never_touched(cl):
    cl.exec("scontrol update nodename=node2 state=drain reason='admin: swapping disk'")
    try:
        r = run(cl, good_conf(cl, "100000T"), "node2")
        assert r.returncode == 1
        assert "left alone" in r.stdout
        assert cl.node_reason("node2") == "admin: swapping disk"
        r = run(cl, good_conf(cl), "node2")
        assert r.returncode == 0
        assert "left alone" in r.stdout
        assert cl.node_reason("node2") == "admin: swapping disk"
        assert cl.node_state("node2") in ("drained", "draining")
    finally:
        cl.exec("scontrol update nodename=node2 state=resume")


def test_hanging_check_is_killed_at_its_timeout(cl):
    conf = write(os.path.join(cl.work, "hang.conf"),
                 "storage_free path=/tmp min_free=1M\nexec name=hang command=\"sleep 37.25\" timeout=500ms\n")
    t0 = time.time()
    r = run(cl, conf, "node1")
    took = time.time() - t0
    assert r.returncode == 1, r.stdout + r.stderr
    h = row(r.stdout, "hang")
    assert h[1:4] == ["timeout", "timeout", "500ms"], h
    assert took < 5, took
    assert subprocess.run(["pgrep", "-f", "sleep 37.25"], capture_output=True).returncode == 1, "sleep survived"
    assert cl.node_reason("node1") == "slinky-health: hang: timeout (limit 500ms)"
    r = run(cl, good_conf(cl), "node1")
    assert "resumed node1" in r.stdout


@pytest.mark.parametrize("text,line,msg", [
    ("node_cpus\n# fine\nstorage_frea path=/tmp min_free=1G\n", 3, "unknown check 'storage_frea'"),
    ("storage_free path=/tmp min_free=10X\n", 1, "storage_free: min_free: malformed threshold '10X'"),
    ("node_cpus\nstorage_latency path=/tmp max=50\n", 2, "storage_latency: max: malformed threshold '50'"),
    ("storage_free path=/tmp min_free=101%\n", 1, "malformed threshold '101%'"),
    ("storage_free path=/tmp min_free=1G color=red\n", 1, "storage_free: unknown key 'color'"),
    ("storage_free path=/tmp\n", 1, "storage_free: missing min_free="),
    ("exec command=\"true\" timeout=soon\n", 1, "timeout: malformed duration 'soon'"),
    ("fabric_tcp target=nohost\n", 1, "target: 'nohost' is not HOST:PORT"),
    ("node_cpus\nnode_cpus\n", 2, "already defined on line 2"),
])
def test_bad_config_refused_before_anything_runs(cl, tmp_path, text, line, msg):
    marker = tmp_path / "ran"
    conf = write(str(tmp_path / "bad.conf"), f"exec name=marker command=\"touch {marker}\"\n" + text)
    res = tmp_path / "results"
    res.mkdir()
    r = run(cl, conf, "node1", "--results-dir", str(res))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{conf}:{line + 1}: " in r.stderr and msg in r.stderr, r.stderr
    assert r.stdout == "" and not marker.exists() and not list(res.iterdir())
    r = subprocess.run([s24.HEALTH, "check-config", "--config", conf], capture_output=True, text=True)
    assert r.returncode == 2 and f"{conf}:{line + 1}: " in r.stderr


def test_unknown_node_is_an_error(cl):
    r = run(cl, good_conf(cl), "nosuchnode")
    assert r.returncode == 3
    assert "nosuchnode" in r.stderr


def test_without_slurm_node_checks_skip(tmp_path):
    conf = write(str(tmp_path / "h.conf"), "node_cpus\nstorage_free path=/tmp min_free=1M\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLINKY_SLURM")}
    r = subprocess.run([s24.HEALTH, "--config", conf, "--node", "x"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert row(r.stdout, "node_cpus")[1] == "skip"
    assert row(r.stdout, "storage_free:/tmp")[1] == "pass"


SLINKYCTL = os.path.join(s24.BUILD, "tools", "slinkyctl", "slinkyctl")


@pytest.mark.skipif(not os.path.exists(SLINKYCTL), reason="slinkyctl not built (module disabled)")
def test_slinkyctl_health_run_and_status(cl, tmp_path):
    res = tmp_path / "results"
    res.mkdir()
    r = subprocess.run([SLINKYCTL, "health", "run", "--config", good_conf(cl, "100000T"), "--node", "node2",
                        "--results-dir", str(res), "--no-react"], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert row(r.stdout, "storage_free:/tmp")[1] == "fail"
    assert row(r.stdout, "node_cpus")[1] == "skip"  # no slurmrestd given: node checks skip
    r = subprocess.run([SLINKYCTL, "health", "status", "--results-dir", str(res)], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    line = [x.split() for x in r.stdout.splitlines() if "storage_free:/tmp" in x][0]
    assert line[:3] == ["node2", "storage_free:/tmp", "fail"]
    r = subprocess.run([SLINKYCTL, "health", "run", "--config", good_conf(cl), "--node", "node2",
                        "--results-dir", str(res)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([SLINKYCTL, "health", "status", "--results-dir", str(res)], capture_output=True, text=True)
    assert r.returncode == 0 and " fail " not in r.stdout, r.stdout
    r = subprocess.run([SLINKYCTL, "health", "bogus"], capture_output=True, text=True)
    assert r.returncode == 2
