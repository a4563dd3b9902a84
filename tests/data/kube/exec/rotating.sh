#!/bin/sh
# Test credential plugin for a live server: the first run hands out a stale
# token, later runs the real one from $TOKEN_FILE (as after a rotation).
n=$(cat "$COUNT_FILE" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$COUNT_FILE"
if [ "$n" -eq 1 ]; then
  tok=stale-token
else
  tok=$(cat "$TOKEN_FILE")
fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\n' "$tok"
