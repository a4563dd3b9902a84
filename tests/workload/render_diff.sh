#!/usr/bin/env bash
# workload/render_diff (integration): `slinkyctl render --diff` against a live API server
# (slinky-apiserver on a free loopback port; the kinds it serves: ConfigMap, Secret, Service,
# Pod). Apply what render makes with kubectl, then: no differences (exit 0); a Controller
# extraConf change shows as the slurm.conf lines that would change (exit 1); a deleted
# Service shows as new; Secret values are never printed.
# usage: render_diff.sh SLINKYCTL   (env: SLINKY_SHARED_DIR, SLINKY_BUILD_DIR, SLINKY_SOURCE_DIR)
set -u
S=$1
U=$SLINKY_SHARED_DIR/upstream/slinky/examples
D=$(mktemp -d /tmp/slinky-render-diff.XXXXXX)
cleanup() { sh "$SLINKY_SOURCE_DIR/tests/apiserver/stop-apiserver.sh" "$D/srv" >/dev/null 2>&1; rm -rf "$D"; }
trap cleanup EXIT
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
. "$(dirname "$0")/render_inputs.sh"
render_inputs "$U" "$D/in"
sh "$SLINKY_SOURCE_DIR/tests/apiserver/start-apiserver.sh" "$D/srv" || { echo "FAIL - apiserver did not start"; exit 1; }
export KUBECONFIG=$D/srv/kubeconfig
K="--kind ConfigMap --kind Secret --kind Service --kind Pod"
kubectl create namespace test-namespace >/dev/null
"$S" render --now 1700000000 $K "$D"/in/*.yaml > "$D/objs.yaml" || bad "render"
kubectl apply -f "$D/objs.yaml" > "$D/apply.out" 2>&1 && ok "kubectl apply of the rendered objects ($(wc -l < "$D/apply.out") objects)" || bad "apply: $(cat "$D/apply.out")"
# the live host keys go back in, as the operator reads them (they are never regenerated)
kubectl get secret -n test-namespace test-release-slurm-login-slinky-ssh-host-keys -o yaml > "$D/in/zz-live-keys.yaml"
"$S" render --diff --now 1700000000 $K "$D"/in/*.yaml > "$D/d0" 2>&1; rc=$?
if [ $rc = 0 ] && ! grep -qv '^= ' "$D/d0"; then ok "render --diff: everything unchanged ($(wc -l < "$D/d0") objects)"; else bad "diff after apply (rc $rc): $(cat "$D/d0")"; fi
# a change to the Controller, a deleted Service, a re-issued token
awk '{print} /^spec:$/ && !x {print "  extraConf: MaxJobCount=500"; x=1}' "$D/in/controller.yaml" > "$D/c2" && mv "$D/c2" "$D/in/controller.yaml"
kubectl delete service -n test-namespace test-release-slurm-restapi >/dev/null
"$S" render --diff --now 1700000100 $K "$D"/in/*.yaml > "$D/d1" 2>&1; rc=$?
[ $rc = 1 ] && ok "render --diff: differences exit 1" || bad "diff exit $rc: $(cat "$D/d1")"
grep -q '^~ ConfigMap test-namespace/test-release-slurm-config$' "$D/d1" && grep -q '^    replace /data/slurm.conf$' "$D/d1" \
  && grep -q '^      + MaxJobCount=500$' "$D/d1" && ok "render --diff: the slurm.conf lines that change" || bad "config diff: $(cat "$D/d1")"
grep -q '^+ Service test-namespace/test-release-slurm-restapi (new)$' "$D/d1" && ok "render --diff: a missing object is new" || bad "no new Service: $(cat "$D/d1")"
grep -q '^~ Secret test-namespace/slurm-token-jwt-foo$' "$D/d1" && grep -q 'replace /data/SLURM_JWT (secret value)' "$D/d1" \
  && ! grep -q 'eyJ' "$D/d1" && ok "render --diff: a new token, its value not printed" || bad "token diff: $(cat "$D/d1")"
grep -q '^= Service test-namespace/test-release-slurm-controller$' "$D/d1" && ok "render --diff: the rest unchanged" || bad "unchanged lines"
# an unreachable server: exit 3
KUBECONFIG=/nonexistent "$S" render --diff $K "$D"/in/*.yaml > /dev/null 2>&1; rc=$?
[ $rc = 3 ] && ok "render --diff: no cluster exits 3" || bad "no cluster exit $rc"
exit $fail
