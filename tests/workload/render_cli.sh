#!/usr/bin/env bash
# workload/render_cli: the two renderers a user runs on resource files, from the
# upstream examples (../shared/upstream/slinky/examples, read at test time):
#   slinkyctl conf render  - the full slurm.conf from a Controller, its NodeSet, the
#                            Accounting and the referenced prolog/epilog/configFile
#                            ConfigMaps (PROLOG & EPILOG sections included);
#   slinkyctl render       - every object the workload builders make (see below).
# usage: render_cli.sh SLINKYCTL   (env: SLINKY_SHARED_DIR)
set -u
S=$1
U=$SLINKY_SHARED_DIR/upstream/slinky/examples
D=$(mktemp -d /tmp/slinky-render-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }

# ---------------------------------------------------------------- conf render
# the upstream Controller with an Accounting and script/config ConfigMaps referenced
sed -e 's/^  prologScriptRefs: null/  prologScriptRefs: [{name: prologs}]/' \
    -e 's/^  epilogScriptRefs: null/  epilogScriptRefs: [{name: epilogs}]/' \
    -e 's/^  prologSlurmctldScriptRefs: null/  prologSlurmctldScriptRefs: [{name: ctld-prologs}]/' \
    -e 's/^  configFileRefs: null/  configFileRefs: [{name: extra-files}]/' \
    -e 's/^spec:$/spec:\n  accountingRef: {name: test-release-slurm}/' "$U/controller.yaml" > "$D/controller.yaml"
cat > "$D/configmaps.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: prologs, namespace: test-namespace}
data: {90-last.sh: "#!/bin/sh\n", 00-first.sh: "#!/bin/sh\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: epilogs, namespace: test-namespace}
data: {epilog.sh: "#!/bin/sh\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ctld-prologs, namespace: test-namespace}
data: {ctld.sh: "#!/bin/sh\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: extra-files, namespace: test-namespace}
data: {cgroup.conf: "CgroupPlugin=autodetect\n"}
YAML
if "$S" conf render "$D/controller.yaml" "$U/nodeset.yaml" "$U/accounting.yaml" "$D/configmaps.yaml" \
     > "$D/slurm.conf" 2> "$D/err"; then ok "conf render"; else bad "conf render: $(cat "$D/err")"; fi
sections=$(grep '^### ' "$D/slurm.conf" | paste -sd '|')
want='### GENERAL ###|### LOGGING ###|### PLUGINS & PARAMETERS ###|### ACCOUNTING ###|### SLURMCTLD PROLOG & EPILOG ###|### PROLOG & EPILOG ###|### NODESET & PARTITION ###'
[ "$sections" = "$want" ] && ok "conf render: upstream's sections in order" || bad "sections: $sections"
body=$(sed -n '/^### PROLOG & EPILOG ###$/,/^#$/p' "$D/slurm.conf" | grep -v '^#' | paste -sd '|')
[ "$body" = "Prolog=00-first.sh|Prolog=90-last.sh|Epilog=epilog.sh" ] && ok "conf render: PROLOG & EPILOG" || bad "prolog section: $body"
grep -qx 'PrologSlurmctld=/etc/slurm/ctld.sh' "$D/slurm.conf" && ok "conf render: PrologSlurmctld path" || bad "no PrologSlurmctld line"
grep -qx 'ClusterName=test-namespace_test-release-slurm' "$D/slurm.conf" && ok "conf render: default ClusterName" || bad "ClusterName"
grep -qx 'AccountingStorageHost=test-release-slurm-accounting' "$D/slurm.conf" && ok "conf render: accounting" || bad "accounting"
grep -qx 'NodeSet=slinky Feature=slinky' "$D/slurm.conf" && ok "conf render: NodeSet line (hostname prefix)" || bad "NodeSet line: $(grep NodeSet= "$D/slurm.conf")"
"$S" conf check "$D/slurm.conf" > "$D/out" 2>&1 && ok "conf render: output passes conf check" || bad "check: $(cat "$D/out")"
# the configFileRefs ConfigMap has cgroup.conf, but --file cgroup renders ours regardless (the
# Controller builder skips it); a missing ConfigMap is an error naming the field
"$S" conf render "$D/controller.yaml" "$U/nodeset.yaml" > "$D/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q 'spec.configFileRefs\[0\]: no ConfigMap "extra-files"' "$D/out"; then
  ok "conf render: missing ConfigMap named"; else bad "missing ConfigMap (rc $rc): $(cat "$D/out")"; fi
# slurmdbd.conf: StoragePass from the passwordKeyRef Secret when given
printf 'apiVersion: v1\nkind: Secret\nmetadata: {name: mariadb-password, namespace: test-namespace}\nstringData: {password: s3cret}\n' > "$D/pass.yaml"
if "$S" conf render --file slurmdbd "$U/accounting.yaml" "$D/pass.yaml" > "$D/dbd.conf" 2> "$D/err" \
   && grep -qx 'StoragePass=s3cret' "$D/dbd.conf" && grep -qx 'StoragePort=3306' "$D/dbd.conf"; then
  ok "conf render slurmdbd: password from the Secret, schema port default"; else bad "slurmdbd: $(cat "$D/err" "$D/dbd.conf")"; fi

# ---------------------------------------------------------------- render
# the examples as `kubectl get -o yaml` would give them: with uids (the owner references
# need them), and the Secrets they reference
. "$(dirname "$0")/render_inputs.sh"
render_inputs "$U" "$D/in"
F=$(ls "$D"/in/*.yaml)
if "$S" render --now 1700000000 $F > "$D/all.yaml" 2> "$D/err"; then ok "render"; else bad "render: $(cat "$D/err")"; fi
"$S" render -o json --now 1700000000 $F > "$D/all.json" 2> "$D/err" || bad "render -o json: $(cat "$D/err")"
# every object ready for apply: apiVersion, kind, name, namespace, a controller owner with a uid
out=$(/usr/bin/python3 - "$D/all.json" <<'PY'
import json, sys, collections
l = json.load(open(sys.argv[1]))
assert l["kind"] == "List" and l["apiVersion"] == "v1"
kinds = collections.Counter()
for o in l["items"]:
    m = o["metadata"]
    assert o["apiVersion"] and o["kind"] and m["name"] and m["namespace"] == "test-namespace", o
    for r in m.get("ownerReferences", []):
        assert r["uid"] and r["controller"] is True, r
    kinds[o["kind"]] += 1
print(" ".join("%s=%d" % kv for kv in sorted(kinds.items())))
PY
)
want="ConfigMap=2 Deployment=2 Pod=1 PodDisruptionBudget=1 Secret=3 Service=6 StatefulSet=2"
[ "$out" = "$want" ] && ok "render -o json: every object complete ($out)" || bad "render objects: $out (want $want)"
[ "$(grep -c '^---$' "$D/all.yaml")" = 17 ] && ok "render: a YAML stream of 17 documents" || bad "documents: $(grep -c '^---$' "$D/all.yaml")"
# --kind: case-insensitive, plural too
"$S" render --now 1700000000 --kind secrets --kind DEPLOYMENT $F > "$D/k.yaml"
[ "$(grep '^kind:' "$D/k.yaml" | sort | uniq -c | tr -s ' ' | paste -sd,)" = " 2 kind: Deployment, 3 kind: Secret" ] \
  && ok "render --kind" || bad "--kind: $(grep '^kind:' "$D/k.yaml" | sort | uniq -c)"
# deterministic once the host keys exist (fed back from the first render, as the live Secret)
"$S" render --now 1700000000 --kind Secret $F | awk '/^---$/{n++} n==2' > "$D/in/zz-live-keys.yaml"
grep -q 'name: test-release-slurm-login-slinky-ssh-host-keys' "$D/in/zz-live-keys.yaml" || bad "host keys document not found"
"$S" render --now 1700000000 "$D"/in/*.yaml > "$D/a.yaml"; "$S" render --now 1700000000 "$D"/in/*.yaml > "$D/b.yaml"
cmp -s "$D/a.yaml" "$D/b.yaml" && ok "render twice: identical bytes" || bad "render is not deterministic"
"$S" render --now 1700000001 "$D"/in/*.yaml > "$D/c.yaml"
[ "$(diff "$D/a.yaml" "$D/c.yaml" | grep -c '^[<>]')" = 2 ] && ok "render: another --now changes the Token only" || bad "now diff: $(diff "$D/a.yaml" "$D/c.yaml" | head)"
# seamless SSH: the ledger's keys command in the LoginSet's sshd_config
"$S" render --now 1 --seamless-ssh --keys-command '/usr/bin/slinky-ledger-keys --ledger /ledger %u' --kind ConfigMap $F > "$D/s.yaml"
grep -q 'AuthorizedKeysCommand /usr/bin/slinky-ledger-keys --ledger /ledger %u' "$D/s.yaml" && ok "render --seamless-ssh" || bad "seamless: no AuthorizedKeysCommand"
# bad input: no uid, unknown option, nothing printed
"$S" render "$U/controller.yaml" > "$D/out" 2> "$D/err"; rc=$?
if [ $rc = 1 ] && [ ! -s "$D/out" ] && grep -q 'metadata.uid' "$D/err"; then ok "render: a resource without uid is refused"; else bad "no uid (rc $rc): $(cat "$D/err")"; fi
"$S" render --bogus $F > /dev/null 2>&1; [ $? = 2 ] && ok "render: usage error exits 2" || bad "usage exit"

exit $fail
