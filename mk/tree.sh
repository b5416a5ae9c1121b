#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/tree.sh: build build/linux, a git repository holding the pinned Linux
# base (tag "base", one reproducible commit extracted from the Debian
# linux-source tarball named in BASE) with patches/series (the mailed
# patches) and then lab/patches/series (the rig's) applied on top with git
# am, one commit per patch.  See patches/series for the format.
#
# BASE=V other than 7.3 (mk/lib.sh): the tarball named in patches/V/BASE,
# into build/V/linux, with the patches patches/V/series replaces by
# patches/V/'s of the same name.
#
# Idempotent: if BASE and the series files and patches are unchanged (and
# build/linux is still at the commit this script left),
# it does nothing.  Otherwise the series is re-applied onto base; files the
# series does not touch keep their mtimes, so kernel builds stay incremental.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
cd "$ROOT"

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
# git am keeps the patches' dates: committer date = author date, so the
# commits are the same each time.
g clean -fdqx

for i in "${!E_PATCH[@]}"; do
	patch=${E_PATCH[$i]}
	pfile=$ROOT/${REPLACE[${patch##*/}]:-$patch}
	say "[$((i + 1))/${#E_PATCH[@]}] $patch${REPLACE[${patch##*/}]:+ (${REPLACE[${patch##*/}]})}"
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
done

echo "$fingerprint $(g rev-parse HEAD)" >"$stamp"
say "${LINUX#"$ROOT"/} ready: ${#E_PATCH[@]} patch(es) on base ($N_MAILED mailed, $((${#E_PATCH[@]} - N_MAILED)) the lab's), HEAD $(g log -1 --format='%h %s')"
