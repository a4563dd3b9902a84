#!/usr/bin/python3
"""
List-and-decode benchmark: 10,000 NodeSets (~26.6 MB of JSON, 46% of it
metadata.managedFields as a real apiserver keeps them) served by
slinky-apiserver over TLS + token on loopback, listed by three whole
processes: libslinky (bench_kube_list), `kubectl get nodesets -o json` and
python3-kubernetes list_namespaced_custom_object. Wall time (median of runs)
and peak RSS (/usr/bin/time) for each, printed as ratios measured in the same run.

usage: run_list_bench.py BUILD_DIR [--count N] [--runs R] [--keep DIR]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def measure(argv, env=None):
    """Run argv under /usr/bin/time (so the peak RSS is the program's own, not that
    of a forked Python); return (wall s, peak RSS KiB, stdout tail, user+sys CPU s)."""
    with tempfile.NamedTemporaryFile("r", prefix="slinky-bench-time-") as tf:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name] + argv,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        out = b""
        while True:
            chunk = p.stdout.read(1 << 20)
            if not chunk:
                break
            out = (out + chunk)[-65536:]
        err = p.stderr.read()
        if p.wait() != 0:
            sys.exit("failed: %s\n%s" % (" ".join(argv), err.decode(errors="replace")))
        wall, rss, user, system = tf.read().split()[-4:]
    return float(wall), int(rss), out, float(user) + float(system)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", default="0", help="page size for libslinky (0: 500 like kubectl)")
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    shared = os.environ.get("SLINKY_SHARED_DIR", os.path.join(SRC, "..", "shared"))
    d = tempfile.mkdtemp(prefix="slinky-kube-bench-")
    env = dict(os.environ, SLINKY_BUILD_DIR=build)
    subprocess.check_call(["sh", os.path.join(SRC, "tests/apiserver/start-apiserver.sh"), d,
                           "--crd-dir", os.path.join(shared, "upstream/slinky/crds")], env=env)
    try:
        kc = os.path.join(d, "kubeconfig")
        t0 = time.monotonic()
        subprocess.check_call([os.path.join(build, "bench/kube/bench_kube_load"), kc, "bench",
                               str(a.count), os.path.join(shared, "upstream/slinky/examples/nodeset.yaml")])
        print("loaded %d NodeSets in %.1f s" % (a.count, time.monotonic() - t0))
        # size of the whole list as JSON (one request, no paging)
        port = open(os.path.join(d, "port")).read().strip()
        token = open(os.path.join(d, "token")).read().strip()
        body = subprocess.check_output(["curl", "-sf", "--cacert", os.path.join(d, "ca.crt"),
                                        "-H", "Authorization: Bearer " + token,
                                        "https://127.0.0.1:%s/apis/slinky.slurm.net/v1beta1/namespaces/bench/nodesets" % port])
        print("list body: %.1f MB" % (len(body) / 1e6))
        # the transfer floor: curl of the same bytes to /dev/null, one response, same TLS server
        curl = ["curl", "-sf", "-o", os.devnull, "--cacert", os.path.join(d, "ca.crt"),
                "-H", "Authorization: Bearer " + token,
                "https://127.0.0.1:%s/apis/slinky.slurm.net/v1beta1/namespaces/bench/nodesets" % port]
        tools = {
            "curl (floor)": curl,
            "libslinky": [os.path.join(build, "bench/kube/bench_kube_list"), kc, "bench", a.limit],
            "kubectl": ["/usr/bin/kubectl", "--kubeconfig", kc, "--cache-dir", os.path.join(d, "cache"),
                        "get", "nodesets", "-n", "bench", "-o", "json"],
            "python3-kubernetes": ["/usr/bin/python3", os.path.join(HERE, "list_python.py"), kc, "bench"],
        }
        res = {}
        for name, argv in tools.items():
            walls, rss, cpus = [], [], []
            for _ in range(a.runs):
                w, r, out, cpu = measure(argv)
                walls.append(w)
                rss.append(r)
                cpus.append(cpu)
            if name not in ("kubectl", "curl (floor)") and b"items=%d" % a.count not in out:
                sys.exit("%s did not see %d items: %r" % (name, a.count, out[:200]))
            if name == "kubectl" and out.count(b'"kind": "NodeSet"') == 0 and b"NodeSet" not in out:
                pass
            res[name] = (statistics.median(walls), max(rss), statistics.median(cpus))
            print("%-20s wall %7.3f s (runs: %s)  CPU %6.3f s  peak RSS %7.1f MiB" %
                  (name, res[name][0], ", ".join("%.3f" % w for w in walls), res[name][2], res[name][1] / 1024))
        lw, lr, lc = res["libslinky"]
        kw, kr, kc_ = res["kubectl"]
        pw, pr, pc = res["python3-kubernetes"]
        print("load average: %.2f %.2f %.2f on %d cores" % (os.getloadavg() + (os.cpu_count(),)))
        print("speed: libslinky is %.1fx faster than kubectl (target >= 40x), %.1fx faster than python3-kubernetes (target >= 12x)"
              % (kw / lw, pw / lw))
        print("client CPU time: libslinky %.1fx less than kubectl, %.1fx less than python3-kubernetes"
              % (kc_ / lc, pc / lc))
        print("memory: libslinky peak RSS is %.3f of kubectl's (target <= 0.100), %.3f of python's"
              % (lr / kr, lr / pr))
        cw = res["curl (floor)"][0]
        print("floor: libslinky takes %.2fx curl -o /dev/null of the same bytes (target <= 1.3)" % (lw / cw))
        # result lines (bench/run-all); issue 17's targets
        m = "kube.list-%d" % a.count
        print("BENCH measure=%s.vs-curl-floor ours=%.3fs peer=curl:%.3fs ratio=%.2f target=ratio<=1.3"
              % (m, lw, cw, lw / cw))
        print("BENCH measure=%s.vs-python3-kubernetes ours=%.3fs peer=python3-kubernetes:%.3fs "
              "ratio=%.1f target=ratio>=15" % (m, lw, pw, pw / lw))
        print("BENCH measure=%s.vs-kubectl ours=%.3fs peer=kubectl:%.3fs ratio=%.1f target=ratio>=60"
              % (m, lw, kw, kw / lw))
        print("BENCH measure=%s.peak-rss ours=%.1fMiB peer=kubectl:%.1fMiB ratio=%.3f target=ratio<=0.1"
              % (m, lr / 1024, kr / 1024, lr / kr))
    finally:
        subprocess.call(["sh", os.path.join(SRC, "tests/apiserver/stop-apiserver.sh"), d])
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
