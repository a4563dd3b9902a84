#!/bin/sh
# inroot.sh ROOT RUNDIR CMD [ARG...] -- run CMD chrooted in ROOT with a private /run.
# Slurm 24.11 auth/slurm clients get their credentials from a "sack" socket at fixed paths
# (/run/slurmctld/sack.socket, /run/slurm/sack.socket) served by the local slurmctld/slurmd.
# Each cluster (and each validation) therefore gets its own /run: RUNDIR (a host path) is
# bind-mounted on ROOT/run in a private mount namespace. unshare and chroot exec in place,
# so the pid of this script becomes the pid of CMD.
set -e
if [ "${_HX_INROOT_NS:-}" != "$$" ]; then
  _HX_INROOT_NS=$$ exec unshare --mount --propagation private "$0" "$@"
fi
unset _HX_INROOT_NS
root=$1 rundir=$2; shift 2
mkdir -p "$rundir"
mount --bind "$rundir" "$root/run"
exec chroot "$root" "$@"
