#!/bin/bash
# mk/replay.sh [check]: build evtchn-replay from build/linux (the series'
# copy of tools/testing/xen-evtchn) into build/replay/, with the "base"
# policy compiled from the base commit's events_2l.c; with "check", run
# its tests (log: build/logs/replay-check.log; the number of passed
# checks goes to build/logs/replay-check.count for 'make check').
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
require_tree

out=$BUILD/replay
extract_base_src
mkdir -p "$LOGS"

# Two builds: the host's (64-bit: unsigned long and xen_ulong_t alike), and
# 32-bit Arm's (unsigned long 32 bits, xen_ulong_t 64), run with qemu-user.
# Each has outputs that hold for it only (tests/lp64, tests/arm32).
tool() {
	make -C "$LINUX/tools/testing/xen-evtchn" -s BASE_SRC="$BASE_SRC" "$@"
}
host=(OUTPUT="$out/" GOLDEN=tests/lp64)
arm32=(OUTPUT="$out/arm32/" CC=arm-linux-gnueabihf-gcc LDFLAGS=-static
	RUN=qemu-arm-static GOLDEN=tests/arm32)
mkdir -p "$out/arm32"

# Third: 32-bit Arm again, "base" being 6.12 with the series' two width
# fixes only (the events_2l.c of the commit before events_2l_scan.h is
# added): the outputs in tests/arm32-fixed show that they are enough.
fixes_src() {
	local adds dir=$out/fixed/drivers/xen/events f
	adds=$(git -C "$LINUX" log --diff-filter=A --format=%H base..HEAD -- \
		drivers/xen/events/events_2l_scan.h | tail -n 1)
	[[ -n $adds ]] || die "no commit of the series adds drivers/xen/events/events_2l_scan.h"
	mkdir -p "$dir"
	for f in events_2l.c events_internal.h; do
		git -C "$LINUX" show "$adds~1:drivers/xen/events/$f" >"$dir/$f.tmp"
		if cmp -s "$dir/$f.tmp" "$dir/$f"; then rm "$dir/$f.tmp"; else mv "$dir/$f.tmp" "$dir/$f"; fi
	done
	echo "$dir/events_2l.c"
}
fixed_src=$(fixes_src)
fixed=(OUTPUT="$out/arm32-fixed/" CC=arm-linux-gnueabihf-gcc LDFLAGS=-static
	RUN=qemu-arm-static GOLDEN=tests/arm32-fixed BASE_SRC="$fixed_src")
mkdir -p "$out/arm32-fixed"

if [[ ${1:-} != check ]]; then
	tool "${host[@]}"
	tool "${arm32[@]}"
	tool "${fixed[@]}"
	say "built $out/evtchn-replay and $out/arm32/evtchn-replay (32-bit Arm, run with qemu-arm-static)"
	exit 0
fi

log=$LOGS/replay-check.log
rm -f "$LOGS/replay-check.count"
say "replay tests, host and 32-bit Arm builds (log: $log)"
set +e
{
	echo "== host build"
	tool "${host[@]}" check
	echo "== 32-bit Arm build (qemu-arm-static)"
	tool "${arm32[@]}" check
	echo "== 32-bit Arm build, base = 6.12 with the series' width fixes"
	tool "${fixed[@]}" check
} 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
mapfile -t summaries < <(grep -E '^replay: [0-9]+ passed, [0-9]+ failed$' "$log")
[[ $rc -eq 0 && ${#summaries[@]} -eq 3 ]] || die "replay tests failed (log: $log)"
passed=0
for line in "${summaries[@]}"; do
	read -r _ n _ <<<"$line"
	passed=$((passed + n))
done
echo "$passed" >"$LOGS/replay-check.count"
