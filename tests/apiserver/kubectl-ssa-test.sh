#!/bin/bash
# Integration test: server-side apply (managedFields, conflicts, force) and
# dryRun=All with the real kubectl. Needs SLINKY_BUILD_DIR, SLINKY_SHARED_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
up=${SLINKY_SHARED_DIR:?}/upstream/slinky
tmp=$(mktemp -d)
cleanup() { "$here/stop-apiserver.sh" "$tmp/srv"; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

"$here/start-apiserver.sh" "$tmp/srv" --crd-dir "$up/crds"
export KUBECONFIG=$tmp/srv/kubeconfig
K() { /usr/bin/kubectl --cache-dir "$tmp/cache" "$@"; }
ns=test-namespace
printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n' $ns | K apply --server-side -f -

step "apply --server-side every upstream example"
for f in "$up"/examples/*.yaml; do
    grep -q '^apiVersion:' "$f" || continue
    fns=$(sed -n 's/^  namespace: *//p' "$f" | head -1)
    [ -n "$fns" ] && printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n' "$fns" | K apply --server-side -f - >/dev/null
    K apply --server-side -f "$f"
done
name=$(sed -n 's/^  name: *//p' "$up/examples/nodeset.yaml" | head -1)

step "managedFields are visible with --show-managed-fields"
K get nodeset -n $ns "$name" -o yaml --show-managed-fields > "$tmp/mf.yaml"
grep -q 'manager: kubectl' "$tmp/mf.yaml" || fail "no kubectl manager"
grep -q 'operation: Apply' "$tmp/mf.yaml" || fail "no Apply operation"
grep -q 'f:scalingMode: {}' "$tmp/mf.yaml" || fail "no f:scalingMode"
K get nodeset -n $ns "$name" -o yaml | grep -q managedFields && fail "managedFields shown by default"

step "a second manager's conflicting apply fails with 409 naming the field and the manager"
sed 's/replicas: 1/replicas: 7/' "$up/examples/nodeset.yaml" > "$tmp/ns7.yaml"
if K apply --server-side --field-manager other -f "$tmp/ns7.yaml" 2> "$tmp/err"; then fail "conflict not detected"; fi
cat "$tmp/err"
grep -q 'Apply failed with 1 conflict: conflict with "kubectl" using slinky.slurm.net/v1beta1: .spec.replicas' "$tmp/err" || fail "conflict message"
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.spec.replicas}')" = 1 ] || fail "conflicting apply changed the object"

step "--force-conflicts wins and moves ownership"
K apply --server-side --field-manager other --force-conflicts -f "$tmp/ns7.yaml"
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.spec.replicas}')" = 7 ] || fail "forced apply"
K get nodeset -n $ns "$name" -o json --show-managed-fields | python3 -c '
import json, sys
o = json.load(sys.stdin)
own = {m["manager"]: m["fieldsV1"] for m in o["metadata"]["managedFields"]}
assert "f:replicas" in own["other"]["f:spec"], own
assert "f:replicas" not in own["kubectl"]["f:spec"], own
'

step "a manager that stops applying a field it solely owned removes it"
cat > "$tmp/label.yaml" <<EOT
apiVersion: slinky.slurm.net/v1beta1
kind: NodeSet
metadata:
  name: $name
  namespace: $ns
  labels:
    owned-by-third: "yes"
EOT
K apply --server-side --field-manager third -f "$tmp/label.yaml"
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.metadata.labels.owned-by-third}')" = yes ] || fail "label not applied"
sed -i '/labels:/,$d' "$tmp/label.yaml"
K apply --server-side --field-manager third -f "$tmp/label.yaml"
[ -z "$(K get nodeset -n $ns "$name" -o jsonpath='{.metadata.labels.owned-by-third}')" ] || fail "label not removed"

step "dryRun=All stores nothing and consumes no resourceVersion"
rv=$(K get nodeset -n $ns "$name" -o jsonpath='{.metadata.resourceVersion}')
sed 's/test-release-slurm-worker-slinky/dry-one/' "$up/examples/nodeset.yaml" > "$tmp/dry.yaml"
K apply --dry-run=server -f "$tmp/dry.yaml" | grep -q 'dry-one created (server dry run)' || fail "dry run create output"
K patch nodeset -n $ns "$name" --type merge -p '{"spec":{"replicas":9}}' --dry-run=server -o jsonpath='{.spec.replicas}' | grep -qx 9 || fail "dry run patch result"
K delete nodeset -n $ns "$name" --dry-run=server
out=$(K get nodeset -n $ns dry-one 2>&1 || true)
echo "$out" | grep -q NotFound || fail "dry run create stored"
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.spec.replicas}')" = 7 ] || fail "dry run patch stored"
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.metadata.resourceVersion}')" = "$rv" ] || fail "dry run consumed a resourceVersion"
echo PASS
