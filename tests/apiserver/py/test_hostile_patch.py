"""Bounded work: a patch or a YAML body whose result would pass the object
size limit (the body limit, 3 MiB by default) is refused with 413 while it is
applied; the object stays as it was and the server keeps serving."""
import json
import time

import pytest

from hostile import Server

CM = "/api/v1/namespaces/default/configmaps"
LIMIT = 3 * 1024 * 1024


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.stop()


def make(server, name, **data):
    st, doc = server.call("POST", CM, {"metadata": {"name": name}, "data": data})
    assert st == 201, doc
    return doc


def test_json_patch_copies_doubling_the_object(server):
    make(server, "doubling", seed="x" * 1024)
    # each copy puts all of .data into a new member of .data: 2^16 KiB = 64 MiB unbounded
    ops = [{"op": "copy", "from": "/data", "path": "/data/x%d" % i} for i in range(16)]
    t0 = time.time()
    st, doc = server.call("PATCH", CM + "/doubling", json.dumps(ops),
                          ctype="application/json-patch+json", timeout=30)
    assert st == 413, doc
    assert doc["reason"] == "RequestEntityTooLarge"
    assert time.time() - t0 < 10
    st, doc = server.call("GET", CM + "/doubling")
    assert st == 200 and list(doc["data"]) == ["seed"]
    # copies are fine while the object stays small; the failing op is named by index
    ok = [{"op": "copy", "from": "/data/seed", "path": "/data/copy"}]
    assert server.call("PATCH", CM + "/doubling", json.dumps(ok),
                       ctype="application/json-patch+json")[0] == 200
    bad = ok + [{"op": "remove", "path": "/data/missing"}]
    st, doc = server.call("PATCH", CM + "/doubling", json.dumps(bad),
                          ctype="application/json-patch+json")
    assert st == 422 and "operation 1" in doc["message"], doc


def test_merge_patch_over_the_limit(server):
    make(server, "merge", a="y" * (2 * 1024 * 1024))
    patch = {"data": {"b": "z" * (2 * 1024 * 1024)}}
    st, doc = server.call("PATCH", CM + "/merge", json.dumps(patch),
                          ctype="application/merge-patch+json")
    assert st == 413, doc
    st, doc = server.call("GET", CM + "/merge")
    assert st == 200 and "b" not in doc["data"]


def test_apply_yaml_aliases_over_the_limit(server):
    big = "w" * (100 * 1024)
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: laughs",
             "data:", "  k0: &big " + big]
    lines += ["  k%d: *big" % i for i in range(1, 60)]  # 6 MB once expanded
    body = "\n".join(lines) + "\n"
    assert len(body) < LIMIT
    st, doc = server.call("PATCH", CM + "/laughs?fieldManager=t", body,
                          ctype="application/apply-patch+yaml")
    assert st == 413, doc
    assert "alias" in doc["message"]
    assert server.call("GET", CM + "/laughs")[0] == 404
    # nested aliases: 10 levels of 10 copies
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: nested",
             "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, 10):
        lines.append("x%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)))
    st, doc = server.call("PATCH", CM + "/nested?fieldManager=t", "\n".join(lines) + "\n",
                          ctype="application/apply-patch+yaml")
    assert st in (400, 413), doc
    # a small YAML apply still works
    st, doc = server.call("PATCH", CM + "/fine?fieldManager=t",
                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n"
                          "data:\n  a: &v hello\n  b: *v\n",
                          ctype="application/apply-patch+yaml")
    assert st == 201 and doc["data"] == {"a": "hello", "b": "hello"}, doc
    assert server.call("GET", "/readyz", token=None)[0] == 200
