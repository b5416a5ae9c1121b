#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/export.sh: 'make export [BASE=V] [DIR=...]', the series as patches
# others apply: build/linux's (BASE=V: build/V/linux's) commits of the
# series proper (base..series_tip: not the lab: ones) as complete
# git format-patch files, their new files included, and a "series" file
# naming them in order (quilt's), in DIR (default build/export, or
# build/V/export).  Authored by AUTHOR= or the sender and signed off as
# make series signs them (SIGNOFF=, or git's identity if a person's).
#
# Written to DIR.new and moved to DIR only once both checks passed:
#   git am     the files applied with git am to base, in a scratch clone
#              sharing the tree's objects, give exactly the tree of the
#              series' last commit (the one make check builds, and make
#              bisect-build builds commit by commit);
#   quilt      quilt push -a of them on base's files gives the same
#              files (the ones the series touches).
# So "git am DIR/*.patch" on a clean tree of that base (Debian's
# linux-source of patches/BASE or patches/V/BASE), or quilt with DIR as
# its patches directory, gives the series' tree.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
command -v quilt >/dev/null || die "quilt not found (Debian package quilt; mk/deps.sh installs it)"
dir=${DIR:-$BUILD/export}
[[ $dir == /* ]] || dir=$PWD/$dir
[[ $dir != "$LINUX" && $dir != "$LINUX"/* ]] || die "DIR=$dir is inside the kernel tree ${LINUX#"$ROOT"/}"
sender_identity export
tip=$(series_tip)
n=$(git -C "$LINUX" rev-list --count "base..$tip")
((n > 0)) || die "nothing to export: patches/series has no entries before its lab: ones"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
new=$dir.new
rm -rf "$new"
mkdir -p "$new"

# The commits signed as make series signs them, in a scratch clone.
repo=$tmp/linux
git clone -q --shared --no-checkout "$LINUX" "$repo"
signed=$(signed_commits "$repo" base "$tip")
last=$(tail -n 1 <<<"$signed")
git -C "$repo" format-patch -q --zero-commit --no-signature -o "$new" base.."$last"
(cd "$new" && ls -- *.patch) >"$new/series"
say "$n patch(es) of ${LINUX#"$ROOT"/} (base $(git -C "$LINUX" log -1 --format=%s base | sed 's/ (.*//')) in ${new#"$ROOT"/}"

# git am onto base, in the scratch clone (only the series' files checked
# out): the same tree as the tip's.
mapfile -t files < <(git -C "$LINUX" diff --name-only base "$tip")
git -C "$repo" sparse-checkout set --no-cone "${files[@]/#//}"
git -C "$repo" -c advice.detachedHead=false checkout -q --detach base
git -C "$repo" -c user.name=export -c user.email=export@localhost \
	am -q "$new"/*.patch >"$tmp/am.log" 2>&1 ||
	die "git am of ${new#"$ROOT"/} onto base failed: $(tail -n 1 "$tmp/am.log")"
want=$(git -C "$LINUX" rev-parse "$tip^{tree}")
got=$(git -C "$repo" rev-parse "HEAD^{tree}")
[[ $got == "$want" ]] ||
	die "git am gives tree $got, not the series' $want"
say "git am onto base: the series' tree ($want)"

# quilt push -a on base's files (those the series touches: quilt touches
# no other): the same files as the series' last commit.
mkdir "$tmp/q"
mapfile -t old < <(git -C "$LINUX" ls-tree -r --name-only base -- "${files[@]}")
((${#old[@]} == 0)) || git -C "$LINUX" archive base -- "${old[@]}" | tar -x -C "$tmp/q"
ln -s "$new" "$tmp/q/patches"
(cd "$tmp/q" && QUILT_PATCHES=patches quilt push -a -q) >"$tmp/quilt.log" 2>&1 ||
	die "quilt push -a failed: $(tail -n 1 "$tmp/quilt.log")"
for f in "${files[@]}"; do
	cmp -s <(git -C "$LINUX" show "$tip:$f") "$tmp/q/$f" ||
		die "after quilt push -a, $f is not the series' (${#files[@]} files compared)"
done
say "quilt push -a on base's files: the series' ${#files[@]} files"

rm -rf "$dir"
mv "$new" "$dir"
say "${dir#"$ROOT"/}: $(paste -sd' ' "$dir/series")"
