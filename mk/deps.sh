#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/deps.sh [GOAL...]: make sure the Debian packages the make goals need
# (mk/packages: the groups each target names; a goal with no line there,
# make check or make deps, and no goal at all, need every group), and the
# base's linux-source package (BASE, or patches/V/BASE for BASE=V), are
# there.  Installs the missing ones when run as root, fails otherwise.  A
# base pinned with a suite (BASE: linux-source-7.3 from trixie-backports)
# is not installed: its .deb is downloaded with apt-get under a private APT
# configuration in build/dl/apt (its own sources list, lists, status and
# cache; the host's apt sources and dpkg architectures stay as they are)
# and its tarball unpacked in build/dl/.  Fast no-op when everything is
# present.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

command -v dpkg-query >/dev/null || die "dpkg-query not found; this project needs Debian 12"
list=$ROOT/mk/packages
[[ -r $list ]] || die "$list missing"
# The list: "[group]" lines, each followed by its packages, and
# "target: group ..." lines.
declare -A members=() wants=()
groups=() group='' n=0
while IFS= read -r line || [[ -n $line ]]; do
	n=$((n + 1))
	line=${line%%#*}
	read -r line <<<"$line" || true
	[[ -n $line ]] || continue
	if [[ $line =~ ^\[([a-z0-9-]+)\]$ ]]; then
		group=${BASH_REMATCH[1]}
		[[ -z ${members[$group]+set} ]] || die "${list#"$ROOT"/}:$n: group [$group] twice"
		members[$group]=''
		groups+=("$group")
	elif [[ $line =~ ^([a-z0-9-]+):(.*)$ ]]; then
		wants[${BASH_REMATCH[1]}]="tree ${BASH_REMATCH[2]}"
	elif [[ -z $group ]]; then
		die "${list#"$ROOT"/}:$n: package '$line' before any [group] line"
	elif [[ $line =~ ^[a-z0-9][a-z0-9.+-]*$ ]]; then
		members[$group]+=" $line"
	else
		die "${list#"$ROOT"/}:$n: not a package name: '$line'"
	fi
done <"$list"
((${#groups[@]})) || die "${list#"$ROOT"/} lists no packages"
for t in "${!wants[@]}"; do
	for g in ${wants[$t]}; do
		[[ -n ${members[$g]+set} ]] || die "${list#"$ROOT"/}: target $t names no such group '$g'"
	done
done
# The groups of the goals given: every group for a goal with no line.
need=()
(($#)) || set -- deps
for goal in "$@"; do
	if [[ -n ${wants[$goal]+set} ]]; then
		read -ra gs <<<"${wants[$goal]}"
		need+=("${gs[@]}")
	else
		need=("${groups[@]}")
		break
	fi
done
pkgs=()
for g in $(printf '%s\n' "${need[@]}" | sort -u); do
	read -ra ps <<<"${members[$g]}"
	pkgs+=("${ps[@]}")
done
# The base's linux-source package, installed from the host's archive
# unless its pin names a suite (then fetched below).
read_pin
if [[ -z $BASE_SUITE ]]; then
	[[ " ${pkgs[*]} " == *" $BASE_PKG "* ]] || pkgs+=("$BASE_PKG")
fi

# fetch_base: BASE_PKG at exactly BASE_VER from BASE_SUITE of Debian's
# archive, its tarball unpacked to BASE_TARBALL.
fetch_base() {
	local apt=$ROOT/build/dl/apt dir deb tmp
	dir=$(dirname "$BASE_TARBALL")
	[[ ! -f $BASE_TARBALL ]] || return 0
	say "fetching $BASE_PKG $BASE_VER from Debian's $BASE_SUITE (private APT configuration in ${apt#"$ROOT"/})"
	mkdir -p "$apt/debs"
	private_apt "$apt" "" "deb http://deb.debian.org/debian $BASE_SUITE main" ||
		die "apt-get update for $BASE_SUITE failed; see ${apt#"$ROOT"/}/update.log"
	(cd "$apt/debs" && APT_CONFIG=$apt/apt.conf apt-get -q download "$BASE_PKG=$BASE_VER") \
		>"$apt/download.log" 2>&1 ||
		die "cannot download $BASE_PKG=$BASE_VER from $BASE_SUITE; see ${apt#"$ROOT"/}/download.log"
	deb=$apt/debs/${BASE_PKG}_${BASE_VER//:/%3a}_all.deb
	[[ -f $deb ]] || die "apt-get download left no $deb"
	tmp=$(mktemp -d "$ROOT/build/dl/.unpack.XXXXXX")
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./usr/src/$BASE_PKG.tar.xz" ||
		{ rm -rf "$tmp"; die "$deb holds no usr/src/$BASE_PKG.tar.xz"; }
	mkdir -p "$dir"
	mv "$tmp/usr/src/$BASE_PKG.tar.xz" "$BASE_TARBALL"
	rm -f "$deb"
	rm -rf "$tmp"
	say "$BASE_PKG $BASE_VER: ${BASE_TARBALL#"$ROOT"/}"
}

declare -A installed=()
while read -r pkg status; do
	[[ -z $pkg || $status != installed ]] || installed[$pkg]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null || true)

missing=()
for pkg in "${pkgs[@]}"; do
	[[ -n ${installed[$pkg]:-} ]] || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
	[[ -z $BASE_SUITE ]] || fetch_base
	exit 0
fi

if ((EUID != 0)); then
	die "missing Debian packages: ${missing[*]} (run 'make deps' as root, or install them)"
fi
say "installing missing packages: ${missing[*]}"
# A mirror caught in its sync fails one index (apt-get update exits 100)
# while the others are fine: go on with them; apt-get install says if a
# package it needs is then missing.
apt-get update || warn "apt-get update failed on some index (above); installing from the lists it fetched"
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
[[ -z $BASE_SUITE ]] || fetch_base
