# shellcheck shell=bash
# common.sh -- sourced by the harness_check tests: assertions that fail loudly.
set -euo pipefail
H=${SLINKY_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/harness
# the count lives in a file so that checks made in subshells count too
CHECKS=$(mktemp /tmp/hc-checks.XXXXXX)
NCHECK=0
fail() { echo "FAIL: $*" >&2; rm -f "$CHECKS"; exit 1; }
ok() { echo >> "$CHECKS"; NCHECK=$(wc -l < "$CHECKS"); echo "ok $NCHECK - $*"; }
# done_checks: the summary line; fails if nothing was checked
done_checks() { NCHECK=$(wc -l < "$CHECKS"); rm -f "$CHECKS"; [ "$NCHECK" -gt 0 ] || fail "no checks ran"; echo "all $NCHECK checks passed"; }
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; ok "$1"; }
# expect_match WHAT TEXT REGEX
expect_match() { printf '%s\n' "$2" | grep -qE -- "$3" || fail "$1: '$3' not in: $2"; ok "$1"; }
alive() { [ -n "${1:-}" ] && [ -d "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
# expect_all_stopped DIR: no pid file left, and none of the pids recorded before down alive
pids_of() { local f; for f in "$1"/run/*.pid; do [ -e "$f" ] && cat "$f"; done; true; }
expect_stopped() {   # WHAT PID...
  local what=$1 p; shift
  for p in "$@"; do alive "$p" && fail "$what: pid $p still alive"; done
  ok "$what"
}
now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
