#!/usr/bin/python3
"""Layering of slinky-apiserver: no circle of calls between its files (from
the symbols each object of the server's static library defines and uses) and
no circle of includes between its headers; every file named in README.md.

usage: layers.py SOURCE_DIR/apiserver libslinky_apiserver_core.a"""
import collections
import os
import re
import subprocess
import sys


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def call_graph(lib):
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    defs, uses = {}, collections.defaultdict(set)
    for line in out.splitlines():
        # "lib.a:member.o:ADDRESS T symbol" or "lib.a:member.o:         U symbol"
        head, sep, rest = line.rpartition(".o:")
        if not sep:
            continue
        member = head.rsplit(":", 1)[-1]
        parts = rest.split()
        uses.setdefault(member, set())
        if len(parts) == 3 and parts[1] in "TDBRC":
            defs[parts[2]] = member
        elif len(parts) == 2 and parts[0] == "U":
            uses[member].add(parts[1])
    return {f: {defs[s] for s in u if s in defs and defs[s] != f} for f, u in uses.items()}


def include_graph(src):
    g = {}
    for f in os.listdir(src):
        if f.endswith((".h", ".c")):
            g[f] = set(re.findall(r'#include "([^"]+)"', open(os.path.join(src, f)).read()))
    return g


def main():
    src, lib = sys.argv[1], sys.argv[2]
    bad = []
    calls = call_graph(lib)
    if len(calls) < 10:
        bad.append("only %d objects in %s" % (len(calls), lib))
    for c in cycles(calls):
        bad.append("call circle: " + " <-> ".join(c))
    for c in cycles(include_graph(src)):
        bad.append("include circle: " + " <-> ".join(c))
    readme = open(os.path.join(src, "README.md")).read()
    files = sorted(f for f in os.listdir(src) if f.endswith((".c", ".h", ".txt")))
    missing = [f for f in files if "`" + f + "`" not in readme]
    if missing:
        bad.append("README.md does not name: " + " ".join(missing))
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("%d files, no call or include circle" % len(calls))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
