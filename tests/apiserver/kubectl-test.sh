#!/bin/bash
# Integration test: drive slinky-apiserver with the real kubectl (over TLS with
# the token from the written kubeconfig). Needs SLINKY_BUILD_DIR, SLINKY_SHARED_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
up=${SLINKY_SHARED_DIR:?}/upstream/slinky
tmp=$(mktemp -d)
watch_pid=
cleanup() {
    [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null || true
    "$here/stop-apiserver.sh" "$tmp/srv"
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

"$here/start-apiserver.sh" "$tmp/srv"
export KUBECONFIG=$tmp/srv/kubeconfig
K() { /usr/bin/kubectl --cache-dir "$tmp/cache" "$@"; }

step "kubectl version talks to the server over TLS"
K version -o json | grep -q '"minor": "32"' || fail "version"
grep -q 'https://127.0.0.1' "$KUBECONFIG" || fail "kubeconfig is not TLS"

step "apply every upstream CRD"
K apply -f "$up/crds/"
K get crd nodesets.slinky.slurm.net >/dev/null

step "api-resources lists the Slinky kinds with short names"
K api-resources --api-group=slinky.slurm.net > "$tmp/ar"
cat "$tmp/ar"
grep -E '^nodesets +nodesets,nss,slurmd +slinky.slurm.net/v1beta1 +true +NodeSet' "$tmp/ar" || fail "nodesets row"
grep -E '^controllers +slurmctld ' "$tmp/ar" || fail "controllers row"

step "create the namespaces the examples use, then apply every example"
examples=()
for f in "$up"/examples/*.yaml; do
    grep -q '^apiVersion:' "$f" || continue   # helm values, not an object
    examples+=("$f")
    ns=$(sed -n 's/^  namespace: *//p' "$f" | head -1)
    [ -n "$ns" ] && printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n' "$ns" | K apply -f - >/dev/null
done
[ ${#examples[@]} -ge 5 ] || fail "expected at least 5 examples"
for f in "${examples[@]}"; do K apply -f "$f"; done
step "client-side apply again is a no-op, server-side apply succeeds"
for f in "${examples[@]}"; do K apply -f "$f" | grep -q unchanged || fail "second apply of $f changed"; done
K apply --server-side -f "$up/examples/nodeset.yaml"

ns=test-namespace
name=$(sed -n 's/^  name: *//p' "$up/examples/nodeset.yaml" | head -1)

step "get (table, json, yaml)"
K get nodesets -n $ns > "$tmp/table"
cat "$tmp/table"
head -1 "$tmp/table" | grep -q 'NAME.*DESIRED.*REPLICAS.*AGE' || fail "table header"
grep -q "^$name " "$tmp/table" || fail "table row"
K get nss -n $ns "$name" -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); assert o["kind"]=="NodeSet" and o["spec"]["scalingMode"]=="StatefulSet" and o["metadata"]["uid"], o'
K get slurmd -n $ns "$name" -o yaml | grep -q '^kind: NodeSet' || fail "yaml"
K get nodesets -A | grep -q "^$ns " || fail "all namespaces"

step "get -w sees a change made by another client (curl)"
K get nodesets -n $ns -w --output-watch-events > "$tmp/watch" 2>&1 &
watch_pid=$!
for i in $(seq 50); do grep -q "$name" "$tmp/watch" && break; sleep 0.1; done
port=$(cat "$tmp/srv/port")
curl -sf --cacert "$tmp/srv/ca.crt" -H "Authorization: Bearer $(head -1 "$tmp/srv/token")" \
    -X PATCH -H 'Content-Type: application/merge-patch+json' \
    -d '{"metadata":{"labels":{"watched":"yes"}}}' \
    "https://127.0.0.1:$port/apis/slinky.slurm.net/v1beta1/namespaces/$ns/nodesets/$name" >/dev/null
for i in $(seq 100); do grep -q MODIFIED "$tmp/watch" && break; sleep 0.1; done
cat "$tmp/watch"
grep -q "MODIFIED *$name" "$tmp/watch" || fail "watch did not see MODIFIED"
kill $watch_pid; wait $watch_pid 2>/dev/null || true; watch_pid=

step "patch --type merge and --type json"
K patch nodeset -n $ns "$name" --type merge -p '{"spec":{"replicas":3}}'
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.spec.replicas}')" = 3 ] || fail "merge patch"
K patch nodeset -n $ns "$name" --type json -p '[{"op":"replace","path":"/spec/replicas","value":5}]'
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.spec.replicas}')" = 5 ] || fail "json patch"
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.metadata.generation}')" = 3 ] || fail "generation not bumped twice"

step "default (strategic) patch on a custom resource prints kubectl's 415 message"
if K patch nodeset -n $ns "$name" -p '{"spec":{"replicas":4}}' 2> "$tmp/err"; then fail "strategic patch accepted"; fi
cat "$tmp/err"
grep -q 'application/strategic-merge-patch+json is not supported by slinky.slurm.net/v1beta1, Kind=NodeSet' "$tmp/err" || fail "415 message"
grep -q 'the body of the request was in an unknown format' "$tmp/err" || fail "415 server message"

step "scale subresource"
K scale nodeset -n $ns "$name" --replicas=2
[ "$(K get nodeset -n $ns "$name" -o jsonpath='{.spec.replicas}')" = 2 ] || fail "scale"

step "an invalid NodeSet is rejected with 422 naming the fields"
cat > "$tmp/bad.yaml" <<EOT
apiVersion: slinky.slurm.net/v1beta1
kind: NodeSet
metadata:
  name: bad
  namespace: $ns
spec:
  scalingMode: Sideways
EOT
if K apply -f "$tmp/bad.yaml" 2> "$tmp/err"; then fail "invalid NodeSet accepted"; fi
cat "$tmp/err"
grep -q 'spec.scalingMode: Unsupported value: "Sideways"' "$tmp/err" || fail "scalingMode cause"
grep -q 'spec.controllerRef: Required value' "$tmp/err" || fail "controllerRef cause"
out=$(K get nodeset -n $ns bad 2>&1 || true)
echo "$out" | grep -q NotFound || fail "invalid object stored"

step "unknown fields: rejected by kubectl's default strict validation, warned with --validate=warn"
sed 's/^  scalingMode: StatefulSet/  scalingMode: StatefulSet\n  notAField: 1/; s/test-release-slurm-worker-slinky/strict-one/' \
    "$up/examples/nodeset.yaml" > "$tmp/unknown.yaml"
if K apply -f "$tmp/unknown.yaml" 2> "$tmp/err"; then fail "unknown field accepted under Strict"; fi
grep -q 'strict decoding error: unknown field "spec.notAField"' "$tmp/err" || fail "strict message"
K apply --validate=warn -f "$tmp/unknown.yaml" 2> "$tmp/err"
grep -q 'Warning: unknown field "spec.notAField"' "$tmp/err" || fail "warning"
[ -z "$(K get nodeset -n $ns strict-one -o jsonpath='{.spec.notAField}')" ] || fail "unknown field stored"
K delete nodeset -n $ns strict-one

step "delete waits and returns"
timeout 30 /usr/bin/kubectl --cache-dir "$tmp/cache" delete nodeset -n $ns "$name"
out=$(K get nodeset -n $ns "$name" 2>&1 || true)
echo "$out" | grep -q 'NotFound' || fail "still there after delete"

step "kubectl's typed create subcommands (protobuf bodies)"
K create namespace pb-test
K create configmap cm1 -n pb-test --from-literal=a=b --from-literal=c=d
K create secret generic s1 -n pb-test --from-literal=pw=hunter2
[ "$(K get cm cm1 -n pb-test -o jsonpath='{.data.c}')" = d ] || fail "configmap data"
[ "$(K get secret s1 -n pb-test -o jsonpath='{.data.pw}' | base64 -d)" = hunter2 ] || fail "secret data"
[ "$(K get secret s1 -n pb-test -o jsonpath='{.type}')" = Opaque ] || fail "secret type default"
K get cm -n pb-test | grep -Eq '^cm1 +2 ' || fail "configmap table DATA column"

step "delete a namespace removes its content"
timeout 30 /usr/bin/kubectl --cache-dir "$tmp/cache" delete namespace $ns
out=$(K get controllers -A 2>&1 || true)
echo "$out" | grep -q "$ns" && fail "content of deleted namespace remains"
out=$(K get namespace $ns 2>&1 || true)
echo "$out" | grep -q NotFound || fail "namespace still there"
echo "PASS"
