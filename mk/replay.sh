#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/replay.sh [check]: build the comparison lab's evtchn-replay (lab/scan/)
# into build/replay/: "rr" the series' events_2l.c (build/linux's HEAD),
# "base" the released one (the base commit), both compiled unchanged, and
# "lowest"; with "check", run its tests (log: build/logs/replay-check.log;
# the number of passed checks goes to build/logs/replay-check.count for
# 'make check').  BASE=V: the same from build/V/linux into build/V/.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree

out=$BUILD/replay
extract_base_src
extract_events_src HEAD "$out/rr"
RR_SRC=$EVENTS_SRC
mkdir -p "$LOGS" "$out/arm32" "$out/arm32-fixed"

# The "base" of the third build: the base with the series' width fixes
# only (patches 1 and 2; width_fixes_end in mk/lib.sh).  Were the scan
# change (patch 3) to get a Fixes: trailer, "base" would be rr's code here
# and the golden of lab/goldens/any (double-scan) would fail.
width_fixes_end
extract_events_src "$fixes_end" "$out/fixed"
FIXED_SRC=$EVENTS_SRC

# The lab's build, three times, each with outputs of "base" that hold
# for it only (lab/goldens/):
#  host          64-bit: unsigned long and xen_ulong_t alike (lp64);
#  arm32         unsigned long 32 bits, xen_ulong_t 64, run with qemu-user
#                (arm32: the released code loses events there);
#  arm32-fixed   the same, "base" being the released code plus the width
#                fixes (arm32-fixed: they are enough).
lab() {
	make -C "$ROOT/lab/scan" -s KSRC="$LINUX" RR_SRC="$RR_SRC" "$@"
}
host=(OUTPUT="$out/" RELEASED_SRC="$RELEASED_SRC" GOLDEN=../goldens/lp64)
arm=(CC=arm-linux-gnueabihf-gcc LDFLAGS=-static RUN=qemu-arm-static)
arm32=(OUTPUT="$out/arm32/" RELEASED_SRC="$RELEASED_SRC" GOLDEN=../goldens/arm32 "${arm[@]}")
fixed=(OUTPUT="$out/arm32-fixed/" RELEASED_SRC="$FIXED_SRC" GOLDEN=../goldens/arm32-fixed
	"${arm[@]}")

if [[ ${1:-} != check ]]; then
	lab "${host[@]}"
	lab "${arm32[@]}"
	lab "${fixed[@]}"
	say "built $out/evtchn-replay, and for 32-bit Arm (run with qemu-arm-static) $out/arm32{,-fixed}/evtchn-replay"
	exit 0
fi

log=$LOGS/replay-check.log
kver=$(base_version)
rm -f "$LOGS/replay-check.count"
say "replay tests: the lab's host and 32-bit Arm builds (log: $log)"
set +e
{
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
[[ $rc -eq 0 && ${#summaries[@]} -eq 3 ]] || die "replay tests failed (log: $log)"
passed=0
for line in "${summaries[@]}"; do
	read -r _ n _ <<<"$line"
	passed=$((passed + n))
done
echo "$passed" >"$LOGS/replay-check.count"
