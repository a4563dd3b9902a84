#!/bin/sh
# docs/undocumented: what Doxygen finds wrong with the public headers (a
# function, struct field, enum value, macro or typedef without a doc comment;
# a doc comment it cannot read) must be exactly docs/undocumented.txt: anything
# new fails, and so does an entry that has been fixed since (remove it from the
# list). The list only shrinks.
# usage: check.sh DOXYGEN DOXYFILE WARNINGS_LOG LIST
set -u
doxygen=$1 doxyfile=$2 log=$3 list=$4
rm -f "$log"
"$doxygen" "$doxyfile" >/dev/null 2>&1 || { echo "FAIL - doxygen failed"; exit 1; }
grep 'warning:' "$log" | sed -E 's|^.*/include/||; s|:[0-9]+: warning: | |' | sort -u >"$log.found"
grep -v '^#' "$list" | sed '/^$/d' | sort -u >"$log.want"
new=$(comm -23 "$log.found" "$log.want")
gone=$(comm -13 "$log.found" "$log.want")
fail=0
if [ -n "$new" ]; then echo "FAIL - new in the public headers (document it):"; echo "$new" | sed 's/^/  /'; fail=1; fi
if [ -n "$gone" ]; then echo "FAIL - fixed now, remove from docs/undocumented.txt:"; echo "$gone" | sed 's/^/  /'; fail=1; fi
[ $fail -eq 0 ] && echo "ok   - $(grep -c . "$log.want") known findings (the list shrinks), nothing new"
exit $fail
