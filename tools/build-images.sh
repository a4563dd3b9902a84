#!/bin/bash
# build-images.sh DEB_DIR OUT_DIR [IMAGE...]: OCI images from the Debian
# packages (cpack -G DEB, cmake/packaging.cmake) on a Debian 12 base made by
# debootstrap (cached in /var/cache/slinky/bookworm-pkgtest), built with umoci
# into the OCI layout OUT_DIR/oci and exported as OUT_DIR/IMAGE.tar
# (oci-archive): `skopeo copy oci-archive:OUT_DIR/slinky-operator.tar
# docker://REGISTRY/slinky-operator:TAG` pushes one.
#   slinky-operator  the operator (and slinkyctl), entrypoint slinky-operator
#   slurmctld        Debian's slurmctld with slinkyctl, entrypoint slurmctld -D
# Needs root (chroot, apt into the rootfs) and the Debian mirror apt uses (tools/debian-root.sh).
set -euo pipefail
debs=$(cd "${1:?usage: build-images.sh DEB_DIR OUT_DIR [IMAGE...]}" && pwd)
out=${2:?}
shift 2
images=${*:-slinky-operator slurmctld}
cache=$(bash "$(dirname "$0")/debian-root.sh")
ver=$(ls "$debs"/libslinky0_*.deb | sed 's/.*libslinky0_\([^-]*\)-.*/\1/')
mkdir -p "$out"
W=$(mktemp -d /tmp/slinky-images.XXXXXX)
trap 'for r in "$W"/*/rootfs; do umount "$r/dev/pts" "$r/dev" "$r/proc" 2>/dev/null || true; done; rm -rf "$W"' EXIT
rm -rf "$out/oci"
umoci init --layout "$out/oci"
for img in $images; do
  case $img in
    slinky-operator) pkgs="/pkgs/libslinky0_*.deb /pkgs/slinky-tools_*.deb /pkgs/slinky-operator_*.deb"
      entry=/usr/bin/slinky-operator cmd=--help ;;
    slurmctld) pkgs="slurmctld /pkgs/libslinky0_*.deb /pkgs/slinky-tools_*.deb"
      entry=/usr/sbin/slurmctld cmd=-D ;;
    *) echo "build-images.sh: unknown image $img" >&2; exit 2 ;;
  esac
  umoci new --image "$out/oci:$img"
  umoci unpack --image "$out/oci:$img" "$W/$img" >/dev/null
  r=$W/$img/rootfs
  cp -a "$cache/." "$r/"
  rm -f "$r/.ready"
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  mkdir -p "$r/pkgs" && cp "$debs"/*.deb "$r/pkgs/"
  mount -t proc proc "$r/proc" && mount --bind /dev "$r/dev" && mount --bind /dev/pts "$r/dev/pts"
  chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c "apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $pkgs >/dev/null &&
           apt-get purge -y -q gcc libc6-dev pkg-config >/dev/null && apt-get autoremove -y -q >/dev/null &&
           apt-get clean && rm -rf /var/lib/apt/lists/* /pkgs /etc/resolv.conf"
  umount "$r/dev/pts" "$r/dev" "$r/proc"
  umoci repack --image "$out/oci:$img" "$W/$img" >/dev/null
  umoci config --image "$out/oci:$img" --config.entrypoint "$entry" --config.cmd "$cmd" \
    --config.user 0:0 --config.workingdir / \
    --config.label "org.opencontainers.image.version=$ver" \
    --config.label "org.opencontainers.image.title=$img"
  umoci gc --layout "$out/oci"
  rm -f "$out/$img.tar"
  skopeo copy --quiet "oci:$out/oci:$img" "oci-archive:$out/$img.tar:$img:$ver"
  echo "$out/$img.tar ($(du -h "$out/$img.tar" | cut -f1)): $img:$ver, entrypoint $entry"
done
