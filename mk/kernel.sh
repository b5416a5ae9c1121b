#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/kernel.sh: build a dom0-capable kernel for ARCH (x86_64, the
# default; arm or arm64, cross-built) from the mailed series alone
# (build/linux-series: build/linux without the lab's patches), out of tree in
# build/kbuild-ARCH, and put its image (bzImage, zImage or Image), config,
# System.map and a modules tarball in build/out/ (x86_64) or
# build/out/ARCH/.
#
# Configuration: the architecture's (x86_64: defconfig + xen.config; arm:
# multi_v7_defconfig + CONFIG_XEN; arm64: defconfig + CONFIG_XEN), or
# KCONFIG=/path/to/.config (copied, then olddefconfig: e.g. Debian's
# /boot/config-* of linux-image-armmp or linux-image-arm64).  Either way
# CONFIG_XEN_DOM0 must end up =y.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
setup_ccache
# The mailed series alone (build/linux-series, product_tree), not the
# lab's patches that build/linux adds for the test kernels.
product_tree
LINUX=$PRODUCT
say "source: ${PRODUCT#"$ROOT"/} at $(git -C "$PRODUCT" log -1 --format='%h %s') (the mailed series, without the lab's patches)"

ARCH=${ARCH:-x86_64}
IMAGE=$(kernel_image "$ARCH") || die "ARCH=$ARCH: make builds $(arches_with make) kernels"
O=$BUILD/kbuild-$ARCH
OUT=$BUILD/out
[[ $ARCH == x86_64 ]] || OUT=$BUILD/out/$ARCH
log=$LOGS/kernel$([[ $ARCH == x86_64 ]] || echo "-$ARCH").log
km() { kmake "$LINUX" "$O" "$ARCH" "$@"; }

fail() {
	stop_ticker
	echo "----- last 30 lines of $log -----" >&2
	tail -n 30 "$log" >&2
	die "$*; full log: $log"
}

mkdir -p "$O" "$LOGS"
: >"$log"
say "full log: $log"
dom0_config "$O" "$log" "" "$ARCH"
# Outputs of an earlier build would no longer match build/linux.  (Other
# targets write to build/out/ too: remove only the kernel's.)
KFILES=("${IMAGE##*/}" config System.map)
rm -rf "$BUILD/kernel-out-$ARCH.tmp"
for f in "${KFILES[@]}"; do rm -f "$OUT/$f"; done
rm -f "$OUT"/modules-*.tar.xz

jobs=$(nproc)
say "building ${IMAGE##*/} and modules for $ARCH with $jobs jobs (ccache: CC=\"ccache $(cross_prefix "$ARCH")gcc\") ..."
t0=$SECONDS
start_ticker "$PROG" count_compiled "$log"
km -j"$jobs" "${IMAGE##*/}" modules >>"$log" 2>&1 || fail "build failed after $(fmt_time $((SECONDS - t0)))"
stop_ticker
say "built in $(fmt_time $((SECONDS - t0))), $(count_compiled "$log") objects compiled"

# Assemble the outputs under a temporary name; move them when complete.
tmp=$BUILD/kernel-out-$ARCH.tmp
krel=$(km -s kernelrelease)
mkdir -p "$tmp/staging"
cp "$O/$IMAGE" "$tmp/${IMAGE##*/}"
cp "$O/.config" "$tmp/config"
cp "$O/System.map" "$tmp/System.map"
say "installing modules and packing modules-$krel.tar.xz ..."
km INSTALL_MOD_PATH="$tmp/staging" modules_install >>"$log" 2>&1 || fail "modules_install failed"
(cd "$tmp/staging" && XZ_OPT=-T0 tar --owner=0 --group=0 -cJf "$tmp/modules-$krel.tar.xz" -- *)
rm -rf "$tmp/staging"
mkdir -p "$OUT"
mv "$tmp/modules-$krel.tar.xz" "$OUT/"
for f in "${KFILES[@]}"; do mv "$tmp/$f" "$OUT/$f"; done
rmdir "$tmp"
say "outputs in $OUT/: ${IMAGE##*/} config System.map modules-$krel.tar.xz"
