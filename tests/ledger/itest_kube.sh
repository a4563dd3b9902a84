#!/usr/bin/env bash
# Kubernetes sink against the project's API server (tests/apiserver/start-apiserver.sh,
# TLS + token), checked with the real kubectl: the Secret holds passwd, group and
# authorized_keys.<user>; a second replay leaves it alone (same resourceVersion);
# a ledger change updates it; a Secret not labelled as the ledger's is a conflict.
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}; S=${SLINKY_SOURCE_DIR:?}
CTL=$B/tools/slinkyctl/slinkyctl
W=$(mktemp -d /tmp/ledger-kube.XXXXXX)
L=$W/ledger.git
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; exit 1; }
cleanup() { sh "$S/tests/apiserver/stop-apiserver.sh" "$W/api" || true; rm -rf "$W"; }
trap cleanup EXIT
SLINKY_BUILD_DIR=$B sh "$S/tests/apiserver/start-apiserver.sh" "$W/api" >/dev/null
KC=$W/api/kubeconfig
k() { kubectl --kubeconfig "$KC" "$@"; }
"$CTL" ledger --ledger "$L" init --cluster kube >/dev/null
"$CTL" ledger --ledger "$L" apply '{"kind":"user-add","name":"alice","gecos":"Alice"}' >/dev/null
"$CTL" ledger --ledger "$L" apply '{"kind":"group-add","name":"dev"}' >/dev/null
"$CTL" ledger --ledger "$L" apply '{"kind":"member-add","name":"alice","target":"dev"}' >/dev/null
key=$(cat "$S/tests/data/ledger/ed25519.pub")
"$CTL" ledger --ledger "$L" apply "{\"kind\":\"key-add\",\"name\":\"alice\",\"tag\":\"t\",\"key\":\"$key\"}" >/dev/null
replay() { "$CTL" ledger --ledger "$L" replay --sinks kube --kubeconfig "$KC" --namespace default "$@"; }
out=$(replay) || die "replay: $out"
grep -q "kube: create secret default/slinky-identity" <<<"$out" || die "plan: $out"
pw=$(k get secret slinky-identity -o jsonpath='{.data.passwd}' | base64 -d)
[ "$pw" = "alice:x:65536:65536:Alice:/home/alice:/bin/bash" ] || die "passwd: $pw"
gr=$(k get secret slinky-identity -o jsonpath='{.data.group}' | base64 -d)
[ "$gr" = "$(printf 'alice:x:65536:\ndev:x:65537:alice')" ] || die "group: $gr"
ak=$(k get secret slinky-identity -o 'jsonpath={.data.authorized_keys\.alice}' | base64 -d)
[ "$ak" = "$key" ] || die "authorized_keys.alice: $ak"
lbl=$(k get secret slinky-identity -o 'jsonpath={.metadata.labels.app\.kubernetes\.io/managed-by}')
[ "$lbl" = slinky-ledger ] || die "label: $lbl"
ok "secret with passwd, group and authorized_keys.alice (read back with kubectl)"
rv1=$(k get secret slinky-identity -o jsonpath='{.metadata.resourceVersion}')
out=$(replay --force) || die "replay 2: $out"
[ -z "$out" ] || die "second replay did something: $out"
[ "$rv1" = "$(k get secret slinky-identity -o jsonpath='{.metadata.resourceVersion}')" ] || die "rewritten"
ok "second replay leaves the secret alone"
"$CTL" ledger --ledger "$L" apply '{"kind":"user-add","name":"bob"}' >/dev/null
out=$(replay) || die "replay 3: $out"
grep -q "update secret" <<<"$out" || die "plan: $out"
k get secret slinky-identity -o jsonpath='{.data.passwd}' | base64 -d | grep -q '^bob:x:65538:' || die "bob missing"
ok "a ledger change updates the secret"
k create secret generic foreign --from-literal=passwd=x >/dev/null
rc=0; out=$(replay --secret foreign --force 2>&1) || rc=$?
[ "$rc" = 3 ] || die "foreign secret: rc $rc: $out"
grep -q "not managed by the ledger" <<<"$out" || die "message: $out"
[ "$(k get secret foreign -o jsonpath='{.data.passwd}' | base64 -d)" = x ] || die "foreign secret changed"
ok "a foreign secret is a conflict and stays as it is"
echo "$pass passed"
