"""slinky.kube against slinky-apiserver on loopback (TLS + token; see conftest.py)."""
import threading
import time

import pytest

import slinky
from slinky import kube


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
