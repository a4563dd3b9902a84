"""slinky.kube against slinky-apiserver on loopback (TLS + token), started per module."""
import os
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

import slinky
from slinky import kube

SRC = os.environ.get("SLINKY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "../../.."))
SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(SRC, "..", "shared"))


def _server_bin():
    b = os.environ.get("SLINKY_APISERVER_BIN")
    if b:
        return b
    return os.path.join(os.environ.get("SLINKY_BUILD_DIR", os.path.join(SRC, "build")),
                        "apiserver/slinky-apiserver")


@pytest.fixture(scope="module")
def server():
    if not os.access(_server_bin(), os.X_OK):
        pytest.skip("slinky-apiserver is not built")
    d = tempfile.mkdtemp(prefix="slinky-py-kube-")
    subprocess.check_call(["sh", os.path.join(SRC, "tests/apiserver/start-apiserver.sh"), d,
                           "--crd-dir", os.path.join(SHARED, "upstream/slinky/crds")])
    yield d
    subprocess.call(["sh", os.path.join(SRC, "tests/apiserver/stop-apiserver.sh"), d])
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def client(server):
    return kube.Client(kubeconfig=os.path.join(server, "kubeconfig"))


def cm(name, **data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def test_crud(client):
    assert client.namespace == "default"
    assert client.server.startswith("https://127.0.0.1:")
    out = client.create("configmaps", cm("py-a", k="v"))
    assert out["metadata"]["resourceVersion"]
    assert client.get("configmaps", "py-a")["data"] == {"k": "v"}
    with pytest.raises(slinky.ExistsError) as e:
        client.create("configmaps", cm("py-a"))
    assert e.value.http_status == 409
    assert kube.last_reason() == "AlreadyExists"
    with pytest.raises(slinky.NotFoundError):
        client.get("configmaps", "nope")
    p = client.patch("configmaps", "py-a", {"data": {"m": "1"}})
    assert p["data"] == {"k": "v", "m": "1"}
    p = client.patch("configmaps", "py-a", [{"op": "remove", "path": "/data/k"}], type="json")
    assert p["data"] == {"m": "1"}
    stale = dict(out)
    with pytest.raises(slinky.ConflictError):
        client.update("configmaps", stale)
    with pytest.raises(slinky.InvalidError):
        client.create("configmaps", cm("Bad_Name"))
    client.delete("configmaps", "py-a")
    with pytest.raises(slinky.NotFoundError):
        client.delete("configmaps", "py-a")


def test_list_selectors(client):
    for i in range(5):
        o = cm("py-l%d" % i)
        o["metadata"]["labels"] = {"app": "py", "n": "even" if i % 2 == 0 else "odd"}
        client.create("configmaps", o)
    lst = client.list("configmaps", label_selector="app=py,n in (even)", limit=1)
    assert sorted(i["metadata"]["name"] for i in lst["items"]) == ["py-l0", "py-l2", "py-l4"]
    assert lst["metadata"]["resourceVersion"]


def test_watch_and_stop(client):
    rv = client.list("configmaps")["metadata"]["resourceVersion"]
    w = client.watch("configmaps", resource_version=rv, timeout=5)
    client.create("configmaps", cm("py-w1"))
    client.delete("configmaps", "py-w1")
    seen = []
    for ev_type, obj in w:
        if ev_type == "BOOKMARK":
            continue
        seen.append((ev_type, obj["metadata"]["name"]))
        if len(seen) == 2:
            break
    assert seen == [("ADDED", "py-w1"), ("DELETED", "py-w1")]
    # stop from another thread ends the iteration promptly
    w2 = client.watch("configmaps", namespace="nothing-here")
    threading.Timer(0.3, w2.stop).start()
    t0 = time.monotonic()
    assert list(w2) == []
    assert time.monotonic() - t0 < 3
