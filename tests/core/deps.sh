#!/bin/sh
# core/deps: each module starts its own dependency, so what links core (and doc, jail)
# only needs no libcurl and no libgit2: a core+doc program, the slinky-jail launcher and
# the SPANK plugin (both static, --as-needed) carry neither in their NEEDED entries.
#   deps.sh CORE_ONLY_EXE [SLINKY_JAIL_EXE] [SPANK_SO]
set -u
fail=0
for f in "$@"; do
  [ -e "$f" ] || { echo "skip - $f (not built)"; continue; }
  needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  case " $needed" in
    *" libcurl"* | *" libgit2"*) echo "FAIL - $(basename "$f") needs: $needed"; fail=1 ;;
    *) echo "ok   - $(basename "$f") needs neither libcurl nor libgit2 ($needed)" ;;
  esac
done
out=$("$1") || { echo "FAIL - $1 did not run"; fail=1; }
[ "$out" = ok ] || { echo "FAIL - $1 printed '$out'"; fail=1; }
exit $fail
