#!/usr/bin/env bash
# harness_check/slurm24: slurm24.sh up (builds the cached trixie chroot the first time),
# srun, auth/slurm in effect, validate good/bad with the 24.11 slurmctld, down.
. "$(dirname "$0")/common.sh"
unset SLURM24_DIR
W=$(mktemp -d /tmp/hc24.XXXXXX)
trap '"$H/slurm24.sh" down >/dev/null 2>&1 || true; rm -rf "$W"; if [ -n "${SLURM24_DIR:-}" ]; then rm -rf "${SLURM24_ROOT:?}$SLURM24_DIR"; fi' EXIT
cd /tmp
t=$(now)
out=$("$H/slurm24.sh" up) || fail "slurm24.sh up failed"
echo "# slurm24 up (incl. chroot build if it was missing): $(elapsed "$t") s"
eval "$out"; export SLURM24_DIR
[ -f "$SLURM24_CONF_HOST" ] || fail "no $SLURM24_CONF_HOST"
expect_eq "env prints the same lines" "$("$H/slurm24.sh" env)" "$out"
cfg=$("$H/slurm24.sh" exec scontrol show config)
expect_match "Slurm 24.11" "$cfg" "SLURM_VERSION += 24\.11\."
expect_match "auth/slurm in effect" "$cfg" "AuthType += auth/slurm"
expect_eq "srun hostname in the chroot" "$("$H/slurm24.sh" exec srun -t 1 hostname)" "$(hostname)"
expect_eq "sbatch --wait" "$("$H/slurm24.sh" exec sh -c 'sbatch --wait -t 1 -o /dev/null --wrap true >/dev/null && echo done')" "done"

mkdir -p "$W/good" "$W/bad" "$W/step"
cp "$SLURM24_CONF_HOST" "$W/good/slurm.conf"
(cat "$W/good/slurm.conf"; echo "FooBar=1") > "$W/bad/slurm.conf"
(cat "$W/good/slurm.conf"; echo "SlurmctldParameters=enable_stepmgr") > "$W/step/slurm.conf"
t=$(now); set +e; v=$("$H/slurm24.sh" validate "$W/good/slurm.conf" 2>&1); rc=$?; set -e
echo "# slurm24 validate good: $(elapsed "$t") s"
expect_eq "24.11 accepts its own file (rc)" "$rc" 0
expect_eq "24.11 accepts its own file" "$v" "ACCEPTED"
set +e; v=$("$H/slurm24.sh" validate "$W/bad/slurm.conf" 2>&1); rc=$?; set -e
expect_eq "24.11 rejects an unknown key (rc)" "$rc" 1
expect_match "24.11 names the key" "$v" "unrecognized key: FooBar"
set +e; v=$("$H/slurm24.sh" validate "$W/step/slurm.conf" 2>&1); rc=$?; set -e
expect_eq "24.11 rejects enable_stepmgr without PrologFlags=contain (rc)" "$rc" 1
expect_match "24.11 says why" "$v" "STEP_MGR not supported without PrologFlags=contain"
mkdir -p "$W/munge"; sed -e 's#auth/slurm#auth/munge#; s#cred/slurm#cred/munge#' "$W/good/slurm.conf" > "$W/munge/slurm.conf"
set +e; v=$("$H/slurm24.sh" validate "$W/munge/slurm.conf" 2>&1); rc=$?; set -e
expect_eq "24.11 accepts auth/munge (private munged in the chroot)" "$v" "ACCEPTED"
set +e; v=$("$H/slurm-validate.sh" "$W/good/slurm.conf" 2>&1); rc=$?; set -e
expect_eq "22.05 rejects the auth/slurm file" "$rc" 1
expect_match "22.05 names the missing plugin" "$v" "auth/slurm|cred/slurm"
expect_eq "the cluster still runs after the validations" "$("$H/slurm24.sh" exec srun -t 1 hostname)" "$(hostname)"

pids=(); for f in "$SLURM24_ROOT$SLURM24_DIR"/run/*.pid; do pids+=("$(cat "$f")"); done
"$H/slurm24.sh" down 2>/dev/null || fail "down"
expect_stopped "down stopped every daemon" "${pids[@]}"
if mountpoint -q "$SLURM24_ROOT/proc"; then
  # another user of the chroot may still be running; only then is /proc allowed to stay
  users=$(ls "$SLURM24_ROOT"/tmp/*/run/*.pid "$SLURM24_ROOT"/.users/* 2>/dev/null | wc -l)
  [ "$users" -gt 0 ] || fail "/proc still mounted in the chroot with no user left"
fi
ok "chroot mounts released when unused"
done_checks
