#!/usr/bin/env bash
# bench_ldap.sh [N]: replay N users (default 1000; each with an SSH key and a
# user private group) into a real slapd with the ledger's LDAP sink, beside
# the directory's own floor: `ldapadd` of the same entries (dumped from the
# first directory) in one batch into a fresh slapd. Both over StartTLS, same
# server configuration. Prints the ratio (target <= 1.5) and the time of a
# no-op replay (nothing changed; target < 1 s), with and without --force.
# Needs a build dir: SLINKY_BUILD_DIR (default ./_build/dev).
set -euo pipefail
N=${1:-1000}
B=${SLINKY_BUILD_DIR:-$PWD/_build/dev}
HERE=$(cd "$(dirname "$0")" && pwd)
SLAPD=$HERE/../../tests/ledger/slapd.sh
KEY=$HERE/../../tests/data/ledger/ed25519.pub
CTL=$B/tools/slinkyctl/slinkyctl
W=$(mktemp -d /var/tmp/bench-ldap.XXXXXX)
cleanup() { bash "$SLAPD" stop "$W/a" || true; bash "$SLAPD" stop "$W/b" || true; rm -rf "$W"; }
trap cleanup EXIT
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.3f}')"; }

bash "$SLAPD" up "$W/a"
bash "$SLAPD" up "$W/b"
export SLINKY_LEDGER=$W/l.git
"$CTL" ledger init --cluster bench >/dev/null
key=$(head -1 "$KEY" | cut -d' ' -f1-2)
for i in $(seq "$N"); do
  printf '{"kind":"user-add","name":"lu%d","gecos":"User %d","request_id":"u%d"}\n' "$i" "$i" "$i"
  printf '{"kind":"key-add","name":"lu%d","tag":"laptop","key":"%s lu%d@bench","request_id":"k%d"}\n' \
    "$i" "$key" "$i" "$i"
done >"$W/events.jsonl"
t0=$(now); "$CTL" ledger import "$W/events.jsonl" >/dev/null; t1=$(now)
echo "ledger: $N users + $N keys imported in $(secs "$t0" "$t1") s (not part of the ratio)"

# shellcheck disable=SC1091
. "$W/a/env"
replay() {
  "$CTL" ledger replay --sinks ldap --ldap-uri "$LDAP_URI" --ldap-base "$LDAP_BASE" \
    --ldap-bind-dn "$LDAP_BIND_DN" --ldap-password-file "$LDAP_PWFILE" --ldap-ca "$LDAP_CA" "$@"
}
t0=$(now); replay >"$W/plan"; t1=$(now)
T_REPLAY=$(secs "$t0" "$t1")
adds=$(grep -c '^ldap: add' "$W/plan")
t0=$(now); replay >"$W/plan2"; t1=$(now)
T_NOOP=$(secs "$t0" "$t1")
t0=$(now); replay --force >"$W/plan3"; t1=$(now)
T_FORCE=$(secs "$t0" "$t1")
[ ! -s "$W/plan2" ] && [ ! -s "$W/plan3" ] || { echo "no-op replay planned changes" >&2; exit 1; }

# the same entries as one LDIF, into the second (empty) directory
LDAPTLS_CACERT=$LDAP_CA ldapsearch -H "$LDAP_URI" -ZZ -x -D "$LDAP_BIND_DN" -y "$LDAP_PWFILE" \
  -b "$LDAP_BASE" -LLL -o ldif-wrap=no \
  '(|(objectClass=posixAccount)(objectClass=posixGroup)(objectClass=organizationalUnit))' >"$W/all.ldif"
entries=$(grep -c '^dn: ' "$W/all.ldif")
# shellcheck disable=SC1091
. "$W/b/env"
t0=$(now)
LDAPTLS_CACERT=$LDAP_CA ldapadd -H "$LDAP_URI" -ZZ -x -D "$LDAP_BIND_DN" -y "$LDAP_PWFILE" \
  -f "$W/all.ldif" >/dev/null
t1=$(now)
T_FLOOR=$(secs "$t0" "$t1")
ratio=$(python3 -c "print(f'{$T_REPLAY / $T_FLOOR:.2f}')")
echo "ldap replay: $N users ($adds entries added) in $T_REPLAY s"
echo "ldapadd floor: the same $entries entries (incl. the 2 OUs) in one batch in $T_FLOOR s"
verdict=$(python3 -c "print('PASS' if $T_REPLAY <= 1.5 * $T_FLOOR else 'FAIL')")
echo "RESULT ldap replay / ldapadd: ${ratio}x (target <= 1.5): $verdict"
verdict=$(python3 -c "print('PASS' if $T_NOOP < 1 and $T_FORCE < 1 else 'FAIL')")
echo "RESULT no-op replay: $T_NOOP s (progress ref), $T_FORCE s (--force, every entry compared) (target < 1 s): $verdict"
