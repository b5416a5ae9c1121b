#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/tests/clean-test.sh: make clean (mk/clean.sh) on made build/ folders,
# in a copy of mk/ in a temporary folder (never this repository's build/):
# - a build/linux with a commit on top of what make tree recorded, and a
#   build/6.1/linux as make tree left it: build/linux and its commit are
#   kept, everything else goes (build/6.1 too), exit status 0, and one
#   line names the kept tree and FORCE=1;
# - a build/6.1/linux with a change not committed: it is kept;
# - FORCE=1: build/ goes whole;
# - only trees as make tree left them: build/ goes whole, no warning.
# Ends with "clean-test: N passed, M failed"; exits 1 if a check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=mk/tests/lib.sh
. "$here/lib.sh"

repo=$tmp/repo
mkdir -p "$repo"
cp -r "$here/.." "$repo/mk"

# tree DIR: a kernel tree as make tree leaves it: a base commit, one of
# the series, its stamp.
tree() {
	mkdir -p "$1"
	git init -q "$1" && echo a >"$1/f" && git -C "$1" add f &&
		git -C "$1" commit -qm base && git -C "$1" tag base &&
		echo b >>"$1/f" && git -C "$1" commit -qam series &&
		echo "fingerprint $(git -C "$1" rev-parse HEAD)" >"$1/.git/series-stamp"
}
# made: build/ with two trees, logs and downloads.
made() {
	rm -rf "$repo/build"
	tree "$repo/build/linux" && tree "$repo/build/6.1/linux" &&
		mkdir -p "$repo/build/out" "$repo/build/dl" "$repo/build/6.1/logs" &&
		touch "$repo/build/out/x" "$repo/build/dl/y" "$repo/build/6.1/logs/z"
}
clean() { "$repo/mk/clean.sh" >"$tmp/out" 2>&1; }

made || { echo "clean-test: could not make the trees"; exit 1; }
echo mine >>"$repo/build/linux/f"
git -C "$repo/build/linux" commit -qam "my work"
clean
st=$?
left=$(cd "$repo" && find build -maxdepth 2 | sort | xargs)
err=
((st == 0)) || err="exit status $st"
[[ $left == "build build/linux build/linux/.git build/linux/f" ]] || err+="${err:+; }left: $left"
[[ $(git -C "$repo/build/linux" log -1 --format=%s 2>/dev/null) == "my work" ]] || err+="${err:+; }the commit is gone"
grep -q 'kept build/linux: it has 1 commit(s) on top of the series.*FORCE=1' "$tmp/out" ||
	err+="${err:+; }no line naming the kept tree: $(head -c 200 "$tmp/out")"
result "a commit in build/linux: the tree kept, the rest removed" "$err"

made
echo change >>"$repo/build/6.1/linux/f"
clean
st=$?
err=
((st == 0)) || err="exit status $st"
[[ -f $repo/build/6.1/linux/f && ! -e $repo/build/linux && ! -e $repo/build/6.1/logs && ! -e $repo/build/out ]] ||
	err+="${err:+; }left: $(cd "$repo" && find build -maxdepth 2 | sort | xargs)"
grep -q "kept build/6.1/linux: it has 1 file(s) changed and not committed.*make BASE=6.1 refresh" "$tmp/out" ||
	err+="${err:+; }no line naming the kept tree: $(head -c 200 "$tmp/out")"
result "a change in build/6.1/linux: the tree kept" "$err"

made
echo mine >>"$repo/build/linux/f"
git -C "$repo/build/linux" commit -qam "my work"
FORCE=1 clean
st=$?
err=
((st == 0)) || err="exit status $st"
[[ ! -e $repo/build ]] || err+="${err:+; }build/ is still there"
result "FORCE=1: build/ removed whole" "$err"

made
clean
st=$?
err=
((st == 0)) || err="exit status $st"
[[ ! -e $repo/build ]] || err+="${err:+; }build/ is still there"
! grep -q 'warning' "$tmp/out" || err+="${err:+; }a warning: $(head -c 200 "$tmp/out")"
result "trees as make tree left them: build/ removed whole" "$err"

summary clean-test
