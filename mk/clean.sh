#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/clean.sh: 'make clean', build/ removed (the ccache stays), but never
# a developer's work: a kernel tree (build/linux, build/V/linux) that
# holds what make tree did not make there (commits on top of the series
# or instead of it, changes not committed, files not tracked) is kept,
# with a line naming what and how to keep it (make refresh) or drop it;
# everything else in build/ is removed.  FORCE=1 removes build/ whole.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

# unsaved TREE: what TREE (a kernel tree of build/) holds that make tree
# did not make, one line; nothing if there is nothing to lose.
unsaved() {
	local t=$1 made head what=() n base=()
	[[ -d $t/.git ]] || return 0
	head=$(git -C "$t" rev-parse -q --verify HEAD 2>/dev/null) || return 0
	made=
	[[ ! -f $t/.git/series-stamp ]] || made=$(cut -d' ' -f2 "$t/.git/series-stamp")
	if [[ -z $made ]]; then
		# No stamp: make tree never finished here; what is above base
		# may be anyone's.
		git -C "$t" rev-parse -q --verify base >/dev/null 2>&1 && base=(base..HEAD)
		if ((${#base[@]})); then
			n=$(git -C "$t" rev-list --count "${base[@]}")
			((n == 0)) || what+=("$n commit(s) on the base that make tree did not record")
		fi
	elif [[ $head != "$made" ]]; then
		if git -C "$t" merge-base --is-ancestor "$made" "$head" 2>/dev/null; then
			what+=("$(git -C "$t" rev-list --count "$made..$head") commit(s) on top of the series")
		else
			what+=("HEAD $(git -C "$t" log -1 --format=%h "$head"), not the series make tree left (${made:0:12})")
		fi
	fi
	n=$(git -C "$t" status --porcelain --untracked-files=no | wc -l)
	((n == 0)) || what+=("$n file(s) changed and not committed")
	n=$(git -C "$t" ls-files --others --exclude-standard | wc -l)
	((n == 0)) || what+=("$n file(s) not tracked")
	local out='' w
	for w in "${what[@]}"; do
		out+="${out:+; }$w"
	done
	echo "$out"
}

# prune DIR: remove what DIR holds but the kept trees and the folders
# that lead to them.
prune() {
	local e k keep
	for e in "$1"/* "$1"/.[!.]*; do
		[[ -e $e || -L $e ]] || continue
		keep=0
		for k in "${kept[@]}"; do
			[[ $k == "$e" ]] && keep=1 && break
			[[ $k == "$e"/* ]] && keep=2
		done
		case $keep in
		0) rm -rf "$e" ;;
		2) prune "$e" ;;
		esac
	done
}

kept=()
[[ -d $ROOT/build ]] || { say "nothing to remove (no build/)"; exit 0; }
while read -r t; do
	u=$(unsaved "$t")
	[[ -n $u ]] || continue
	kept+=("$t")
	rel=${t#"$ROOT"/}
	v=
	[[ $rel == build/linux ]] || v=" BASE=$(basename "$(dirname "$t")")"
	warn "kept $rel: it has $u: keep the commits with 'make$v refresh' (git -C $rel commit first), or drop them with FORCE=1 make clean"
done < <(find "$ROOT/build" -maxdepth 3 -type d -name linux -exec test -d '{}/.git' ';' -print 2>/dev/null | sort)
if ((${#kept[@]} == 0)) || [[ ${FORCE:-0} == 1 ]]; then
	rm -rf "$ROOT/build"
	say "removed build/ (the ccache stays)"
	exit 0
fi
prune "$ROOT/build"
say "removed build/ but ${#kept[@]} kernel tree(s) named above (the ccache stays; FORCE=1 removes build/ whole)"
