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
# CI_WRITE_ONLY=1 only writes that file from the last run's clone.
# CI_FULL=1 has .ci/run run the full make check for 7.3 (all its KUnit
# kernels, bisect builds and live tests): the cold time of make check.
# CI_HOG=N runs N busy processes per host core beside it (a CPU hog, as
# another job on a shared CI machine), at nice 0.  CI_CCACHE=keep keeps
# the ccache of the last run (build/ci-cold/ccache) instead of emptying it.
#
# When .ci/run passes, its times (the clone's build/out/ci-times.txt),
# each kernel's build time (kunit.py's "Elapsed time" in the clone's
# build/logs/kunit-*.log and build/6.1/logs/kunit-*.log) and the live
# tests' host and exchange lines (round trips: median, p99, worst; late,
# lost) are written, whole, to docs/ci-cold.txt (docs/ci-warm.txt with
# CI_CCACHE=keep; -hog before .txt with CI_HOG), for the developer to
# commit.  When it fails, nothing is written, and the exit status is 1.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

err=$(ci_cold_args)
[[ -z $err ]] || die "$err"
HOG=${CI_HOG:-0}
FULL=${CI_FULL:-0}
CCACHE=${CI_CCACHE:-empty}
dir=$ROOT/build/ci-cold
mode=$([[ $CCACHE == keep ]] && echo warm || echo cold)$( ((HOG == 0)) || echo -hog)$( ((FULL == 0)) || echo -full)
log=$ROOT/build/logs/ci-$mode.log
out=$ROOT/docs/ci-$mode.txt
[[ $CCACHE == empty || -d $dir/ccache ]] || die "CI_CCACHE=keep: no ccache of an earlier run in ${dir#"$ROOT"/}/ccache"
head=$(git -C "$ROOT" rev-parse --short HEAD)
[[ ${CI_WRITE_ONLY:-0} == 1 || -z $(git -C "$ROOT" status --porcelain --untracked-files=no) ]] ||
	warn "uncommitted changes are not in the clone (it is of HEAD, $head)"

if [[ ${CI_WRITE_ONLY:-0} != 1 ]]; then
	rm -rf "$dir/repo"
	[[ $CCACHE == keep ]] || rm -rf "$dir/ccache"
	mkdir -p "$dir/ccache" "$(dirname "$log")"
	git clone -q "$ROOT" "$dir/repo"
	say "a fresh clone of $head in ${dir#"$ROOT"/}/repo, ccache $([[ $CCACHE == keep ]] && echo "kept ($(du -sh "$dir/ccache" | cut -f1))" || echo empty) in ${dir#"$ROOT"/}/ccache"
	if ((HOG)); then
		load_start $((HOG * $(nproc))) 0
		say "CPU hog: $((HOG * $(nproc))) busy processes beside .ci/run (CI_HOG=$HOG on $(nproc) cores)"
	fi
	say "log: $log"
	# As on a new machine: none of the developer's settings (BASE, FUZZ,
	# XEN_TEST_*, ...) reach it, only PATH, HOME and the locale.
	status=0
	(cd "$dir/repo" && env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" \
		CCACHE_DIR="$dir/ccache" CI=true CI_FULL="$FULL" bash .ci/run) 2>&1 |
		tee "$log" | grep --line-buffered -E '^(\.ci/run|check): ' || status=${PIPESTATUS[0]}
	load_stop
	((status == 0)) || die ".ci/run failed (exit $status) at $head; ${out#"$ROOT"/} left as it was (log: $log)"
fi

times=$dir/repo/build/out/ci-times.txt
[[ -s $times ]] || die "$times missing after .ci/run passed"
# CI_WRITE_ONLY=1: only this step, from the last run's clone (if its
# .ci/run passed), e.g. when the run passed but this script was stopped.
grep -q '^# \.ci/run.*: passed in' "$times" || die "$times: .ci/run did not pass there"
trap 'rm -f "$out.tmp"' EXIT
{
	echo "# Written by mk/ci-cold.sh (make ci-cold$( ((FULL == 0)) || echo " CI_FULL=1")$( ((HOG == 0)) || echo " CI_HOG=$HOG")$([[ $CCACHE == empty ]] || echo " CI_CCACHE=$CCACHE")): .ci/run in a fresh clone, ccache $([[ $CCACHE == keep ]] && echo "kept from the last run" || echo empty), $((HOG * $(nproc))) busy processes beside it."
	cat "$times"
	echo "# Disk after the run: build/ $(du -sh "$dir/repo/build" | cut -f1), the ccache $(du -sh "$dir/ccache" | cut -f1)"
	echo "# make check's summary: each step's seconds, then its results (the last summary of the log):"
	awk '/^check: summary:/ { n = 0; keep = 1; next } keep && /^  / { b[++n] = $0; next } { keep = 0 }
		END { for (i = 1; i <= n; i++) print b[i] }' "$log"
	echo "# Each KUnit kernel's build (kunit.py's Elapsed time):"
	for f in "$dir"/repo/build/logs/kunit-*.log "$dir"/repo/build/*/logs/kunit-*.log; do
		[[ -f $f ]] || continue
		e=$(grep -m1 'Elapsed time:' "$f" | sed 's/.*Elapsed time: //') ||
			die "${f#"$dir"/repo/}: no 'Elapsed time' line"
		echo "${f#"$dir"/repo/build/}: $e"
	done
	echo "# The live tests' host and exchange lines (build/logs/xen-test*.out):"
	for f in "$dir"/repo/build/logs/xen-test*.out "$dir"/repo/build/*/logs/xen-test*.out; do
		[[ -f $f ]] || continue
		grep -E '^xen-test: (host: |dom0<->domU exchange: |[0-9]+ passed)' "$f" |
			sed "s|^|${f#"$dir"/repo/build/}: |"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
say "wrote ${out#"$ROOT"/}"
