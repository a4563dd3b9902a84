"""Command-line behavior: --insecure-http, token files with several tokens, given TLS files."""
import http.client
import os
import shutil
import ssl
import subprocess
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def binary():
    b = os.environ.get("SLINKY_APISERVER_BIN") or os.path.join(
        os.environ.get("SLINKY_BUILD_DIR", ""), "apiserver", "slinky-apiserver")
    assert os.access(b, os.X_OK), b
    return b


@pytest.fixture
def run():
    procs, tmp = [], tempfile.mkdtemp(prefix="slinky-apiserver-flags-")

    def start(*args):
        pf = os.path.join(tmp, "port%d" % len(procs))
        p = subprocess.Popen([binary(), "--port-file", pf] + list(args),
                             stderr=subprocess.PIPE)
        procs.append(p)
        for _ in range(200):
            if os.path.exists(pf) and os.path.getsize(pf):
                return int(open(pf).read())
            assert p.poll() is None, p.stderr.read().decode()
            time.sleep(0.05)
        raise AssertionError("server did not start")
    yield start, tmp
    for p in procs:
        p.terminate()
        assert p.wait(10) == 0
    shutil.rmtree(tmp, ignore_errors=True)


def get(port, path, token=None, ctx=None):
    c = (http.client.HTTPSConnection("127.0.0.1", port, context=ctx) if ctx
         else http.client.HTTPConnection("127.0.0.1", port))
    c.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def test_insecure_http_needs_no_token(run):
    start, tmp = run
    kc = os.path.join(tmp, "kc")
    port = start("--insecure-http", "--kubeconfig", kc)
    assert get(port, "/api/v1/namespaces") == 200
    assert "server: http://127.0.0.1:%d" % port in open(kc).read()


def test_token_file_with_several_tokens(run):
    start, tmp = run
    tf = os.path.join(tmp, "tokens")
    with open(tf, "w") as f:
        f.write("# comment\ntok-one,alice,1000\n\n  tok-two  \n")
    ca = os.path.join(tmp, "ca.pem")
    port = start("--token-file", tf, "--ca-file", ca)
    ctx = ssl.create_default_context(cafile=ca)
    assert get(port, "/api/v1/namespaces", "tok-one", ctx) == 200
    assert get(port, "/api/v1/namespaces", "tok-two", ctx) == 200
    assert get(port, "/api/v1/namespaces", "tok-three", ctx) == 401
    assert get(port, "/api/v1/namespaces", None, ctx) == 401
    assert get(port, "/readyz", None, ctx) == 200
    # the generated certificate is valid for localhost too
    ctx2 = ssl.create_default_context(cafile=ca)
    c = http.client.HTTPSConnection("localhost", port, context=ctx2)
    c.request("GET", "/healthz")
    assert c.getresponse().status == 200


@pytest.mark.skipif(not shutil.which("openssl"), reason="needs openssl")
def test_given_tls_files(run):
    start, tmp = run
    crt, key = os.path.join(tmp, "crt.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    tf = os.path.join(tmp, "t")
    port = start("--tls-cert", crt, "--tls-key", key, "--token-file", tf)
    token = open(tf).read().split()[0]
    assert len(token) >= 32
    ctx = ssl.create_default_context(cafile=crt)
    assert get(port, "/api", token, ctx) == 200
