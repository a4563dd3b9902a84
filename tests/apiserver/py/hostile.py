"""Helpers for the hostile-client tests: a server of their own with given flags, raw TLS sockets."""
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time


def binary():
    b = os.environ.get("SLINKY_APISERVER_BIN") or os.path.join(
        os.environ.get("SLINKY_BUILD_DIR", ""), "apiserver", "slinky-apiserver")
    assert os.access(b, os.X_OK), b
    return b


class Server:
    """slinky-apiserver over TLS with tokens "tok-a" and "tok-b" and extra flags."""

    def __init__(self, *flags, data_dir=None):
        self.tmp = tempfile.mkdtemp(prefix="slinky-apiserver-hostile-")
        tf = os.path.join(self.tmp, "tokens")
        with open(tf, "w") as f:
            f.write("tok-a,alice\ntok-b,bob\n")
        self.ca = os.path.join(self.tmp, "ca.pem")
        pf = os.path.join(self.tmp, "port")
        args = [binary(), "--port-file", pf, "--token-file", tf, "--ca-file", self.ca]
        if data_dir:
            args += ["--data-dir", data_dir]
        self.log = open(os.path.join(self.tmp, "log"), "w+")
        self.proc = subprocess.Popen(args + list(flags), stderr=self.log)
        for _ in range(400):
            if os.path.exists(pf) and os.path.getsize(pf):
                break
            if self.proc.poll() is not None:
                raise AssertionError("server exited: " + self.stderr())
            time.sleep(0.05)
        else:
            raise AssertionError("server did not start")
        self.port = int(open(pf).read())
        self.ctx = ssl.create_default_context(cafile=self.ca)

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def conn(self, timeout=10):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx,
                                           timeout=timeout)

    def call(self, method, path, body=None, token="tok-a", ctype="application/json",
             timeout=10):
        c = self.conn(timeout)
        h = {"Authorization": "Bearer " + token} if token else {}
        if body is not None:
            h["Content-Type"] = ctype
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            doc = json.loads(data) if data else None
        except ValueError:
            doc = data
        return r.status, doc

    def raw(self, timeout=10):
        """A TLS socket to the server (for half-sent requests)."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        return self.ctx.wrap_socket(s, server_hostname="127.0.0.1")

    def threads(self):
        for line in open("/proc/%d/status" % self.proc.pid):
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return -1

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def read_status(sock, limit=5.0):
    """The status code of the first response line on a raw socket (None: nothing came)."""
    sock.settimeout(limit)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ssl.SSLError, OSError):
        pass
    if not data.startswith(b"HTTP/1."):
        return None
    return int(data.split(b" ", 2)[1])
