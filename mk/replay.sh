#!/bin/bash
# mk/replay.sh [check]: build evtchn-replay from build/linux (the series'
# copy of tools/testing/xen-evtchn) into build/replay/tool/, and the
# comparison lab's build of it (lab/scan/) with the "base" policy compiled
# from the base commit's events_2l.c into build/replay/; with "check", run
# their tests (log: build/logs/replay-check.log; the number of passed
# checks goes to build/logs/replay-check.count for 'make check').
# BASE=6.1: the same from build/6.1/linux into build/6.1/, "base" being
# 6.1's events_2l.c, checked against the same goldens.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
require_tree

out=$BUILD/replay
extract_base_src
mkdir -p "$LOGS" "$out/arm32" "$out/arm32-fixed"

# The "base" of the third build: 6.12 with the series' two width fixes
# only, i.e. events_2l.c of the commit before events_2l_scan.h is added.
adds=$(git -C "$LINUX" log --diff-filter=A --format=%H base..HEAD -- \
	drivers/xen/events/events_2l_scan.h | tail -n 1)
[[ -n $adds ]] || die "no commit of the series adds drivers/xen/events/events_2l_scan.h"
extract_events_src "$adds~1" "$out/fixed"

# The tool as the series has it (build/linux), then the comparison
# lab's build of it (lab/scan/, with the "base" policy), three times, each
# with outputs of "base" that hold for it only (lab/goldens/):
#  host          64-bit: unsigned long and xen_ulong_t alike (lp64);
#  arm32         unsigned long 32 bits, xen_ulong_t 64, run with qemu-user
#                (arm32: 6.12 loses events there);
#  arm32-fixed   the same, "base" being 6.12 plus the width fixes
#                (arm32-fixed: they are enough).
tool() {
	make -C "$LINUX/tools/testing/xen-evtchn" -s OUTPUT="$out/tool/" "$@"
}
lab() {
	make -C "$ROOT/lab/scan" -s KERNEL="$LINUX" "$@"
}
host=(OUTPUT="$out/" BASE_SRC="$BASE_SRC" GOLDEN=../goldens/lp64)
arm=(CC=arm-linux-gnueabihf-gcc LDFLAGS=-static RUN=qemu-arm-static)
arm32=(OUTPUT="$out/arm32/" BASE_SRC="$BASE_SRC" GOLDEN=../goldens/arm32 "${arm[@]}")
fixed=(OUTPUT="$out/arm32-fixed/" BASE_SRC="$EVENTS_SRC" GOLDEN=../goldens/arm32-fixed
	"${arm[@]}")
mkdir -p "$out/tool"

if [[ ${1:-} != check ]]; then
	tool
	lab "${host[@]}"
	lab "${arm32[@]}"
	lab "${fixed[@]}"
	say "built $out/tool/evtchn-replay (the series' tool), and the lab's (with \"base\") in $out/ and $out/arm32{,-fixed}/ for 32-bit Arm (run with qemu-arm-static)"
	exit 0
fi

log=$LOGS/replay-check.log
kver=$(base_version)
rm -f "$LOGS/replay-check.count"
say "replay tests: the series' tool, then the lab's host and 32-bit Arm builds (log: $log)"
set +e
{
	echo "== the series' tool (${LINUX#"$ROOT"/}/tools/testing/xen-evtchn)"
	tool check
	echo "== lab, host build, base = $kver"
	lab "${host[@]}" check
	echo "== lab, 32-bit Arm build (qemu-arm-static), base = $kver"
	lab "${arm32[@]}" check
	echo "== lab, 32-bit Arm build, base = $kver with the series' width fixes"
	lab "${fixed[@]}" check
} 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
mapfile -t summaries < <(grep -E '^replay: [0-9]+ passed, [0-9]+ failed$' "$log")
[[ $rc -eq 0 && ${#summaries[@]} -eq 4 ]] || die "replay tests failed (log: $log)"
passed=0
for line in "${summaries[@]}"; do
	read -r _ n _ <<<"$line"
	passed=$((passed + n))
done
echo "$passed" >"$LOGS/replay-check.count"
