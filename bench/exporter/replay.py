"""replay.py REC_DIR EXPORTER ITERS REPLAY_SERVER: serve recorded slurmrestd answers on loopback, time
slinky-exporter's scrapes of them (and its RSS), and python3's fetch + json decoding of the
same bytes. Prints one line per figure."""
import atexit
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request

rec, exporter, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = {}
for f in os.listdir(rec):
    files["/" + f[:-5].replace("_", "/")] = open(os.path.join(rec, f), "rb").read()


replay = subprocess.Popen([sys.argv[4], rec], stdout=subprocess.PIPE, text=True)
atexit.register(lambda: (replay.terminate(), replay.wait()))
base = f"http://127.0.0.1:{replay.stdout.readline().strip()}"
nodes = len(json.loads(files["/slurm/v0.0.42/nodes"])["nodes"])
jobs = len(json.loads(files["/slurm/v0.0.42/jobs"])["jobs"])
data = {k: v for k, v in files.items() if not k.startswith("/openapi")}
print(f"recorded 24.11 answers: {nodes} nodes, {jobs} jobs, {sum(map(len, data.values()))} bytes "
      f"(+ {len(files['/openapi/v3'])} bytes of OpenAPI, read once)")

tok = os.path.join(rec, "..", "tok")
open(tok, "w").write("x" * 40)
pf = os.path.join(rec, "..", "port")
p = subprocess.Popen([exporter, "--url", base, "--token-file", tok, "--listen", "127.0.0.1:0", "--port-file", pf],
                     stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        if os.path.exists(pf) and open(pf).read().strip():
            break
        time.sleep(0.05)
    url = f"http://127.0.0.1:{open(pf).read().strip()}/metrics"

    def scrape():
        t0 = time.perf_counter()
        body = urllib.request.urlopen(url, timeout=30).read()
        return (time.perf_counter() - t0) * 1e3, body

    first, body = scrape()
    assert b"slinky_slurm_up 1" in body, body[-500:]
    ts = [scrape()[0] for _ in range(iters)]
    status = dict(line.split(":", 1) for line in open(f"/proc/{p.pid}/status") if ":" in line)
    samples = sum(1 for line in body.split(b"\n") if line and not line.startswith(b"#"))
    print(f"slinky-exporter GET /metrics: median {statistics.median(ts):.1f} ms, max {max(ts):.1f} ms over {iters} "
          f"(first, negotiating scrape {first:.1f} ms); body {len(body)} bytes, "
          f"{samples} samples")
    print(f"slinky-exporter RSS: {status['VmRSS'].strip()} (peak {status['VmHWM'].strip()})")
finally:
    p.terminate()
    p.wait()

paths = sorted(data)


def py_fetch_decode():
    t0 = time.perf_counter()
    for path in paths:
        json.loads(urllib.request.urlopen(base + path, timeout=30).read())
    return (time.perf_counter() - t0) * 1e3


def py_decode():
    t0 = time.perf_counter()
    for path in paths:
        json.loads(data[path])
    return (time.perf_counter() - t0) * 1e3


fd = [py_fetch_decode() for _ in range(iters)]
dd = [py_decode() for _ in range(iters)]
import resource  # noqa: E402
print(f"python3 fetch + json.loads of the same answers: median {statistics.median(fd):.1f} ms, max {max(fd):.1f} ms; "
      f"json.loads alone: median {statistics.median(dd):.1f} ms (python3 RSS peak "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} kB)")
ok = statistics.median(ts) < 100
print(f"target: scrape < 100 ms: {'met' if ok else 'NOT met'}")
sys.exit(0 if ok else 1)
