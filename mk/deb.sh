#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/deb.sh: the mailed series' kernel (build/linux-series, without the
# lab's patches) as Debian packages for ARCH (x86_64, the
# default: amd64; arm: armhf; arm64: arm64, cross-built), through the
# kernel's own bindeb-pkg, built in build/kbuild-ARCH (the build directory
# of 'make') with LOCALVERSION (default -evtchn-rr, naming the series),
# configured as 'make' does (the architecture's defconfig + Xen, or
# KCONFIG=/path/to/.config, e.g. Debian's config).  The packages go to
# build/out/ (x86_64) or build/out/ARCH/; then the image package is
# checked: its architecture, the kernel, its config with
# CONFIG_XEN_DOM0=y, and the modules.  Log: build/logs/deb.log (deb-ARCH.log).
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
debarch=$(deb_arch "$ARCH") || die "ARCH=$ARCH: make deb builds $(arches_with make) packages"
O=$BUILD/kbuild-$ARCH
OUT=$BUILD/out
[[ $ARCH == x86_64 ]] || OUT=$BUILD/out/$ARCH
log=$LOGS/deb$([[ $ARCH == x86_64 ]] || echo "-$ARCH").log
LOCALVERSION=${LOCALVERSION--evtchn-rr}
km() { kmake "$LINUX" "$O" "$ARCH" LOCALVERSION="$LOCALVERSION" "$@"; }
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

mkdir -p "$O" "$OUT" "$LOGS"
: >"$log"
say "full log: $log"
# The configuration of 'make' if build/kbuild-ARCH has one.
dom0_config "$O" "$log" keep "$ARCH"

# Cross-built, the headers package carries the kernel's scripts rebuilt
# for the target (7.3's and 6.12's packaging), and sign-file
# (CONFIG_MODULE_SIG_FORMAT) needs the target's libcrypto, gendwarfksyms
# (CONFIG_GENDWARFKSYMS) its libdw, which the host does not have (no
# foreign dpkg architecture here): no headers package then, by the
# packaging's own build profile, added to the caller's DEB_BUILD_PROFILES.
profiles=${DEB_BUILD_PROFILES:-}
if [[ $ARCH != x86_64 ]] && grep -qE '^CONFIG_(MODULE_SIG_FORMAT|GENDWARFKSYMS)=y$' "$O/.config" &&
	grep -q nokernelheaders "$LINUX/scripts/package/mkdebian"; then
	profiles="${profiles:+$profiles }pkg.linux-upstream.nokernelheaders"
	warn "no linux-headers package: its programs, built for $debarch, would need $debarch's libssl-dev or libdw-dev (CONFIG_MODULE_SIG_FORMAT or CONFIG_GENDWARFKSYMS)"
fi

# bindeb-pkg writes the packages beside the build directory, in build/.
# Only this architecture's: another's may be there.
rm -f "$BUILD"/linux-*_"$debarch".deb "$BUILD"/linux-upstream_*_"$debarch".*
jobs=$(nproc)
say "building and packaging for $debarch (bindeb-pkg, LOCALVERSION=$LOCALVERSION, $jobs jobs) ..."
t0=$SECONDS
start_ticker "$PROG" count_compiled "$log"
DEB_BUILD_PROFILES=$profiles km -j"$jobs" bindeb-pkg >>"$log" 2>&1 || {
	stop_ticker
	tail -n 20 "$log" >&2
	die "bindeb-pkg failed after $(fmt_time $((SECONDS - t0))); see $log"
}
stop_ticker
krel=$(km -s kernelrelease)
say "built in $(fmt_time $((SECONDS - t0))), kernel release $krel"

mapfile -t debs < <(find "$BUILD" -maxdepth 1 -name "linux-*_$debarch.deb")
((${#debs[@]})) || die "bindeb-pkg left no .deb in $BUILD"
rm -f "$OUT"/linux-*_"$debarch".deb
mv "${debs[@]}" "$OUT/"
image=$(find "$OUT" -maxdepth 1 -name "linux-image-${krel}_*.deb" ! -name "*-dbg_*" -print -quit)
[[ -n $image ]] || die "no linux-image-$krel package among ${debs[*]}"
a=$(dpkg-deb -f "$image" Architecture)
[[ $a == "$debarch" ]] || die "$image is for $a, not $debarch"

# The image package: the kernel, its config (dom0), the modules.
contents=$(dpkg-deb --contents "$image")
grep -q "\./boot/vmlinuz-$krel\$" <<<"$contents" || die "$image has no boot/vmlinuz-$krel"
grep -q "\./boot/config-$krel\$" <<<"$contents" || die "$image has no boot/config-$krel"
# Read the whole config first: grep -q closing the pipe early would make
# tar fail under pipefail.
config=$(dpkg-deb --fsys-tarfile "$image" | tar -xOf - "./boot/config-$krel")
grep -qx 'CONFIG_XEN_DOM0=y' <<<"$config" ||
	die "$image: CONFIG_XEN_DOM0 is not =y in its config"
# Debian's configurations compress them (CONFIG_MODULE_COMPRESS_XZ).
nmods=$(grep -cE '\.ko(\.(gz|xz|zst))?$' <<<"$contents" || true)
((nmods > 0)) || die "$image holds no module"
debs=("$OUT"/linux-*_"$debarch".deb)
say "packages in $OUT/: ${debs[*]##*/}"
say "checked $(basename "$image"): $debarch, boot/vmlinuz-$krel, boot/config-$krel with CONFIG_XEN_DOM0=y, $nmods modules"
say "install on a Debian dom0 beside Xen (xen-system-$debarch; on amd64 its GRUB scripts add the 'with Xen hypervisor' entries):"
say "  apt install ./$(basename "$image")"
say "boot it as dom0 on Xen 4.17 in QEMU: make${SERIES_BASE:+ BASE=$SERIES_BASE} xen-test$([[ $ARCH == x86_64 ]] || echo " ARCH=$ARCH") DEB=${image#"$ROOT"/}"
