#!/usr/bin/env bash
# install-check.sh BUILD_DIR WORK_DIR: install the build to WORK_DIR/prefix,
# then build examples/ against it once with pkg-config and once with CMake's
# find_package(slinky), and run every program, then the Python examples with
# the installed module. The cluster examples talk to a slinky-apiserver started
# from the build (KUBECONFIG), when it was built.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1 work=$2
rm -rf "$work"; mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
test -f "$prefix/include/slinky.h"
test -f "$prefix/lib/pkgconfig/libslinky.pc" || test -f "$prefix"/lib/*/pkgconfig/libslinky.pc
libdir=$(dirname "$(find "$prefix" -name libslinky.pc | head -1)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig
readelf -d "$libdir/libslinky.so" | grep -q 'SONAME.*libslinky.so.0' || { echo "bad SONAME"; exit 1; }

apiserver=$build/tools/slinky-apiserver/slinky-apiserver
crds=$src/../shared/upstream/slinky/crds
if [ -x "$apiserver" ] && [ -d "$crds" ]; then
  SLINKY_APISERVER_BIN=$apiserver sh "$src/tests/apiserver/start-apiserver.sh" "$work/api" --crd-dir "$crds"
  trap 'sh "$src/tests/apiserver/stop-apiserver.sh" "$work/api"' EXIT
  export KUBECONFIG=$work/api/kubeconfig
fi

echo "--- pkg-config build"
mkdir -p "$work/pc"
for ex in "$src"/examples/*.c; do
  n=$(basename "$ex" .c)
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror -o "$work/pc/$n" "$ex" $(pkg-config --cflags --libs libslinky)
  LD_LIBRARY_PATH=$libdir "$work/pc/$n" "$src/examples/data"
done

echo "--- find_package build"
cmake -S "$src/examples" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log"
cmake --build "$work/cmake" >>"$work/cmake.log" || { cat "$work/cmake.log"; exit 1; }
for ex in "$src"/examples/*.c; do
  n=$(basename "$ex" .c)
  "$work/cmake/$n" "$src/examples/data"   # RPATH from the imported target
done
pyinit=$(find "$prefix" -path '*/dist-packages/slinky/__init__.py' | head -1)
if [ -n "$pyinit" ]; then
  echo "--- Python examples (the installed module, /usr/bin/python3)"
  # the examples that take the data folder; the others (a live cluster, a ledger and
  # root of their own) are run by python/bindings' test_examples.py and the operator e2e
  for n in conf_render_diff jail_oci ledger_user; do
    PYTHONPATH=$(dirname "$(dirname "$pyinit")") /usr/bin/python3 "$src/examples/python/$n.py" "$src/examples/data"
  done
fi
echo "install check ok"
