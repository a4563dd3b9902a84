#!/usr/bin/env bash
# workload/conf_render_slurm24 (integration): `slinkyctl conf render` of the upstream example
# Controller, NodeSet and Accounting plus prolog/epilog ConfigMaps (the 24.11 local profile)
# is accepted by the real slurmctld 24.11 (tests/harness/slurm24.sh validate, Debian 13
# chroot); the same with a bad extraConf line is refused by it.
# usage: conf_render_slurm24.sh SLINKYCTL   (env: SLINKY_SHARED_DIR, SLINKY_SOURCE_DIR)
set -u
S=$1
U=$SLINKY_SHARED_DIR/upstream/slinky/examples
H=$SLINKY_SOURCE_DIR/tests/harness
R=${SLURM24_ROOT:-/var/cache/slinky/trixie}
"$H/slurm24.sh" build >/dev/null 2>&1 || { echo "FAIL - no Slurm 24.11 chroot"; exit 1; }
D=$(mktemp -d "$R/tmp/conf-render.XXXXXX"); chmod 755 "$D"
trap 'rm -rf "$D"' EXIT
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
sed -e 's/^  prologScriptRefs: null/  prologScriptRefs: [{name: prologs}]/' \
    -e 's/^  epilogScriptRefs: null/  epilogScriptRefs: [{name: epilogs}]/' \
    -e 's/^  prologSlurmctldScriptRefs: null/  prologSlurmctldScriptRefs: [{name: ctld}]/' \
    -e 's/^spec:$/spec:\n  accountingRef: {name: test-release-slurm}/' "$U/controller.yaml" > "$D/controller.yaml"
cat > "$D/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: prologs, namespace: test-namespace}
data: {00-first.sh: "#!/bin/sh\n", 90-last.sh: "#!/bin/sh\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: epilogs, namespace: test-namespace}
data: {epilog.sh: "#!/bin/sh\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ctld, namespace: test-namespace}
data: {ctld.sh: "#!/bin/sh\n"}
YAML
render() { "$S" conf render -V 24.11 --local "${D#"$R"}/local" "$@" "$U/nodeset.yaml" "$U/accounting.yaml" "$D/cm.yaml"; }
if render "$D/controller.yaml" > "$D/slurm.conf" 2> "$D/err"; then ok "conf render -V 24.11"; else bad "render: $(cat "$D/err")"; fi
grep -q '^### PROLOG & EPILOG ###$' "$D/slurm.conf" && grep -qx 'Prolog=00-first.sh' "$D/slurm.conf" \
  && grep -q '^PrologSlurmctld=.*ctld.sh$' "$D/slurm.conf" && ok "PROLOG & EPILOG sections present" || bad "no prolog sections"
# the script files where the pod's projected volume puts them (/etc/slurm: here local/etc);
# slurmctld refuses a PrologSlurmctld that does not exist
mkdir -p "$D/local/etc"
for f in 00-first.sh 90-last.sh epilog.sh ctld.sh; do printf '#!/bin/sh\nexit 0\n' > "$D/local/etc/$f"; chmod 755 "$D/local/etc/$f"; done
out=$("$H/slurm24.sh" validate "$D/slurm.conf" 2>&1); rc=$?
[ $rc = 0 ] && ok "slurmctld 24.11 accepts it ($out)" || bad "24.11 refused (rc $rc): $out"
sed 's/^spec:$/spec:\n  extraConf: FooBar=1/' "$D/controller.yaml" > "$D/bad.yaml"
render "$D/bad.yaml" > "$D/bad.conf" 2> "$D/err" || bad "render bad: $(cat "$D/err")"
out=$("$H/slurm24.sh" validate "$D/bad.conf" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q FooBar && ok "slurmctld 24.11 refuses an unknown key in extraConf" || bad "bad conf (rc $rc): $out"
exit $fail
