#!/bin/sh
# demo-secrets.sh NAMESPACE: print the two key Secrets the demo Controller
# references (demo-auth-slurm, demo-auth-jwt) with fresh random keys, as YAML
# for `kubectl apply -f -`.
set -eu
ns=${1:-slurm}
cat <<EOF2
apiVersion: v1
kind: Secret
metadata: {name: demo-auth-slurm, namespace: $ns}
type: Opaque
data:
  slurm.key: $(head -c 1024 /dev/urandom | base64 -w0)
---
apiVersion: v1
kind: Secret
metadata: {name: demo-auth-jwt, namespace: $ns}
type: Opaque
data:
  jwt_hs256.key: $(head -c 32 /dev/urandom | base64 -w0)
EOF2
