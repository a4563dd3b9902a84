#!/usr/bin/python3
"""cluster_report.py: a Slinky cluster at a glance, from Python.

For every Controller of a namespace: whether the resource is valid, what the
operator last did with its slurm.conf (condition ConfigApplied), the static
check of its extraConf for the target Slurm version, the rendered slurm.conf
size from the ConfigMap, and its NodeSets with their Slurm node counts.

    /usr/bin/python3 cluster_report.py [-n NAMESPACE] [--kubeconfig FILE] [--slurm 22.05]

Exit status 1 when any resource is invalid or any extraConf has an error.
"""
import argparse
import sys

import slinky


def condition(obj, kind):
    for c in obj.get("status", {}).get("conditions", []):
        if c.get("type") == kind:
            return c
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--namespace")
    ap.add_argument("--kubeconfig")
    ap.add_argument("--slurm", default="22.05", help="target Slurm version")
    args = ap.parse_args()

    client = slinky.Client(kubeconfig=args.kubeconfig, namespace=args.namespace)
    bad = 0
    nodesets = client.list("nodesets")["items"]
    for ctl in client.list("controllers")["items"]:
        name = ctl["metadata"]["name"]
        errors = slinky.model.validate(ctl)
        print(f"Controller {client.namespace}/{name}: {'valid' if not errors else 'INVALID'}")
        for path, msg in errors:
            print(f"  {path}: {msg}")
        bad += bool(errors)

        cond = condition(ctl, "ConfigApplied")
        if cond:
            first = cond.get("message", "").splitlines()[0] if cond.get("message") else ""
            print(f"  ConfigApplied={cond['status']} ({cond.get('reason')}): {first}")
        else:
            print("  ConfigApplied: not reconciled yet")

        try:
            cm = client.get("configmaps", f"{name}-config")
            rendered = cm.get("data", {}).get("slurm.conf", "")
            print(f"  ConfigMap {name}-config: slurm.conf {len(rendered.splitlines())} lines, "
                  f"ClusterName={slinky.conf.get(rendered, 'ClusterName')}")
        except slinky.NotFoundError:
            rendered = ""
            print(f"  ConfigMap {name}-config: not written yet")

        # extraConf is a fragment: check it in place, after the rendered file
        # (keys set there again win, as in Slurm), and report its own lines
        extra = ctl.get("spec", {}).get("extraConf", "")
        base = rendered if rendered.endswith("\n") or not rendered else rendered + "\n"
        ok, findings = slinky.conf.check(base + extra, version=args.slurm)
        first = len(base.splitlines())
        mine = [f for f in findings if f[0] > first]
        errors_elsewhere = [f for f in findings if f[0] <= first and f[2] == "error"]
        print(f"  extraConf: {len(extra.splitlines())} lines, "
              f"{'clean' if not mine else 'see below'} for Slurm {args.slurm}")
        for line, col, sev, msg in mine:
            print(f"    line {line - first}:{col}: {sev}: {msg}")
        for line, col, sev, msg in errors_elsewhere:
            print(f"    (rendered file) line {line}:{col}: {sev}: {msg}")
        bad += not ok

        for ns in nodesets:
            if ns.get("spec", {}).get("controllerRef", {}).get("name") != name:
                continue
            st = ns.get("status", {})
            print(f"  NodeSet {ns['metadata']['name']}: desired={st.get('desired', '-')} "
                  f"ready={st.get('readyReplicas', '-')} idle={st.get('slurmIdle', '-')} "
                  f"allocated={st.get('slurmAllocated', '-')} down={st.get('slurmDown', '-')}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
