#!/usr/bin/python3
"""nodeset_pod_labeler.py: a small informer-driven controller.

Every Pod owned by a NodeSet (an ownerReference of kind NodeSet) gets the
label slinky.slurm.net/nodeset=<NodeSet name>. Two informers (NodeSets, Pods)
feed one work queue of NodeSet keys; the worker reads both caches and patches
the Pods that lack the label (once per Pod: the cache may lag behind its own
patch).

    /usr/bin/python3 nodeset_pod_labeler.py [-n NAMESPACE] [--kubeconfig FILE] [--idle SECONDS]

Runs until interrupted, or with --idle until nothing happened for SECONDS.
"""
import argparse
import time
from typing import Dict, Optional

import slinky

LABEL = "slinky.slurm.net/nodeset"


def owner(pod: Dict) -> Optional[str]:
    for ref in pod["metadata"].get("ownerReferences", []):
        if ref.get("kind") == "NodeSet":
            return str(ref["name"])
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--namespace")
    ap.add_argument("--kubeconfig")
    ap.add_argument("--idle", type=float, default=0.0, help="exit after SECONDS without work")
    args = ap.parse_args()

    client = slinky.Client(kubeconfig=args.kubeconfig, namespace=args.namespace)
    ns = client.namespace
    queue = slinky.WorkQueue()

    def nodeset_changed(*objs: Dict) -> None:
        queue.add(objs[-1]["metadata"]["name"])

    def pod_changed(*objs: Dict) -> None:
        name = owner(objs[-1])
        if name:
            queue.add(name)

    nodesets = client.informer("nodesets", on_add=nodeset_changed, on_update=nodeset_changed)
    pods = client.informer("pods", on_add=pod_changed, on_update=pod_changed)
    nodesets.wait_synced(30)
    pods.wait_synced(30)
    print("synced: %d NodeSets, %d Pods in %s" % (len(nodesets), len(pods), ns), flush=True)

    labeled = set()  # pod uids patched: the cache may not show the label yet
    last_work = time.monotonic()
    try:
        while not (args.idle and time.monotonic() - last_work > args.idle):
            key = queue.get(timeout=0.1)
            if key is None:
                continue
            last_work = time.monotonic()
            try:
                if nodesets.get(ns, key) is None:
                    continue  # deleted meanwhile
                for pod in pods.list(namespace=ns):
                    labels = pod["metadata"].get("labels", {})
                    uid = pod["metadata"]["uid"]
                    if owner(pod) == key and labels.get(LABEL) != key and uid not in labeled:
                        client.patch("pods", pod["metadata"]["name"],
                                     {"metadata": {"labels": {LABEL: key}}})
                        labeled.add(uid)
                        print("labeled pod %s for NodeSet %s" % (pod["metadata"]["name"], key),
                              flush=True)
                queue.forget(key)
            except slinky.NotFoundError:
                pass  # the pod went away: its event requeues the NodeSet if needed
            except slinky.Error as e:
                print("NodeSet %s: %s (retrying)" % (key, e), flush=True)
                queue.add_rate_limited(key)
            finally:
                queue.done(key)
    except KeyboardInterrupt:
        pass
    finally:
        queue.shutdown()
        nodesets.stop()
        pods.stop()
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
