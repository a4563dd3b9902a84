#!/bin/sh
# tools/cli: the habits every program shares, checked on each built program:
# --help (exit 0, "usage: PROG" on stdout), --version (exit 0, the library's
# version), an unknown option (exit 2, the message names the program by its
# basename, never the build path), -v with a bad level (exit 2), --quiet and
# -v 2 accepted, and nothing read before the arguments are parsed.
# usage: cli.sh PROGRAM...   (the programs that are built)
set -u
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
D=$(mktemp -d /tmp/slinky-tools-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT
version=$(sed -n 's/^project(libslinky VERSION \([0-9.]*\).*/\1/p' "${SLINKY_SOURCE_DIR:?}/CMakeLists.txt")
for prog in "$@"; do
  name=$(basename "$prog")
  "$prog" --help >"$D/out" 2>"$D/err"; rc=$?
  if [ $rc -eq 0 ] && grep -q "^usage: $name" "$D/out" && grep -q -e '--version' "$D/out" \
     && grep -qi 'exit codes' "$D/out"; then ok "$name --help"; else bad "$name --help (rc $rc): $(head -3 "$D/out" "$D/err")"; fi
  "$prog" --version >"$D/out" 2>"$D/err"; rc=$?
  if [ $rc -eq 0 ] && grep -q "^$name $version (libslinky $version)$" "$D/out"; then ok "$name --version"
  else bad "$name --version (rc $rc): $(cat "$D/out" "$D/err")"; fi
  # a subcommand-style tool must parse --bogus before reading its config file
  case $name in
    slinky-jail) bogus="run --bogus" ;;
    *) bogus="--bogus" ;;
  esac
  "$prog" $bogus >"$D/out" 2>"$D/err"; rc=$?
  if [ $rc -eq 2 ] && grep -q "^$name: " "$D/err" && ! grep -qF "$(dirname "$prog")/" "$D/err"; then ok "$name $bogus: exit 2, named $name"
  else bad "$name $bogus (rc $rc): $(cat "$D/err")"; fi
  "$prog" -v x --help >"$D/out" 2>"$D/err"; rc=$?
  case $name in slinky-jail) "$prog" run -v x >"$D/out" 2>"$D/err"; rc=$? ;; esac
  [ $rc -eq 2 ] && grep -q "level" "$D/err" && ok "$name -v x: exit 2" || bad "$name -v x (rc $rc): $(cat "$D/err")"
  case $name in
    slinky-jail) args="run -v 2 --quiet --help" ;;
    *) args="-v 2 --quiet --help" ;;
  esac
  "$prog" $args >"$D/out" 2>"$D/err"; rc=$?
  [ $rc -eq 0 ] && ok "$name $args" || bad "$name $args (rc $rc): $(cat "$D/err")"
done
# named as invoked: through a symlink with another name
for prog in "$@"; do
  ln -sf "$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")" "$D/renamed"
  "$D/renamed" --bogus >/dev/null 2>"$D/err"
  grep -q "^renamed: " "$D/err" && ok "$(basename "$prog") as 'renamed'" || bad "renamed $(basename "$prog"): $(cat "$D/err")"
done
# slinky-jail: --version and usage errors never read /etc/slurm/slinky-jail.yaml
if command -v strace >/dev/null 2>&1; then
  for prog in "$@"; do
    case $(basename "$prog") in slinky-jail) ;; *) continue ;; esac
    strace -f -e trace=openat -o "$D/trace" "$prog" --version >/dev/null 2>&1
    strace -f -e trace=openat -o "$D/trace2" "$prog" run --bogus >/dev/null 2>&1
    ! grep -q slinky-jail.yaml "$D/trace" "$D/trace2" && ok "slinky-jail reads no spec before parsing" || bad "slinky-jail opened its spec early"
  done
fi
exit $fail
