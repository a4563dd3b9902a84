#!/bin/sh
# check-exports.sh LIB MAP: fail on any exported symbol that is not slinky_*,
# on symbols outside a version node named in MAP, and on a wrong SONAME.
set -eu
lib=$1 map=$2
fail=0
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^slinky_' | grep -v '^LIBSLINKY_' || true)
if [ -n "$bad" ]; then
  echo "exported symbols outside slinky_*:"; echo "$bad"; fail=1
fi
count=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^slinky_' || true)
[ "$count" -gt 0 ] || { echo "no slinky_* symbols exported"; fail=1; }
nodes=$(grep -oE '^LIBSLINKY_[0-9.]+' "$map" | sort -u)
vers=$(objdump -T "$lib" | awk '$NF ~ /^slinky_/ {print $(NF-1)}' | sort -u)
for v in $vers; do
  echo "$nodes" | grep -qx "$v" || { echo "symbol version $v not in $map"; fail=1; }
done
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libslinky.so.0" ] || { echo "SONAME is '$soname', want libslinky.so.0"; fail=1; }
[ $fail -eq 0 ] && echo "exports ok: $count slinky_* symbols, SONAME $soname"
exit $fail
