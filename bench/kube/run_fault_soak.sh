#!/bin/sh
# Fault soak: ROUNDS (default 1000) fault rounds against slinky-apiserver; after
# each round the informer cache must equal the server's list.
#   bench/kube/run_fault_soak.sh BUILD_DIR [ROUNDS]
set -eu
build=$(cd "${1:?usage: run_fault_soak.sh BUILD_DIR [ROUNDS]}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
export SLINKY_BUILD_DIR="$build" SLINKY_SOURCE_DIR="$src"
export SLINKY_SHARED_DIR="${SLINKY_SHARED_DIR:-$src/../shared}"
export SLINKY_KUBE_FAULT_ROUNDS="${2:-1000}"
start=$(date +%s)
"$build/bench/kube/bench_kube_fault_soak"
echo "fault soak: $SLINKY_KUBE_FAULT_ROUNDS rounds in $(( $(date +%s) - start )) s"
