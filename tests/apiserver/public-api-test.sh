#!/bin/bash
# slinky-apiserver uses libslinky's public API only: no internal header, no
# slinky__ name, no static library; the binary links libslinky.so; and the
# files have no circle of calls or includes (layers.py).
set -eu
bin=$1
lib=$2
src=${SLINKY_SOURCE_DIR:?}/apiserver
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -d "$src" ] || fail "no $src"
if grep -rnE 'core/internal\.h|slinky__|SLINKY__' "$src"; then fail "library internals used"; fi
grep -q slinky_static "$src/CMakeLists.txt" && fail "linked against slinky_static"
ldd "$bin" | grep -q 'libslinky\.so' || fail "$bin does not link libslinky.so"
if nm "$bin" | grep -E ' [TtDdBb] slinky_'; then fail "library code linked into the binary"; fi
/usr/bin/python3 "$(dirname "$0")/layers.py" "$src" "$lib"
echo "public API only"
