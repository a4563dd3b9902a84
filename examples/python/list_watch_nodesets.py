#!/usr/bin/python3
"""list_watch_nodesets.py: list the NodeSets of a namespace, then follow their changes.

    /usr/bin/python3 list_watch_nodesets.py [-n NAMESPACE] [--kubeconfig FILE]
                                            [--timeout SECONDS] [--events N]

Prints one line per NodeSet (name, replicas, partition), then one line per
change ("MODIFIED workers replicas=3") until N events came or nothing happened
for SECONDS. Exit status 1 when any NodeSet does not validate.
"""
import argparse

import slinky


def describe(obj: dict) -> str:
    ns = slinky.model.NodeSet.from_dict(obj)
    part = "on" if ns.spec.partition and ns.spec.partition.enabled else "off"
    return "%s replicas=%s partition=%s" % (ns.metadata.name, ns.spec.replicas, part)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--namespace")
    ap.add_argument("--kubeconfig")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--events", type=int, default=0, help="stop after N events (0: no limit)")
    args = ap.parse_args()

    bad = 0
    with slinky.Client(kubeconfig=args.kubeconfig, namespace=args.namespace) as client:
        lst = client.list("nss")
        for obj in lst["items"]:
            problems = slinky.model.NodeSet.from_dict(obj).validate()
            print(describe(obj) + ("" if not problems else "  INVALID: " +
                                   "; ".join("%s: %s" % (p.path, p.message) for p in problems)))
            bad += bool(problems)
        print("%d NodeSets at resourceVersion %s; watching" %
              (len(lst["items"]), lst["metadata"]["resourceVersion"]), flush=True)
        seen = 0
        with client.watch("nss", resource_version=lst["metadata"]["resourceVersion"],
                          timeout=args.timeout) as w:
            for kind, obj in w:
                if kind == "BOOKMARK":
                    continue
                print("%s %s" % (kind, describe(obj)), flush=True)
                seen += 1
                if args.events and seen >= args.events:
                    break
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
