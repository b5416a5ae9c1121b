#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/fuzz.sh [long]: the fuzzers of lab/fuzz/ (libFuzzer, clang, with
# AddressSanitizer and UndefinedBehaviorSanitizer), or with "long" the
# differential as a plain seeded loop on the host and for 32-bit Arm.
#
#   fuzz-script  arbitrary bytes as a replay script: parser and engine, in
#                the policies rr, lowest and base, 64- and 32-bit words
#   fuzz-diff    bytes as a scenario: the series' evtchn_2l_handle_events()
#                (build/linux HEAD's events_2l.c, compiled unchanged by
#                lab/scan/real_2l.c) against a reference written from the
#                documentation, after every pass
#
# Each fuzzer runs FUZZ_SECS seconds (default 60) from its corpus in the
# repo (lab/fuzz/corpus/<target>/; the script target also starts from the
# tool's tests, lab/xen-evtchn/tests/), on a copy in build/fuzz/; a crash,
# sanitizer report, time-out (FUZZ_TIMEOUT, 20 s an input) or divergence
# fails the run, its input left in build/fuzz/findings/.  FUZZ_MERGE=1
# then minimizes the copies back into the repo's corpora.
#
# long: build/fuzz/diff-long (gcc -O2) and build/fuzz/arm32/diff-long
# (arm-linux-gnueabihf-gcc, static, run with qemu-arm-static), each until
# FUZZ_PASSES passes (default 10^7); log build/logs/fuzz-long.log.
#
# The last line is "fuzz: N passed, M failed" (one per target or build).
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
extract_base_src
extract_events_src HEAD "$BUILD/replay/rr"
RR_SRC=$EVENTS_SRC

FUZZ=$BUILD/fuzz
SRC=$ROOT/lab/fuzz
mkdir -p "$FUZZ" "$LOGS"
lab_fuzz() {
	make -C "$SRC" -s RR_SRC="$RR_SRC" RELEASED_SRC="$RELEASED_SRC" KSRC="$LINUX" "$@"
}

passed=0 failed=0
if [[ ${1:-} == long ]]; then
	passes=${FUZZ_PASSES:-10000000}
	log=$LOGS/fuzz-long.log
	: >"$log"
	mkdir -p "$FUZZ/arm32"
	say "building build/fuzz/diff-long (host) and build/fuzz/arm32/diff-long"
	lab_fuzz OUTPUT="$FUZZ/" diff-long
	lab_fuzz OUTPUT="$FUZZ/arm32/" CC=arm-linux-gnueabihf-gcc LDFLAGS=-static diff-long
	for build in host arm32; do
		run=("$FUZZ/diff-long")
		[[ $build == host ]] || run=(qemu-arm-static "$FUZZ/arm32/diff-long")
		say "$build: $passes passes (log: $log) ..."
		t0=$SECONDS
		if "${run[@]}" "$passes" 2>&1 | tee -a "$log" | sed "s/^/  $build: /"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
		say "$build: $(fmt_time $((SECONDS - t0)))"
	done
	echo "fuzz: $passed passed, $failed failed"
	((failed == 0))
	exit
fi

command -v clang >/dev/null || die "clang not found (run 'make deps')"
secs=${FUZZ_SECS:-60}
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECS must be a number of seconds, not '$secs'"
say "building build/fuzz/fuzz-script and fuzz-diff (clang, libFuzzer, ASan, UBSan)"
lab_fuzz OUTPUT="$FUZZ/" all
mkdir -p "$FUZZ/findings"
for target in script diff; do
	corpus=$FUZZ/corpus-$target
	log=$LOGS/fuzz-$target.log
	rm -rf "$corpus"
	mkdir -p "$corpus"
	cp "$SRC/corpus/$target/"* "$corpus/" 2>/dev/null || true
	if [[ $target == script ]]; then
		cp "$ROOT"/lab/xen-evtchn/tests/*.replay \
			"$ROOT"/lab/xen-evtchn/tests/errors/*.replay "$corpus/"
	fi
	say "fuzz-$target: ${secs}s from $(find "$corpus" -type f | wc -l) inputs (log: $log) ..."
	status=0
	(cd "$FUZZ" && "./fuzz-$target" -max_total_time="$secs" -max_len=4096 \
		-timeout="${FUZZ_TIMEOUT:-20}" -print_final_stats=1 \
		-artifact_prefix="$FUZZ/findings/$target-" "$corpus") >"$log" 2>&1 || status=$?
	runs=$(grep -oP '^Done \K[0-9]+(?= runs)' "$log" || echo 0)
	cov=$(grep -oP '^#[0-9]+\s+DONE\s+cov: \K[0-9]+' "$log" || echo "?")
	if ((status == 0)); then
		passed=$((passed + 1))
		say "fuzz-$target: ok, $runs executions, cov: $cov, corpus $(find "$corpus" -type f | wc -l) inputs"
	else
		failed=$((failed + 1))
		# shellcheck disable=SC2012 # the newest; libFuzzer's names are hex
		say "fuzz-$target: FAILED (exit $status), input in $(ls -t "$FUZZ"/findings/"$target"-* 2>/dev/null | head -n 1 || true)"
		awk '/ERROR|runtime error|divergence|error without/ && n++ < 5 { print "  " $0 }' "$log"
	fi
	if [[ ${FUZZ_MERGE:-} == 1 && $status == 0 ]]; then
		rm -rf "$FUZZ/merged-$target"
		mkdir -p "$FUZZ/merged-$target"
		(cd "$FUZZ" && "./fuzz-$target" -merge=1 -max_len=4096 "merged-$target" "$corpus") \
			>>"$log" 2>&1
		rm -rf "$SRC/corpus/$target"
		mkdir -p "$SRC/corpus/$target"
		cp "$FUZZ/merged-$target/"* "$SRC/corpus/$target/"
		say "fuzz-$target: corpus minimized into lab/fuzz/corpus/$target/ ($(find "$SRC/corpus/$target" -type f | wc -l) inputs)"
	fi
done
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
