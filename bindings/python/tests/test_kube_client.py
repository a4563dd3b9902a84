"""Client features: discovery names, cluster-scoped CRDs, apply/patch, lazy pages, close,
informers (handlers, events, cache, a kubectl change within 1 s) and the work queue."""
import os
import subprocess
import threading
import time

import pytest

import slinky
from conftest import add_fault, fault_hits

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.test.slinky.dev"},
    "spec": {"group": "test.slinky.dev", "scope": "Cluster",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                       "shortNames": ["wdg"]},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {
                               "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def cm(name, labels=None, **data):
    o = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
    if labels:
        o["metadata"]["labels"] = labels
    return o


def nodeset(name, replicas=1):
    return {"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet",
            "metadata": {"name": name},
            "spec": {"controllerRef": {"name": "slurm"}, "replicas": replicas}}


def test_discovery_names(client):
    r = client.resource("nss")
    assert (r.group, r.version, r.plural, r.namespaced, r.kind) == \
        ("slinky.slurm.net", "v1beta1", "nodesets", True, "NodeSet")
    for name in ("slurmd", "NodeSet", "nodeset", "nodesets.slinky.slurm.net", "NODESET"):
        assert client.resource(name).plural == "nodesets", name
    assert client.resource("cm").plural == "configmaps"
    assert client.resource("svc").plural == "services" and client.resource("sa").kind == "ServiceAccount"
    assert client.resource("v1/namespaces").namespaced is False
    with pytest.raises(LookupError) as ei:
        client.resource("frobnicators")
    assert "frobnicators" in str(ei.value)
    client.create("nss", nodeset("disc-a"))
    assert [o["metadata"]["name"] for o in client.list("nss")["items"]] == ["disc-a"]
    assert client.get("slurmd", "disc-a")["spec"]["replicas"] == 1
    client.delete("NodeSet", "disc-a")
    kinds = {r.kind for r in client.api_resources()}
    assert {"NodeSet", "Controller", "ConfigMap", "Namespace"} <= kinds


def test_cluster_scoped_crd(client):
    client.create(None, WIDGET_CRD)
    try:
        deadline = time.monotonic() + 10
        while True:  # a new CRD is served once established
            try:
                r = client.resource("wdg")
                break
            except LookupError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert (r.plural, r.namespaced, r.kind) == ("widgets", False, "Widget")
        w = client.create("widgets", {"apiVersion": "test.slinky.dev/v1", "kind": "Widget",
                                      "metadata": {"name": "w1"}, "size": 3})
        assert "namespace" not in w["metadata"]
        assert client.get("widget", "w1")["size"] == 3
        assert [o["metadata"]["name"] for o in client.list("wdg")["items"]] == ["w1"]
        client.apply({"apiVersion": "test.slinky.dev/v1", "kind": "Widget",
                      "metadata": {"name": "w2"}, "size": 5})
        assert client.get("Widget", "w2")["size"] == 5
        client.delete("widgets", "w1")
        client.delete("widgets", "w2")
    finally:
        client.delete("customresourcedefinitions", "widgets.test.slinky.dev")


def test_apply_and_patch_types(client):
    o = cm("apply-a", a="1")
    out = client.apply(o, field_manager="mgr-one")
    assert out["data"] == {"a": "1"}
    assert [m["manager"] for m in out["metadata"]["managedFields"]] == ["mgr-one"]
    # another manager changing an owned field conflicts, unless forced
    with pytest.raises(slinky.ConflictError) as ei:
        client.apply(cm("apply-a", a="2"), field_manager="mgr-two")
    assert ei.value.http_status == 409
    assert client.apply(cm("apply-a", a="2"), field_manager="mgr-two", force=True)["data"] == \
        {"a": "2"}
    assert client.patch("cm", "apply-a", {"data": {"m": "x"}}, type="merge")["data"] == \
        {"a": "2", "m": "x"}
    assert client.patch("cm", "apply-a", [{"op": "remove", "path": "/data/m"}],
                        type="json")["data"] == {"a": "2"}
    out = client.patch("cm", "apply-a", cm("apply-a", b="3"), type="apply",
                       field_manager="mgr-three")
    assert out["data"] == {"a": "2", "b": "3"}
    with pytest.raises(ValueError):
        client.patch("cm", "apply-a", {}, type="apply")  # no field manager
    with pytest.raises(ValueError):
        client.patch("cm", "apply-a", {}, type="bogus")
    with pytest.raises(ValueError):
        client.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    # a dry run changes nothing
    client.apply(cm("apply-a", z="9"), field_manager="mgr-three", dry_run=True)
    assert "z" not in client.get("cm", "apply-a")["data"]
    client.delete("cm", "apply-a")


def test_iter_fetches_pages_lazily(client, admin):
    for i in range(7):
        client.create("cm", cm("page-%d" % i, labels={"t": "pages"}))
    admin.request("DELETE", "/admin/faults")
    # a zero-delay fault counts the list requests the server gets
    add_fault(admin, path="/api/v1/namespaces/default/configmaps", method="GET", watch=False,
              kind="delay", ms=0, count=-1)
    it = client.iter("configmaps", label_selector="t=pages", page_size=3)
    assert fault_hits(admin) == [0]
    first = next(it)
    assert first["metadata"]["name"] == "page-0" and fault_hits(admin) == [1]
    assert it.resource_version
    rest = [next(it) for _ in range(3)]           # items 1..3: the second page
    assert fault_hits(admin) == [2]
    rest += list(it)
    assert [o["metadata"]["name"] for o in [first] + rest] == ["page-%d" % i for i in range(7)]
    assert fault_hits(admin) == [3] and it.restarts == 0
    admin.request("DELETE", "/admin/faults")
    for i in range(7):
        client.delete("cm", "page-%d" % i)


def test_close_and_children_outliving_the_client(kubeconfig):
    c = slinky.Client(kubeconfig=kubeconfig)
    c.create("cm", cm("outlive-a", labels={"t": "outlive"}))
    obj = slinky.model.NodeSet.from_dict(nodeset("kept"))
    got = c.get("cm", "outlive-a")
    it = c.iter("cm", label_selector="t=outlive")
    w = c.watch("cm", resource_version=got["metadata"]["resourceVersion"], timeout=3)
    inf = c.informer("cm", label_selector="t=outlive")
    assert inf.wait_synced(10)
    c.close()
    c.close()  # twice is fine
    assert c.closed
    with pytest.raises(slinky.InvalidError):
        c.get("cm", "outlive-a")
    with pytest.raises(ValueError):
        c.namespace
    del c
    import gc
    gc.collect()
    # made before close: still working
    assert [o["metadata"]["name"] for o in it] == ["outlive-a"]
    with slinky.Client(kubeconfig=kubeconfig) as c2:
        c2.patch("cm", "outlive-a", {"data": {"x": "1"}})
        ev = next(e for e in w if e[0] == "MODIFIED")
        assert ev[1]["data"] == {"x": "1"}
        deadline = time.monotonic() + 5
        while (inf.get("default", "outlive-a") or {}).get("data") != {"x": "1"}:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        inf.stop()
        c2.delete("cm", "outlive-a")
    # the informer's cache after stop, the model after the client: still readable
    assert inf.get("default", "outlive-a")["data"] == {"x": "1"}
    assert [o["metadata"]["name"] for o in inf.list("t=outlive")] == ["outlive-a"]
    assert obj.spec.replicas == 1 and obj.metadata.name == "kept"
    del inf, w, it
    gc.collect()


def test_informer_handlers_events_and_cache(client):
    seen = []
    lock = threading.Lock()

    def rec(kind):
        def f(*objs):
            with lock:
                seen.append((kind, objs[-1]["metadata"]["name"]))
        return f

    client.create("cm", cm("inf-a", labels={"t": "inf", "tier": "x"}))
    with client.informer("cm", label_selector="t=inf", on_add=rec("add"),
                         on_update=rec("update"), on_delete=rec("delete")) as inf:
        assert inf.has_synced and len(inf) == 1 and inf.list_count == 1
        events = inf.events(timeout=5)
        assert next(events) == slinky.Event("ADDED", inf.get("default", "inf-a"), None)
        client.create("cm", cm("inf-b", labels={"t": "inf"}))
        client.patch("cm", "inf-a", {"data": {"v": "2"}})
        client.delete("cm", "inf-b")
        got = []
        for ev in events:
            got.append((ev.type, ev.object["metadata"]["name"]))
            if ev.type == "MODIFIED":
                assert ev.old.get("data") != ev.object["data"]
            if len(got) == 3:
                break
        assert got == [("ADDED", "inf-b"), ("MODIFIED", "inf-a"), ("DELETED", "inf-b")]
        assert [o["metadata"]["name"] for o in inf.list("tier=x")] == ["inf-a"]
        assert inf.list("tier=y") == [] and inf.get("default", "inf-b") is None
        assert inf.get("default", "inf-a")["data"] == {"v": "2"}
        assert inf.resource_version
        with pytest.raises(slinky.InvalidError):
            inf.list("a in (b")
    with lock:
        assert seen == [("add", "inf-a"), ("add", "inf-b"), ("update", "inf-a"),
                        ("delete", "inf-b")]
    # events() ends after stop
    assert list(inf.events()) == [slinky.Event("ADDED", inf.get("default", "inf-a"), None)]
    client.delete("cm", "inf-a")


def test_informer_sees_kubectl_within_1s(client, kubeconfig, capsys):
    got = threading.Event()
    when = []

    def on_add(obj):
        if obj["metadata"]["name"] == "from-kubectl":
            when.append(time.monotonic())
            got.set()

    with client.informer("cm", on_add=on_add):
        start = time.monotonic()
        subprocess.run(["/usr/bin/kubectl", "--kubeconfig", kubeconfig, "create", "configmap",
                        "from-kubectl", "--from-literal=k=v"], check=True, capture_output=True)
        done = time.monotonic()
        assert got.wait(5), "the informer never saw the kubectl change"
        lag = when[0] - done
        with capsys.disabled():
            print("\ninformer saw the kubectl create %.1f ms after kubectl started, %.1f ms "
                  "after it returned" % ((when[0] - start) * 1000, lag * 1000), end="")
        assert lag < 1.0
    client.delete("cm", "from-kubectl")


def test_informer_handler_exception_does_not_kill_it(client, caplog):
    calls = []

    def bad(obj):
        calls.append(obj["metadata"]["name"])
        raise RuntimeError("handler bug")

    with client.informer("cm", label_selector="t=bad", on_add=bad) as inf:
        client.create("cm", cm("bad-1", labels={"t": "bad"}))
        client.create("cm", cm("bad-2", labels={"t": "bad"}))
        deadline = time.monotonic() + 5
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert calls == ["bad-1", "bad-2"] and len(inf) == 2
    assert [r.exc_info[1].args for r in caplog.records if r.name == "slinky.kube"] == \
        [("handler bug",), ("handler bug",)]
    client.delete("cm", "bad-1")
    client.delete("cm", "bad-2")


def test_workqueue():
    q = slinky.WorkQueue(base_delay=0.01, max_delay=1)
    q.add("a")
    q.add("a")
    q.add("b")
    assert len(q) == 2
    k = q.get()
    assert k == "a"
    q.add("a")                      # being processed: queued again only at done
    assert q.get(timeout=0.05) == "b"
    assert q.get(timeout=0.05) is None
    q.done("a")
    assert q.get(timeout=1) == "a"
    q.done("a")
    q.done("b")
    t0 = time.monotonic()
    q.add_after("later", 0.2)
    assert q.get(timeout=2) == "later" and time.monotonic() - t0 >= 0.18
    q.done("later")
    for n in range(1, 4):
        q.add_rate_limited("flaky")
        assert q.num_requeues("flaky") == n
        assert q.get(timeout=2) == "flaky"
        q.done("flaky")
    q.forget("flaky")
    assert q.num_requeues("flaky") == 0
    # workers on threads: every key once, iteration ends at shutdown
    out = []
    lock = threading.Lock()

    def worker():
        for key in q:
            with lock:
                out.append(key)
            q.done(key)

    ts = [threading.Thread(target=worker) for _ in range(3)]
    for t in ts:
        t.start()
    for i in range(100):
        q.add("k%d" % i)
    deadline = time.monotonic() + 5
    while len(out) < 100 and time.monotonic() < deadline:
        time.sleep(0.01)
    q.shutdown()
    for t in ts:
        t.join(5)
    assert sorted(out) == sorted("k%d" % i for i in range(100))
    assert q.is_shutdown and q.get() is None
    with slinky.WorkQueue() as q2:
        q2.add("x")
    assert q2.is_shutdown


def test_exit_with_a_running_informer_and_watch(kubeconfig):
    # the interpreter stops live informers at exit: no hang, no crash
    code = ("import slinky, sys\n"
            "c = slinky.Client(kubeconfig=sys.argv[1])\n"
            "inf = c.informer('cm', on_add=lambda o: None)\n"
            "assert inf.wait_synced(10)\n"
            "w = c.watch('cm')\n"
            "q = slinky.WorkQueue(); q.add('x')\n"
            "print('ok')\n")
    p = subprocess.run([os.environ.get("PYTHON", "/usr/bin/python3"), "-c", code, kubeconfig],
                       capture_output=True, text=True, timeout=30)
    assert (p.returncode, p.stdout) == (0, "ok\n"), p.stderr


def test_client_shared_by_threads(client):
    client.create("cm", cm("threads-a", k="v"))
    errors = []

    def worker():
        try:
            for _ in range(50):
                assert client.get("cm", "threads-a")["data"] == {"k": "v"}
                try:
                    client.get("cm", "threads-missing")
                except slinky.NotFoundError as e:
                    assert e.details["name"] == "threads-missing"
        except Exception as e:  # reported below
            errors.append(e)

    ts = [threading.Thread(target=worker) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert errors == []
    client.delete("cm", "threads-a")


def test_stop_from_a_handler_is_refused(client, caplog):
    got = threading.Event()
    holder = {}

    def on_add(obj):
        try:
            holder["inf"].stop()
        except slinky.InvalidError as e:
            holder["err"] = e
        got.set()

    inf = client.informer("cm", on_add=on_add, start=False)
    holder["inf"] = inf
    client.create("cm", cm("stop-self"))
    inf.start()
    assert got.wait(10)
    assert "another thread" in str(holder["err"])
    inf.stop()
    client.delete("cm", "stop-self")
