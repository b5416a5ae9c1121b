#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/ci-cold.sh: 'make ci-cold', .ci/run as CI runs it on a new machine:
# a fresh clone of this repository's HEAD in build/ci-cold/repo, with an
# empty ccache (build/ci-cold/ccache), CI=true and none of the caller's
# settings.  It takes as long as a cold CI run (CI's budget: 90 minutes on
# 2 cores), less the Debian packages a new machine installs first (this
# machine has them).  Progress: .ci/run's
# steps and make check's stages as they start; the whole output in
# build/logs/ci-cold.log.
#
# When .ci/run passes, its times (the clone's build/out/ci-times.txt) and
# each kernel's build time (kunit.py's "Elapsed time" in the clone's
# build/logs/kunit-*.log and build/6.1/logs/kunit-*.log) are written,
# whole, to docs/ci-cold.txt, for the developer to commit.  When it fails,
# nothing is written, and the exit status is 1.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$ROOT/build/ci-cold
log=$ROOT/build/logs/ci-cold.log
out=$ROOT/docs/ci-cold.txt
head=$(git -C "$ROOT" rev-parse --short HEAD)
[[ -z $(git -C "$ROOT" status --porcelain --untracked-files=no) ]] ||
	warn "uncommitted changes are not in the clone (it is of HEAD, $head)"

rm -rf "$dir"
mkdir -p "$dir/ccache" "$(dirname "$log")"
git clone -q "$ROOT" "$dir/repo"
say "a fresh clone of $head in ${dir#"$ROOT"/}/repo, ccache empty in ${dir#"$ROOT"/}/ccache"
say "log: $log"
# As on a new machine: none of the developer's settings (BASE, FUZZ,
# XEN_TEST_*, ...) reach it, only PATH, HOME and the locale.
status=0
(cd "$dir/repo" && env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" \
	CCACHE_DIR="$dir/ccache" CI=true bash .ci/run) 2>&1 |
	tee "$log" | grep --line-buffered -E '^(\.ci/run|check): ' || status=${PIPESTATUS[0]}
((status == 0)) || die ".ci/run failed (exit $status) at $head; docs/ci-cold.txt left as it was (log: $log)"

times=$dir/repo/build/out/ci-times.txt
[[ -s $times ]] || die "$times missing after .ci/run passed"
trap 'rm -f "$out.tmp"' EXIT
{
	echo "# Written by mk/ci-cold.sh (make ci-cold): .ci/run in a fresh clone, ccache empty."
	cat "$times"
	echo "# Each KUnit kernel's build (kunit.py's Elapsed time):"
	for f in "$dir"/repo/build/logs/kunit-*.log "$dir"/repo/build/*/logs/kunit-*.log; do
		[[ -f $f ]] || continue
		e=$(grep -m1 'Elapsed time:' "$f" | sed 's/.*Elapsed time: //') ||
			die "${f#"$dir"/repo/}: no 'Elapsed time' line"
		echo "${f#"$dir"/repo/build/}: $e"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
say "wrote ${out#"$ROOT"/}"
