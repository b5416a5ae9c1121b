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
base=$out/base/drivers/xen/events
mkdir -p "$base" "$LOGS"

# The 6.12 files, from the base commit; rewritten only when they change.
for f in events_2l.c events_internal.h; do
	git -C "$LINUX" show "base:drivers/xen/events/$f" >"$base/$f.tmp" ||
		die "cannot read drivers/xen/events/$f from the base commit of build/linux"
	if cmp -s "$base/$f.tmp" "$base/$f"; then
		rm "$base/$f.tmp"
	else
		mv "$base/$f.tmp" "$base/$f"
	fi
done

tool=(make -C "$LINUX/tools/testing/xen-evtchn" -s OUTPUT="$out/" BASE_SRC="$base/events_2l.c")
if [[ ${1:-} != check ]]; then
	"${tool[@]}"
	say "built $out/evtchn-replay"
	exit 0
fi

log=$LOGS/replay-check.log
rm -f "$LOGS/replay-check.count"
say "replay tests (log: $log)"
set +e
"${tool[@]}" check 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
summary=$(grep -E '^replay: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
[[ $rc -eq 0 && -n $summary ]] || die "replay tests failed (log: $log)"
read -r _ passed _ <<<"$summary"
echo "$passed" >"$LOGS/replay-check.count"
