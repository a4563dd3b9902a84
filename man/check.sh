#!/bin/sh
# man/check: every built page renders without a warning from `man --warnings`
# (groff's checks, as lintian runs them), every program has a page with an
# EXIT STATUS section, and slinkyctl(1) names every command of `slinkyctl --help`.
# usage: check.sh MAN_BUILD_DIR PROGRAM...
set -u
dir=${1:?usage: check.sh MAN_BUILD_DIR PROGRAM...}
shift
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
n=0
for page in "$dir"/*.[0-9]; do
  [ -e "$page" ] || continue
  n=$((n + 1))
  w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
  [ -z "$w" ] && ok "man --warnings $(basename "$page")" || bad "$(basename "$page"): $w"
done
[ $n -ge 6 ] && ok "$n pages" || bad "only $n pages in $dir"
[ -e "$dir/slinky-jail.yaml.5" ] && ok "section 5: the jail spec" || bad "no slinky-jail.yaml.5"
for prog in "$@"; do
  name=$(basename "$prog")
  page=$(ls "$dir/$name".[18] 2>/dev/null | head -1)
  if [ -n "$page" ] && grep -q '^\.SH EXIT STATUS' "$page"; then ok "$name has $(basename "$page") with EXIT STATUS"
  else bad "$name: no page with EXIT STATUS"; fi
  if [ "$name" = slinkyctl ] && [ -n "$page" ]; then
    text=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
    for cmd in $("$prog" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}'); do
      [ "$cmd" = help ] && continue
      echo "$text" | grep -qE "^ +$cmd( |$)" || bad "slinkyctl(1) does not describe '$cmd'"
    done
    ok "slinkyctl(1) describes every command of --help"
  fi
done
exit $fail
