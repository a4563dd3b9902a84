#!/bin/bash
# tools/slinkyctl-kubectl: slinkyctl's cluster commands against slinky-apiserver.
# Tables and -o formats are compared with kubectl's output on the same server
# (ages masked) and with golden files (tests/tools/golden); edit goes through an
# EDITOR script that first saves a bad value, then a good one; apply refuses an
# invalid document without applying the others; get -w, delete, status, logs.
# usage: slinkyctl_kubectl.sh SLINKYCTL   (env: SLINKY_SOURCE_DIR, SLINKY_SHARED_DIR, SLINKY_BUILD_DIR)
set -u
S=${1:?usage: slinkyctl_kubectl.sh SLINKYCTL}
src=${SLINKY_SOURCE_DIR:?}
shared=${SLINKY_SHARED_DIR:?}
G=$src/tests/tools/golden
command -v kubectl >/dev/null || { echo "SKIP: no kubectl"; exit 77; }
D=$(mktemp -d /tmp/slinkyctl-kubectl.XXXXXX)
trap 'sh "$src/tests/apiserver/stop-apiserver.sh" "$D"; rm -rf "$D"' EXIT
sh "$src/tests/apiserver/start-apiserver.sh" "$D" --crd-dir "$shared/upstream/slinky/crds" || exit 1
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
K="--kubeconfig $D/kubeconfig"
ex=$shared/upstream/slinky/examples
mask() { sed -E 's/(^| )[0-9]+[smhdy]([0-9]+[smhdy])?( |$)/\1AGE\3/g; s/  +/  /g'; }

printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: test-namespace\n' >"$D/ns.yaml"
"$S" apply $K -f "$D/ns.yaml" -f "$ex/controller.yaml" -f "$ex/nodeset.yaml" >"$D/out" 2>&1
diff <(cat "$D/out") "$G/apply.txt" >/dev/null && ok "apply -f: kubectl's lines" || bad "apply: $(cat "$D/out")"

# the same invocations through slinkyctl and kubectl
while IFS= read -r args; do
  [ -z "$args" ] && continue
  eval "set -- $args"
  "$S" "$@" $K >"$D/a" 2>&1; echo "rc=$?" >>"$D/a"
  kubectl "$@" $K >"$D/b" 2>&1; echo "rc=$?" >>"$D/b"
  if diff <(mask <"$D/a") <(mask <"$D/b") >"$D/d"; then ok "as kubectl: $args"; else bad "differs from kubectl: $args"; head -20 "$D/d"; fi
done <<'LIST'
get nodesets -n test-namespace
get nss -n test-namespace -o wide
get slurmctld -A
get ns
get namespaces default -o json
get nss -n test-namespace -o json
get controller test-release-slurm -n test-namespace -o json
get nss -n test-namespace -o name
get slurmctld,nss -n test-namespace
get nss,slurmctld -A -o name
get cm -A
get nss -n test-namespace -l app.kubernetes.io/part-of=slurm -o name
get nss -n test-namespace -l app.kubernetes.io/part-of=nope
get ns -o 'jsonpath={range .items[*]}{.metadata.name}:{.status.phase}{"\n"}{end}'
get ns -o 'jsonpath={.items[?(@.metadata.name=="default")].status.phase}'
get nss nope -n test-namespace
get frobnicators
LIST

# golden outputs
"$S" get nodesets.slinky.slurm.net -n test-namespace -o name $K >"$D/out" 2>&1
cmp -s "$D/out" "$G/get-name.txt" && ok "golden: -o name" || bad "golden -o name: $(cat "$D/out")"
"$S" get nss -n test-namespace -o wide $K | mask >"$D/out" 2>&1
cmp -s "$D/out" "$G/get-wide.txt" && ok "golden: -o wide" || bad "golden -o wide: $(diff "$D/out" "$G/get-wide.txt")"
"$S" get controller test-release-slurm -n test-namespace -o 'jsonpath={.spec.slurmKeyRef.name}{"/"}{.spec.ha.enabled}' $K >"$D/out" 2>&1
cmp -s "$D/out" "$G/get-jsonpath.txt" && ok "golden: jsonpath" || bad "golden jsonpath: $(cat "$D/out")"
"$S" describe nss test-release-slurm-worker-slinky -n test-namespace $K >"$D/out" 2>&1
grep -q '^Name:         test-release-slurm-worker-slinky$' "$D/out" && grep -q '^Kind:         NodeSet$' "$D/out" \
  && grep -q '^Spec:$' "$D/out" && grep -q '^  Controller Ref:$' "$D/out" && grep -q '^Events:  <none>$' "$D/out" \
  && ok "describe" || bad "describe: $(head -30 "$D/out")"

# edit: a bad value re-opens the editor with the error, the good one is written
cat >"$D/editor" <<EOS
#!/bin/sh
n=\$(cat "$D/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$D/count"
cp "\$1" "$D/seen.\$n"
if [ \$n -eq 1 ]; then sed -i 's/^  replicas: .*/  replicas: abc/' "\$1"; else sed -i 's/^  replicas: .*/  replicas: 3/' "\$1"; fi
EOS
chmod +x "$D/editor"
EDITOR="$D/editor" "$S" edit nss test-release-slurm-worker-slinky -n test-namespace $K >"$D/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$D/count")" = 2 ] && grep -q '^# error: spec.replicas: .*integer' "$D/seen.2" \
   && [ "$(kubectl $K get nss -n test-namespace -o 'jsonpath={.items[0].spec.replicas}')" = 3 ] \
   && grep -q 'nodeset.slinky.slurm.net/test-release-slurm-worker-slinky edited' "$D/out"; then ok "edit: refused, re-opened, saved"
else bad "edit (rc $rc): $(cat "$D/out")"; fi
# saving the refused text again gives up with exit 4 and changes nothing
printf '#!/bin/sh\nsed -i "s/^  replicas: .*/  replicas: abc/" "$1"\n' >"$D/editor2"; chmod +x "$D/editor2"
EDITOR="$D/editor2" "$S" edit nss/test-release-slurm-worker-slinky -n test-namespace $K >"$D/out" 2>&1; rc=$?
[ $rc -eq 4 ] && grep -q 'no valid changes' "$D/out" && [ "$(kubectl $K get nss -n test-namespace -o 'jsonpath={.items[0].spec.replicas}')" = 3 ] \
  && ok "edit: given up, exit 4" || bad "edit give up (rc $rc): $(cat "$D/out")"
printf '#!/bin/sh\ntrue\n' >"$D/editor3"; chmod +x "$D/editor3"
EDITOR="$D/editor3" "$S" edit nss test-release-slurm-worker-slinky -n test-namespace $K >"$D/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'no changes made' "$D/out" && ok "edit: unchanged" || bad "edit unchanged (rc $rc): $(cat "$D/out")"

# apply: one invalid document and nothing is applied
sed 's/name: test-release-slurm-worker-slinky/name: second/' "$ex/nodeset.yaml" >"$D/good.yaml"
sed 's/name: test-release-slurm-worker-slinky/name: third/; s/^  replicas: .*/  replicas: abc/' "$ex/nodeset.yaml" >"$D/bad.yaml"
"$S" apply -f "$D/good.yaml" -f "$D/bad.yaml" $K >"$D/out" 2>&1; rc=$?
if [ $rc -eq 4 ] && grep -q 'spec.replicas' "$D/out" && ! kubectl $K get nss second -n test-namespace >/dev/null 2>&1; then
  ok "apply: invalid document, nothing applied"; else bad "apply invalid (rc $rc): $(cat "$D/out")"; fi

# get -w: the list, then the change
timeout 4 "$S" get nss -n test-namespace -w -o name $K >"$D/watch" 2>&1 &
wpid=$!
sleep 1
"$S" apply -f "$D/good.yaml" $K >/dev/null 2>&1
wait $wpid
grep -q '^nodeset.slinky.slurm.net/test-release-slurm-worker-slinky$' "$D/watch" && grep -q '^nodeset.slinky.slurm.net/second$' "$D/watch" \
  && ok "get -w sees the new NodeSet" || bad "get -w: $(cat "$D/watch")"

# status: the Controller, its NodeSets and the node counts on one screen
"$S" status -n test-namespace $K >"$D/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '^Controller:  test-namespace/test-release-slurm ' "$D/out" && grep -q '^Conditions:' "$D/out" \
   && grep -q '^test-release-slurm-worker-slinky ' "$D/out" && grep -q '^second ' "$D/out" \
   && grep -q '^Slurm nodes: ' "$D/out"; then ok "status"; else bad "status (rc $rc): $(cat "$D/out")"; fi
# logs: a NodeSet without pods, a missing pod
"$S" logs nss/second -n test-namespace $K >"$D/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'has no pods' "$D/out" && ok "logs of a NodeSet without pods" || bad "logs nodeset (rc $rc): $(cat "$D/out")"
"$S" logs nope -n test-namespace $K >"$D/out" 2>&1; rc=$?
[ $rc -eq 1 ] && ok "logs of a missing pod: exit 1" || bad "logs missing (rc $rc): $(cat "$D/out")"

# delete: kubectl's words, then NotFound
"$S" delete nss second -n test-namespace $K >"$D/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$D/out")" = 'nodeset.slinky.slurm.net "second" deleted' ] && ok "delete" || bad "delete (rc $rc): $(cat "$D/out")"
"$S" delete nss second -n test-namespace $K >"$D/a" 2>&1; echo "rc=$?" >>"$D/a"
kubectl delete nss second -n test-namespace $K >"$D/b" 2>&1; echo "rc=$?" >>"$D/b"
diff "$D/a" "$D/b" >/dev/null && ok "delete of a missing object: as kubectl" || bad "delete missing: $(diff "$D/a" "$D/b")"

# version and --context
"$S" version $K >"$D/out" 2>&1 && grep -q '^Server: v1.32' "$D/out" && ok "version shows the server" || bad "version: $(cat "$D/out")"
"$S" get nss $K --context no-such >"$D/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'no-such' "$D/out" && ok "--context is honoured" || bad "--context (rc $rc): $(cat "$D/out")"
exit $fail
