#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/tree.sh: build build/linux, a git repository holding the pinned Linux
# base (tag "base", one reproducible commit extracted from the Debian
# linux-source tarball named in BASE) with patches/series applied on top,
# one commit per series entry.  See patches/series for the format.
#
# BASE=V other than 7.3 (mk/lib.sh): the tarball named in patches/V/BASE,
# into build/V/linux, with the changes patches/V/series lists: an entry
# replaced by the patch of the same name in patches/V/, or a diff folded
# into an entry's commit, its text appended to the commit message.
#
# Idempotent: if BASE, patches/series, the patches and the listed new files
# are unchanged (and build/linux is still at the commit this script left),
# it does nothing.  Otherwise the series is re-applied onto base; files the
# series does not touch keep their mtimes, so kernel builds stay incremental.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# Directories (and files) of the repo that mirror the kernel tree: every file
# in them must be claimed by a series entry.
KERNEL_PATHS=(drivers Documentation tools include arch scripts kernel lib MAINTAINERS)

g() { git -C "$LINUX" "$@"; }

# ---------------------------------------------------------------- BASE ---
pin=${BASE_PIN#"$ROOT"/}
read_pin
base_pkg=$BASE_PKG base_ver=$BASE_VER tarball=$BASE_TARBALL
if [[ -n $BASE_SUITE ]]; then
	[[ -f $tarball ]] || die "${tarball#"$ROOT"/} not found: run 'make deps' (fetches $base_pkg $base_ver from $BASE_SUITE)"
	inst_ver=$base_ver
else
	[[ -f $tarball ]] || die "$tarball not found: install the Debian package $base_pkg"
	inst_ver=$(dpkg-query -W -f='${Version}' "$base_pkg" 2>/dev/null || true)
fi
if [[ $inst_ver != "$base_ver" ]]; then
	warn "$pin pins $base_pkg $base_ver but ${inst_ver:-an unknown version} is installed; continuing with the installed one"
fi

# ------------------------------------------------------------- series ---
read_series

unclaimed=()
while IFS= read -r f; do
	[[ -n ${CLAIMED[$f]:-} ]] || unclaimed+=("$f")
done < <(project_files "${KERNEL_PATHS[@]}")
if ((${#unclaimed[@]})); then
	list="${unclaimed[*]:0:10}"
	((${#unclaimed[@]} <= 10)) || list+=" ... and $((${#unclaimed[@]} - 10)) more"
	die "${#unclaimed[@]} file(s) not claimed by any patches/series entry: $list"
fi

new_files=("${!CLAIMED[@]}")
fingerprint=$(series_fingerprint)

# ---------------------------------------------------------- base tree ---
base_stamp="$(cat "$pin") (installed: ${inst_ver:-unknown})"
if [[ ! -f $LINUX/.git/base-stamp || $(cat "$LINUX/.git/base-stamp") != "$base_stamp" ]]; then
	[[ ! -e $LINUX ]] || say "base changed, re-extracting ${LINUX#"$ROOT"/} from scratch"
	tmp=$BUILD/linux.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	t0=$SECONDS
	say "extracting $tarball (takes a minute or two) ..."
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 --no-same-owner
	kver=$(awk -F' *= *' '/^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) *=/ { v[$1] = $2 }
		END { printf "%s.%s.%s%s", v["VERSION"], v["PATCHLEVEL"], v["SUBLEVEL"], v["EXTRAVERSION"] }' "$tmp/Makefile")
	git init -q -b main "$tmp"
	git -C "$tmp" config user.name "xen-evtchn tree builder"
	git -C "$tmp" config user.email "tree-builder@xen-evtchn.invalid"
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" config advice.detachedHead false
	say "committing the base tree ($(find "$tmp" -path "$tmp/.git" -prune -o -type f -print | wc -l) files) ..."
	# -f: Debian's top-level .gitignore ignores everything outside debian/.
	git -C "$tmp" add -A -f
	GIT_AUTHOR_NAME="Linux ${kver%.*} base" GIT_AUTHOR_EMAIL="base@xen-evtchn.invalid" \
		GIT_COMMITTER_NAME="Linux ${kver%.*} base" GIT_COMMITTER_EMAIL="base@xen-evtchn.invalid" \
		GIT_AUTHOR_DATE="2024-11-17T00:00:00Z" GIT_COMMITTER_DATE="2024-11-17T00:00:00Z" \
		git -C "$tmp" commit -q --no-verify -m "Linux $kver (Debian $base_pkg ${inst_ver:-$base_ver})"
	git -C "$tmp" tag base
	echo "$base_stamp" >"$tmp/.git/base-stamp"
	rm -rf "$LINUX"
	mv "$tmp" "$LINUX"
	say "base ready in $(fmt_time $((SECONDS - t0))): $(g log -1 --format='%h %s' base)"
fi

# ------------------------------------------------------- apply series ---
stamp=$SERIES_STAMP
head=$(g rev-parse HEAD)
if [[ -f $stamp && $(cat "$stamp") == "$fingerprint $head" ]]; then
	say "${LINUX#"$ROOT"/} up to date"
	exit 0
fi
# Never discard commits this script did not make: HEAD must be where it
# left the tree.
made=
[[ ! -f $stamp ]] || made=$(cut -d' ' -f2 "$stamp")
if [[ -n $made && $head != "$made" ]]; then
	if g merge-base --is-ancestor "$made" "$head" 2>/dev/null; then
		what="$(g rev-list --count "$made..$head") commit(s) on top of the series (the last: $(g log -1 --format='%h %s' "$head"))"
	else
		what="HEAD $(g log -1 --format='%h %s' "$head"), not the series as make tree left it (${made:0:12})"
	fi
	die "${LINUX#"$ROOT"/} has $what: to keep them, make each series commit hold its own change (git -C ${LINUX#"$ROOT"/} rebase -i base; a new commit needs its patches/series entry) and run 'make${BASE_VARIANT:+ BASE=$SERIES_BASE} refresh'; to drop them, 'git -C ${LINUX#"$ROOT"/} reset --hard ${made:0:12}'"
fi

if [[ -n ${new_files[*]} ]]; then
	in_base=$(g ls-tree -r --name-only base -- "${new_files[@]}")
	[[ -z $in_base ]] ||
		die "listed as new files but present in the base tree: ${in_base//$'\n'/ }"
fi

rm -f "$stamp"
[[ ! -d $LINUX/.git/rebase-apply ]] || g am --abort
if [[ -n $(g status --porcelain --untracked-files=no) ]]; then
	g stash push -q -m "tree.sh: uncommitted changes before re-applying the series"
	warn "uncommitted changes in ${LINUX#"$ROOT"/} saved as a stash (git -C ${LINUX#"$ROOT"/} stash list)"
fi
if [[ $head != "$(g rev-parse base)" ]]; then
	say "resetting ${LINUX#"$ROOT"/} to base (previous HEAD ${head:0:12} stays in its reflog)"
fi
g checkout -q -f -B main base
# -x: Debian's .gitignore ignores everything, so new files of the previous
# series are "ignored" once untracked.  Nothing is built inside the tree.
g clean -fdqx

for i in "${!E_PATCH[@]}"; do
	patch=${E_PATCH[$i]}
	pfile=$ROOT/${REPLACE[$patch]:-patches/$patch}
	say "[$((i + 1))/${#E_PATCH[@]}] $patch${REPLACE[$patch]:+ (${REPLACE[$patch]})}"
	if ! out=$(g am -q --committer-date-is-author-date "$pfile" 2>&1); then
		echo "$PROG: $patch: does not apply" >&2
		if check=$(g apply --check -v "$pfile" 2>&1); then
			echo "$out" >&2 # failed for another reason than a hunk
		else
			echo "$check" >&2
		fi
		g am --abort
		exit 1
	fi
	fix=${FOLD[$patch]:-}
	[[ -n ${E_FILES[$i]} || -n $fix ]] || continue
	if [[ -n ${E_FILES[$i]} ]]; then
		mapfile -t files <<<"${E_FILES[$i]}"
		for f in "${files[@]}"; do
			! g cat-file -e "HEAD:$f" 2>/dev/null ||
				die "$patch: listed new file $f is already in the tree after applying the patch"
			mkdir -p "$LINUX/$(dirname "$f")"
			cp --preserve=mode "$f" "$LINUX/$f"
		done
		g add -f -- "${files[@]}"
	fi
	msg=(--no-edit)
	if [[ -n $fix ]]; then
		say "      + $fix"
		g apply --index "$ROOT/$fix" ||
			die "$fix does not apply to $patch (with its new files)"
		# The text above the diff, up to a "---" line, ends the message,
		# right below its trailers, as stable's backport notes do.
		msg=(-m "$(g log -1 --format=%B)"$'\n'"$(sed -n '/^---$/q; /^diff --git /q; p' "$ROOT/$fix")")
	fi
	# Keep the commit reproducible: committer date = author date, as git am did.
	GIT_COMMITTER_DATE=$(g log -1 --format=%aD) g commit -q --amend --no-verify "${msg[@]}"
done

echo "$fingerprint $(g rev-parse HEAD)" >"$stamp"
say "${LINUX#"$ROOT"/} ready: ${#E_PATCH[@]} patch(es) on base, HEAD $(g log -1 --format='%h %s')"
