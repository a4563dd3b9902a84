#!/bin/bash
# tools/printer-columns: the CRDs libslinky generates (slinkyctl crd) give
# `kubectl get controllers` the CONFIGAPPLIED and REASON columns (from the
# ConfigApplied condition the operator sets) before AGE, and slinkyctl get
# prints the same table.
# usage: printer_columns.sh SLINKYCTL   (env: SLINKY_SOURCE_DIR, SLINKY_SHARED_DIR, SLINKY_BUILD_DIR)
set -u
S=${1:?}
src=${SLINKY_SOURCE_DIR:?}
shared=${SLINKY_SHARED_DIR:?}
command -v kubectl >/dev/null || { echo "SKIP: no kubectl"; exit 77; }
D=$(mktemp -d /tmp/slinky-columns.XXXXXX)
trap 'sh "$src/tests/apiserver/stop-apiserver.sh" "$D"; rm -rf "$D"' EXIT
sh "$src/tests/apiserver/start-apiserver.sh" "$D" || exit 1
K="--kubeconfig $D/kubeconfig"
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
"$S" crd >"$D/crds.yaml" && kubectl $K apply -f "$D/crds.yaml" >/dev/null || { echo "FAIL - apply CRDs"; exit 1; }
sed 's/namespace: test-namespace/namespace: default/' "$shared/upstream/slinky/examples/controller.yaml" >"$D/ctl.yaml"
kubectl $K apply -f "$D/ctl.yaml" >/dev/null || { echo "FAIL - apply Controller"; exit 1; }
kubectl $K get controllers >"$D/out" 2>&1
[ "$(head -1 "$D/out" | tr -s ' ')" = "NAME CONFIGAPPLIED REASON AGE" ] && ok "columns before a status: $(head -1 "$D/out")" \
  || bad "header: $(cat "$D/out")"
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
kubectl $K patch controller test-release-slurm --subresource=status --type=merge -p \
  "{\"status\":{\"conditions\":[{\"type\":\"ConfigApplied\",\"status\":\"False\",\"reason\":\"InvalidConfig\",\"message\":\"x\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null \
  || bad "status patch"
kubectl $K get controllers >"$D/out" 2>&1
row=$(sed -n 2p "$D/out" | tr -s ' ' | cut -d' ' -f1-3)
[ "$row" = "test-release-slurm False InvalidConfig" ] && ok "kubectl get controllers: $row" || bad "row: $(cat "$D/out")"
"$S" get controllers $K >"$D/mine" 2>&1
diff <(sed -E 's/[0-9]+s$/AGE/' "$D/mine") <(sed -E 's/[0-9]+s$/AGE/' "$D/out") >/dev/null && ok "slinkyctl get controllers: the same table" \
  || bad "slinkyctl: $(diff "$D/mine" "$D/out")"
exit $fail
