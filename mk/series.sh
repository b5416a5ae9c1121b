#!/bin/bash
# mk/series.sh: export build/linux's base..HEAD as a mail-ready series in
# build/series/ (git format-patch --cover-letter) and run checkpatch.pl
# --strict on every patch.  Fails if any patch has errors, warnings or
# (under --strict) checks.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
require_tree

out=$BUILD/series
n=$(git -C "$LINUX" rev-list --count base..HEAD)
if ((n == 0)); then
	say "nothing to export: patches/series has no entries"
	exit 0
fi
rm -rf "$out"
git -C "$LINUX" format-patch -q -o "$out" --cover-letter base..HEAD
say "$n patch(es) and a cover letter in $out/"

# build/linux has no upstream history, so checkpatch cannot resolve the
# commit ids of Fixes: tags and the like: don't let that fail the series.
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for any new
# file; the series' new files are all covered by existing entries
# (drivers/xen/ and, from patches 5 and 6, Documentation/virt/xen/ and
# tools/testing/xen-evtchn/ in XEN HYPERVISOR INTERFACE).
say "checkpatch --strict (not checked: commit ids in Fixes: etc., no upstream history; FILE_PATH_CHANGES, every new file has a MAINTAINERS entry)"
# checkpatch's stderr (e.g. scripts/spdxcheck.py failing) goes to a log.
errlog=$LOGS/series-checkpatch-stderr.log
mkdir -p "$LOGS"
: >"$errlog"
bad=0
cd "$LINUX"
for p in "$out"/*.patch; do
	name=$(basename "$p")
	[[ $name != 0000-cover-letter.patch ]] || continue
	# Debian's python3 (with python3-ply, python3-git) for spdxcheck.py.
	report=$(PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$p" 2>>"$errlog") || true
	total=$(grep -m1 '^total: ' <<<"$report" || true)
	if [[ $total =~ ^total:\ 0\ errors,\ 0\ warnings,\ 0\ checks ]]; then
		echo "  ok    $name"
	else
		bad=$((bad + 1))
		echo "  FAIL  $name: ${total:-checkpatch.pl gave no summary}"
		sed -e '/^total: /,$d' -e 's/^./        &/' <<<"$report"
	fi
done
[[ ! -s $errlog ]] ||
	warn "checkpatch.pl printed errors of its own (some checks may have been skipped); see $errlog"
((bad == 0)) || die "checkpatch --strict: $bad of $n patch(es) have errors, warnings or checks"
say "checkpatch --strict: all $n patch(es) clean"
