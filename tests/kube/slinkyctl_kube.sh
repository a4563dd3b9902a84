#!/bin/sh
# slinkyctl kube against slinky-apiserver: apply-file, get, list, watch, delete, errors.
set -eu
ctl=${1:?usage: slinkyctl_kube.sh SLINKYCTL}
src=${SLINKY_SOURCE_DIR:?}
shared=${SLINKY_SHARED_DIR:?}
dir=$(mktemp -d /tmp/slinkyctl-kube-XXXXXX)
trap 'sh "$src/tests/apiserver/stop-apiserver.sh" "$dir"; rm -rf "$dir"' EXIT
sh "$src/tests/apiserver/start-apiserver.sh" "$dir" --crd-dir "$shared/upstream/slinky/crds"
k="--kubeconfig $dir/kubeconfig"
printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"test-namespace"}}' > "$dir/ns.json"
"$ctl" kube $k apply-file "$dir/ns.json" | grep -q 'namespaces/test-namespace serverside-applied'
"$ctl" kube $k apply-file "$shared/upstream/slinky/examples/nodeset.yaml" | grep -q 'nodesets/test-release-slurm-worker-slinky'
"$ctl" kube $k -n test-namespace get NodeSet test-release-slurm-worker-slinky -o yaml | grep -q '^kind: NodeSet'
"$ctl" kube $k -n test-namespace list nodesets | grep -q '"name": "test-release-slurm-worker-slinky"'
# a missing object: exit 1 and the Status reason on stderr
if "$ctl" kube $k -n test-namespace get nodesets nope 2>"$dir/err"; then exit 1; fi
grep -q 'NotFound' "$dir/err"
# watch sees the delete
( sleep 1; "$ctl" kube $k -n test-namespace delete nodesets test-release-slurm-worker-slinky >/dev/null ) &
timeout 20 "$ctl" kube $k -n test-namespace watch nodesets --count 2 > "$dir/events"
wait
grep -q '^ADDED ' "$dir/events"
grep -q '^DELETED ' "$dir/events"
# usage errors exit 2
if "$ctl" kube $k frobnicate 2>/dev/null; then exit 1; else [ $? -eq 2 ]; fi
echo "slinkyctl kube: ok"
