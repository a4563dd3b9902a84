"""Shared fixtures: one slinky-apiserver (TLS + token, fault injection on) per session."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

SRC = os.environ.get("SLINKY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "../../.."))
SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(SRC, "..", "shared"))
BUILD = os.environ.get("SLINKY_BUILD_DIR", os.path.join(SRC, "build"))


def server_bin():
    return os.environ.get("SLINKY_APISERVER_BIN",
                          os.path.join(BUILD, "apiserver/slinky-apiserver"))


def rss_kib():
    """Resident set size of this process in KiB (VmRSS)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@pytest.fixture(scope="session")
def server():
    """The server's folder: kubeconfig, token, admin-token, port, ca.crt."""
    if not os.access(server_bin(), os.X_OK):
        pytest.skip("slinky-apiserver is not built")
    d = tempfile.mkdtemp(prefix="slinky-py-")
    subprocess.check_call(["sh", os.path.join(SRC, "tests/apiserver/start-apiserver.sh"), d,
                           "--enable-faults",
                           "--crd-dir", os.path.join(SHARED, "upstream/slinky/crds")])
    yield d
    subprocess.call(["sh", os.path.join(SRC, "tests/apiserver/stop-apiserver.sh"), d])
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def kubeconfig(server):
    return os.path.join(server, "kubeconfig")


def kubeconfig_with_token(server, token, name):
    """A copy of the server's kubeconfig that sends another bearer token."""
    with open(os.path.join(server, "kubeconfig")) as f:
        text = f.read()
    path = os.path.join(server, name)
    with open(path, "w") as f:
        f.write(re.sub(r"token: \S+", "token: " + token, text))
    return path


@pytest.fixture
def client(kubeconfig):
    import slinky
    with slinky.Client(kubeconfig=kubeconfig) as c:
        yield c


@pytest.fixture(scope="session")
def admin(server):
    """A client with the admin token (for /admin/faults)."""
    import slinky
    with open(os.path.join(server, "admin-token")) as f:
        tok = f.read().strip()
    c = slinky.Client(kubeconfig=kubeconfig_with_token(server, tok, "admin-kubeconfig"))
    yield c
    c.request("DELETE", "/admin/faults")
    c.close()


def add_fault(admin, **fault):
    status, body = admin.request("POST", "/admin/faults", fault, "application/json")
    assert status == 201, body


def fault_hits(admin):
    import json
    status, body = admin.request("GET", "/admin/faults")
    assert status == 200, body
    return [f["hits"] for f in json.loads(body)["faults"]]
