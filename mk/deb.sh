#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/deb.sh: the patched kernel as Debian packages, through the kernel's own
# bindeb-pkg, built in build/kbuild-x86_64 (the build directory of 'make')
# with LOCALVERSION (default -evtchn-rr, naming the series), configured as
# 'make' does (defconfig + xen.config, or KCONFIG=/path/to/.config, e.g.
# Debian's config).  The packages go to build/out/; then each is checked:
# the image holds the kernel, its config with CONFIG_XEN_DOM0=y, and the
# modules.  Log: build/logs/deb.log.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
require_tree
setup_ccache

O=$BUILD/kbuild-x86_64
OUT=$BUILD/out
log=$LOGS/deb.log
LOCALVERSION=${LOCALVERSION--evtchn-rr}
km() { kmake "$LINUX" "$O" x86_64 LOCALVERSION="$LOCALVERSION" "$@"; }
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

mkdir -p "$O" "$OUT" "$LOGS"
: >"$log"
say "full log: $log"
# The configuration of 'make' if build/kbuild-x86_64 has one.
dom0_config "$O" "$log" keep

# bindeb-pkg writes the packages beside the build directory, in build/.
rm -f "$BUILD"/linux-*.deb "$BUILD"/linux-upstream_*
jobs=$(nproc)
say "building and packaging (bindeb-pkg, LOCALVERSION=$LOCALVERSION, $jobs jobs) ..."
t0=$SECONDS
start_ticker "$PROG" count_compiled "$log"
km -j"$jobs" bindeb-pkg >>"$log" 2>&1 || {
	stop_ticker
	tail -n 20 "$log" >&2
	die "bindeb-pkg failed after $(fmt_time $((SECONDS - t0))); see $log"
}
stop_ticker
krel=$(km -s kernelrelease)
say "built in $(fmt_time $((SECONDS - t0))), kernel release $krel"

mapfile -t debs < <(find "$BUILD" -maxdepth 1 -name 'linux-*.deb')
((${#debs[@]})) || die "bindeb-pkg left no .deb in $BUILD"
rm -f "$OUT"/linux-*.deb
mv "${debs[@]}" "$OUT/"
image=$(find "$OUT" -maxdepth 1 -name "linux-image-${krel}_*.deb" ! -name "*-dbg_*" -print -quit)
[[ -n $image ]] || die "no linux-image-$krel package among ${debs[*]}"

# The image package: the kernel, its config (dom0), the modules.
contents=$(dpkg-deb --contents "$image")
grep -q "\./boot/vmlinuz-$krel\$" <<<"$contents" || die "$image has no boot/vmlinuz-$krel"
grep -q "\./boot/config-$krel\$" <<<"$contents" || die "$image has no boot/config-$krel"
# Read the whole config first: grep -q closing the pipe early would make
# tar fail under pipefail.
config=$(dpkg-deb --fsys-tarfile "$image" | tar -xOf - "./boot/config-$krel")
grep -qx 'CONFIG_XEN_DOM0=y' <<<"$config" ||
	die "$image: CONFIG_XEN_DOM0 is not =y in its config"
nmods=$(grep -c '\.ko$' <<<"$contents" || true)
((nmods > 0)) || die "$image holds no module"
debs=("$OUT"/linux-*.deb)
say "packages in $OUT/: ${debs[*]##*/}"
say "checked $(basename "$image"): boot/vmlinuz-$krel, boot/config-$krel with CONFIG_XEN_DOM0=y, $nmods modules"
say "install on a Debian dom0 beside Xen (xen-system-amd64; its GRUB scripts add the 'with Xen hypervisor' entries):"
say "  apt install ./$(basename "$image")"
say "boot it as dom0 on Xen 4.17 in QEMU: make${SERIES_BASE:+ BASE=$SERIES_BASE} xen-test DEB=${image#"$ROOT"/}"
