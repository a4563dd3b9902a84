#!/usr/bin/env bash
# slinky-user-add and `slinkyctl ledger`: exit codes, messages, idempotency,
# dry runs, and that a failed command writes nothing.
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}; D=${SLINKY_TEST_DATA:?}/ledger
CTL=$B/tools/slinkyctl/slinkyctl
ADD=$B/tools/slinky-user-add/slinky-user-add
W=$(mktemp -d /tmp/ledger-cli.XXXXXX)
trap 'rm -rf "$W"' EXIT
export SLINKY_LEDGER=$W/l.git
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; exit 1; }
# expect RC CMD...: run, check the exit code, keep output in $out
expect() { local want=$1; shift; local rc=0; out=$("$@" 2>&1) || rc=$?; [ "$rc" = "$want" ] || die "$* -> rc $rc (want $want): $out"; }
count() { git --git-dir="$SLINKY_LEDGER" rev-list --count main; }

expect 0 "$ADD" --help; grep -q "usage: slinky-user-add NAME" <<<"$out" || die help
expect 2 "$ADD"
expect 2 "$ADD" a b
expect 5 "$ADD" alice
grep -q "slinkyctl ledger --ledger $SLINKY_LEDGER init" <<<"$out" || die "no hint: $out"
expect 0 "$CTL" ledger init --cluster cli
expect 3 "$CTL" ledger init
ok "help, usage errors, missing ledger (5), init twice (3)"

expect 4 "$ADD" Alice
grep -q "not a portable user name" <<<"$out" || die "$out"
expect 4 "$ADD" alice --ssh-key-file "$D/mismatch.pub"
grep -q "mismatch.pub line 1: ssh key: the key blob is not a 'ssh-rsa' key" <<<"$out" || die "$out"
expect 4 "$ADD" alice --ssh-key-file "$D/nonexistent.pub"
expect 4 "$ADD" alice --uid abc
expect 4 "$ADD" alice --group Bad
expect 2 "$ADD" alice --apply nfs
[ "$(count)" = 1 ] || die "a failed command wrote events"
ok "invalid input exits 4 (2 for usage) and writes nothing"

expect 0 "$ADD" alice --dry-run --ssh-key-file "$D/ed25519.pub" --group dev --account research --root "$W/root"
grep -q "would record: user-add alice" <<<"$out" || die "$out"
grep -q "would record: assoc-add alice research" <<<"$out" || die "$out"
[ "$(count)" = 1 ] || die "dry run wrote"
ok "--dry-run prints the events and writes nothing"

K=$W/kanidm; printf '#!/bin/sh\necho "$*" >> %s/kanidm.log\ncase "$2" in get) exit 1;; esac\ncase "$3" in list-publickeys) exit 1;; esac\n' "$W" > "$K"; chmod +x "$K"
expect 0 "$ADD" alice --ssh-key-file "$D/ed25519.pub" --ssh-key-file "$D/rsa.pub" --group dev \
  --account research --uid 70000 --gecos "Alice A" --apply posix,kanidm --root "$W/root" --kanidm "$K"
[ "$(count)" = 8 ] || die "expected 7 events, have $(( $(count) - 1 ))"
grep -q '^alice:x:70000:70000:Alice A:/home/alice:/bin/bash$' "$W/root/etc/passwd" || die passwd
grep -q '^dev:x:65536:alice$' "$W/root/etc/group" || die group
[ "$(wc -l < "$W/root/etc/ssh/authorized_keys/alice")" = 2 ] || die keys
grep -q "^person posix set alice --gidnumber 70000 --shell /bin/bash$" "$W/kanidm.log" || die "kanidm: $(cat "$W/kanidm.log")"
grep -q "^person ssh add-publickey alice ed25519 ssh-ed25519 " "$W/kanidm.log" || die "kanidm keys"
ok "user with 2 keys, a group and an account recorded (7 events) and applied to posix + kanidm"
expect 0 "$ADD" alice --ssh-key-file "$D/ed25519.pub" --group dev --account research --apply posix --root "$W/root"
grep -q "nothing to record" <<<"$out" || die "$out"
[ "$(count)" = 8 ] || die "re-run wrote events"
ok "re-running the same command changes nothing"
expect 3 "$ADD" alice --uid 70001
grep -q "exists with uid 70000" <<<"$out" || die "$out"
expect 3 "$ADD" bob --uid 70000
grep -q "id 70000 is already taken by user alice" <<<"$out" || die "$out"
expect 3 "$ADD" dev
ok "name and id conflicts exit 3"

expect 0 "$CTL" ledger verify; grep -q "ok: 7 events verified" <<<"$out" || die "$out"
expect 0 "$CTL" ledger keys alice; [ "$(wc -l <<<"$out")" = 2 ] || die "keys: $out"
expect 5 "$CTL" ledger keys nosuch
expect 0 "$CTL" ledger show user alice; grep -q '"uid": 70000' <<<"$out" || die "$out"
expect 0 "$CTL" ledger history group/dev; [ "$(wc -l <<<"$out")" = 2 ] || die "history: $out"
expect 4 "$CTL" ledger apply '{"kind":"user-add","name":"x","shoe":1}'
grep -q "unknown event field 'shoe'" <<<"$out" || die "$out"
expect 0 "$CTL" ledger export "$W/export.jsonl"
expect 0 "$CTL" ledger --ledger "$W/copy.git" init --cluster cli
expect 0 "$CTL" ledger --ledger "$W/copy.git" import "$W/export.jsonl"; grep -q "imported 7 new events" <<<"$out" || die "$out"
[ "$(git --git-dir="$W/copy.git" rev-parse main^{tree})" = "$(git --git-dir="$SLINKY_LEDGER" rev-parse main^{tree})" ] || die "import differs"
expect 0 "$CTL" ledger push "$W/remote.git"
expect 0 "$CTL" ledger push "$W/clone.git"
expect 0 "$CTL" ledger apply '{"kind":"user-add","name":"carol"}'
expect 0 "$CTL" ledger push "$W/remote.git"
expect 0 "$CTL" ledger --ledger "$W/clone.git" pull "file://$W/remote.git"
expect 0 "$CTL" ledger --ledger "$W/clone.git" show user carol
# copy.git's imported history may equal the original commit for commit (same
# second), so give it an event of its own: now the histories really diverge
expect 0 "$CTL" ledger --ledger "$W/copy.git" apply '{"kind":"user-add","name":"dave"}'
expect 3 "$CTL" ledger --ledger "$W/copy.git" pull "file://$W/remote.git"
grep -q "diverged" <<<"$out" || die "$out"
expect 0 "$CTL" ledger replay --root "$W/root" --dry-run; grep -q "posix: add etc/passwd carol" <<<"$out" || die "$out"
expect 2 "$CTL" ledger frobnicate
expect 0 "$CTL" ledger sshd-config --enable-seamless --port 2200
grep -q "^Port 2200$" <<<"$out" || die "$out"
ok "slinkyctl ledger verify/keys/show/history/apply/export/import/push/pull/replay/sshd-config"
echo "$pass passed"
