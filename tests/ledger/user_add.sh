#!/usr/bin/env bash
# slinky-user-add under concurrency and against the base system (issue 22,
# items 2 and 3):
#  - 8 processes adding the same user (key, group, account) all exit 0 and the
#    ledger holds each event once;
#  - 8 new users sharing a new --group all exit 0, all are recorded and all
#    are members of the group;
#  - reserved names (root, daemon, nobody, sshd), names and uids/gids of the
#    target's base passwd/group and uids below the ledger's range exit 4 and
#    write nothing.
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}; D=${SLINKY_TEST_DATA:?}/ledger
CTL=$B/tools/slinkyctl/slinkyctl
ADD=$B/tools/slinky-user-add/slinky-user-add
KEYS=$B/tools/slinky-ledger-keys/slinky-ledger-keys
W=$(mktemp -d /tmp/ledger-useradd.XXXXXX)
trap 'rm -rf "$W"' EXIT
export SLINKY_LEDGER=$W/l.git
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; exit 1; }
count() { git --git-dir="$SLINKY_LEDGER" rev-list --count main; }
events() { "$CTL" ledger export | grep -c "\"kind\":\"$1\"" || true; }
"$CTL" ledger init >/dev/null

# run 8 at once: runall LABEL CMD-WITH-%i...; every exit code must be 0
runall() {
  local label=$1; shift
  local pids=() i
  for i in 1 2 3 4 5 6 7 8; do
    ( set +e; eval "${*//%i/$i}" >"$W/out.$i" 2>&1; echo $? >"$W/rc.$i" ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for i in 1 2 3 4 5 6 7 8; do
    [ "$(cat "$W/rc.$i")" = 0 ] || die "$label: process $i exit $(cat "$W/rc.$i"): $(cat "$W/out.$i")"
  done
}

# the target root: its own base passwd/group (this host's may hold anything)
E=$W/empty
runall "same user" "'$ADD' alice --ssh-key-file '$D/ed25519.pub' --group dev --account physics --root '$E'"
[ "$(events user-add)" = 1 ] && [ "$(events key-add)" = 1 ] && [ "$(events group-add)" = 1 ] &&
  [ "$(events member-add)" = 1 ] && [ "$(events account-add)" = 1 ] &&
  [ "$(events assoc-add)" = 1 ] || die "events: $("$CTL" ledger export)"
[ "$(count)" = 7 ] || die "$(count) commits"
"$CTL" ledger verify >/dev/null
ok "8 x the same slinky-user-add: all exit 0, each of the 6 events recorded once"

runall "new users, new group" "'$ADD' u%i --group shared --root '$E'"
members=$("$CTL" ledger show group shared | tr -d ' \n' | sed 's/.*"members":\[\([^]]*\)\].*/\1/')
for i in 1 2 3 4 5 6 7 8; do
  "$CTL" ledger show user "u$i" >/dev/null || die "u$i not recorded"
  grep -q "\"u$i\"" <<<"$members" || die "u$i is not in group shared: $members"
done
[ "$(events group-add)" = 2 ] || die "group-add recorded $(events group-add) times"
ok "8 new users sharing a new --group: all exit 0, all recorded, all members"

# --- reserved names and ids ---------------------------------------------------
R=$W/root; mkdir -p "$R/etc"
printf 'root:x:0:0:root:/root:/bin/bash\nsvc:x:1001:1001::/srv:/bin/false\nbig:x:70000:70000::/b:/bin/false\n' >"$R/etc/passwd"
printf 'root:x:0:\nsvc:x:1001:\nlabs:x:70001:\n' >"$R/etc/group"
before=$(count)
expect4() {
  local rc=0; out=$("$@" 2>&1) || rc=$?
  [ "$rc" = 4 ] || die "$* -> rc $rc (want 4): $out"
}
for n in root daemon nobody sshd; do
  expect4 "$ADD" "$n" --ssh-key-file "$D/ed25519.pub" --root "$E"
  grep -q "reserved" <<<"$out" || die "$n: $out"
done
expect4 "$ADD" svc --root "$R"
grep -q "svc.*$R/etc/passwd" <<<"$out" || die "svc: $out"
expect4 "$ADD" labs --root "$R"
expect4 "$ADD" bob --uid 70000 --root "$R"
grep -q "70000.*$R/etc/passwd" <<<"$out" || die "uid: $out"
expect4 "$ADD" bob --uid 70001 --root "$R"
expect4 "$ADD" bob --group svc --root "$R"
expect4 "$ADD" bob --group root --root "$E"
expect4 "$ADD" bob --uid 1500 --root "$E"
grep -q "below the ledger's id range" <<<"$out" || die "low uid: $out"
expect4 "$CTL" ledger apply '{"kind":"user-add","name":"root"}'
expect4 "$CTL" ledger apply '{"kind":"group-add","name":"x","id":500}'
[ "$(count)" = "$before" ] || die "a refused command wrote events"
rc=0; out=$("$KEYS" root 2>&1) || rc=$?
[ "$rc" != 0 ] && ! grep -q ssh- <<<"$out" || die "keys for root: $out"
ok "root/daemon/nobody/sshd, base passwd/group names and ids, low uids: exit 4, nothing written"
# the ledger's own entries in the target's files are not 'base'
"$ADD" alice --apply posix --root "$R" >/dev/null || die "apply alice"
"$ADD" alice --root "$R" --group dev >/dev/null || die "alice is refused after being applied"
ok "a user the ledger wrote into the root is still the ledger's"
echo "$pass passed"
