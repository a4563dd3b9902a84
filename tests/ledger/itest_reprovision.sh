#!/usr/bin/env bash
# Re-provisioning: a ledger of 200 users (+ groups, memberships, accounts,
# associations) replayed into an empty root folder and a fresh slurmdbd
# (real MariaDB + slurmdbd + slurmctld + slurmd on loopback, tests/harness)
# gives the same passwd/group and the same `sacctmgr show assoc` as the
# first cluster; a second replay changes nothing; a replayed user can run a
# job under AccountingStorageEnforce=associations, a user whose association
# the ledger removed cannot.
set -euo pipefail
B=${SLINKY_BUILD_DIR:?}; H=${SLINKY_SOURCE_DIR:?}/tests/harness
CTL=$B/tools/slinkyctl/slinkyctl
W=$(mktemp -d /tmp/ledger-reprov.XXXXXX)
chmod 755 "$W"   # munged: the socket path must be traversable by all
L=$W/ledger.git
pass=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
die() { echo "FAIL - $*" >&2; exit 1; }
cleanup() {
  for c in c1 c2; do
    if [ -d "$W/$c" ]; then SLURM_CI_DIR=$W/$c "$H/slurm-ci.sh" down >/dev/null 2>&1 || true; fi
  done
  for u in lguser001 lguser002; do userdel "$u" >/dev/null 2>&1 || true; done
  rm -rf "$W"
}
trap cleanup EXIT

# ---- the ledger: 200 users, 20 groups, 4 accounts
{
  for g in $(seq -w 1 20); do echo "{\"kind\":\"group-add\",\"name\":\"lggroup$g\",\"request_id\":\"g$g\"}"; done
  for a in 1 2 3 4; do echo "{\"kind\":\"account-add\",\"name\":\"lgacct$a\",\"description\":\"account $a\",\"organization\":\"ci\",\"request_id\":\"a$a\"}"; done
  for i in $(seq -w 1 200); do
    echo "{\"kind\":\"user-add\",\"name\":\"lguser$i\",\"gecos\":\"User $i\",\"request_id\":\"u$i\"}"
    echo "{\"kind\":\"member-add\",\"name\":\"lguser$i\",\"target\":\"lggroup$(printf %02d $(( (10#$i % 20) + 1 )))\",\"request_id\":\"m$i\"}"
    echo "{\"kind\":\"assoc-add\",\"name\":\"lguser$i\",\"target\":\"lgacct$(( (10#$i % 4) + 1 ))\",\"request_id\":\"s$i\"}"
  done
} > "$W/events.jsonl"
"$CTL" ledger --ledger "$L" init --cluster ci >/dev/null
t0=$SECONDS
out=$("$CTL" ledger --ledger "$L" import "$W/events.jsonl") || die "import: $out"
grep -q "imported 624 new events" <<<"$out" || die "import: $out"
ok "ledger of 200 users and 20 groups built ($((SECONDS - t0)) s)"

# ---- the original cluster
mkdir -p "$W/c1" "$W/c2"
export SLURM_CI_DIR=$W/c1
up=$("$H/slurm-ci.sh" up dbd) || die "slurm-ci.sh up dbd failed"
eval "$up"
"$CTL" ledger --ledger "$L" replay --sinks posix,slurm --root "$W/root1" --incarnation c1 > "$W/plan1"
grep -q "slurm: add association user lguser200 account lgacct1" "$W/plan1" || die "plan1 lacks associations"
sacctmgr -nP show assoc format=cluster,account,user | sort > "$W/assoc1"
[ "$(grep -c '|lguser' "$W/assoc1")" = 200 ] || die "cluster 1 has $(grep -c '|lguser' "$W/assoc1") user associations"
ok "replayed into cluster 1: 200 associations"
"$H/slurm-ci.sh" down >/dev/null 2>&1

# ---- re-provisioned: empty root folder, fresh MariaDB + slurmdbd
export SLURM_CI_DIR=$W/c2
up=$("$H/slurm-ci.sh" up dbd) || die "slurm-ci.sh up dbd failed"
eval "$up"
[ -z "$(sacctmgr -nP show assoc format=user | grep lguser || true)" ] || die "fresh dbd not empty"
# the login/compute hosts know two of the users before accounting does (slurmctld maps
# association user names to uids when it loads them)
for u in lguser001 lguser002; do
  uid=$("$CTL" ledger --ledger "$L" show user "$u" | sed -n 's/.*"uid": \([0-9]*\).*/\1/p')
  useradd -M -N -g 100 -u "$uid" -s /bin/sh "$u" 2>/dev/null
done
t0=$SECONDS
"$CTL" ledger --ledger "$L" replay --sinks posix,slurm --root "$W/root2" --incarnation c2 > "$W/plan2"
ok "replayed into the fresh cluster ($((SECONDS - t0)) s)"
cmp "$W/root1/etc/passwd" "$W/root2/etc/passwd" || die "passwd differs"
cmp "$W/root1/etc/group" "$W/root2/etc/group" || die "group differs"
[ "$(wc -l < "$W/root2/etc/passwd")" = 200 ] || die "passwd has $(wc -l < "$W/root2/etc/passwd") lines"
grep -q '^lguser001:x:' "$W/root2/etc/passwd" || die "lguser001 missing"
ok "same passwd and group (200 users, 220 groups)"
sacctmgr -nP show assoc format=cluster,account,user | sort > "$W/assoc2"
diff "$W/assoc1" "$W/assoc2" || die "sacctmgr show assoc differs"
ok "same sacctmgr show assoc"

# ---- a second replay changes nothing
sum1=$(stat -c '%i %Y' "$W/root2/etc/passwd" "$W/root2/etc/group" "$W/root2/etc/shadow")
out=$("$CTL" ledger --ledger "$L" replay --sinks posix,slurm --root "$W/root2" --incarnation c2)
[ -z "$out" ] || die "second replay did something: $out"
out=$("$CTL" ledger --ledger "$L" replay --sinks posix,slurm --root "$W/root2" --incarnation c2 --force)
[ -z "$out" ] || die "forced second replay did something: $out"
[ "$sum1" = "$(stat -c '%i %Y' "$W/root2/etc/passwd" "$W/root2/etc/group" "$W/root2/etc/shadow")" ] || die "files rewritten"
sacctmgr -nP show assoc format=cluster,account,user | sort | diff "$W/assoc2" - || die "assoc changed"
ok "second replay (recorded progress, and forced look-before-write) changes nothing"

# ---- jobs under AccountingStorageEnforce=associations
scontrol show config > "$W/config"
grep -Eq '^AccountingStorageEnforce.*associations' "$W/config" || die "enforcement off"
"$CTL" ledger --ledger "$L" apply '{"kind":"assoc-remove","name":"lguser002","target":"lgacct3"}' >/dev/null
out=$("$CTL" ledger --ledger "$L" replay --sinks slurm --incarnation c2)
grep -q "remove association user lguser002 account lgacct3" <<<"$out" || die "no removal: $out"
cd /tmp
got=$(runuser -u lguser001 -- env SLURM_CONF="$SLURM_CONF" srun -t 1 id -u)
[ "$got" = "$(grep '^lguser001:' "$W/root2/etc/passwd" | cut -d: -f3)" ] || die "srun as lguser001 printed '$got'"
ok "replayed user lguser001 runs a job (id -u = $got)"
if runuser -u lguser002 -- env SLURM_CONF="$SLURM_CONF" srun -t 1 true 2>"$W/err"; then
  die "lguser002 without association could run a job"
fi
grep -qi "invalid account" "$W/err" || die "unexpected error: $(cat "$W/err")"
ok "lguser002 (association removed in the ledger) is rejected"
out=$("$CTL" ledger --ledger "$L" verify) || die "verify: $out"
grep -q "ok: 625 events verified" <<<"$out" || die "verify: $out"
ok "ledger verifies"
echo "$pass passed"
