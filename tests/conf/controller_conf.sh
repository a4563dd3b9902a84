#!/bin/sh
# conf/controller: `slinkyctl conf set/unset/get` on a live Controller over slinky-apiserver:
# the operator's static check before writing (exit 4, the line of spec.extraConf), unset
# removes a typo, a value with a line break is refused, --context is honoured.
# usage: controller_conf.sh SLINKYCTL   (env: SLINKY_SOURCE_DIR, SLINKY_SHARED_DIR, SLINKY_BUILD_DIR)
set -u
S=${1:?usage: controller_conf.sh SLINKYCTL}
src=${SLINKY_SOURCE_DIR:?}
shared=${SLINKY_SHARED_DIR:?}
D=$(mktemp -d /tmp/slinky-conf-ctl.XXXXXX)
trap 'sh "$src/tests/apiserver/stop-apiserver.sh" "$D"; rm -rf "$D"' EXIT
sh "$src/tests/apiserver/start-apiserver.sh" "$D" --crd-dir "$shared/upstream/slinky/crds" || exit 1
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
k="--kubeconfig $D/kubeconfig"
printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"test-namespace"}}' >"$D/ns.json"
# the upstream example Controller with an extraConf holding a typo on its second line
sed 's/^spec:$/spec:\n  extraConf: "MinJobAge=2\\nMaxJobCont=5\\n"/' "$shared/upstream/slinky/examples/controller.yaml" >"$D/ctl.yaml"
for f in "$D/ns.json" "$D/ctl.yaml" "$shared/upstream/slinky/examples/nodeset.yaml"; do
  "$S" kube $k apply-file "$f" >/dev/null || { bad "apply $f"; exit 1; }
done
extra() { "$S" kube $k -n test-namespace get controllers test-release-slurm -o json | grep '"extraConf"'; }
c="$k -n test-namespace"

before=$(extra)
"$S" conf set $c MinJobAge=abc >"$D/out" 2>&1; rc=$?
if [ $rc -eq 4 ] && grep -q '^spec.extraConf:1:11: error: MinJobAge value "abc" is not a valid number' "$D/out" \
   && grep -q '^spec.extraConf:2:1: error: unknown key MaxJobCont (did you mean MaxJobCount?)' "$D/out" \
   && [ "$(extra)" = "$before" ]; then ok "set MinJobAge=abc: exit 4 with spec.extraConf lines, nothing written"
else bad "set bad value (rc $rc): $(cat "$D/out")"; fi
cp "$D/out" "$D/out1"
"$S" conf set $c MaxJobCont=5 >"$D/out" 2>&1; rc=$?
[ $rc -eq 4 ] && grep -q "did you mean MaxJobCount" "$D/out" && ok "set of an unknown key: exit 4, did you mean" || bad "set unknown key (rc $rc): $(cat "$D/out")"
"$S" conf set $c "MinJobAge=1
B=2" >"$D/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'line break' "$D/out" && [ "$(extra)" = "$before" ] && ok "line break refused" || bad "line break (rc $rc): $(cat "$D/out")"
"$S" conf unset $c MaxJobCont >"$D/out" 2>&1; rc=$?
[ $rc -eq 0 ] && ! extra | grep -q MaxJobCont && ok "unset removes the typo" || bad "unset typo (rc $rc): $(cat "$D/out")"
"$S" conf set $c MinJobAge=7 >"$D/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$("$S" conf get $c MinJobAge)" = "MinJobAge=7" ] && ok "good set written" || bad "good set (rc $rc): $(cat "$D/out")"
"$S" conf get $c --context no-such-context MinJobAge >"$D/out" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q 'no-such-context' "$D/out" && ok "--context honoured" || bad "--context (rc $rc): $(cat "$D/out")"
[ -n "${VERBOSE:-}" ] && cat "$D/out1"
exit $fail
