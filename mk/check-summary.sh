#!/bin/bash
# mk/check-summary.sh [ARCH]: print the one-line summary of 'make check':
# the tests kunit.py reports for ARCH (its "Testing complete. Ran N tests:
# passed: N, ..." line) plus the count the replay check writes to
# build/logs/replay-check.count.  Fails if anything failed or nothing ran.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
log=$(kunit_log "$arch")
[[ -f $log ]] || die "$log missing; did 'make kunit' run?"
line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o 'Testing complete\. Ran [0-9]* tests:.*' | tail -n 1) ||
	die "no 'Testing complete' line in $log"
count() { grep -oP "\\b$1: \\K[0-9]+" <<<"$line" || echo 0; }
passed=$(count passed)
failed=$(($(count failed) + $(count crashed) + $(count errors)))
skipped=$(count skipped)

countfile=$LOGS/replay-check.count
if [[ -f $countfile ]]; then
	replay=$(tr -d '[:space:]' <"$countfile")
	[[ $replay =~ ^[0-9]+$ ]] || die "$countfile does not hold one integer"
	passed=$((passed + replay))
fi

echo "check: $passed passed, $failed failed$( ((skipped == 0)) || echo ", $skipped skipped")"
((failed == 0 && passed > 0))
