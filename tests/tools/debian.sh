#!/bin/bash
# tools/debian: Debian packages from the build (cpack -G DEB, cmake/packaging.cmake).
# lintian reports no error; the six packages install with apt (dpkg plus the
# dependencies dpkg-shlibdeps found) into a fresh Debian 12 root made by
# debootstrap (cached in /var/cache/slinky/bookworm-pkgtest, copied per run);
# there a C program builds with pkg-config and runs, `slinkyctl version --client`
# runs, /usr/bin/python3 imports slinky, the symbols file is in place and the
# SPANK plugin lands in Slurm's PluginDir. Then tools/build-images.sh makes the
# OCI images (slinky-operator, slurmctld) from the packages with umoci: each
# oci-archive is read by skopeo with its entrypoint, and the operator image's
# root runs `slinky-operator --version`.
# usage: debian.sh BUILD_DIR   (one configured with -DCMAKE_INSTALL_PREFIX=/usr;
#                               otherwise a packaging build is made in a temp folder)
set -u
src=$(cd "${SLINKY_SOURCE_DIR:?}" && pwd)
build=$(cd "${1:?usage: debian.sh BUILD_DIR}" && pwd)
W=$(mktemp -d /tmp/slinky-deb.XXXXXX)
R=$W/root
cleanup() {
  for m in dev/pts dev proc; do umount "$R/$m" 2>/dev/null; done
  rm -rf "$W"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
for t in cpack lintian debootstrap dpkg-deb; do
  command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }
done
if ! grep -q '^CMAKE_INSTALL_PREFIX:PATH=/usr$' "$build/CMakeCache.txt"; then
  echo "# $build is not configured for /usr: a packaging build in $W/build"
  cmake -S "$src" -B "$W/build" -DCMAKE_INSTALL_PREFIX=/usr -DSLINKY_BUILD_TESTS=OFF \
    -DSLINKY_BUILD_BENCH=OFF >"$W/configure.log" 2>&1 && cmake --build "$W/build" -j2 >"$W/build.log" 2>&1 \
    || { echo "FAIL - packaging build: $(tail -5 "$W/build.log")"; exit 1; }
  build=$W/build
fi
(cd "$build" && rm -f ./*.deb && cpack -G DEB >"$W/cpack.log" 2>&1) || { echo "FAIL - cpack: $(grep -i error "$W/cpack.log" | head -5)"; exit 1; }
debs=$(ls "$build"/*.deb)
want="libslinky0 libslinky-dev slinky-tools slinky-operator python3-slinky slurm-spank-slinky-jail"
for p in $want; do
  ls "$build/${p}_"*.deb >/dev/null 2>&1 && ok "package $p" || bad "no package $p"
done
lintian $debs >"$W/lintian.log" 2>&1
errors=$(grep -c '^E:' "$W/lintian.log")
[ "$errors" = 0 ] && ok "lintian: no errors ($(grep -c '^W:' "$W/lintian.log") warnings)" || { bad "lintian errors:"; grep '^E:' "$W/lintian.log"; }
dpkg-deb -I "$build"/libslinky0_*.deb symbols >"$W/symbols" 2>&1 && grep -q '^ slinky_version@LIBSLINKY_0.1 ' "$W/symbols" \
  && ok "libslinky0 symbols file ($(grep -c '@LIBSLINKY' "$W/symbols") symbols)" || bad "symbols file: $(head -3 "$W/symbols")"
dpkg-deb -f "$build"/slinky-tools_*.deb Depends | grep -q 'libslinky0 (= ' && ok "slinky-tools depends on libslinky0: $(dpkg-deb -f "$build"/slinky-tools_*.deb Depends)" \
  || bad "slinky-tools Depends: $(dpkg-deb -f "$build"/slinky-tools_*.deb Depends)"

# a fresh Debian 12 root (debootstrap once, cached; a copy per run)
cache=$(bash "$src/tools/debian-root.sh") || { echo "FAIL - debootstrap"; exit 1; }
cp -a "$cache" "$R"
cp /etc/resolv.conf "$R/etc/resolv.conf"
mount -t proc proc "$R/proc" && mount --bind /dev "$R/dev" && mount --bind /dev/pts "$R/dev/pts"
mkdir -p "$R/pkgs" && cp $debs "$R/pkgs/"
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get update >"$W/apt.log" 2>&1
if in_root sh -c 'apt-get install -y --no-install-recommends /pkgs/*.deb' >>"$W/apt.log" 2>&1; then ok "apt installs the six packages into a fresh Debian 12 root"
else bad "apt install: $(tail -8 "$W/apt.log")"; fi
cat >"$R/tmp/app.c" <<'EOC'
#include <slinky.h>
#include <stdio.h>
int main(void)
{
    slinky_conf *c = NULL;
    const char *text = "ClusterName=pkgtest\n";
    if (slinky_conf_parse(&c, text, 20, "slurm.conf", NULL) < 0)
        return 1;
    printf("libslinky %s: ClusterName=%s\n", slinky_version(NULL, NULL, NULL), slinky_conf_get(c, "ClusterName"));
    slinky_conf_free(c);
    return 0;
}
EOC
in_root sh -c 'cc -o /tmp/app /tmp/app.c $(pkg-config --cflags --libs libslinky) && /tmp/app' >"$W/out" 2>&1 \
  && grep -q 'ClusterName=pkgtest' "$W/out" && ok "pkg-config build in the root: $(cat "$W/out")" || bad "C program: $(cat "$W/out")"
in_root slinkyctl version --client >"$W/out" 2>&1 && grep -q '^slinkyctl ' "$W/out" && ok "slinkyctl version: $(cat "$W/out")" \
  || bad "slinkyctl version: $(cat "$W/out")"
in_root /usr/bin/python3 -c 'import slinky; print(slinky.version())' >"$W/out" 2>&1 && ok "python3 imports slinky $(cat "$W/out")" \
  || bad "python3: $(cat "$W/out")"
in_root sh -c 'ls /usr/lib/*/slurm-wlm/slinky_jail.so' >"$W/out" 2>&1 && ok "SPANK plugin: $(cat "$W/out")" || bad "SPANK plugin: $(cat "$W/out")"
in_root sh -c 'test -s /usr/share/slinky/crds/slinky.yaml && man -w slinkyctl 2>/dev/null || ls /usr/share/man/man1/slinkyctl.1.gz' >"$W/out" 2>&1 \
  && ok "CRDs and man pages installed" || bad "CRDs/man: $(cat "$W/out")"

# OCI images from the packages
if command -v umoci >/dev/null && command -v skopeo >/dev/null; then
  if bash "$src/tools/build-images.sh" "$build" "$W/images" >"$W/images.log" 2>&1; then
    for img in slinky-operator slurmctld; do
      want=/usr/bin/slinky-operator
      [ $img = slurmctld ] && want=/usr/sbin/slurmctld
      skopeo inspect --config "oci-archive:$W/images/$img.tar" >"$W/inspect" 2>&1 &&
        /usr/bin/python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["config"]["Entrypoint"] != [sys.argv[2]])' \
          "$W/inspect" "$want" && ok "OCI image $img: $(du -h "$W/images/$img.tar" | cut -f1), entrypoint $want" \
        || bad "OCI image $img: $(head -c 300 "$W/inspect")"
    done
    umoci unpack --image "$W/images/oci:slinky-operator" "$W/unpacked" >/dev/null 2>&1 &&
      chroot "$W/unpacked/rootfs" /usr/bin/slinky-operator --version >"$W/out" 2>&1 \
      && ok "the operator image runs: $(cat "$W/out")" || bad "operator image: $(cat "$W/out")"
  else
    bad "build-images.sh: $(tail -5 "$W/images.log")"
  fi
else
  echo "skip - no umoci/skopeo: no OCI images"
fi
exit $fail
