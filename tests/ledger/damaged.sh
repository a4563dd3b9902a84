#!/usr/bin/env bash
# A damaged ledger: every reader fails fast, naming the object, and writers
# and replays refuse a history that fails verify (issue 22, items 1 and 4).
#  - the tip commit's loose object cut to 20 bytes (and a record blob cut
#    short): `slinkyctl ledger show/verify`, slinky-user-add and
#    slinky-ledger-keys exit non-zero within seconds (libgit2 1.5 spun
#    forever), the message names the object, the keys command prints nothing;
#  - a tip rewritten to give alice uid 0, and a corrupt parent commit:
#    appends and replays refuse with the verify error; nothing is written.
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}
CTL=$B/tools/slinkyctl/slinkyctl
ADD=$B/tools/slinky-user-add/slinky-user-add
KEYS=$B/tools/slinky-ledger-keys/slinky-ledger-keys
K=${SLINKY_TEST_DATA:?}/ledger/ed25519.pub
W=$(mktemp -d /tmp/ledger-damaged.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; exit 1; }
# fails RC_NOT_WANTED CMD...: run with a 10 s limit; must exit non-zero (not
# by the timeout) and quickly; output in $out, stdout alone in $stdout
fails() {
  local rc=0 t0=$SECONDS
  stdout=$(timeout 10 "$@" 2>"$W/err") || rc=$?
  out="$stdout$(cat "$W/err")"
  [ "$rc" != 124 ] || die "$* still ran after 10 s (hang)"
  [ "$rc" != 0 ] || die "$* succeeded on a damaged ledger: $out"
  [ $((SECONDS - t0)) -le 5 ] || die "$* took $((SECONDS - t0)) s"
}
obj() { local h; h=$(git --git-dir="$1" rev-parse "$2"); echo "$1/objects/${h:0:2}/${h:2}"; }
cut() { chmod u+w "$1"; truncate -s "$2" "$1"; }

# --- 1: truncated loose objects ---------------------------------------------
export SLINKY_LEDGER=$W/a.git
# the target root has its own (empty) base passwd/group, not this host's
printf '#!/bin/sh\nexec %s "$@" --root %s\n' "$ADD" "$W/target" >"$W/add"; chmod +x "$W/add"
ADD=$W/add
"$CTL" ledger init >/dev/null
"$ADD" alice --ssh-key-file "$K" >/dev/null
tip=$(git --git-dir="$SLINKY_LEDGER" rev-parse main)
cp "$(obj "$SLINKY_LEDGER" main)" "$W/tip.orig"
cut "$(obj "$SLINKY_LEDGER" main)" 20
for cmd in "$CTL ledger show" "$CTL ledger verify" "$ADD bob" "$KEYS alice"; do
  # shellcheck disable=SC2086
  fails $cmd
  grep -q "object $tip is corrupt" <<<"$out" || die "$cmd: the object is not named: $out"
done
[ -z "$stdout" ] || die "the keys command printed something: $stdout"
ok "tip object cut to 20 bytes: show, verify, user-add, keys fail fast naming $tip"

# restore the tip, cut alice's record blob (read by keys, not by open)
cp "$W/tip.orig" "$(obj "$SLINKY_LEDGER" main)"
blob=$(git --git-dir="$SLINKY_LEDGER" ls-tree -r main | awk '/alice.json/ {print $3}')
cp "$(obj "$SLINKY_LEDGER" "$blob")" "$W/blob.orig"
size=$(stat -c %s "$W/blob.orig")
cut "$(obj "$SLINKY_LEDGER" "$blob")" $((size / 2))
fails "$KEYS" alice
grep -q "object $blob is corrupt" <<<"$out" || die "keys: $out"
[ -z "$stdout" ] || die "the keys command printed something: $stdout"
fails "$CTL" ledger show
ok "a record blob cut in half: keys and show fail fast naming $blob"
cp "$W/blob.orig" "$(obj "$SLINKY_LEDGER" "$blob")"
[ "$(timeout 10 "$KEYS" alice | wc -l)" = 1 ] || die "restored ledger does not serve the key"
ok "restored objects read again"

# --- 4: a history that fails verify is read-only ----------------------------
export SLINKY_LEDGER=$W/b.git
"$CTL" ledger init >/dev/null
"$ADD" alice --ssh-key-file "$K" >/dev/null
"$ADD" carol >/dev/null
# rewrite the tip: the same event message, alice's record with uid 0
export GIT_DIR=$SLINKY_LEDGER GIT_INDEX_FILE=$W/idx
git read-tree main
path=$(git ls-tree -r --name-only main | grep '/alice.json$')
b=$(git show "main:$path" | sed 's/"uid": [0-9]*/"uid": 0/' | git hash-object -w --stdin)
git update-index --cacheinfo "100644,$b,$path"
t=$(git write-tree)
forged=$(git log -1 --format=%B main | GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x \
  GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x git commit-tree "$t" -p main~1)
git update-ref refs/heads/main "$forged"
unset GIT_DIR GIT_INDEX_FILE
rc=0; out=$("$ADD" bob 2>&1) || rc=$?
[ "$rc" = 3 ] || die "user-add on a forged tip -> rc $rc: $out"
grep -q "read-only" <<<"$out" && grep -q "$forged" <<<"$out" || die "message: $out"
rc=0; out=$("$CTL" ledger apply '{"kind":"group-add","name":"dev"}' 2>&1) || rc=$?
[ "$rc" = 3 ] || die "ledger apply on a forged tip -> rc $rc: $out"
rc=0; out=$("$CTL" ledger replay --root "$W/root" 2>&1) || rc=$?
[ "$rc" = 3 ] && grep -q "$forged" <<<"$out" || die "replay of a forged tip -> rc $rc: $out"
[ ! -e "$W/root/etc/passwd" ] || die "the replay wrote passwd: $(cat "$W/root/etc/passwd")"
[ "$(git --git-dir="$SLINKY_LEDGER" rev-parse main)" = "$forged" ] || die "something was appended"
ok "tip rewritten to uid 0: user-add, apply and replay refuse (exit 3), nothing written"

# back to the honest tip; then corrupt its parent commit
git --git-dir="$SLINKY_LEDGER" update-ref refs/heads/main "$forged~1"
"$ADD" dave >/dev/null || die "honest history refused"
parent=$(git --git-dir="$SLINKY_LEDGER" rev-parse main~1)
cut "$(obj "$SLINKY_LEDGER" main~1)" 30
before=$(git --git-dir="$SLINKY_LEDGER" rev-parse main)
rc=0; out=$(timeout 10 "$ADD" erin 2>&1) || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || die "user-add over a corrupt parent -> rc $rc: $out"
grep -q "read-only" <<<"$out" && grep -q "$parent" <<<"$out" || die "message: $out"
rc=0; out=$(timeout 10 "$CTL" ledger replay --root "$W/root" 2>&1) || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "$parent" <<<"$out" || die "replay: rc $rc: $out"
[ "$(git --git-dir="$SLINKY_LEDGER" rev-parse main)" = "$before" ] || die "something was appended"
ok "corrupt parent commit: user-add and replay refuse naming $parent, nothing written"
echo "$pass passed"
