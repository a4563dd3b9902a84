#!/usr/bin/env bash
# tools/check.sh -- the whole test suite, as CI runs it (.ci/run calls exactly this).
#
#   1. install missing Debian packages (.ci/packages.txt)
#   2. release build (-Werror), every CTest test (unit, integration, python, static checks)
#   3. the unit tests again under valgrind memcheck (0 errors, 0 definitely lost)
#   4. the suite again built with -fsanitize=address,undefined (halt on error)
#   5. libFuzzer targets (clang) for a bounded time each
#   6. install to a temporary prefix; build examples/ with pkg-config and with
#      find_package(slinky); run them
#
# Env: SLINKY_CHECK_STAGES (default "deps release valgrind asan fuzz install"),
#      SLINKY_FUZZ_SECONDS (default 15), JOBS (default: nproc).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
stages=${SLINKY_CHECK_STAGES:-deps release valgrind asan fuzz install}
jobs=${JOBS:-$(nproc)}
out=${SLINKY_CHECK_DIR:-$src/_build}
shared=${SLINKY_SHARED_DIR:-$(cd "$src/.." && pwd)/shared}
export SLINKY_SHARED_DIR=$shared
failed=()
passed=()
t0=$SECONDS

say() { printf '\n=== [%4ss] %s\n' $((SECONDS - t0)) "$*"; }
has_stage() { case " $stages " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
record() { if [ "$2" -eq 0 ]; then passed+=("$1"); else failed+=("$1"); fi; }

deps() { "$src/tools/deps.sh"; }

configure_build() { # dir, extra cmake args...
  local dir=$1; shift
  cmake -S "$src" -B "$dir" -DSLINKY_SHARED_DIR="$shared" "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1 ||
    { grep -E 'error|Error' "$dir.build.log" | head -50; return 1; }
}

run_ctest() { # name dir ctest-args...
  local name=$1 dir=$2; shift 2
  local rc=0
  (cd "$dir" && ctest --output-on-failure --no-tests=error -j"$jobs" "$@") || rc=$?
  record "$name" $rc
}

mkdir -p "$out"
if has_stage deps; then say "dependencies"; deps; fi

if has_stage release; then
  say "release build (-Werror) + full CTest suite"
  if configure_build "$out/release" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLINKY_WERROR=ON; then
    run_ctest "release: ctest" "$out/release" -LE fuzz
  else record "release: build" 1; fi
fi

if has_stage valgrind; then
  say "unit tests under valgrind memcheck"
  vg="valgrind;--error-exitcode=99;--leak-check=full;--errors-for-leak-kinds=definite;--show-leak-kinds=definite;--track-fds=no;--quiet"
  if configure_build "$out/valgrind" -DCMAKE_BUILD_TYPE=Debug -DSLINKY_BUILD_PYTHON=OFF \
      -DSLINKY_BUILD_BENCH=OFF "-DSLINKY_TEST_WRAPPER=$vg"; then
    run_ctest "valgrind: unit tests" "$out/valgrind" -L unit -LE static --timeout 900
  else record "valgrind: build" 1; fi
fi

if has_stage asan; then
  say "suite built with -fsanitize=address,undefined"
  if configure_build "$out/asan" -DCMAKE_BUILD_TYPE=Debug -DSLINKY_WERROR=ON \
      -DSLINKY_SANITIZE=address,undefined -DSLINKY_BUILD_PYTHON=OFF -DSLINKY_BUILD_BENCH=OFF \
      -DSLINKY_BUILD_SPANK=OFF; then
    # "nosan": tests that load our code into processes we cannot instrument
    run_ctest "asan+ubsan: ctest" "$out/asan" -LE "fuzz|nosan|python"
  else record "asan+ubsan: build" 1; fi
fi

if has_stage fuzz; then
  say "libFuzzer targets (${SLINKY_FUZZ_SECONDS:-15} s each)"
  if CC=clang CXX=clang++ configure_build "$out/fuzz" -DCMAKE_BUILD_TYPE=Debug -DSLINKY_BUILD_FUZZ=ON \
      -DSLINKY_BUILD_TESTS=OFF -DSLINKY_BUILD_PYTHON=OFF -DSLINKY_BUILD_TOOLS=OFF \
      -DSLINKY_BUILD_BENCH=OFF -DSLINKY_SANITIZE=address,undefined \
      -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DSLINKY_FUZZ_SECONDS="${SLINKY_FUZZ_SECONDS:-15}"; then
    run_ctest "fuzz" "$out/fuzz" -L fuzz
  else record "fuzz: build" 1; fi
fi

if has_stage install; then
  say "install + examples via pkg-config and find_package"
  rc=0
  "$src/tools/install-check.sh" "$out/release" "$out/install-check" || rc=$?
  record "install: examples (pkg-config, cmake)" $rc
fi

say "summary (${SECONDS}s)"
for s in "${passed[@]}"; do echo "  ok    $s"; done
for s in "${failed[@]}"; do echo "  FAIL  $s"; done
echo "stages: ${#passed[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
