"""A real Slurm 24.11 cluster with slurmrestd (tests/harness/slurm24.sh) for the
exporter and health tests, plus small helpers (free ports, waiting, Prometheus)."""
import json
import os
import shlex
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

SRC = os.environ.get("SLINKY_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD = os.environ.get("SLINKY_BUILD_DIR", os.path.join(SRC, "_build", "dev"))
HARNESS = os.path.join(SRC, "tests", "harness", "slurm24.sh")
EXPORTER = os.path.join(BUILD, "tools", "slinky-exporter", "slinky-exporter")
HEALTH = os.path.join(BUILD, "tools", "slinky-health", "slinky-health")


class Cluster:
    def __init__(self, nodes=2, extra_conf=""):
        self.work = tempfile.mkdtemp(prefix="slinky-obs.")
        env = dict(os.environ, SLURM_CI_NODES=str(nodes))
        if extra_conf:
            env["SLURM_CI_EXTRA_CONF"] = extra_conf
        with open(os.path.join(self.work, "up.log"), "w") as log:
            out = subprocess.run([HARNESS, "up", "restd"], env=env, stdout=subprocess.PIPE, stderr=log, text=True)
        self.env = {}
        for line in out.stdout.splitlines():
            if line.startswith("export "):
                k, _, v = line[len("export "):].partition("=")
                self.env[k] = v
        if out.returncode or "SLURM24_RESTD" not in self.env:
            self.down()
            raise RuntimeError("slurm24.sh up restd failed: " + open(os.path.join(self.work, "up.log")).read()[-2000:])
        self.url = self.env["SLURM24_RESTD"]
        self.token_file = os.path.join(self.work, "token")
        with open(self.token_file, "w") as f:
            f.write(self.exec("scontrol token username=root lifespan=3600"))

    def exec(self, cmd, check=True):
        env = dict(os.environ, **self.env)
        r = subprocess.run([HARNESS, "exec", "sh", "-c", cmd], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if check and r.returncode:
            raise RuntimeError(f"{cmd}: {r.returncode}: {r.stderr}")
        return r.stdout

    def node_reason(self, node):
        out = self.exec(f"scontrol show node {shlex.quote(node)}")
        for part in out.split("\n"):
            part = part.strip()
            if part.startswith("Reason="):
                return part[len("Reason="):].rsplit(" [", 1)[0]
        return ""

    def node_state(self, node):
        return self.exec(f"sinfo -h -N -n {shlex.quote(node)} -o %T").strip()

    def down(self):
        env = dict(os.environ, **self.env)
        if self.env:
            subprocess.run([HARNESS, "down"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", self.work])


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_for(pred, timeout, what):
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            last = pred()
            if last:
                return last
        except Exception as e:  # noqa: BLE001 - retried until the deadline
            last = e
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def prom_query(base, expr):
    q = urllib.parse.urlencode({"query": expr})
    try:
        body = http_get(f"{base}/api/v1/query?{q}")
    except urllib.error.HTTPError as e:
        body = e.read().decode()
    return json.loads(body)
