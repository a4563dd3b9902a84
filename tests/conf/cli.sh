#!/usr/bin/env bash
# conf/cli: `slinkyctl conf` as a user runs it (check, get, set, diff, hostlist, render).
# usage: cli.sh SLINKYCTL   (env: SLINKY_TEST_DATA, SLINKY_SHARED_DIR)
set -u
S=$1
D=$(mktemp -d /tmp/slinky-conf-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }

# check: clean file exits 0; errors exit 1 with FILE:LINE:COL
cp -r "$SLINKY_TEST_DATA/conf/." "$D/"
if "$S" conf check -V 22.05 "$D/grammar.conf" >"$D/out" 2>&1; then ok "check clean"; else bad "check clean: $(cat "$D/out")"; fi
printf 'ClusterName=x\nSlurmctldHost=h\nPartitionName=p\nFooBar=1\nKillWait=abc\n' >"$D/bad.conf"
"$S" conf check -V 22.05 "$D/bad.conf" >"$D/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "^$D/bad.conf:4:1: error: unknown key FooBar$" "$D/out" \
   && grep -q "^$D/bad.conf:5:10: error: KillWait value \"abc\" is not a valid number" "$D/out"; then
  ok "check errors with file:line:col"; else bad "check errors (rc $rc): $(cat "$D/out")"; fi
printf 'ClusterName=x\nKillWait=\n' >"$D/parse.conf"
"$S" conf check "$D/parse.conf" >"$D/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "^$D/parse.conf:2:1: error: Parse error in file $D/parse.conf line 2: \"KillWait=\"" "$D/out"; then ok "grammar error"; else bad "grammar error (rc $rc): $(cat "$D/out")"; fi

# get / set: one line changes
[ "$("$S" conf get "$D/grammar.conf" killwait)" = 30 ] && ok "get" || bad "get"
cp "$D/grammar.conf" "$D/before.conf"
"$S" conf set "$D/grammar.conf" AccountingStorageEnforce=associations,limits,qos || bad "set (append)"
"$S" conf set "$D/grammar.conf" KillWait=45 || bad "set (edit)"
n=$(diff "$D/before.conf" "$D/grammar.conf" | grep -c '^[<>]')
if [ "$n" = 3 ] && grep -q '^KillWait=45$' "$D/grammar.conf" && tail -1 "$D/grammar.conf" | grep -q '^AccountingStorageEnforce='; then
  ok "set changes one line, appends one"; else bad "set: $(diff "$D/before.conf" "$D/grammar.conf")"; fi

# diff: each change with its class and the overall class
out=$("$S" conf diff -V 22.05 "$D/before.conf" "$D/grammar.conf")
if echo "$out" | grep -q '^restart-slurmctld *global AccountingStorageEnforce: (unset) -> associations,limits,qos$' \
   && echo "$out" | grep -q '^reconfigure *global KillWait: 30 -> 45$' && echo "$out" | grep -q '^overall: restart-slurmctld$'; then
  ok "diff classes"; else bad "diff: $out"; fi

# hostlists
[ "$("$S" conf hostlist expand 'n[1-2]' | paste -sd,)" = "n1,n2" ] && ok "hostlist expand" || bad "hostlist expand"
[ "$("$S" conf hostlist compress n3 n1 n2)" = "n[3,1-2]" ] && ok "hostlist compress" || bad "hostlist compress"

# render from resource YAML (upstream examples)
U=$SLINKY_SHARED_DIR/upstream/slinky/examples
if "$S" conf render -V 22.05 --local "$D/x" "$U/controller.yaml" "$U/nodeset.yaml" >"$D/r.conf" 2>"$D/err" \
   && grep -q '^AuthType=auth/munge$' "$D/r.conf" && grep -q '^### NODESET & PARTITION ###$' "$D/r.conf" \
   && "$S" conf check -V 22.05 "$D/r.conf" >/dev/null 2>&1; then ok "render + check"; else bad "render: $(cat "$D/err")"; fi
# invalid resources (here a NodeSet with a negative replica count) are refused with the
# model's problems and nothing is rendered
sed 's/^\(  *\)replicas: .*/\1replicas: -2/' "$U/nodeset.yaml" >"$D/bad-nodeset.yaml"
if grep -q 'replicas: -2' "$D/bad-nodeset.yaml"; then
  "$S" conf render "$U/controller.yaml" "$D/bad-nodeset.yaml" >"$D/r2.conf" 2>"$D/err2"; rc=$?
  if [ "$rc" -ne 0 ] && [ ! -s "$D/r2.conf" ] && grep -q 'replicas' "$D/err2"; then ok "render refuses an invalid NodeSet (exit $rc)"
  else bad "render of an invalid NodeSet: rc=$rc, stderr: $(cat "$D/err2")"; fi
else bad "the upstream nodeset example has no replicas line to break"; fi
# the report: sorted by line, "did you mean", no Slurm function names
printf 'ClusterName=x\nSlurmctldHost=h\nNodeName=n1\nPartitionName=p Nodes=n1\nPartitionName=p Nodes=n1\nMaxJobCont=5\n' >"$D/typo.conf"
"$S" conf check -V 22.05 "$D/typo.conf" >"$D/out" 2>&1; rc=$?
lines=$(cut -d: -f2 "$D/out" | paste -sd,)
if [ $rc -eq 1 ] && [ "$lines" = "5,6" ] && grep -q ':6:1: error: unknown key MaxJobCont (did you mean MaxJobCount?)$' "$D/out" \
   && ! grep -q ': _[a-z_]*: ' "$D/out"; then ok "report sorted, did you mean, no function names"; else bad "report (rc $rc): $(cat "$D/out")"; fi

# set runs the static check first: exit 4 with line:col, file untouched
printf 'ClusterName=x\nSlurmctldHost=h\nNodeName=n1\nPartitionName=p Nodes=n1\nMaxJobCont=5\n' >"$D/slurm.conf"
cp "$D/slurm.conf" "$D/orig.conf"
"$S" conf set -V 22.05 "$D/slurm.conf" MinJobAge=abc >"$D/out" 2>&1; rc=$?
if [ $rc -eq 4 ] && grep -q "^$D/slurm.conf:6:11: error: MinJobAge value \"abc\" is not a valid number" "$D/out" \
   && cmp -s "$D/slurm.conf" "$D/orig.conf"; then ok "set MinJobAge=abc: exit 4, nothing written"; else bad "set bad value (rc $rc): $(cat "$D/out")"; fi
# unset removes a typo the catalogue does not know
"$S" conf unset "$D/slurm.conf" MaxJobCont >"$D/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && ! grep -q MaxJobCont "$D/slurm.conf"; then ok "unset removes an unknown key"; else bad "unset typo (rc $rc): $(cat "$D/out")"; fi
"$S" conf unset "$D/slurm.conf" MaxJobCont >"$D/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'was not set' "$D/out" && ok "unset of an absent key" || bad "unset absent (rc $rc)"
# a line break in a value is refused (usage error), nothing written
cp "$D/slurm.conf" "$D/orig.conf"
"$S" conf set "$D/slurm.conf" "MinJobAge=1
B=2" >"$D/out" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q 'line break' "$D/out" && cmp -s "$D/slurm.conf" "$D/orig.conf"; then ok "newline refused"; else bad "newline (rc $rc): $(cat "$D/out")"; fi
"$S" conf set -V 22.05 "$D/slurm.conf" MinJobAge=5 >"$D/out" 2>&1 && grep -q '^MinJobAge=5$' "$D/slurm.conf" && ok "good set written" || bad "good set: $(cat "$D/out")"
exit $fail
