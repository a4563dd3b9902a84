"""health/hcp (integration): slinky-health as Slurm 24.11's own HealthCheckProgram. slurmd
(in the trixie chroot) runs a wrapper every 2 s (HealthCheckInterval=2, HealthCheckNodeState=ANY)
that runs the host-built slinky-health (its libraries the chroot lacks are copied beside it)
with SLURMD_NODENAME against the cluster's slurmrestd. A storage threshold above the free space
drains each node with the slinky-health reason; a passing config resumes them; a node the admin
drained stays drained with the admin's reason."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "exporter"))
import s24  # noqa: E402

ROOT = os.environ.get("SLURM24_ROOT", "/var/cache/slinky/trixie")


def install_beside(dest):
    """copy slinky-health and the libraries the chroot does not have into dest"""
    os.makedirs(dest)
    shutil.copy(s24.HEALTH, dest)
    out = subprocess.run(["ldd", s24.HEALTH], capture_output=True, text=True, check=True).stdout
    for lib in re.findall(r"=> (/\S+)", out):
        b = os.path.basename(lib)
        if not any(os.path.exists(f"{ROOT}{d}/{b}") for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu")):
            shutil.copy(os.path.realpath(lib), os.path.join(dest, b))


@pytest.fixture(scope="module")
def hc():
    d = tempfile.mkdtemp(prefix="slinky-hc.", dir=f"{ROOT}/tmp")
    inside = d[len(ROOT):]
    c = None
    try:
        install_beside(f"{d}/lib")
        os.makedirs(f"{d}/results")
        with open(f"{d}/hc.sh", "w") as f:
            f.write(f"""#!/bin/sh
D={inside}
[ -s $D/env ] || exit 0
. $D/env
echo "run $(date +%s) node=$SLURMD_NODENAME" >> $D/hc.log
LD_LIBRARY_PATH=$D/lib exec $D/lib/slinky-health run --config $D/health.conf --node "$SLURMD_NODENAME" \\
  --results-dir $D/results >> $D/hc.log 2>&1
""")
        os.chmod(f"{d}/hc.sh", 0o755)
        c = s24.Cluster(nodes=2, extra_conf=f"HealthCheckProgram={inside}/hc.sh\nHealthCheckInterval=2\n"
                                            "HealthCheckNodeState=ANY")
        shutil.copy(c.token_file, f"{d}/token")
        yield c, d, inside
    finally:
        if c:
            c.down()
        shutil.rmtree(d, ignore_errors=True)


def configure(d, inside, c, min_free):
    with open(f"{d}/health.conf.tmp", "w") as f:
        f.write(f"node_cpus\nnode_memory\nstorage_free path=/tmp min_free={min_free}\n"
                f"fabric_tcp target=127.0.0.1:{c.env['SLURM24_CTLD_PORT']} max=2s\n")
    os.replace(f"{d}/health.conf.tmp", f"{d}/health.conf")
    with open(f"{d}/env", "w") as f:
        f.write(f"export SLINKY_SLURM_URL={c.url} SLINKY_SLURM_USER=root SLINKY_SLURM_TOKEN_FILE={inside}/token\n")


def test_health_check_program_drains_and_resumes(hc):
    c, d, inside = hc
    c.exec("scontrol update nodename=node2 state=drain reason='admin: bad fan'")
    configure(d, inside, c, "100000T")
    want = re.compile(r"slinky-health: storage_free:/tmp: [0-9.]+[KMGTP] \(limit >= 100000T\)")
    s24.wait_for(lambda: want.fullmatch(c.node_reason("node1")), 40, "node1 drained by HealthCheckProgram")
    assert c.node_state("node1") in ("drained", "draining")
    # node2's own run may come a moment after node1's drain: wait for its verdict
    s24.wait_for(lambda: "left alone" in open(f"{d}/hc.log").read(), 40,
                 "node2's run leaving the admin's drain alone")
    log = open(f"{d}/hc.log").read()
    assert "node=node1" in log and "node=node2" in log, log[-2000:]
    assert c.node_reason("node2") == "admin: bad fan"
    # the results reach the exporter's folder
    assert "storage_free:/tmp\tfail" in open(f"{d}/results/node1.tsv").read()
    configure(d, inside, c, "1M")
    s24.wait_for(lambda: c.node_state("node1") == "idle", 40, "node1 resumed by HealthCheckProgram")
    n = open(f"{d}/hc.log").read().count("node=node2")
    s24.wait_for(lambda: open(f"{d}/hc.log").read().count("node=node2") > n, 20, "another run on node2")
    assert c.node_reason("node2") == "admin: bad fan"
    assert c.node_state("node2") in ("drained", "draining")
