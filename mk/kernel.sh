#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/kernel.sh: build a dom0-capable x86_64 kernel from build/linux, out of
# tree in build/kbuild-x86_64, and put bzImage, config, System.map and a
# modules tarball in build/out/.
#
# Configuration: defconfig + xen.config, or KCONFIG=/path/to/.config (copied,
# then olddefconfig).  Either way CONFIG_XEN_DOM0 must end up =y.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
require_tree
setup_ccache

O=$BUILD/kbuild-x86_64
OUT=$BUILD/out
log=$LOGS/kernel.log
km() { kmake "$LINUX" "$O" x86_64 "$@"; }

fail() {
	stop_ticker
	echo "----- last 30 lines of $log -----" >&2
	tail -n 30 "$log" >&2
	die "$*; full log: $log"
}

mkdir -p "$O" "$LOGS"
: >"$log"
say "full log: $log"
dom0_config "$O" "$log"
# Outputs of an earlier build would no longer match build/linux.  (Other
# targets write to build/out/ too: remove only the kernel's.)
KFILES=(bzImage config System.map)
rm -rf "$BUILD/kernel-out.tmp"
for f in "${KFILES[@]}"; do rm -f "$OUT/$f"; done
rm -f "$OUT"/modules-*.tar.xz

jobs=$(nproc)
say "building bzImage and modules with $jobs jobs (ccache: CC=\"ccache gcc\") ..."
t0=$SECONDS
start_ticker "$PROG" count_compiled "$log"
km -j"$jobs" bzImage modules >>"$log" 2>&1 || fail "build failed after $(fmt_time $((SECONDS - t0)))"
stop_ticker
say "built in $(fmt_time $((SECONDS - t0))), $(count_compiled "$log") objects compiled"

# Assemble the outputs under a temporary name; move them when complete.
tmp=$BUILD/kernel-out.tmp
krel=$(km -s kernelrelease)
mkdir -p "$tmp/staging"
cp "$O/arch/x86/boot/bzImage" "$tmp/bzImage"
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
say "outputs in $OUT/: bzImage config System.map modules-$krel.tar.xz"
