"""10,000 create/free cycles of each object kind with flat RSS (printed), and objects that
outlive their parent."""
import gc
import os

import pytest

import slinky
from conftest import rss_kib

CYCLES = int(os.environ.get("SLINKY_PY_LEAK_CYCLES", "10000"))
WARMUP = 500
_capsys = None
LIMIT_KIB = 3 * 1024  # growth allowed over CYCLES (a leak of 1 KiB per cycle would be 10 MiB)

NODESET = ('{"apiVersion": "slinky.slurm.net/v1beta1", "kind": "NodeSet", "metadata": '
           '{"name": "w", "labels": {"a": "b"}}, "spec": {"controllerRef": {"name": "s"}, '
           '"replicas": 2, "futureField": [1, 2, 3]}}')


@pytest.fixture(autouse=True)
def _report(capsys):
    global _capsys
    _capsys = capsys


def cycles(label, fn):
    for _ in range(WARMUP):
        fn()
    gc.collect()
    before = rss_kib()
    for _ in range(CYCLES):
        fn()
    gc.collect()
    after = rss_kib()
    with _capsys.disabled():  # shown in the test command's output
        print("\n%-14s %6d create/free cycles: RSS %7.1f MiB -> %7.1f MiB (%+.0f KiB)" %
              (label, CYCLES, before / 1024, after / 1024, after - before), end="")
    assert after - before < LIMIT_KIB, "%s: RSS grew by %d KiB" % (label, after - before)


@pytest.fixture(scope="module")
def leak_ns(kubeconfig):
    with slinky.Client(kubeconfig=kubeconfig) as c:
        c.create("namespaces", {"metadata": {"name": "leaks"}})
        c.rv_before = c.list("cm", namespace="leaks")["metadata"]["resourceVersion"]
        c.create("cm", {"metadata": {"name": "one", "namespace": "leaks"}, "data": {"k": "v"}},
                 namespace="leaks")
        yield c
        c.delete("cm", "one", namespace="leaks")


def test_doc_cycles():
    cycles("Doc", lambda: slinky.Doc.from_json(NODESET).to_python())


def test_error_cycles():
    def fail():
        try:
            slinky.loads_json('{"a": ')
        except slinky.ParseError:
            pass
    cycles("ParseError", fail)


def test_model_cycles():
    def one():
        ns = slinky.model.NodeSet.from_json(NODESET)
        assert ns.spec.replicas == 2 and ns.validate() == []
    cycles("NodeSet", one)


def test_jail_cycles():
    cycles("JailSpec", lambda: slinky.JailSpec.default().render_bwrap({"job_id": "1"}))


def test_workqueue_cycles():
    def one():
        q = slinky.WorkQueue()
        q.add("a")
        q.done(q.get())
    cycles("WorkQueue", one)


def test_ledger_cycles(tmp_path):
    path = str(tmp_path / "l.git")
    slinky.Ledger.init(path).add_user("leak")

    def one():
        with slinky.Ledger.open(path) as l:
            l.get("user", "leak")
    cycles("Ledger", one)


def test_client_cycles(kubeconfig):
    cycles("Client", lambda: slinky.Client(kubeconfig=kubeconfig).close())


def test_request_cycles(leak_ns):
    cycles("get", lambda: leak_ns.get("cm", "one", namespace="leaks"))


def test_list_iterator_cycles(leak_ns):
    cycles("ListIterator", lambda: list(leak_ns.iter("cm", namespace="leaks")))


def test_watch_cycles(leak_ns):
    def one():  # a connection each time, and the one event since rv_before
        with leak_ns.watch("cm", namespace="leaks", resource_version=leak_ns.rv_before,
                           timeout=10) as w:
            assert next(w)[0] == "ADDED"
    cycles("Watch", one)


def test_informer_cycles(leak_ns):
    def one():
        inf = leak_ns.informer("cm", namespace="leaks")
        assert inf.wait_synced(10) and inf.get("leaks", "one")
        inf.stop()
    cycles("Informer", one)


def test_exceptions_from_server_cycles(leak_ns):
    def one():
        try:
            leak_ns.get("cm", "absent", namespace="leaks")
        except LookupError as e:
            assert e.details["name"] == "absent"
    cycles("NotFoundError", one)
