#!/usr/bin/python3
"""Benchmark slinky-apiserver: LIST 10,000 NodeSets and 100 concurrent watches.

usage: bench_apiserver.py BUILD_DIR [N_OBJECTS] [N_WATCHES]
Prints wall times, the server's peak RSS (VmHWM) and ratios against peers
measured in the same run.
"""
import http.client
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("SLINKY_SHARED_DIR", os.path.join(SRC, "..", "shared"))
UP = os.path.join(SHARED, "upstream", "slinky")


def load_example():
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    import yaml
    with open(os.path.join(UP, "examples", "nodeset.yaml")) as f:
        return yaml.safe_load(f)


def vm(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    nw = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    tmp = tempfile.mkdtemp(prefix="bench-apiserver-")
    d = os.path.join(tmp, "srv")
    env = dict(os.environ, SLINKY_BUILD_DIR=build)
    subprocess.run([os.path.join(SRC, "tests", "apiserver", "start-apiserver.sh"), d,
                    "--crd-dir", os.path.join(UP, "crds"), "--history", "20000"],
                   check=True, env=env)
    pid = int(open(os.path.join(d, "pid")).read())
    port = int(open(os.path.join(d, "port")).read())
    token = open(os.path.join(d, "token")).read().split()[0]
    ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
    hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    base = "/apis/slinky.slurm.net/v1beta1/namespaces/default/nodesets"
    try:
        print("server: pid %d, RSS at start %.1f MB" % (pid, vm(pid, "VmRSS")))
        proto = load_example()
        proto["metadata"]["namespace"] = "default"

        # ---- create N NodeSets (4 keep-alive clients)
        def creator(k, out):
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
            for i in range(k, n, 4):
                o = dict(proto, metadata=dict(proto["metadata"], name="ns-%05d" % i))
                c.request("POST", base, body=json.dumps(o), headers=hdr)
                r = c.getresponse()
                r.read()
                if r.status != 201:
                    out.append(r.status)
            c.close()
        errs = []
        t = time.monotonic()
        th = [threading.Thread(target=creator, args=(k, errs)) for k in range(4)]
        [x.start() for x in th]
        [x.join() for x in th]
        dt_create = time.monotonic() - t
        assert not errs, errs[:5]
        print("create %d NodeSets (validated, defaulted, 4 clients): %.2f s, %.0f/s"
              % (n, dt_create, n / dt_create))

        # ---- LIST all in one response, by curl (TLS) and by Python
        out = os.path.join(tmp, "list.json")
        url = "https://127.0.0.1:%d%s" % (port, base)
        best = 1e9
        for _ in range(3):
            t = time.monotonic()
            subprocess.run(["curl", "-sf", "--cacert", os.path.join(d, "ca.crt"), "-H",
                            "Authorization: Bearer " + token, "-o", out, url], check=True)
            best = min(best, time.monotonic() - t)
        size = os.path.getsize(out)
        listed = json.load(open(out))
        items, list_rv = listed["items"], listed["metadata"]["resourceVersion"]
        del listed
        assert len(items) == n, len(items)
        print("LIST %d NodeSets over TLS with curl: %.3f s for %.1f MB (%.0f MB/s)"
              % (n, best, size / 1e6, size / 1e6 / best))
        # peer 1: curl fetching the same bytes from Python's static file server (plain http)
        srvdir = os.path.join(tmp, "static")
        os.mkdir(srvdir)
        shutil.copy(out, os.path.join(srvdir, "list.json"))
        handler = lambda *a, **kw: http.server.SimpleHTTPRequestHandler(*a, directory=srvdir, **kw)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        handler_cls = http.server.SimpleHTTPRequestHandler
        handler_cls.log_message = lambda *a: None
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        peer = 1e9
        for _ in range(3):
            t = time.monotonic()
            subprocess.run(["curl", "-sf", "-o", os.devnull,
                            "http://127.0.0.1:%d/list.json" % httpd.server_address[1]], check=True)
            peer = min(peer, time.monotonic() - t)
        httpd.shutdown()
        print("  peer: curl of the same %.1f MB from python3 http.server (static file, no TLS): "
              "%.3f s -> apiserver/static = %.2fx" % (size / 1e6, peer, best / peer))
        print("BENCH measure=apiserver.list-%d ours=%.3fs peer=static-http-curl:%.3fs ratio=%.2f "
              "target=-" % (n, best, peer, best / peer))
        t = time.monotonic()
        json.loads(open(out, "rb").read())
        parse = time.monotonic() - t
        print("  peer: python3 json.loads of that response: %.3f s -> apiserver/parse = %.2fx"
              % (parse, best / parse))
        print("server peak RSS after create+list: %.1f MB" % vm(pid, "VmHWM"))

        # ---- 100 concurrent watches, 100 updates
        updates = 100
        got = [0] * nw
        ready = threading.Barrier(nw + 1)
        done = threading.Event()

        def watcher(k):
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                                server_hostname="127.0.0.1")
            rv = list_rv  # (parsing the 26 MB list in each of the 100 threads took minutes)
            s.sendall(("GET %s?watch=true&resourceVersion=%s&timeoutSeconds=120 HTTP/1.1\r\n"
                       "Host: x\r\nAuthorization: Bearer %s\r\n\r\n" % (base, rv, token)).encode())
            ready.wait()
            buf = b""
            while got[k] < updates:
                b = s.recv(65536)
                if not b:
                    break
                buf += b
                got[k] = buf.count(b'"type":"MODIFIED"')
            s.close()

        def update_all():
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
            ph = dict(hdr, **{"Content-Type": "application/merge-patch+json"})
            t0 = time.monotonic()
            for i in range(updates):
                c.request("PATCH", base + "/ns-%05d" % i,
                          body=json.dumps({"metadata": {"labels": {"bench": str(time.time())}}}),
                          headers=ph)
                r = c.getresponse()
                r.read()
                assert r.status == 200, r.status
            c.close()
            return time.monotonic() - t0

        solo = update_all()
        th = [threading.Thread(target=watcher, args=(k,)) for k in range(nw)]
        [x.start() for x in th]
        ready.wait()
        time.sleep(0.5)
        t = time.monotonic()
        watched = update_all()
        [x.join(60) for x in th]
        all_seen = time.monotonic() - t
        assert all(g >= updates for g in got), sorted(got)[:5]
        print("%d updates with no watcher: %.3f s; with %d watches open: %.3f s (%.2fx); "
              "all %d watches saw all %d events %.3f s after the first update"
              % (updates, solo, nw, watched, watched / solo, nw, updates, all_seen))
        print("BENCH measure=apiserver.%d-updates-under-%d-watches ours=%.3fs peer=unwatched:%.3fs "
              "ratio=%.2f target=-" % (updates, nw, watched, solo, watched / solo))
        c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
        t = time.monotonic()
        c.request("GET", base + "/ns-00001", headers=hdr)
        r = c.getresponse()
        r.read()
        print("  a GET while %d watches are idle: %.4f s (status %d)"
              % (nw, time.monotonic() - t, r.status))
        print("server peak RSS (VmHWM): %.1f MB, threads now: %s" %
              (vm(pid, "VmHWM"), len(os.listdir("/proc/%d/task" % pid))))
    finally:
        subprocess.run([os.path.join(SRC, "tests", "apiserver", "stop-apiserver.sh"), d])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
