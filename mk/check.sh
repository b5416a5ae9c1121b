#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/check.sh: make check (what CI runs) and make lab-check: each step
# below in turn, going on after a failure, then a summary (each step's
# seconds and counts) and "check: N passed, M failed", counting the
# replay tests too (build/logs/replay-check.count, from mk/replay.sh
# check).  First the suite (mk/kunit.sh) in each configuration of
# KUNIT_CONFIGS (defaults: mk/lib.sh):
#   x86_64, arm64, arm   the suite under QEMU for that architecture
#   x86_64-san, arm-san  x86_64 or arm with KASAN and UBSAN (shift, bounds);
#                        on arm, where xen_ulong_t is wider than unsigned
#                        long, a bad shift in the scan is a UBSAN report
#   i386                 32-bit x86: 32-bit event words, 1024 ports
#   x86_64-rt, i386-rt,  x86_64, i386 or arm64 with SMP and PREEMPT_RT,
#   arm64-rt             DEBUG_ATOMIC_SLEEP, DEBUG_PREEMPT, lockdep and UBSAN
#                        (x86_64-rt and arm64-rt on 2 QEMU CPUs; i386-rt on
#                        one: kunit.py's i386 machine lists only CPU 0 in its
#                        MP table, and the kernel has no ACPI)
#   none                 no KUnit run
# and then the live test on Xen (mk/xen-test.sh; XEN_TEST=0 leaves it out).
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

# make check (what CI runs) or make lab-check (LAB_CHECK=1: everything):
# their default KUnit configurations, live runs, bisect builds and make
# prove (mk/lib.sh).  On a backport base make check builds no kernel and
# runs no fuzzer (the main base's make check runs them once).
ALL_CONFIGS=$KUNIT_ALL_CONFIGS
if [[ ${LAB_CHECK:-0} == 1 ]]; then
	def_configs=$ALL_CONFIGS def_runs=$XEN_TEST_DEFAULT_RUNS
	def_bisect=$BISECT_ALL_VARIANTS def_prove=1 def_live=1 def_fuzz=1
elif [[ $SERIES_BASE == "$MAIN_BASE" ]]; then
	def_configs=$KUNIT_CHECK_CONFIGS def_runs=$XEN_TEST_CHECK_RUNS
	def_bisect=$BISECT_CHECK_VARIANTS def_prove=0 def_live=1 def_fuzz=1
else
	def_configs=none def_runs='' def_bisect=$BISECT_CHECK_VARIANTS
	def_prove=0 def_live=0 def_fuzz=0
fi
export BISECT_VARIANTS=${BISECT_VARIANTS:-$def_bisect}
configs=${KUNIT_CONFIGS:-$def_configs}
# KUNIT_CONFIGS=none: no KUnit run (the other steps still run).
[[ $configs != none ]] || configs=
for cfg in $configs; do
	[[ " $ALL_CONFIGS " == *" $cfg "* ]] ||
		die "KUNIT_CONFIGS: unknown configuration '$cfg' ($ALL_CONFIGS, or none)"
done
# Checked here too, before any kernel is built.
if [[ ${XEN_TEST:-$def_live} != 0 ]]; then
	for w in ${XEN_TEST_ARCHS:-$def_runs}; do
		err=$(live_run "$w") || die "$err"
	done
fi
SANITIZERS="CONFIG_KASAN=y CONFIG_UBSAN=y CONFIG_UBSAN_SHIFT=y CONFIG_UBSAN_BOUNDS=y"
# SMP: without it (kunit.py's x86_64 default) migrate_disable() is a no-op.
# The drivers series (c) changes are built in too, under the same options.
RT="CONFIG_SMP=y CONFIG_EXPERT=y CONFIG_DEBUG_KERNEL=y CONFIG_PREEMPT_RT=y CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_PREEMPT=y CONFIG_PROVE_LOCKING=y CONFIG_UBSAN=y
CONFIG_XEN_DEV_EVTCHN=y CONFIG_XEN_GNTDEV=y CONFIG_XEN_GRANT_DEV_ALLOC=y"

passed=0 failed=0 skipped=0
results=() why=()
t0=$SECONDS
# stage TITLE: "== TITLE", and the clock of add_result starts.
stage() {
	say "== $1"
	t0=$SECONDS
}
# add_result LINE: LINE in the summary, after the seconds since stage.
add_result() {
	results+=("$(printf '%5ds  %s' $((SECONDS - t0)) "$1")")
}
for cfg in $configs; do
	arch=${cfg%-san}
	arch=${arch%-rt}
	env=()
	if [[ $cfg == *-san ]]; then
		env=(KUNIT_BUILD_DIR="kunit-$cfg" KUNIT_KCONFIG_ADD="$SANITIZERS"
			KUNIT_XEN_TEST=0)
	elif [[ $cfg == *-rt ]]; then
		env=(KUNIT_BUILD_DIR="kunit-$cfg" KUNIT_KCONFIG_ADD="${RT//$'\n'/ }"
			KUNIT_XEN_TEST=0)
		[[ $arch == i386 ]] || env+=(KUNIT_CPUS=2)
	fi
	stage "KUnit, $cfg"
	status=0
	# No earlier run's results: mk/kunit.sh writes them anew.
	rm -f "$LOGS/kunit-$cfg.json"
	env "${env[@]}" "$(dirname "$0")/kunit.sh" "$arch" || status=$?
	log=$LOGS/kunit-$cfg.log
	# kunit.py's JSON (mk/kunit.sh writes it beside the log); none, or
	# one that cannot be read, is a failure.
	if counts=$(kunit_counts "${log%.log}.json" 2>&1); then
		read -r p f s <<<"$counts"
	else
		say "$counts"
		p=0 f=1 s=0
	fi
	# A run that failed without failing a test (build error, sanitizer
	# report, no results) counts as one failure.
	if ((status != 0 && f == 0)); then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	add_result "$(printf '%-12s %4d passed, %d failed, %d skipped  (%s)' "$cfg" "$p" "$f" "$s" "$log")"
done

# run_counted NAME LABEL COMMAND...: run COMMAND (a path relative to mk/
# if there is such a file), its output also in build/logs/NAME.out
# (OUT_NAME.out if set), and count its closing "NAME: N passed, M failed"
# line (a failure without that line counts as one) as LABEL.
run_counted() {
	local name=$1 label=$2 out line p f status=0
	shift 2
	[[ ! -f $(dirname "$0")/$1 ]] || set -- "$(dirname "$0")/$1" "${@:2}"
	out=$LOGS/${OUT_NAME:-$name}.out
	"$@" 2>&1 | tee "$out" || status=${PIPESTATUS[0]}
	line=$(grep -oE "^$name: [0-9]+ passed, [0-9]+ failed" "$out" | tail -n 1) || true
	p=$(grep -oP '\b\K[0-9]+(?= passed)' <<<"$line" || echo 0)
	f=$(grep -oP '\b\K[0-9]+(?= failed)' <<<"$line" || echo 0)
	if ((status != 0 && f == 0)); then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f))
	add_result "$(printf '%-12s %4d passed, %d failed  (%s)' "$label" "$p" "$f" "$out")"
	# The first failure lines, repeated after the summary: CI shows only
	# the end of the output.
	((f == 0)) || mapfile -t -O "${#why[@]}" why < <(grep -m 3 -E ': FAILED|^FAIL|  FAIL ' "$out" |
		cut -c1-300 | sed "s|^|$label: |")
}

# run_one LABEL COMMAND...: COMMAND's output in build/logs/LABEL-check.out
# (its last lines shown if it fails); counts one, passed or failed.
run_one() {
	local label=$1 out=$LOGS/$1-check.out
	shift
	if "$@" >"$out" 2>&1; then
		passed=$((passed + 1))
		add_result "$(printf '%-12s %4d passed, %d failed  (%s)' "$label" 1 0 "$out")"
	else
		tail -n 20 "$out"
		failed=$((failed + 1))
		add_result "$(printf '%-12s %4d passed, %d failed  (%s)' "$label" 0 1 "$out")"
	fi
}

# Then make series as a sender who is not the commits' author would run
# it (SIGNOFF=, by default a test identity; figures left out):
# checkpatch --strict, kernel-doc and htmldocs must stay clean.  Counts one.  SERIES_TEST=0 leaves it out.
if [[ ${SERIES_TEST:-1} != 0 && $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "make series as a test sender (mk/series.sh)"
	run_one series env SIGNOFF="${SIGNOFF:-Check Tester <check@example.org>}" COVER_FIGURES=0 \
		"$(dirname "$0")/series.sh"
fi

# Then make export (any base) as a test sender, into build/check-export
# (not build/export, which may hold the developer's): git am and quilt
# must both give the series' tree, the one the KUnit and bisect builds
# build.  Counts one.  EXPORT_TEST=0 leaves it out.
if [[ ${EXPORT_TEST:-1} != 0 ]]; then
	stage "make export as a test sender (mk/export.sh)"
	run_one export env SIGNOFF="Check Tester <check@example.org>" DIR="$BUILD/check-export" \
		"$(dirname "$0")/export.sh"
fi

# Then every commit of the series built as the kernel test robot builds a
# series (mk/bisect-build.sh): drivers/xen/ for x86_64, i386, arm and
# x86_64 with clang, KUnit and the suite =y, W=1 and sparse on
# drivers/xen/events/, and a small x86_64 kernel with KUnit =m built
# whole, modpost included.  Each
# commit and build counts one.  7.3 base only; BISECT=0 leaves it out.
if [[ ${BISECT:-1} != 0 && $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "every commit built as the test robot builds (mk/bisect-build.sh)"
	run_counted bisect-build bisect bisect-build.sh
fi

# Then shellcheck (-x, its default severity) on every shell script of the
# repo: *.sh and the files with a sh or bash #! line.  Counts one.
stage "shellcheck"
out=$LOGS/shellcheck.out
mapfile -t scripts < <(cd "$ROOT" && git ls-files | while read -r f; do
	[[ $f == *.sh ]] || grep -qE '^#!.*/(env )?(ba)?sh' < <(head -n 1 "$f") &&
		echo "$f"
done)
((${#scripts[@]})) || die "shellcheck: no shell script found (git ls-files in $ROOT)"
if (cd "$ROOT" && shellcheck -x "${scripts[@]}") >"$out" 2>&1; then
	passed=$((passed + 1))
	add_result "$(printf '%-12s %4d passed, %d failed  (%s, %d scripts)' shellcheck 1 0 "$out" "${#scripts[@]}")"
else
	head -n 20 "$out"
	failed=$((failed + 1))
	add_result "$(printf '%-12s %4d passed, %d failed  (%s)' shellcheck 0 1 "$out")"
fi

stage "make help and README.md: targets and variables"
# Then make help's list: every .PHONY target of the Makefile has its
# "## TARGET: ..." line and no such line names something else, and
# README.md's table of targets names the same.  Counts one.
phony=$(sed -n '/^\.PHONY:/,/[^\\]$/p' "$ROOT/Makefile" | sed 's/^\.PHONY://; s/\\//g' | xargs -n1 | sort)
helped=$(sed -n 's/^## \([^:]*\): .*/\1/p' "$ROOT/Makefile" | sort)
# README.md's table of targets: its rows "| `make TARGET` | ... |".
# shellcheck disable=SC2016 # the backquotes are Markdown's
readme=$(sed -n 's/^| `make \([a-z0-9-]*\)` |.*/\1/p' "$ROOT/README.md" | sort)
# The variables it lists ("#= VARIABLE: ...", at most 12) and make
# lab-help lists ("#- VARIABLE: ..."): each read by a script of mk/ or by
# the Makefile ($VAR, ${VAR...}, $(VAR)).
unread=()
code=$(grep -v '^#[=-] ' "$ROOT/Makefile"; cat "$ROOT"/mk/*.sh)
nuser=$(grep -c '^#= ' "$ROOT/Makefile")
while read -r v; do
	grep -qE "\\\$[{(]?$v([^A-Za-z0-9_]|\$)" <<<"$code" || unread+=("$v")
done < <(sed -n 's/^#[=-] \([A-Z0-9_]*\): .*/\1/p' "$ROOT/Makefile")
if [[ -n $phony && $phony == "$helped" && $phony == "$readme" && ${#unread[@]} == 0 ]] && ((nuser <= 12)); then
	passed=$((passed + 1))
	add_result "$(printf '%-12s %4d passed, %d failed  (%d targets, %d variables)' help 1 0 "$(wc -l <<<"$phony")" "$nuser")"
else
	say "make help: targets without a '## TARGET:' line, or lines without a target: $(comm -3 <(echo "$phony") <(echo "$helped") | xargs)"
	say "README.md's table of targets against the Makefile's: $(comm -3 <(echo "$phony") <(echo "$readme") | xargs)"
	say "make help: variables no script reads: ${unread[*]}"
	say "make help: $nuser variables, at most 12 (the others: '#- ' lines, make lab-help)"
	failed=$((failed + 1))
	add_result "$(printf '%-12s %4d passed, %d failed' help 0 1)"
fi

# Then every path and make target the docs name exists
# (mk/doc-check.sh; a result for each doc).
stage "the docs' paths and targets (mk/doc-check.sh)"
run_counted doc-check docs doc-check.sh

# Then the fuzzers (mk/fuzz.sh), FUZZ_SECS (60) seconds each; each target
# counts one.  FUZZ=0 leaves them out.
if [[ ${FUZZ:-$def_fuzz} != 0 ]]; then
	stage "fuzzing (mk/fuzz.sh)"
	run_counted fuzz fuzz fuzz.sh
fi

# Then the self-test of make series' generated parts
# (mk/tests/series-test.sh: mk/cover-letter.py and mk/add-cc.py on saved
# inputs, a second), with the 7.3 base only.  SERIES_TEST=0 leaves it out.
if [[ ${SERIES_TEST:-1} != 0 && $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "make series' cover letter and Cc on saved inputs (mk/tests/series-test.sh)"
	run_counted series-test series-self tests/series-test.sh
fi

# Then the self-test of make clean (mk/tests/clean-test.sh: mk/clean.sh on
# made build/ folders in a temporary copy, a second): a kernel tree with
# work of the developer's is kept.  With the 7.3 base only.
if [[ $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "make clean keeps a developer's commits (mk/tests/clean-test.sh)"
	run_counted clean-test clean-self tests/clean-test.sh
fi

# Then what make and make deb build: the mailed series alone, nothing of
# the lab's, and patches/ applying with git am on a clean base
# (mk/tests/product-test.sh, under a minute; any base).
stage "make and make deb build the mailed series alone (mk/tests/product-test.sh)"
run_counted product-test product-self tests/product-test.sh

# Then the test of when make xen-test reuses a built test kernel
# (mk/tests/stale-test.sh: image_stale of mk/xen-rig.sh on a made tree, a
# second).  With the 7.3 base only.
if [[ $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "make xen-test rebuilds a test kernel built with other options (mk/tests/stale-test.sh)"
	run_counted stale-test stale-self tests/stale-test.sh
fi

# Then the self-test of make xen-test's verdict (lab/xen/test-verdict.sh:
# mk/xen-verdict.sh on saved serial logs, passing and broken on purpose;
# under a minute), with the 7.3 base only.  VERDICT_TEST=0 leaves it out.
if [[ ${VERDICT_TEST:-1} != 0 && $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "make xen-test's verdict on saved serial logs (lab/xen/test-verdict.sh)"
	run_counted test-verdict verdict-self ../lab/xen/test-verdict.sh
fi

# Then make prove (mk/prove.sh: Frama-C's EVA and WP on the real
# evtchn_2l_handle_events() in three geometries, about 6 minutes), with
# the 7.3 base only: the released code it compares is 7.3's.  Each of
# its checks counts.  PROVE=0 leaves it out.
if [[ ${PROVE:-$def_prove} != 0 && $SERIES_BASE == "$MAIN_BASE" ]]; then
	stage "Frama-C on evtchn_2l_handle_events() (mk/prove.sh)"
	run_counted prove prove prove.sh
fi

# Then the live test on Xen in QEMU (mk/xen-test.sh) for each run of
# XEN_TEST_ARCHS, ARCH[:XEN[:DOMU]] (default XEN_TEST_DEFAULT_RUNS in
# mk/lib.sh: x86_64 on Xen 4.17 and on Xen 4.20, arm on 4.17, and on 7.3
# the arm guest of arm64 on 4.17): the KUnit kernel of that architecture
# as dom0 and guest, and on arm (in dom0, or in the 32-bit guest) the
# width bug stage (the base loses events on ports 2048-4095, the base
# with patch 1 none); each of its stages counts.  XEN_TEST=0 leaves it out (say so in any result you quote).
if [[ ${XEN_TEST:-$def_live} != 0 ]]; then
	for w in ${XEN_TEST_ARCHS:-$def_runs}; do
		live_run "$w" >/dev/null
		n=$(xen_test_name "$LR_ARCH" "$LR_XEN" "$LR_DOMU")
		stage "live on Xen $LR_XEN, $LR_ARCH, $LR_DOMU guest (mk/xen-test.sh)"
		XEN_ARCH=$LR_ARCH XEN=$LR_XEN DOMU=$LR_DOMU OUT_NAME=$n \
			run_counted xen-test "xen-live${n#xen-test}" xen-test.sh
	done
else
	results+=("        xen-live     left out (XEN_TEST=0)")
fi

# Then, on the main base, each backport's make check (as a base of its
# own: its tree, make export, the replay tests on its events_2l.c; no
# kernel), counted as its summary line says.  make BASE=V lab-check runs
# a backport's KUnit kernels and live tests.
if [[ $SERIES_BASE == "$MAIN_BASE" ]]; then
	for pin in "$ROOT"/patches/*/BASE; do
		v=$(basename "$(dirname "$pin")")
		stage "the $v backport (make BASE=$v check)"
		OUT_NAME=check-$v run_counted check "backport-$v" env -u KUNIT_CONFIGS -u XEN_TEST_ARCHS \
			-u BISECT_VARIANTS -u LAB_CHECK make -C "$ROOT" BASE="$v" check
	done
fi

countfile=$LOGS/replay-check.count
if [[ -f $countfile ]]; then
	replay=$(tr -d '[:space:]' <"$countfile")
	[[ $replay =~ ^[0-9]+$ ]] || die "$countfile does not hold one integer"
	passed=$((passed + replay))
	results+=("$(printf '%5s  %-12s %4d passed  (%s)' - replay "$replay" "$LOGS/replay-check.log")")
fi

say "summary:"
printf '  %s\n' "${results[@]}"
if ((${#why[@]})); then
	say "the first failures of each failing step:"
	printf '  %s\n' "${why[@]}"
fi
echo "check: $passed passed, $failed failed$( ((skipped == 0)) || echo ", $skipped skipped")"
((failed == 0 && passed > 0))
