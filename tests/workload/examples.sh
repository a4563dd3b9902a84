#!/bin/bash
# Integration test: build every object for upstream's examples
# (../shared/upstream/slinky/examples: Controller, NodeSet, RestApi, Accounting,
# plus the Secrets they reference) and pass each one through the real kubectl:
#   kubectl create --dry-run=client --validate=false -o json -f -
# against slinky-apiserver (for discovery; the built-in kinds it does not serve
# yet are added to kubectl's discovery cache), then check_objects.py compares kubectl's
# objects with ours (round trip) and checks each kind's required fields and
# the config hashes with python's hashlib.
#   examples.sh WL_RENDER
set -euo pipefail
render=${1:?usage: examples.sh WL_RENDER}
here=$(cd "$(dirname "$0")" && pwd)
src=${SLINKY_SOURCE_DIR:?}
ex=${SLINKY_SHARED_DIR:?}/upstream/slinky/examples
tmp=$(mktemp -d)
cleanup() {
    "$src/tests/apiserver/stop-apiserver.sh" "$tmp/srv" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

cat > "$tmp/secrets.yaml" <<'YAML'
apiVersion: v1
kind: Secret
metadata: {name: test-release-slurm-auth-slurm, namespace: test-namespace}
data: {slurm.key: c2x1cm0ta2V5}
---
apiVersion: v1
kind: Secret
metadata: {name: test-release-slurm-auth-jwt, namespace: test-namespace}
data: {jwt.key: and0LWtleQ==}
---
apiVersion: v1
kind: Secret
metadata: {name: mariadb-password, namespace: test-namespace}
data: {password: c2VjcmV0}
YAML
inputs=("$ex/controller.yaml" "$ex/nodeset.yaml" "$ex/restapi.yaml" "$ex/accounting.yaml" "$tmp/secrets.yaml")
"$render" "${inputs[@]}" > "$tmp/objects.yaml"
"$render" --json "${inputs[@]}" > "$tmp/objects.json"
grep -c '^kind:' "$tmp/objects.yaml" | sed 's/^/objects built: /'

"$src/tests/apiserver/start-apiserver.sh" "$tmp/srv"
export KUBECONFIG=$tmp/srv/kubeconfig
K() { /usr/bin/kubectl --cache-dir "$tmp/cache" "$@"; }
# kubectl maps kinds through discovery; slinky-apiserver does not serve apps/v1,
# policy/v1 and monitoring.coreos.com/v1 yet (and refuses CRDs for the
# one-word groups), so they are added to kubectl's cached discovery.
K api-resources > /dev/null
/usr/bin/python3 "$here/discovery_cache.py" "$tmp/cache" apps/v1:StatefulSet:statefulsets \
    apps/v1:Deployment:deployments policy/v1:PodDisruptionBudget:poddisruptionbudgets \
    monitoring.coreos.com/v1:ServiceMonitor:servicemonitors
K create --dry-run=client --validate=false -o json -f "$tmp/objects.yaml" > "$tmp/kubectl.json"
/usr/bin/python3 "$here/check_objects.py" "$tmp/objects.json" "$tmp/kubectl.json"
