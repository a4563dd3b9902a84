#!/usr/bin/env bash
# The LDAP sink against a real OpenLDAP slapd (Debian's, started by
# tests/ledger/slapd.sh on a loopback port; every operation over StartTLS to a
# test CA made with certtool; bind password from a file):
#  - replay writes posixAccount/posixGroup/ldapPublicKey entries with the
#    ledger's uids/gids, ldapsearch sees them; a re-run changes nothing;
#  - a user and a key removed in the ledger are removed from the directory;
#  - a uid already held by an entry the ledger does not know is a conflict
#    (exit 3) and nothing is written, not even the unrelated changes;
#  - slapd down: the sink fails naming the server, the ledger and its replay
#    progress are unchanged, and a later replay converges;
#  - a wrong CA or a wrong password fails, naming the problem;
#  - the bind password from a Kubernetes Secret (the project's API server,
#    when built: LDAP_TEST_SECRET=1 from tests.cmake).
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}; D=${SLINKY_TEST_DATA:?}/ledger
HERE=$(cd "$(dirname "$0")" && pwd)
CTL=$B/tools/slinkyctl/slinkyctl
ADD=$B/tools/slinky-user-add/slinky-user-add
W=$(mktemp -d /tmp/ledger-ldap.XXXXXX)
cleanup() {
  bash "$HERE/slapd.sh" stop "$W/slapd" || true
  [ ! -d "$W/api" ] || sh "$HERE/../apiserver/stop-apiserver.sh" "$W/api" || true
  rm -rf "$W"
}
trap cleanup EXIT
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; exit 1; }
bash "$HERE/slapd.sh" up "$W/slapd"
# shellcheck disable=SC1091
. "$W/slapd/env"
export SLINKY_LEDGER=$W/l.git LDAPTLS_CACERT=$LDAP_CA
"$CTL" ledger init --cluster ldap >/dev/null
add() { "$ADD" "$@" --root "$W/empty" >/dev/null; }
replay() {
  "$CTL" ledger replay --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
    --ldap-bind-dn "$LDAP_BIND_DN" --ldap-password-file "$LDAP_PWFILE" --ldap-ca "$LDAP_CA" "$@"
}
# the same as the service account (not the root DN: writes through the ACL)
svc_replay() {
  "$CTL" ledger replay --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
    --ldap-bind-dn "$LDAP_SVC_DN" --ldap-password-file "$LDAP_SVC_PWFILE" --ldap-ca "$LDAP_CA" "$@"
}
search() { ldapsearch -H "$LDAP_URI" -ZZ -x -D "$LDAP_BIND_DN" -y "$LDAP_PWFILE" -b "$LDAP_BASE" -LLL -o ldif-wrap=no "$@"; }
attr() { search "$1" "$2" | sed -n "s/^$2: //p"; }
ledger_uid() { "$CTL" ledger show user "$1" | sed -n 's/.*"uid": \([0-9]*\).*/\1/p'; }

add alice --ssh-key-file "$D/ed25519.pub" --ssh-key-file "$D/rsa.pub" --group physics --gecos "Alice A"
add bob --group physics
add carol
out=$(svc_replay) || die "replay: $out"
[ "$(grep -c '^ldap: add' <<<"$out")" = 7 ] || die "expected 7 adds (3 private groups, physics, 3 users): $out"
[ "$(attr '(uid=alice)' uidNumber)" = "$(ledger_uid alice)" ] || die "alice's uidNumber"
[ "$(attr '(uid=alice)' gidNumber)" = "$(ledger_uid alice)" ] || die "alice's gidNumber"
[ "$(attr '(cn=alice)' gidNumber)" = "$(ledger_uid alice)" ] || die "alice's private group"
[ "$(attr '(uid=alice)' sshPublicKey | wc -l)" = 2 ] || die "alice's keys: $(search '(uid=alice)')"
grep -q "^ssh-ed25519 " <<<"$(attr '(uid=alice)' sshPublicKey)" || die "ed25519 key"
[ "$(attr '(uid=alice)' homeDirectory)" = /home/alice ] || die home
[ "$(attr '(cn=physics)' memberUid | sort | tr '\n' ' ')" = "alice bob " ] || die "physics members"
search '(uid=alice)' objectClass | grep -q '^objectClass: ldapPublicKey$' || die "no ldapPublicKey"
ok "replay (as a service account) wrote 7 entries; ldapsearch sees the ledger's uids/gids, keys and members"

before=$(search '(objectClass=*)' modifyTimestamp entryCSN | sha256sum)
out=$(replay) || die "re-run: $out"
[ -z "$out" ] || die "re-run planned: $out"
out=$(replay --force) || die "forced re-run: $out"
[ -z "$out" ] || die "forced re-run (every entry compared) planned: $out"
[ "$(search '(objectClass=*)' modifyTimestamp entryCSN | sha256sum)" = "$before" ] || die "re-run modified entries"
ok "re-run (also --force, every entry compared) writes nothing"

"$CTL" ledger apply '{"kind":"user-delete","name":"bob"}' >/dev/null
"$CTL" ledger apply '{"kind":"key-remove","name":"alice","tag":"rsa"}' >/dev/null
"$CTL" ledger apply '{"kind":"user-update","name":"carol","shell":"/bin/zsh"}' >/dev/null
out=$(replay) || die "replay of removals: $out"
[ -z "$(search '(uid=bob)')" ] && [ -z "$(search '(cn=bob)')" ] || die "bob still there: $out"
[ "$(attr '(cn=physics)' memberUid)" = alice ] || die "physics still lists bob"
[ "$(attr '(uid=alice)' sshPublicKey | wc -l)" = 1 ] || die "alice's removed key is still there"
[ "$(attr '(uid=carol)' loginShell)" = /bin/zsh ] || die "carol's shell"
ok "a deleted user, a removed key and a changed shell reach the directory"

# a directory user the ledger does not know holds the uid of a new ledger user
printf 'dn: uid=mallory,ou=people,%s\nobjectClass: account\nobjectClass: posixAccount\nuid: mallory\ncn: mallory\nuidNumber: 70000\ngidNumber: 70000\nhomeDirectory: /home/mallory\n' "$LDAP_BASE" |
  ldapadd -H "$LDAP_URI" -ZZ -x -D "$LDAP_BIND_DN" -y "$LDAP_PWFILE" >/dev/null
add dave --uid 70000
"$CTL" ledger apply '{"kind":"user-update","name":"alice","shell":"/bin/sh"}' >/dev/null
snap=$(search '(objectClass=*)' modifyTimestamp entryCSN | sha256sum)
rc=0; out=$(replay 2>&1) || rc=$?
[ "$rc" = 3 ] || die "conflict -> rc $rc: $out"
grep -q "uidNumber 70000 of ledger user 'dave' is already used by uid=mallory,ou=people,$LDAP_BASE" <<<"$out" || die "message: $out"
[ "$(search '(objectClass=*)' modifyTimestamp entryCSN | sha256sum)" = "$snap" ] || die "the conflicting replay wrote"
[ "$(attr '(uid=alice)' loginShell)" = /bin/bash ] || die "alice was changed despite the conflict"
ldapdelete -H "$LDAP_URI" -ZZ -x -D "$LDAP_BIND_DN" -y "$LDAP_PWFILE" "uid=mallory,ou=people,$LDAP_BASE"
out=$(replay) || die "after the conflict was resolved: $out"
[ "$(attr '(uid=dave)' uidNumber)" = 70000 ] && [ "$(attr '(uid=alice)' loginShell)" = /bin/sh ] || die "not converged: $out"
ok "a uid held by an unknown directory entry: exit 3 naming it, nothing written; converges once it is gone"

# slapd down
bash "$HERE/slapd.sh" stop "$W/slapd"
add erin --group physics
tip=$(git --git-dir="$SLINKY_LEDGER" rev-parse main)
prog=$(git --git-dir="$SLINKY_LEDGER" rev-parse refs/replay/default/ldap)
rc=0; out=$(timeout 60 "$CTL" ledger replay --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
  --ldap-bind-dn "$LDAP_BIND_DN" --ldap-password-file "$LDAP_PWFILE" --ldap-ca "$LDAP_CA" 2>&1) || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || die "replay with slapd down -> rc $rc: $out"
grep -q "$LDAP_URI" <<<"$out" && grep -qi "contact\|connect" <<<"$out" || die "the server is not named: $out"
[ "$(git --git-dir="$SLINKY_LEDGER" rev-parse main)" = "$tip" ] || die "the ledger changed"
[ "$(git --git-dir="$SLINKY_LEDGER" rev-parse refs/replay/default/ldap)" = "$prog" ] || die "replay progress moved"
bash "$HERE/slapd.sh" start "$W/slapd"
out=$(replay) || die "replay after slapd came back: $out"
[ -n "$(search '(uid=erin)')" ] && [ "$(attr '(cn=physics)' memberUid | sort | tr '\n' ' ')" = "alice erin " ] || die "not converged: $out"
ok "slapd down: fails naming $LDAP_URI, ledger and progress unchanged; the next replay converges"

out=$("$ADD" grace --ssh-key-file "$D/ecdsa.pub" --group physics --root "$W/empty" --apply ldap \
  --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" --ldap-bind-dn "$LDAP_BIND_DN" \
  --ldap-password-file "$LDAP_PWFILE" --ldap-ca "$LDAP_CA") || die "user-add --apply ldap: $out"
[ "$(attr '(uid=grace)' uidNumber)" = "$(ledger_uid grace)" ] || die "grace: $out"
grep -q "^ecdsa-sha2-" <<<"$(attr '(uid=grace)' sshPublicKey)" || die "grace's key"
ok "slinky-user-add --apply ldap records and writes the user in one command"

# TLS and credentials
openssl_free_ca=$W/other-ca.pem
certtool --generate-privkey --key-type=ecdsa --outfile "$W/other.key" 2>/dev/null
printf 'cn = another CA\nca\ncert_signing_key\n' >"$W/other.tmpl"
certtool --generate-self-signed --load-privkey "$W/other.key" --template "$W/other.tmpl" --outfile "$openssl_free_ca" 2>/dev/null
rc=0; out=$("$CTL" ledger replay --force --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
  --ldap-bind-dn "$LDAP_BIND_DN" --ldap-password-file "$LDAP_PWFILE" --ldap-ca "$openssl_free_ca" 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q "StartTLS" <<<"$out" || die "a server certificate from another CA was accepted: rc $rc: $out"
printf 'wrong' >"$W/wrong.pw"
rc=0; out=$("$CTL" ledger replay --force --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
  --ldap-bind-dn "$LDAP_BIND_DN" --ldap-password-file "$W/wrong.pw" --ldap-ca "$LDAP_CA" 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q "Invalid credentials" <<<"$out" || die "wrong password: rc $rc: $out"
rc=0; out=$("$CTL" ledger replay --force --sinks ldap --ldap-uri "http://127.0.0.1:1" --ldap-base "$LDAP_BASE" 2>&1) || rc=$?
[ "$rc" = 4 ] || die "bad uri: rc $rc: $out"
ok "another CA, a wrong password, a non-LDAP uri: refused with the reason"

# a service account (not the root DN) writes through the ACL, but the
# server's size limit (10 here, 500 by default) cuts its search short: the
# sink must stop rather than plan on part of the directory
rc=0; out=$(svc_replay --force 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -q "returned only part of the entries" <<<"$out" && grep -q olcLimits <<<"$out" ||
  die "a size-limited search was not refused: rc $rc: $out"
ok "a search cut short by the server's size limit stops the sink with the fix named"

if [ "${LDAP_TEST_SECRET:-0}" = 1 ]; then
  SLINKY_BUILD_DIR=$B sh "$HERE/../apiserver/start-apiserver.sh" "$W/api" >/dev/null
  KC=$W/api/kubeconfig
  kubectl --kubeconfig "$KC" -n default create secret generic ldap-bind \
    --from-file=password="$LDAP_PWFILE" >/dev/null
  add frank
  sec() {
    "$CTL" ledger replay --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
      --ldap-bind-dn "$LDAP_BIND_DN" --ldap-ca "$LDAP_CA" --kubeconfig "$KC" "$@"
  }
  rc=0; out=$(sec --ldap-password-secret default/ldap-bind/nokey 2>&1) || rc=$?
  [ "$rc" = 5 ] && grep -q "has no key 'nokey'" <<<"$out" || die "missing key: rc $rc: $out"
  out=$(sec --ldap-password-secret default/ldap-bind/password) || die "replay with the Secret: $out"
  [ -n "$(search '(uid=frank)')" ] || die "frank not written: $out"
  ok "bind password from the Secret default/ldap-bind (key password); a missing key exits 5"
fi
echo "$pass passed"
