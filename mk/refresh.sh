#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/refresh.sh: 'make refresh', the way back from build/linux to the repo.
#
# Turns the commits of build/linux (BASE=V: build/V/linux) back into the
# series: commit N becomes entry N of patches/series and then of
# lab/patches/series, each a whole git format-patch file (new files
# included), written to the patch file the entry names.  With BASE=V a
# commit becomes patches/V/NAME.patch, the entry's replacement (added to
# patches/V/series if new), unless it makes the same change as the main
# patch (git patch-id), when a replacement is dropped.  A patch keeps its
# file name.
#
# Then make tree rebuilds the tree from the refreshed repo, and the result
# must be the same tree as before, or refresh fails (the commits stay in
# the tree's reflog).  Edit in build/linux, commit, make refresh, make check.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
cd "$ROOT"

g() { git -C "$LINUX" "$@"; }

[[ -d $LINUX/.git ]] || die "${LINUX#"$ROOT"/} does not exist: run 'make${BASE_VARIANT:+ BASE=$SERIES_BASE} tree' first"
[[ -z $(g status --porcelain --untracked-files=no) ]] ||
	die "${LINUX#"$ROOT"/} has uncommitted changes: commit them (git -C ${LINUX#"$ROOT"/} commit --amend, or a fixup and rebase) first"
[[ ! -d $LINUX/.git/rebase-apply && ! -d $LINUX/.git/rebase-merge ]] ||
	die "${LINUX#"$ROOT"/} is in the middle of a rebase or git am: finish or abort it first"

read_series
# The tree must have been made from the repo as it is: otherwise writing
# its commits back would undo what changed in the repo since.  A
# "refreshed" stamp is this script's own, left when its rebuild failed:
# it holds only for the HEAD it names.
require_tree
stamp=$SERIES_STAMP
read -r made_from made <"$stamp"
fingerprint=$(series_fingerprint)
if [[ $made_from != "$fingerprint" && ! ($made_from == refreshed && $(g rev-parse HEAD) == "$made") ]]; then
	since=$(g rev-list --count "$made..HEAD" 2>/dev/null) || since=unknown
	keep=
	[[ ! $since =~ ^[1-9] ]] ||
		keep="; to keep the tree's commits: git -C ${LINUX#"$ROOT"/} branch -f wip, then git -C ${LINUX#"$ROOT"/} reset --hard ${made:0:12}, make the tree, cherry-pick ${made:0:12}..wip onto it and fold each into its series commit"
	die "patches/ or lab/patches/ changed since make tree made ${LINUX#"$ROOT"/}: refresh would write the tree's older state over them; run 'make${BASE_VARIANT:+ BASE=$SERIES_BASE} tree' first (commits made in the tree since: $since)$keep"
fi
mapfile -t commits < <(g rev-list --reverse base..HEAD)
((${#commits[@]} == ${#E_PATCH[@]})) ||
	die "${LINUX#"$ROOT"/} has ${#commits[@]} commit(s) on base, patches/series and lab/patches/series ${#E_PATCH[@]} entries: add or remove the entry to match"

tmp=$(mktemp -d "$BUILD/.refresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

changed=0
# update FILE NEW: FILE (repo-relative) becomes NEW's contents.
update() {
	if ! cmp -s "$2" "$1"; then
		mkdir -p "$(dirname "$1")"
		cp "$2" "$1"
		say "  updated $1"
		changed=$((changed + 1))
	fi
}

# patch_id FILE: git patch-id of a patch file (the change, not its text).
patch_id() {
	git patch-id --stable <"$1" | cut -d' ' -f1
}

# patch_msg FILE: a patch file's commit message (subject and body).
patch_msg() {
	local info
	info=$(git mailinfo -k "$tmp/msg" /dev/null <"$1")
	{
		sed -n 's/^Subject: //p' <<<"$info"
		echo
		cat "$tmp/msg"
	} | git stripspace
}

for i in "${!commits[@]}"; do
	c=${commits[$i]}
	patch=${E_PATCH[$i]}
	name=${patch##*/}
	say "[$((i + 1))/${#commits[@]}] $(g log -1 --format='%h %s' "$c") -> ${REPLACE[$name]:-$patch}"
	g format-patch -1 --stdout --zero-commit "$c" >"$tmp/patch"
	if [[ -z $BASE_VARIANT ]]; then
		update "$patch" "$tmp/patch"
		continue
	fi
	# A backport: the main patch, if the commit makes its change (its
	# message is then the main one's too); else a replacement.
	vdir=${BASE_VARIANT#"$ROOT"/}
	if [[ -z ${REPLACE[$name]:-} && $(patch_id "$tmp/patch") == "$(patch_id "$patch")" ]] &&
		cmp -s <(patch_msg "$tmp/patch") <(patch_msg "$patch"); then
		continue
	fi
	if [[ -z ${REPLACE[$name]:-} ]]; then
		printf '\nreplace %s\n' "$name" >>"$vdir/series"
		say "  new replacement: $vdir/$name (added to $vdir/series)"
		changed=$((changed + 1))
	fi
	update "$vdir/$name" "$tmp/patch"
done

tree_before=$(g rev-parse 'HEAD^{tree}')
head_before=$(g rev-parse HEAD)
say "$changed file(s) changed; rebuilding ${LINUX#"$ROOT"/} from the repo to check"
# make tree would refuse the commits it did not make; they are in the
# repo now.
echo "refreshed $head_before" >"$stamp"
"$ROOT/mk/tree.sh"
tree_after=$(g rev-parse 'HEAD^{tree}')
[[ $tree_after == "$tree_before" ]] ||
	die "the refreshed series does not rebuild the same tree (${tree_before:0:12} before, ${tree_after:0:12} now; the commits are in the reflog: git -C ${LINUX#"$ROOT"/} reset --hard ${head_before:0:12})"
say "done: the repo's series rebuilds ${LINUX#"$ROOT"/} exactly; see 'git status' and 'git diff' for what changed"
