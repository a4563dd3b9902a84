"""Fault injection (/admin/faults, --enable-faults): each kind seen by a plain client."""
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def srv():
    tmp = tempfile.mkdtemp(prefix="slinky-apiserver-faults-")
    d = os.path.join(tmp, "srv")
    subprocess.run([os.path.join(HERE, "..", "start-apiserver.sh"), d, "--enable-faults"],
                   check=True)
    info = {
        "port": int(open(os.path.join(d, "port")).read()),
        "token": open(os.path.join(d, "token")).read().split()[0],
        "admin": open(os.path.join(d, "admin-token")).read().split()[0],
        "ctx": ssl.create_default_context(cafile=os.path.join(d, "ca.crt")),
    }
    for i in range(3):
        status, _, _ = call(info, "POST", CM, {"metadata": {"name": "f%d" % i}})
        assert status == 201
    yield info
    subprocess.run([os.path.join(HERE, "..", "stop-apiserver.sh"), d], check=False)
    shutil.rmtree(tmp, ignore_errors=True)


def call(s, method, path, body=None, admin=False):
    c = http.client.HTTPSConnection("127.0.0.1", s["port"], context=s["ctx"], timeout=20)
    h = {"Authorization": "Bearer " + (s["admin"] if admin else s["token"])}
    data = None
    if body is not None:
        data = json.dumps(body)
        h["Content-Type"] = "application/json"
    c.request(method, path, body=data, headers=h)
    r = c.getresponse()
    out = r.read()
    c.close()
    return r.status, dict(r.getheaders()), out


def fault(s, **kw):
    status, _, body = call(s, "POST", "/admin/faults", kw, admin=True)
    assert status == 201, body
    return json.loads(body)


@pytest.fixture(autouse=True)
def clear(srv):
    call(srv, "DELETE", "/admin/faults", admin=True)
    yield


def raw_get(s, path):
    """The raw HTTP/1.1 bytes of a response (to see chunk boundaries)."""
    sock = s["ctx"].wrap_socket(socket.create_connection(("127.0.0.1", s["port"])),
                                server_hostname="127.0.0.1")
    sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                  "Connection: close\r\n\r\n" % (path, s["token"])).encode())
    data = b""
    while True:
        try:
            b = sock.recv(65536)
        except (ssl.SSLError, ConnectionError):
            break
        if not b:
            break
        data += b
    sock.close()
    return data


def chunks(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    sizes, out = [], b""
    while body:
        line, _, body = body.partition(b"\r\n")
        n = int(line.split(b";")[0], 16)
        if n == 0:
            break
        sizes.append(n)
        out += body[:n]
        body = body[n + 2:]
    return head, sizes, out


def test_admin_needs_its_own_token(srv):
    status, _, _ = call(srv, "GET", "/admin/faults")
    assert status == 401
    status, _, body = call(srv, "GET", "/admin/faults", admin=True)
    assert status == 200 and json.loads(body)["faults"] == []


def test_429_with_retry_after_then_normal(srv):
    fault(srv, path=CM, kind="status", code=429, retryAfter=2, count=1)
    status, headers, body = call(srv, "GET", CM)
    assert status == 429
    assert headers["Retry-After"] == "2"
    st = json.loads(body)
    assert st["reason"] == "TooManyRequests" and st["details"]["retryAfterSeconds"] == 2
    assert call(srv, "GET", CM)[0] == 200


@pytest.mark.parametrize("code,reason", [(500, "InternalError"), (503, "ServiceUnavailable")])
def test_500_and_503(srv, code, reason):
    fault(srv, path="/api/v1/*", kind="status", code=code, count=2)
    for _ in range(2):
        status, _, body = call(srv, "GET", CM)
        assert status == code and json.loads(body)["reason"] == reason
    assert call(srv, "GET", CM)[0] == 200
    faults = json.loads(call(srv, "GET", "/admin/faults", admin=True)[2])["faults"]
    assert faults[0]["hits"] == 2 and faults[0]["remaining"] == 0


def test_delay(srv):
    fault(srv, path=CM, kind="delay", ms=600)
    t = time.monotonic()
    assert call(srv, "GET", CM)[0] == 200
    assert time.monotonic() - t >= 0.6
    t = time.monotonic()
    call(srv, "GET", CM)
    assert time.monotonic() - t < 0.5


def test_tiny_chunks(srv):
    fault(srv, path=CM, kind="tiny-chunks", bytes=7)
    head, sizes, body = chunks(raw_get(srv, CM))
    assert b"200" in head.split(b"\r\n")[0]
    assert len(sizes) > 20 and max(sizes) <= 7
    assert json.loads(body)["kind"] == "ConfigMapList"


def test_drop_mid_body(srv):
    fault(srv, path=CM, kind="drop")
    with pytest.raises((http.client.IncompleteRead, ConnectionError, ssl.SSLError)):
        call(srv, "GET", CM)
    assert call(srv, "GET", CM)[0] == 200


def watch_lines(srv, query):
    raw = raw_get(srv, CM + "?watch=true&" + query)
    _, _, body = chunks(raw)
    return [json.loads(l) for l in body.decode().splitlines() if l.strip()]


def test_close_watch_after_n_events(srv):
    fault(srv, path=CM, watch=True, kind="close-watch", events=2)
    t = time.monotonic()
    evs = watch_lines(srv, "resourceVersion=0&timeoutSeconds=20")
    assert [e["type"] for e in evs] == ["ADDED", "ADDED"]
    assert time.monotonic() - t < 10


def test_watch_410(srv):
    fault(srv, path=CM, watch=True, kind="watch-410")
    evs = watch_lines(srv, "timeoutSeconds=20")
    assert len(evs) == 1 and evs[0]["type"] == "ERROR"
    assert evs[0]["object"]["code"] == 410 and evs[0]["object"]["reason"] == "Expired"
