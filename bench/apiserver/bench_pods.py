#!/usr/bin/python3
"""Benchmark slinky-apiserver as a cluster of pods uses it.

usage: bench_pods.py BUILD_DIR [RATE] [SECONDS] [WATCHERS] [COMPACT_SECONDS]

1. Pod churn: pod creates and status updates (one PATCH of pods/status per
   create) offered at RATE operations per second (default 1000) for SECONDS
   (default 20) by 8 keep-alive clients, with WATCHERS (default 10) watches of
   every pod open; prints the rate achieved, p50/p99/max latency, the events
   each watcher saw and the server's RSS.
2. WAL compaction: with --data-dir, 100 ConfigMaps of 20 KB (2 MB of live
   data), then a merge-patch loop on one of them for COMPACT_SECONDS (default
   60; the issue's 10 minutes is 600), sampling wal.log: prints its largest
   size against the live data.
"""
import http.client
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
START = os.path.join(SRC, "tests", "apiserver", "start-apiserver.sh")
STOP = os.path.join(SRC, "tests", "apiserver", "stop-apiserver.sh")
PODS = "/api/v1/namespaces/default/pods"


def vm(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0
    return 0.0


class Srv:
    def __init__(self, build, d, *flags):
        subprocess.run([START, d] + list(flags), check=True,
                       env=dict(os.environ, SLINKY_BUILD_DIR=build))
        self.d = d
        self.port = int(open(os.path.join(d, "port")).read())
        self.token = open(os.path.join(d, "token")).read().split()[0]
        self.ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
        self.pid = int(open(os.path.join(d, "pid")).read())
        self.hdr = {"Authorization": "Bearer " + self.token}

    def conn(self):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=30)

    def stop(self):
        subprocess.run([STOP, self.d], check=False)


def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def pct(sorted_values, p):
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p))]


def churn(srv, rate, seconds, nwatch):
    seen = [0] * nwatch
    stop = threading.Event()
    ready = threading.Barrier(nwatch + 1)

    def watcher(k):
        s = srv.ctx.wrap_socket(socket.create_connection(("127.0.0.1", srv.port)),
                                server_hostname="127.0.0.1")
        s.sendall(("GET %s?watch=true&timeoutSeconds=600 HTTP/1.1\r\nHost: x\r\n"
                   "Authorization: Bearer %s\r\n\r\n" % (PODS, srv.token)).encode())
        s.settimeout(1.0)
        ready.wait()
        buf = b""
        while not stop.is_set():
            try:
                b = s.recv(1 << 16)
            except socket.timeout:
                continue
            if not b:
                break
            buf += b
            lines = buf.split(b"\n")
            buf = lines.pop()
            # one event per line of the chunked stream (chunk sizes are lines of their own)
            seen[k] += sum(1 for l in lines if l.startswith(b'{"type":"'))
        s.close()

    ws = [threading.Thread(target=watcher, args=(k,), daemon=True) for k in range(nwatch)]
    [w.start() for w in ws]
    ready.wait()
    nclients = 8
    lat, errors, count = [], [], [0]
    lock = threading.Lock()
    t0 = time.monotonic()
    cpu0 = cpu_seconds(srv.pid)
    per_client = rate / nclients

    def client(k):
        c = srv.conn()
        h = dict(srv.hdr, **{"Content-Type": "application/json"})
        hp = dict(srv.hdr, **{"Content-Type": "application/merge-patch+json"})
        i, mine = 0, []
        while True:
            due = t0 + i / per_client  # open loop: operations are offered at the rate
            now = time.monotonic()
            if due - t0 > seconds:
                break
            if due > now:
                time.sleep(due - now)
            name = "p-%d-%d" % (k, i // 2)
            if i % 2 == 0:
                body = {"metadata": {"name": name, "labels": {"app": "bench"}},
                        "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
                method, path, hd = "POST", PODS, h
            else:
                body = {"status": {"phase": "Running", "conditions": [
                    {"type": "Ready", "status": "True"}]}}
                method, path, hd = "PATCH", "%s/%s/status" % (PODS, name), hp
            t = time.monotonic()
            c.request(method, path, body=json.dumps(body), headers=hd)
            r = c.getresponse()
            r.read()
            mine.append(time.monotonic() - max(t, due))  # counted from when it was due
            if r.status not in (200, 201):
                errors.append(r.status)
            i += 1
        with lock:
            lat.extend(mine)
            count[0] += i
        c.close()

    cs = [threading.Thread(target=client, args=(k,)) for k in range(nclients)]
    [x.start() for x in cs]
    [x.join() for x in cs]
    dt = time.monotonic() - t0
    cpu = cpu_seconds(srv.pid) - cpu0
    time.sleep(1.0)
    stop.set()
    lat.sort()
    print("pod churn: %d ops (creates + status updates) offered at %d/s for %d s: %.0f/s achieved,"
          " %d errors" % (count[0], rate, seconds, count[0] / dt, len(errors)))
    print("  server CPU %.1f s in %.1f s (%.0f%% of one core; the rest of the time is the "
          "Python clients')" % (cpu, dt, 100 * cpu / dt))
    print("  latency from the due time: p50 %.1f ms, p99 %.1f ms, max %.1f ms"
          % (pct(lat, 0.5) * 1e3, pct(lat, 0.99) * 1e3, lat[-1] * 1e3 if lat else 0))
    print("  %d watchers saw %d..%d events each (expected %d)"
          % (nwatch, min(seen), max(seen), count[0]))
    print("  server RSS %.1f MB (peak %.1f MB), threads %d"
          % (vm(srv.pid, "VmRSS"), vm(srv.pid, "VmHWM"),
             int([l for l in open("/proc/%d/status" % srv.pid) if l.startswith("Threads:")][0]
                 .split()[1])))


def compaction(build, tmp, seconds):
    data = os.path.join(tmp, "data")
    srv = Srv(build, os.path.join(tmp, "srv2"), "--data-dir", data)
    cms = "/api/v1/namespaces/default/configmaps"
    try:
        c = srv.conn()
        h = dict(srv.hdr, **{"Content-Type": "application/json"})
        for i in range(100):
            c.request("POST", cms, headers=h, body=json.dumps(
                {"metadata": {"name": "cm-%03d" % i}, "data": {"v": "0" * 20000}}))
            r = c.getresponse()
            r.read()
            assert r.status == 201, r.status
        c.request("GET", cms, headers=srv.hdr)
        live = len(c.getresponse().read())
        hp = dict(srv.hdr, **{"Content-Type": "application/merge-patch+json"})
        log = os.path.join(data, "wal.log")
        t0, n, peak = time.monotonic(), 0, 0
        while time.monotonic() - t0 < seconds:
            c.request("PATCH", cms + "/cm-007", headers=hp,
                      body=json.dumps({"data": {"v": ("%05d" % n) * 4000}}))
            r = c.getresponse()
            r.read()
            assert r.status == 200, r.status
            n += 1
            if n % 10 == 0:
                peak = max(peak, os.path.getsize(log))
        dt = time.monotonic() - t0
        print("WAL compaction: %d patches of a 20 KB object in %.0f s (%.0f/s) over %.2f MB of "
              "live data: wal.log at most %.2f MB = %.2fx the live data; server RSS %.1f MB"
              % (n, dt, n / dt, live / 1e6, peak / 1e6, peak / live, vm(srv.pid, "VmRSS")))
    finally:
        srv.stop()


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build")
    rate = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    nwatch = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    csec = int(sys.argv[5]) if len(sys.argv) > 5 else 60
    tmp = tempfile.mkdtemp(prefix="slinky-bench-pods-")
    try:
        srv = Srv(build, os.path.join(tmp, "srv"))
        try:
            print("server: pid %d, RSS at start %.1f MB" % (srv.pid, vm(srv.pid, "VmRSS")))
            churn(srv, rate, seconds, nwatch)
        finally:
            srv.stop()
        compaction(build, tmp, csec)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
