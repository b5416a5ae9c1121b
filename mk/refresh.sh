#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/refresh.sh: 'make refresh', the way back from build/linux to the repo.
#
# Turns the commits of build/linux (BASE=V: build/V/linux) back into the
# series: commit N becomes entry N of patches/series.  For each entry
#   - its patch file (patches/NAME.patch, or patches/V/NAME.patch where the
#     variant replaces it) is rewritten by git format-patch from the
#     commit, without the entry's new files;
#   - the entry's new files (the paths it lists) are copied from the commit
#     to the repo root, and those the commit no longer has are removed; a
#     file the commit adds outside them is an error naming the entry;
#   - with BASE=V and no replacement, the difference between the commit
#     and the main patch applied as make tree applies it is the variant's
#     fold (patches/V/FIX.diff, its text above the diff kept); a new fold
#     is added to patches/V/series as patches/V/NNNN-V.diff.  (A new file
#     changed on a backport is part of its fold.)
# A patch keeps its file name.  The commit messages are taken as they are,
# but for a fold, whose text stays in the fold file.
#
# Then make tree rebuilds the tree from the refreshed repo, and the result
# must be the same tree as before, or refresh fails (the commits stay in
# the tree's reflog).  Edit in build/linux, commit, make refresh, make check.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
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
	die "patches/ or the new files changed since make tree made ${LINUX#"$ROOT"/}: refresh would write the tree's older state over them; run 'make${BASE_VARIANT:+ BASE=$SERIES_BASE} tree' first (commits made in the tree since: $since)$keep"
fi
mapfile -t commits < <(g rev-list --reverse base..HEAD)
((${#commits[@]} == ${#E_PATCH[@]})) ||
	die "${LINUX#"$ROOT"/} has ${#commits[@]} commit(s) on base, patches/series ${#E_PATCH[@]} entries: add or remove the entry in patches/series to match"

tmp=$(mktemp -d "$BUILD/.refresh.XXXXXX")
wt=
cleanup() {
	[[ -z $wt ]] || git -C "$LINUX" worktree remove --force "$wt" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# entry_paths I: entry I's listed paths, one per line.
entry_paths() {
	local p
	for p in ${E_PATHS[$1]}; do echo "${p%/}"; done
}

# in_paths FILE I: FILE is one of entry I's listed paths or below one.
in_paths() {
	local p
	while IFS= read -r p; do
		[[ -n $p ]] || continue
		[[ $1 == "$p" || $1 == "$p"/* ]] && return 0
	done < <(entry_paths "$2")
	return 1
}

# format_patch COMMIT I OUT: COMMIT as a mail, without entry I's new files.
format_patch() {
	local excl=() p
	while IFS= read -r p; do
		[[ -z $p ]] || excl+=(":(exclude)$p")
	done < <(entry_paths "$2")
	g format-patch -1 --stdout --zero-commit "$1" -- . "${excl[@]}" >"$3"
	grep -q '^diff --git ' "$3" ||
		die "commit $(g log -1 --format='%h %s' "$1") changes nothing but entry ${E_PATCH[$2]}'s new files: make tree applies a patch with git am, which needs a change to an existing file"
}

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

# refresh_new_files COMMIT I: entry I's new files from COMMIT into the
# repo: added under the listed paths, copied; a listed file COMMIT's tree
# lacks, removed; a file COMMIT adds elsewhere, an error.  (On a backport
# base the new files stay the main series' ones: differences go to the
# fold.)
refresh_new_files() {
	local status f p mode
	while IFS=$'\t' read -r status f; do
		if [[ $status == A* ]] && ! in_paths "$f" "$2"; then
			die "$(g log -1 --format='%h %s' "$1") adds $f, which its entry in patches/series (${E_PATCH[$2]}) does not list: add the path there"
		fi
	done < <(g diff-tree --no-commit-id -r --name-status "$1")
	while IFS= read -r p; do
		[[ -n $p ]] || continue
		while IFS= read -r f; do
			g show "$1:$f" >"$tmp/file"
			update "$f" "$tmp/file"
			mode=$(g ls-tree "$1" -- "$f" | awk '{ print $1 }')
			if [[ $mode == 100755 && ! -x $f ]]; then chmod +x "$f"; fi
			if [[ $mode == 100644 && -x $f ]]; then chmod -x "$f"; fi
		done < <(g ls-tree -r --name-only "$1" -- "$p")
		while IFS= read -r f; do
			[[ -n $f ]] || continue
			if ! g cat-file -e "$1:$f" 2>/dev/null; then
				git rm -q -- "$f" 2>/dev/null || rm -f -- "$f"
				say "  removed $f"
				changed=$((changed + 1))
			fi
		done <<<"$(project_files "$p")"
	done < <(entry_paths "$2")
}

for i in "${!commits[@]}"; do
	c=${commits[$i]}
	patch=${E_PATCH[$i]}
	say "[$((i + 1))/${#commits[@]}] $(g log -1 --format='%h %s' "$c") -> $patch"

	if [[ -z $BASE_VARIANT ]]; then
		refresh_new_files "$c" "$i"
	fi

	if [[ -n $BASE_VARIANT && -z ${REPLACE[$patch]:-} ]]; then
		# A backport entry made from the main patch: what the commit has
		# beyond the main patch (and the repo's new files) is the fold.
		if [[ -z $wt ]]; then
			wt=$tmp/wt
			g worktree add -q --detach "$wt" "${commits[0]}^"
		fi
		parent=$(g rev-parse "$c^")
		git -C "$wt" checkout -q -f --detach "$parent"
		git -C "$wt" am -q "$ROOT/patches/$patch" ||
			die "patches/$patch does not apply to ${LINUX#"$ROOT"/} at $(g log -1 --format='%h %s' "$parent")"
		mapfile -t files <<<"${E_FILES[$i]}"
		if [[ -n ${files[0]} ]]; then
			for f in "${files[@]}"; do
				mkdir -p "$wt/$(dirname "$f")"
				cp --preserve=mode "$f" "$wt/$f"
			done
			git -C "$wt" add -f -- "${files[@]}"
			git -C "$wt" commit -q --no-verify -m made
		fi
		git -C "$wt" diff --binary HEAD "$c" >"$tmp/fold"
		fix=${FOLD[$patch]:-}
		if [[ -s $tmp/fold ]]; then
			if [[ -z $fix ]]; then
				fix=${BASE_VARIANT#"$ROOT"/}/${patch%%-*}-$SERIES_BASE.diff
				[[ ! -e $fix ]] || die "$fix exists but patches/$SERIES_BASE/series does not fold it"
				printf '[ %s: backport. ]\n---\n' "$SERIES_BASE" >"$tmp/text"
				printf '\nfold %s %s\n' "$patch" "${fix##*/}" >>"${BASE_VARIANT#"$ROOT"/}/series"
				say "  new fold: $fix (added to ${BASE_VARIANT#"$ROOT"/}/series; its text above the diff goes into the commit message)"
			else
				# The text above the diff (up to "---" or the first diff).
				sed -n '/^---$/{p;q}; /^diff --git /q; p' "$fix" >"$tmp/text"
			fi
			cat "$tmp/text" "$tmp/fold" >"$tmp/fix"
			update "$fix" "$tmp/fix"
		elif [[ -n $fix ]]; then
			die "$(g log -1 --format='%h %s' "$c") is now the main patch as it is: remove the fold of $fix from ${BASE_VARIANT#"$ROOT"/}/series and the file"
		fi
		continue
	fi
	format_patch "$c" "$i" "$tmp/patch"
	update "${REPLACE[$patch]:-patches/$patch}" "$tmp/patch"
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
