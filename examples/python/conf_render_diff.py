#!/usr/bin/python3
"""conf_render_diff.py DATA_DIR: render slurm.conf from the Slinky resources in
DATA_DIR/demo-cluster.yaml, change two keys, and print what applying that takes."""
import sys

import slinky

text = slinky.conf.render(open(sys.argv[1] + "/demo-cluster.yaml").read())
print("rendered slurm.conf: %d lines, ClusterName=%s" % (len(text.splitlines()), slinky.conf.get(text, "ClusterName")))
new = slinky.conf.set(slinky.conf.set(text, "MinJobAge", "300"), "SlurmctldPort", "7817")
d = slinky.conf.diff(text, new, version="22.05")
for c in d["changes"]:
    print("%-20s %s: %s -> %s" % (c["class"], c["key"], c["old"], c["new"]))
print("overall:", d["class"])
