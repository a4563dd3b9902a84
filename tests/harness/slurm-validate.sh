#!/usr/bin/env bash
# slurm-validate.sh FILE -- is this slurm.conf accepted by a real slurmctld?
#   exit 0 ACCEPTED, 1 REJECTED (slurmctld's own error lines printed), 2 TIMEOUT, 3 usage/setup.
# Safe to run in parallel: every run has its own scratch dir, its own munged and its own
# reserved port (lib.sh), and stops only the pids it started.
#
# Stage 1 (~0.1 s, no daemon): `SLURM_CONF=FILE scontrol show hostnames x` -- the client-side
#   parse every Slurm command does (syntax, unknown keys, bad numbers, some cross-checks).
# Stage 2 (~0.2-0.3 s): a throwaway `slurmctld -D` on a copy of FILE whose host/port/path keys
#   are overridden to point at the scratch dir (plugins, nodes, partitions, nodesets...).
#   ACCEPTED means "Running as primary controller" appeared.
#
# Env: VALIDATE_DBD_PORT  port of a running test slurmdbd (else accounting is switched off;
#                         NOTE slurmctld then registers the file's ClusterName in that DB)
#      MUNGE_SOCKET       use this munged instead of starting a private one
#      VALIDATE_WAIT      seconds before TIMEOUT (default 15)
#      VALIDATE_DEBUG=1   print slurmctld's whole output to stderr
#      SLURM_VALIDATE_CHROOT  run the Slurm binaries inside this chroot (slurm24.sh uses it)
# Sibling files of FILE (*.conf, *.key: Include targets, gres.conf, cgroup.conf ...) are copied
# with it, so render the file into its own directory.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

if [ $# -ne 1 ] || [ ! -f "$1" ]; then echo "usage: slurm-validate.sh SLURM_CONF_FILE" >&2; exit 3; fi
src=$(readlink -f "$1"); WAIT=${VALIDATE_WAIT:-${WAIT:-15}}
R=${SLURM_VALIDATE_CHROOT:-}
# run CMD...: a Slurm binary on the host or in the chroot; paths below are as seen by it
# (in the chroot: with a private /run for the auth/slurm sack socket, see inroot.sh)
run() { if [ -n "$R" ]; then "$HERE/inroot.sh" "$R" "$hd/sysrun" "$@"; else "$@"; fi; }

hx_close_fds   # the throwaway munged must not hold the caller's pipes
mkdir -p "$R/tmp"
hd=$(mktemp -d "$R/tmp/sv.XXXXXX"); chmod 755 "$hd"   # host path
d=${hd#"$R"}                                           # the same dir as seen by slurmctld
port="" mpid="" cpid=""
cleanup() {
  if [ -n "$cpid" ]; then hx_stop_pid "$cpid" slurmctld 10; fi
  if [ -n "$mpid" ]; then hx_stop_pid "$mpid" munged 10; fi
  hx_release_ports "$port"
  rm -rf "$hd"
}
trap cleanup EXIT
trap 'exit 3' INT TERM
mkdir -p "$hd/state" "$hd/log" "$hd/run" "$hd/etc"

# Siblings first (relative Includes resolve against slurm.conf's directory), then the file.
find "$(dirname "$src")" -maxdepth 1 -type f \( -name '*.conf' -o -name '*.key' \) -size -1024k 2>/dev/null \
  | head -100 | while read -r f; do cp -p "$f" "$hd/etc/" 2>/dev/null; done
cp "$src" "$hd/etc/slurm.conf"
c=$hd/etc/slurm.conf

# Stage 1: client-side parse of the copy (same directory layout as the original).
if ! out=$(run env SLURM_CONF="$d/etc/slurm.conf" scontrol show hostnames x 2>&1); then
  echo "REJECTED (parse)"
  echo "$out" | grep -E 'error|fatal' | sed "s#$d/etc/#$(dirname "$src")/#g" | head -8
  exit 1
fi

port=$(hx_reserve_ports 1 "pid:$$") || { echo "slurm-validate.sh: no free port" >&2; exit 3; }

# A private munged unless one was given (without one slurmctld still starts, ~2 s slower).
if [ -n "${MUNGE_SOCKET:-}" ] && [ -z "$R" ]; then
  sock=$MUNGE_SOCKET
elif grep -qiE '^[[:space:]]*AuthType[[:space:]]*=[[:space:]]*auth/slurm' "$c"; then
  sock=""   # auth/slurm (24.11): slurm.key next to slurm.conf, no munged
  [ -s "$hd/etc/slurm.key" ] || { head -c 1024 /dev/urandom > "$hd/etc/slurm.key"; chmod 600 "$hd/etc/slurm.key"; }
elif [ -x "$R/usr/sbin/munged" ]; then
  # (24.11 with auth/munge is fatal at start without a munged; 22.05 only slows down by ~2 s)
  mkdir -p "$hd/m"; chmod 755 "$hd/m"
  head -c 1024 /dev/urandom > "$hd/m/key"; chmod 600 "$hd/m/key"
  sock=$d/m/sock
  run munged --key-file="$d/m/key" --socket="$sock" --pid-file="$d/run/munged.pid" \
    --log-file="$d/log/munged.log" --seed-file="$d/m/seed" </dev/null >/dev/null 2>&1
  mpid=$(hx_pid_of "$hd/run/munged.pid")
else
  sock=""
fi

# Delete every controller-host line (SlurmctldHost is multi-valued: appending one would only
# add a backup), then append overrides: for scalar keys the LAST value wins.
sed -i -E '/^[[:space:]]*(SlurmctldHost|ControlMachine|ControlAddr|BackupController|BackupAddr)[[:space:]]*=/Id' "$c"
# keep the file's AuthInfo options except socket=
ai=$(grep -iE '^[[:space:]]*AuthInfo[[:space:]]*=' "$c" | tail -1 | sed -E 's/^[^=]*=[[:space:]]*//; s/[[:space:]]*#.*$//' \
     | tr ',' '\n' | grep -viE '^socket=' | paste -sd, || true)
cat >> "$c" <<EOC
# --- slurm-validate.sh overrides ---
SlurmctldHost=localhost
SlurmctldAddr=127.0.0.1
SlurmctldPort=$port
SlurmUser=root
StateSaveLocation=$d/state
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmSchedLogFile=$d/log/sched.log
MailProg=/bin/true
EOC
if [ -n "$sock" ]; then
  printf 'AuthInfo=%s\nAccountingStoragePass=%s\n' "socket=$sock${ai:+,$ai}" "$sock" >> "$c"
fi
# With accounting_storage/slurmdbd and no slurmdbd, slurmctld dies at start ("no TRES").
if [ -n "${VALIDATE_DBD_PORT:-}" ]; then
  printf 'AccountingStorageHost=localhost\nAccountingStoragePort=%s\n' "$VALIDATE_DBD_PORT" >> "$c"
else
  echo "AccountingStorageType=accounting_storage/none" >> "$c"
fi
# auth/jwt is fatal at start if its key file is missing: give it a throwaway key.
if grep -qiE '^[[:space:]]*AuthAltTypes[[:space:]]*=.*auth/jwt' "$c"; then
  # the plugin is a separate Debian package (slurm-wlm-jwt-plugin); Slinky configs use it
  if [ -z "$R" ]; then hx_apt_install slurm-wlm-jwt-plugin || true; fi
  head -c 32 /dev/urandom > "$hd/jwt.key"; chmod 600 "$hd/jwt.key"
  echo "AuthAltParameters=jwt_key=$d/jwt.key" >> "$c"
fi

# started directly (not through the run function) so that $! is slurmctld itself
: > "$hd/out"   # exists before the first poll below
pre=(); if [ -n "$R" ]; then pre=("$HERE/inroot.sh" "$R" "$hd/sysrun"); fi
"${pre[@]}" env SLURM_CONF="$d/etc/slurm.conf" slurmctld -D -f "$d/etc/slurm.conf" </dev/null >"$hd/out" 2>&1 &
cpid=$!
end=$((SECONDS + WAIT)); res=2
while [ $SECONDS -lt $end ]; do
  if grep -qs 'Running as primary controller' "$hd/out"; then res=0; break; fi
  if ! hx_alive "$cpid"; then res=1; break; fi
  sleep 0.05
done
hx_stop_pid "$cpid" slurmctld 10; wait "$cpid" 2>/dev/null; cpid=""
if [ -n "${VALIDATE_DEBUG:-}" ]; then cat "$hd/out" >&2; fi
case $res in 0) echo ACCEPTED ;; 1) echo "REJECTED (slurmctld)" ;; 2) echo "TIMEOUT after ${WAIT}s" ;; esac
if [ $res -ne 0 ]; then
  grep -E 'error:|fatal:' "$hd/out" \
    | grep -vE 'pmix|MPI|state file|NOTE: Trying|specified more than once|fed_mgr|Configured MailProg|AccountingStorageEnforce|information gathered, but not stored|Even though we are collecting' | head -8
fi
exit $res
