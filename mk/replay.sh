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

if [[ ${1:-} != check ]]; then
	tool "${host[@]}"
	tool "${arm32[@]}"
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
} 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
mapfile -t summaries < <(grep -E '^replay: [0-9]+ passed, [0-9]+ failed$' "$log")
[[ $rc -eq 0 && ${#summaries[@]} -eq 2 ]] || die "replay tests failed (log: $log)"
passed=0
for line in "${summaries[@]}"; do
	read -r _ n _ <<<"$line"
	passed=$((passed + n))
done
echo "$passed" >"$LOGS/replay-check.count"
