#!/usr/bin/python3
"""slurm_conf_diff.py: render slurm.conf from Slinky resources and diff it against a change.

    /usr/bin/python3 slurm_conf_diff.py RESOURCES.yaml [--set KEY=VALUE ...]
                                        [--extra-conf TEXT] [--slurm 22.05]

Renders slurm.conf from the Controller and NodeSets in RESOURCES.yaml (a YAML
stream), applies the changes to the Controller's extraConf (or --set on the
rendered file), renders again and prints what changed and what Slurm must do
for it (reconfigure, restart slurmctld...). Exit status 1 when the new file
has errors for the target Slurm version.
"""
import argparse
import sys

import slinky


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("resources")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="set a key in the rendered slurm.conf")
    ap.add_argument("--extra-conf", default=None, help="new extraConf of the Controller")
    ap.add_argument("--slurm", default="22.05")
    args = ap.parse_args()

    with open(args.resources) as f:
        docs = [d for d in slinky.loads_yaml_all(f.read())
                if d.get("kind") in ("Controller", "NodeSet", "Accounting")]
    old = slinky.conf.render(docs, version=args.slurm)
    if args.extra_conf is not None:
        for d in docs:
            if d["kind"] == "Controller":
                d["spec"]["extraConf"] = args.extra_conf
    new = slinky.conf.render(docs, version=args.slurm)
    for kv in args.set:
        key, _, value = kv.partition("=")
        new = slinky.conf.set(new, key, value)

    d = slinky.conf.diff(old, new, version=args.slurm)
    print("slurm.conf: %d lines -> %d lines; change class: %s" %
          (len(old.splitlines()), len(new.splitlines()), d["class"]))
    for c in d["changes"]:
        where = c["key"] if c["scope"] == "global" else "%s %s: %s" % (c["scope"], c["name"], c["key"])
        print("  %s: %s -> %s (%s: %s)" % (where, c["old"], c["new"], c["class"], c["reason"]))
    ok, findings = slinky.conf.check(new, version=args.slurm)
    for line, col, sev, msg in findings:
        print("  line %d:%d: %s: %s" % (line, col, sev, msg), file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
