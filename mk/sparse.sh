#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/sparse.sh: prints the path of a sparse that checks 7.3, building it
# first if it is not there.  Debian 12's sparse (0.6.4) fails the kernel's
# probe for __typeof_unqual__ (scripts/checker-valid.sh), and kbuild then
# skips C= with "sparse is not available or not up to date".  Debian's
# sid has 0.6.5~rc1, which parses __typeof_unqual__, but its binary
# package needs glibc 2.38; so its source package is fetched from sid
# (apt-get source under a private APT configuration in build/dl/apt-sid;
# the host's apt sources stay as they are) and the sparse binary built
# from its upstream tarball with Debian 12's gcc, into
# build/tools/sparse-VERSION/.  Debian's two patches are packaging
# adaptations (ld --as-needed, cgcc calling gcc-16) and are not applied.
# Log: build/logs/sparse-build.log.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

apt=$BUILD/dl/apt-sid
log=$LOGS/sparse-build.log
mkdir -p "$LOGS" "$BUILD/tools"
# A sparse already built (the newest version).
mapfile -t built < <(find "$BUILD/tools" -mindepth 2 -maxdepth 2 -path "*/sparse-*/sparse" | sort -rV)
if ((${#built[@]})); then
	echo "${built[0]}"
	exit 0
fi
: >"$log"
say "building sparse from Debian sid's source package (log: ${log#"$ROOT"/})" >&2
private_apt "$apt" "" "deb-src http://deb.debian.org/debian sid main" ||
	die "apt-get update for sid's sources failed; see ${apt#"$ROOT"/}/update.log"
ver=$(APT_CONFIG=$apt/apt.conf apt-cache showsrc sparse 2>>"$log" | sed -n 's/^Version: //p' | sort -rV | head -n 1)
[[ -n $ver ]] || die "sid lists no sparse source package; see $log"
src=$BUILD/dl/sparse-src
rm -rf "$src"
mkdir -p "$src"
(cd "$src" && APT_CONFIG=$apt/apt.conf apt-get -q source --download-only "sparse=$ver") >>"$log" 2>&1 ||
	die "cannot download the sparse $ver source package from sid; see $log"
orig=$(find "$src" -maxdepth 1 -name "sparse_*.orig.tar.*" | head -n 1)
[[ -n $orig ]] || die "the sparse $ver source package has no .orig tarball (in ${src#"$ROOT"/})"
tar -xf "$orig" -C "$src"
dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "sparse-*" | head -n 1)
[[ -n $dir ]] || die "${orig#"$ROOT"/} unpacks no sparse-*/ directory"
make -C "$dir" -j"$(nproc)" sparse >>"$log" 2>&1 || die "sparse $ver did not build; see $log"
out=$BUILD/tools/sparse-$ver
mkdir -p "$out"
install -m 755 "$dir/sparse" "$out/sparse.tmp"
[[ -x $LINUX/scripts/checker-valid.sh ]] || die "${LINUX#"$ROOT"/}/scripts/checker-valid.sh missing (make tree)"
# The kernel's own probe: scripts/checker-valid.sh prints 1 for a sparse
# kbuild will run.
if [[ $("$LINUX/scripts/checker-valid.sh" "$out/sparse.tmp" 2>>"$log") != 1 ]]; then
	rm -f "$out/sparse.tmp"
	die "sparse $ver fails ${LINUX#"$ROOT"/}/scripts/checker-valid.sh (see $log)"
fi
mv "$out/sparse.tmp" "$out/sparse"
rm -rf "$src"
say "sparse $ver: ${out#"$ROOT"/}/sparse" >&2
echo "$out/sparse"
