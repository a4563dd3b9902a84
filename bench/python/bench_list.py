#!/usr/bin/python3
"""
Python list benchmark: 10,000 NodeSets (the setup of bench/kube/run_list_bench.py:
slinky-apiserver over TLS + token on loopback, loaded by bench_kube_load) listed into
Python dicts by two whole processes in the same run:

  slinky               slinky.Client.list("nodesets", namespace=...)      (list_slinky.py)
  python3-kubernetes   CustomObjectsApi.list_namespaced_custom_object(...) (bench/kube/list_python.py)

Prints wall time (median of runs), client CPU time and peak RSS (/usr/bin/time) of each
and their ratios (targets: slinky >= 5x faster, <= 1/3 of the peak RSS); then the two
calls alone, timed inside one process (list_inproc.py), without start-up and imports.

usage: bench_list.py BUILD_DIR [--count N] [--runs R]
"""
import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "bench", "kube"))
from run_list_bench import measure  # noqa: E402  (the same /usr/bin/time measurement)


@contextlib.contextmanager
def served_nodesets(build, count):
    """slinky-apiserver holding `count` NodeSets in namespace "bench"; yields the kubeconfig."""
    shared = os.environ.get("SLINKY_SHARED_DIR", os.path.join(SRC, "..", "shared"))
    upstream = os.path.join(shared, "upstream", "slinky")
    folder = tempfile.mkdtemp(prefix="slinky-py-bench-")
    scripts = os.path.join(SRC, "tests", "apiserver")
    subprocess.check_call(["sh", os.path.join(scripts, "start-apiserver.sh"), folder, "--crd-dir",
                           os.path.join(upstream, "crds")],
                          env=dict(os.environ, SLINKY_BUILD_DIR=build))
    try:
        kubeconfig = os.path.join(folder, "kubeconfig")
        started = time.monotonic()
        loader = os.path.join(build, "bench", "kube", "bench_kube_load")
        subprocess.check_call([loader, kubeconfig, "bench", str(count),
                               os.path.join(upstream, "examples", "nodeset.yaml")])
        print("loaded %d NodeSets in %.1f s" % (count, time.monotonic() - started))
        yield kubeconfig
    finally:
        subprocess.call(["sh", os.path.join(scripts, "stop-apiserver.sh"), folder])
        shutil.rmtree(folder, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    with served_nodesets(build, a.count) as kc:
        penv = dict(os.environ, PYTHONPATH=os.path.join(build, "bindings/python"),
                    LD_LIBRARY_PATH=build)
        tools = {
            "slinky": ["/usr/bin/python3", os.path.join(HERE, "list_slinky.py"), kc, "bench"],
            "python3-kubernetes": ["/usr/bin/python3", os.path.join(SRC, "bench/kube/list_python.py"),
                                   kc, "bench"],
        }
        runs = {n: ([], [], []) for n in tools}
        for _ in range(a.runs):  # interleaved, so both see the same machine load
            for name, argv in tools.items():
                w, r, out, cpu = measure(argv, env=penv)
                if b"items=%d" % a.count not in out:
                    sys.exit("%s did not see %d items: %r" % (name, a.count, out[:200]))
                for lst, v in zip(runs[name], (w, r, cpu)):
                    lst.append(v)
        res = {}
        for name, (walls, rss, cpus) in runs.items():
            res[name] = (statistics.median(walls), max(rss), statistics.median(cpus))
            print("%-20s wall %6.3f s (runs: %s)  CPU %6.3f s  peak RSS %7.1f MiB" %
                  (name, res[name][0], ", ".join("%.2f" % w for w in walls), res[name][2],
                   res[name][1] / 1024))
        sw, sr, sc = res["slinky"]
        kw, kr, kc_ = res["python3-kubernetes"]
        print("load average: %.2f %.2f %.2f on %d cores" % (os.getloadavg() + (os.cpu_count(),)))
        print("speed: slinky.Client.list is %.2fx faster than list_namespaced_custom_object "
              "(target >= 5x); client CPU %.2fx less" % (kw / sw, kc_ / sc))
        print("memory: slinky's peak RSS is %.3f of python3-kubernetes's (target <= 0.333)"
              % (sr / kr))
        # the calls alone (no interpreter start-up, imports or exit), in one process
        out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "list_inproc.py"), kc,
                              "bench", str(a.runs)], env=penv, check=True, capture_output=True,
                             text=True).stdout
        calls = {}
        for line in out.splitlines():
            f = line.split()
            calls[f[1]] = dict(kv.split("=") for kv in f[2:])
            print("call alone: %-20s wall %6.3f s  CPU %6.3f s" %
                  (f[1], float(calls[f[1]]["wall"]), float(calls[f[1]]["cpu"])))
        s_, k_ = calls["slinky"], calls["python3-kubernetes"]
        print("call alone: slinky.Client.list is %.2fx faster (wall), %.2fx less CPU" %
              (float(k_["wall"]) / float(s_["wall"]), float(k_["cpu"]) / float(s_["cpu"])))


if __name__ == "__main__":
    main()
