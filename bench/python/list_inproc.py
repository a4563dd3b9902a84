"""The two list calls alone, in one process, alternating (imports and interpreter start-up
excluded): median wall and CPU seconds of each over ROUNDS rounds.

usage: list_inproc.py KUBECONFIG NAMESPACE ROUNDS
"""
import gc
import statistics
import sys
import time

from kubernetes import client, config

import slinky


def timed(fn):
    gc.collect()
    w, c = time.monotonic(), time.process_time()
    items = fn()
    w, c = time.monotonic() - w, time.process_time() - c
    n = len(items)
    del items
    return w, c, n


def main():
    kc, ns, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    config.load_kube_config(config_file=kc)
    api = client.CustomObjectsApi()
    sc = slinky.Client(kubeconfig=kc)
    calls = {
        "slinky": lambda: sc.list("nodesets", namespace=ns)["items"],
        "python3-kubernetes": lambda: api.list_namespaced_custom_object(
            "slinky.slurm.net", "v1beta1", ns, "nodesets")["items"],
    }
    res = {n: ([], []) for n in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            w, c, n = timed(fn)
            res[name][0].append(w)
            res[name][1].append(c)
    for name, (walls, cpus) in res.items():
        print("inproc %s items=%d wall=%.3f cpu=%.3f" % (name, n, statistics.median(walls),
                                                         statistics.median(cpus)))


if __name__ == "__main__":
    main()
