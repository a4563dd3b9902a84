"""/metrics: the Prometheus text format (checked by promtool from Debian's
prometheus package), counting requests by verb, resource and code, latency,
open watches and the write-ahead log."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from hostile import Server

CM = "/api/v1/namespaces/default/configmaps"


def metrics(s):
    c = s.conn()
    c.request("GET", "/metrics", headers={"Authorization": "Bearer tok-a"})
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    assert r.status == 200
    assert r.getheader("Content-Type").startswith("text/plain; version=0.0.4")
    return body


def value(text, name, **labels):
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all('%s="%s"' % kv in line for kv in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool (prometheus) not installed")
def test_metrics_pass_promtool_and_count():
    data = tempfile.mkdtemp(prefix="slinky-apiserver-metrics-")
    s = Server(data_dir=data)
    try:
        for i in range(3):
            assert s.call("POST", CM, {"metadata": {"name": "m%d" % i}})[0] == 201
        assert s.call("GET", CM + "/nope")[0] == 404
        c = s.conn(timeout=10)
        c.request("GET", CM + "?watch=1", headers={"Authorization": "Bearer tok-a"})
        assert c.getresponse().status == 200
        text = metrics(s)
        p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stdout + p.stderr
        assert value(text, "apiserver_request_total", verb="create", resource="configmaps",
                     code="201") == 3
        assert value(text, "apiserver_request_total", verb="get", resource="configmaps",
                     code="404") == 1
        assert value(text, "apiserver_request_duration_seconds_count", verb="create") >= 3
        assert value(text, "apiserver_watches") == 1
        assert value(text, "apiserver_storage_objects", resource="configmaps") >= 3
        assert value(text, "apiserver_wal_bytes") > 0
        c.close()
        # unauthenticated: 401 like every API path
        assert s.call("GET", "/metrics", token=None)[0] == 401
    finally:
        s.stop()
        shutil.rmtree(data, ignore_errors=True)
