#!/bin/bash
# tools/rbac: deploy/10-rbac.yaml grants exactly what slinky-operator uses.
# The operator runs against slinky-apiserver --log-requests (one reconcile of the
# demo cluster with --once, then a few seconds with --leader-elect); every
# request it made is mapped to (apiGroup, resource[/subresource], verb) and must
# be allowed by the Role. Grants the run did not exercise are listed (they are
# code paths this run does not take: a ConfigMap create fallback, Slurm node
# counts without a live slurmctld); a grant for a resource the operator never
# touched fails (least privilege).
# usage: rbac.sh   (env: SLINKY_SOURCE_DIR, SLINKY_BUILD_DIR)
set -u
src=${SLINKY_SOURCE_DIR:?}; build=${SLINKY_BUILD_DIR:?}
op=$build/tools/slinky-operator/slinky-operator
ctl=$build/tools/slinkyctl/slinkyctl
[ -x "$op" ] && [ -x "$ctl" ] || { echo "SKIP: operator or slinkyctl not built"; exit 77; }
W=$(mktemp -d /tmp/slinky-rbac.XXXXXX)
oppid=
trap '[ -n "$oppid" ] && kill $oppid 2>/dev/null; sh "$src/tests/apiserver/stop-apiserver.sh" "$W/api"; rm -rf "$W"' EXIT
sh "$src/tests/apiserver/start-apiserver.sh" "$W/api" --log-requests || exit 1
export KUBECONFIG=$W/api/kubeconfig
"$ctl" crd >"$W/crds.yaml"
"$ctl" apply -f "$W/crds.yaml" >/dev/null && "$ctl" apply -f "$src/examples/data/demo-cluster.yaml" >/dev/null &&
  sh "$src/tools/slinky-operator/demo-secrets.sh" slurm | "$ctl" apply -f - >/dev/null || { echo "FAIL - setup"; exit 1; }
sleep 0.2
start=$(wc -l <"$W/api/apiserver.log")
mkdir -p "$W/slurm/etc"
run() { "$op" --slurm-dir "$W/slurm" --namespace slurm --no-validate --restart-command true "$@"; }
run --once >"$W/op1.log" 2>&1
run --leader-elect --lease-duration 2 >"$W/op2.log" 2>&1 &
oppid=$!
sleep 4
kill $oppid; wait $oppid 2>/dev/null; oppid=
sleep 0.2
tail -n +"$((start + 1))" "$W/api/apiserver.log" >"$W/requests.log"
/usr/bin/python3 - "$W/requests.log" "$src/deploy/10-rbac.yaml" <<'PY'
import re, sys, yaml
used = set()
for line in open(sys.argv[1]):
    m = re.search(r'\b(GET|POST|PUT|PATCH|DELETE) (/\S*?)(?:\?(\S*))?\s', line + " ")
    if not m or not (m.group(2).startswith("/api/") or m.group(2).startswith("/apis/")):
        continue
    method, path, query = m.group(1), m.group(2), m.group(3) or ""
    p = path.strip("/").split("/")
    if p[0] == "api":
        group, rest = "", p[2:]
    else:
        group, rest = p[1], p[3:]
    if rest and rest[0] == "namespaces" and len(rest) >= 3:
        rest = rest[2:]
    if not rest:
        continue  # discovery
    res, name, sub = rest[0], rest[1] if len(rest) > 1 else None, rest[2] if len(rest) > 2 else None
    verb = {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method)
    if method == "GET":
        verb = "get" if name else ("watch" if re.search(r'(^|&)watch=(true|1)', query) else "list")
    if method == "DELETE":
        verb = "delete" if name else "deletecollection"
    used.add((group, res + ("/" + sub if sub else ""), verb))
granted = set()
for doc in yaml.safe_load_all(open(sys.argv[2])):
    if doc and doc.get("kind") in ("Role", "ClusterRole"):
        for r in doc["rules"]:
            for g in r["apiGroups"]:
                for res in r["resources"]:
                    for v in r["verbs"]:
                        granted.add((g, res, v))
fail = 0
for u in sorted(used):
    if u in granted:
        print("ok   - used and granted: %s %s %s" % (u[0] or "core", u[1], u[2]))
    else:
        print("FAIL - the operator used %s %s %s: not granted by deploy/10-rbac.yaml" % (u[0] or "core", u[1], u[2]))
        fail = 1
touched = {(g, r.split("/")[0]) for g, r, v in used}
for g in sorted(granted - used):
    if (g[0], g[1].split("/")[0]) in touched:
        print("note - granted, not exercised by this run: %s %s %s" % (g[0] or "core", g[1], g[2]))
    else:
        print("FAIL - granted for a resource the operator never touched: %s %s %s" % (g[0] or "core", g[1], g[2]))
        fail = 1
if not used:
    print("FAIL - no operator request recorded")
    fail = 1
sys.exit(fail)
PY
rc=$?
[ $rc -ne 0 ] && { echo "--- operator"; tail -n 5 "$W/op1.log" "$W/op2.log"; }
exit $rc
