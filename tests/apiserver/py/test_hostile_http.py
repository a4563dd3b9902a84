"""Hostile clients at the HTTP layer: authentication before the body, the body
limit, idle/read timeouts and the cap on requests in flight per client."""
import json
import socket
import ssl
import threading
import time

import pytest

from hostile import Server, read_status

CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def server(request):
    flags = getattr(request, "param", ())
    s = Server(*flags)
    yield s
    s.stop()


def send_head(sock, method, path, headers):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1"]
    lines += ["%s: %s" % kv for kv in headers.items()]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())


def test_401_before_the_body(server):
    # a huge declared body and a bad token: answered at once, nothing read
    s = server.raw()
    send_head(s, "POST", CM, {"Authorization": "Bearer nope", "Content-Type": "application/json",
                              "Content-Length": "500000000"})
    assert read_status(s) == 401
    s.close()
    # no token at all, body promised but never sent
    s = server.raw()
    send_head(s, "PUT", CM + "/x", {"Content-Length": "1000"})
    assert read_status(s) == 401
    s.close()


def test_413_for_a_declared_body_over_the_limit(server):
    s = server.raw()
    send_head(s, "POST", CM, {"Authorization": "Bearer tok-a", "Content-Type": "application/json",
                              "Content-Length": str(10 * 1024 * 1024)})
    assert read_status(s) == 413
    s.close()


def test_413_for_a_chunked_body_over_the_limit(server):
    s = server.raw()
    send_head(s, "POST", CM, {"Authorization": "Bearer tok-a", "Content-Type": "application/json",
                              "Transfer-Encoding": "chunked"})
    body = json.dumps({"metadata": {"name": "big"}, "data": {"k": "x" * (4 * 1024 * 1024)}})
    status = None
    try:
        for i in range(0, len(body), 65536):
            part = body[i:i + 65536].encode()
            s.sendall(b"%x\r\n%s\r\n" % (len(part), part))
        s.sendall(b"0\r\n\r\n")
    except (ssl.SSLError, OSError):
        pass  # the server answered and closed while we were still sending
    status = read_status(s)
    s.close()
    assert status == 413
    assert server.call("GET", CM + "/big")[0] == 404
    # a body under the limit still works
    st, _ = server.call("POST", CM, {"metadata": {"name": "small"}, "data": {"k": "v" * 1000}})
    assert st == 201


@pytest.mark.parametrize("server", [("--read-timeout", "2")], indirect=True)
def test_slow_clients_are_dropped(server):
    base = server.threads()
    socks = []
    for i in range(60):
        s = server.raw()
        if i % 2:
            s.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no end
        else:
            send_head(s, "POST", CM, {"Authorization": "Bearer tok-a",
                                      "Content-Type": "application/json",
                                      "Content-Length": "1000"})
            s.sendall(b'{"metadata":')  # and nothing more
        socks.append(s)
    time.sleep(0.5)
    assert server.threads() >= base + 50
    deadline = time.time() + 10
    while time.time() < deadline and server.threads() > base + 5:
        time.sleep(0.2)
    assert server.threads() <= base + 5, "slow connections still hold threads"
    closed = 0
    for s in socks:
        s.settimeout(2)
        try:
            closed += s.recv(100) == b""
        except (ssl.SSLError, OSError):
            closed += 1
        s.close()
    assert closed == len(socks)
    # others are served meanwhile
    assert server.call("GET", "/api/v1/namespaces")[0] == 200


@pytest.mark.parametrize("server", [("--read-timeout", "1")], indirect=True)
def test_a_quiet_watch_is_not_dropped(server):
    c = server.conn(timeout=15)
    c.request("GET", CM + "?watch=1&resourceVersion=0", headers={"Authorization": "Bearer tok-a"})
    r = c.getresponse()
    assert r.status == 200
    time.sleep(3)
    assert server.call("POST", CM, {"metadata": {"name": "late"}})[0] == 201
    ev = json.loads(r.readline())
    assert ev["type"] == "ADDED" and ev["object"]["metadata"]["name"] == "late"
    c.close()


@pytest.mark.parametrize("server", [("--max-requests-per-client", "3")], indirect=True)
def test_requests_in_flight_are_capped_per_client(server):
    watches = []
    for i in range(3):
        c = server.conn(timeout=15)
        c.request("GET", CM + "?watch=1", headers={"Authorization": "Bearer tok-a"})
        assert c.getresponse().status == 200
        watches.append(c)
    st, doc = server.call("GET", CM, token="tok-a")
    assert st == 429 and doc["reason"] == "TooManyRequests"
    # another client still gets in
    assert server.call("GET", CM, token="tok-b")[0] == 200
    for c in watches:
        c.close()
    deadline = time.time() + 10
    while time.time() < deadline and server.call("GET", CM, token="tok-a")[0] == 429:
        time.sleep(0.2)
    assert server.call("GET", CM, token="tok-a")[0] == 200
