#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/xen-hv.sh DIR CONFIG: Xen 4.17's hypervisor (x86_64) built from
# Debian 12's source package with lab/xen/hv/*.patch, for make xen-test
# XEN_HV=tcg-debug (mk/xen-rig.sh): DIR/xen.elf.  The patches make Xen
# say what QEMU's TCG does wrong under an HVM or PVH guest, and tolerate
# one such fault (docs/live-xen.md, "Xen's own account").  Not for real
# hardware.
#
# The source is the newest bookworm main has (apt-get source under a
# private APT configuration in DIR/apt; the security suite's newer
# source is not in the archive this project reaches), configured with
# CONFIG, the .config of Debian's binary hypervisor.  It is built again
# only when the source version, a patch or CONFIG changes (DIR/stamp).  Log:
# build/logs/xen-hv.log.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

(($# == 2)) || die "usage: mk/xen-hv.sh DIR CONFIG"
dir=$1 config=$2
[[ -f $config ]] || die "$config: no such file (the .config of Debian's Xen hypervisor)"
for cmd in apt-get dpkg-source patch make gcc python3 flex bison sha256sum; do
	command -v "$cmd" >/dev/null || die "$cmd not found (make xen-test XEN_HV=tcg-debug builds Xen)"
done
mapfile -t patches < <(find "$ROOT/lab/xen/hv" -name '*.patch' | sort)
((${#patches[@]})) || die "lab/xen/hv: no patches"
log=$LOGS/xen-hv.log
mkdir -p "$dir" "$LOGS"
: >"$log"

private_apt "$dir/apt" "" "deb-src http://deb.debian.org/debian bookworm main" ||
	die "apt-get update for Xen's source failed (see ${dir#"$ROOT"/}/apt/update.log)"
ver=$(APT_CONFIG=$dir/apt/apt.conf apt-cache showsrc xen 2>>"$log" |
	awk '/^Version:/ { print $2 }' | sort -V | tail -1)
[[ $ver == 4.17.* ]] || die "bookworm has no Xen 4.17 source package (found: ${ver:-none}; see $log)"
stamp="$ver $(cat "${patches[@]}" | sha256sum | cut -d' ' -f1) $(sha256sum <"$config" | cut -d' ' -f1)"
if [[ -f $dir/xen.elf && -f $dir/stamp && $(<"$dir/stamp") == "$stamp" ]]; then
	say "Xen $ver with lab/xen/hv's patches: up to date ($dir/xen.elf)"
	exit 0
fi

say "building Xen $ver's hypervisor from Debian's source with ${#patches[@]} patch(es) of lab/xen/hv (log: $log)"
rm -rf "$dir/src" "$dir/dl" "$dir/xen.elf" "$dir/stamp"
mkdir -p "$dir/dl"
(cd "$dir/dl" && APT_CONFIG=$dir/apt/apt.conf apt-get -q source --download-only "xen=$ver") >>"$log" 2>&1 ||
	die "cannot download Xen $ver's source (see $log)"
dpkg-source -x "$dir/dl/xen_${ver#*:}.dsc" "$dir/src" >>"$log" 2>&1 ||
	die "cannot unpack $dir/dl/xen_${ver#*:}.dsc (see $log)"
for p in "${patches[@]}"; do
	patch -d "$dir/src" -p1 --forward --batch <"$p" >>"$log" 2>&1 ||
		die "${p#"$ROOT"/} does not apply to Xen $ver (see $log)"
done
cp "$config" "$dir/src/xen/.config"
start=$SECONDS
make -C "$dir/src/xen" olddefconfig >>"$log" 2>&1 || die "Xen's olddefconfig failed (see $log)"
make -C "$dir/src/xen" -j"$(nproc)" >>"$log" 2>&1 || die "Xen's build failed (see $log)"
[[ -f $dir/src/xen/xen ]] || die "Xen's build made no xen/xen (see $log)"
cp "$dir/src/xen/xen" "$dir/xen.elf"
echo "$stamp" >"$dir/stamp"
say "built $dir/xen.elf in $(fmt_time $((SECONDS - start)))"
