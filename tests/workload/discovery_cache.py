"""Add API groups to kubectl's discovery cache (--cache-dir) for a server.

discovery_cache.py CACHE_DIR GROUP/VERSION:Kind:plural ...
kubectl trusts its cached discovery for hours, so a client-side dry run can
map kinds the server (slinky-apiserver) does not serve yet, e.g.
apps/v1:StatefulSet:statefulsets. Run any kubectl command first so the cache
for the server exists.
"""
import glob
import json
import os
import sys

cache, specs = sys.argv[1], sys.argv[2:]
dirs = glob.glob(os.path.join(cache, "discovery", "*"))
if len(dirs) != 1:
    sys.exit("discovery_cache.py: expected one server in %s, found %s" % (cache, dirs))
d = dirs[0]
groups_file = os.path.join(d, "servergroups.json")
groups = json.load(open(groups_file))
by_gv = {}
for s in specs:
    gv, kind, plural = s.split(":")
    by_gv.setdefault(gv, []).append((kind, plural))
for gv, kinds in by_gv.items():
    group, version = gv.split("/")
    if not any(g["name"] == group for g in groups["groups"]):
        ver = {"groupVersion": gv, "version": version}
        groups["groups"].append({"name": group, "versions": [ver], "preferredVersion": ver})
    os.makedirs(os.path.join(d, group, version), exist_ok=True)
    res = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": [
        {"name": p, "singularName": k.lower(), "namespaced": True, "kind": k,
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}
        for k, p in kinds]}
    with open(os.path.join(d, group, version, "serverresources.json"), "w") as f:
        json.dump(res, f)
with open(groups_file, "w") as f:
    json.dump(groups, f)
