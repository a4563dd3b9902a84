#!/usr/bin/env bash
# slurm-local.sh -- the restart command slinky-operator runs for a local cluster
# (daemons on 127.0.0.1, every file under one folder, started and stopped by pid).
#
#   slurm-local.sh restart     restart what $SLINKY_CHANGE_CLASS needs:
#                              restart-slurmctld -> slurmctld; restart-all and
#                              fatal-on-reconfigure -> slurmctld and every slurmd
#   slurm-local.sh stop        stop slurmctld and every slurmd of $SLURM_CONF
#
# Env: SLURM_CONF (the new file, already in place), SLINKY_CHANGE_CLASS.
# Nodes: every static NodeName of the file, and one dynamic node (slurmd -Z)
# NAME-0 for the first "NodeSet=NAME Feature=F" line, registering with feature F
# (dynamic nodes use the global SlurmdPort, so one host runs one of them).
set -Eeuo pipefail
trap 'echo "slurm-local.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
conf=${SLURM_CONF:?SLURM_CONF must name the slurm.conf}
class=${SLINKY_CHANGE_CLASS:-restart-all}

key() { sed -n "s/^[[:space:]]*$1=//Ip" "$conf" | tail -1; }
ctld_pid=$(key SlurmctldPidFile)
slurmd_pid=$(key SlurmdPidFile)       # .../slurmd-%n.pid
run_dir=$(dirname "$ctld_pid")
log_dir=$(dirname "$(key SlurmctldLogFile)")

alive() { [ -n "${1:-}" ] && [ -d "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
stop_pidfile() {
  local f=$1 p
  [ -s "$f" ] || return 0
  p=$(cat "$f")
  if alive "$p"; then
    kill -TERM "$p" 2>/dev/null || true
    for _ in $(seq 100); do alive "$p" || break; sleep 0.1; done
    alive "$p" && kill -KILL "$p" 2>/dev/null || true
    for _ in $(seq 50); do alive "$p" || break; sleep 0.1; done
  fi
  rm -f "$f"
}
wait_for() { # seconds what cmd...
  local t=$1 what=$2; shift 2
  for _ in $(seq $((t * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "slurm-local.sh: $what did not come up; last log lines:" >&2
  tail -5 "$log_dir"/slurmctld.log >&2 2>/dev/null || true
  return 1
}

# The nodes to (re)start, from the file itself: every static NodeName (but
# DEFAULT), and for every "NodeSet=NAME Feature=F" line one dynamic node NAME-0
# that registers with that feature (slurmd -Z), on its own port.
node_specs() {
  local i=0
  sed -n 's/^[[:space:]]*NodeName=\([^[:space:]]*\).*/\1/Ip' "$conf" | { grep -vix default || true; } |
    while read -r n; do scontrol show hostnames "$n" 2>/dev/null || echo "$n"; done |
    while read -r n; do echo "static $n"; done
  sed -n 's/^[[:space:]]*NodeSet=\([^[:space:]]*\).*Feature=\([^[:space:]]*\).*/\1 \2/Ip' "$conf" |
    while read -r name feat; do
      # dynamic nodes share the global SlurmdPort, so one host runs one of them
      if [ $i -eq 0 ]; then echo "dynamic $name-0 $feat"; else
        echo "slurm-local.sh: NodeSet $name gets no local node (one dynamic slurmd per host)" >&2; fi
      i=$((i + 1))
    done
}
stop_all() {
  stop_pidfile "$ctld_pid"
  for f in "$run_dir"/slurmd-*.pid; do [ -e "$f" ] && stop_pidfile "$f"; done
  return 0
}

start_ctld() {
  mkdir -p "$(key StateSaveLocation)" "$run_dir" "$log_dir"
  slurmctld -f "$conf"
  wait_for 30 slurmctld scontrol ping
}

start_nodes() {
  local kind n feat spool
  while read -r kind n feat; do
    [ -n "$kind" ] || continue
    spool=$(key SlurmdSpoolDir); mkdir -p "${spool//%n/$n}"
    if [ "$kind" = dynamic ]; then
      slurmd -f "$conf" -Z -N "$n" --conf "Feature=$feat"
    else
      slurmd -f "$conf" -N "$n"
    fi
    wait_for 30 "slurmd $n" sh -c "sinfo -h -n '$n' -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'"
  done <<EOF2
$(node_specs)
EOF2
}

case ${1:-} in
  restart)
    case $class in
      none) ;;
      reconfigure) scontrol reconfigure ;;
      restart-slurmctld) stop_pidfile "$ctld_pid"; start_ctld ;;
      restart-all|fatal-on-reconfigure) stop_all; start_ctld; start_nodes ;;
      *) echo "slurm-local.sh: unknown change class '$class'" >&2; exit 2 ;;
    esac ;;
  stop) stop_all ;;
  *) echo "usage: slurm-local.sh restart|stop (env SLURM_CONF, SLINKY_CHANGE_CLASS)" >&2; exit 2 ;;
esac
