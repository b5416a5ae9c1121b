#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/bisect-build.sh: check that every commit of the series builds.  Each
# commit base..HEAD of build/linux is checked out in the git worktree
# build/bisect (build/linux itself is left alone) and drivers/xen/ is built
# for x86_64 (defconfig + xen.config) and arm (multi_v7_defconfig +
# CONFIG_XEN, and KUnit with all tests, so the suite is built from the
# commit that adds it) in build/kbuild-bisect-<arch>.  drivers/xen/events/
# is also rebuilt with W=1 and sparse (C=2) at base and at each commit: a
# warning in drivers/xen/events/ that base does not have fails the commit.
# Logs: build/logs/bisect-*.log.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
require_tree
setup_ccache

ARCHES=(x86_64 arm)
wt=$BUILD/bisect
jobs=$(nproc)

mapfile -t commits < <(git -C "$LINUX" rev-list --reverse base..HEAD)
n=${#commits[@]}
if ((n == 0)); then
	say "nothing to build: patches/series has no entries"
	exit 0
fi
mkdir -p "$LOGS"

# Configure once per arch, at the first commit.
linux_worktree "$wt" "${commits[0]}" || die "cannot make the worktree build/bisect of build/linux"
for arch in "${ARCHES[@]}"; do
	o=$BUILD/kbuild-bisect-$arch
	log=$LOGS/bisect-config-$arch.log
	mkdir -p "$o"
	: >"$log"
	say "configuring $arch in build/kbuild-bisect-$arch"
	kbuild_config "$wt" "$o" "$arch" "$log" </dev/null ||
		die "configuring $arch failed; see $log"
	"$wt/scripts/config" --file "$o/.config" --enable KUNIT --enable KUNIT_ALL_TESTS
	kmake "$wt" "$o" "$arch" olddefconfig >>"$log" 2>&1 </dev/null ||
		die "configuring $arch failed; see $log"
	grep -qx 'CONFIG_XEN=y' "$o/.config" || die "CONFIG_XEN is not =y in $o/.config"
done

# events_warnings WT O ARCH LOG: the W=1 and sparse warnings of
# drivers/xen/events/, without line numbers, sorted (also appended to LOG).
events_warnings() {
	kmake "$1" "$2" "$3" -j"$jobs" W=1 C=2 drivers/xen/events/ >>"$4" 2>&1 </dev/null
	# gcc names the file relative to the source tree, sparse with its
	# absolute path: keep "drivers/xen/events/FILE: message".
	{ grep -E '(^|/)drivers/xen/events/[^:]*:[0-9]+(:[0-9]+)?: (warning|error):' "$4" || true; } |
		sed -E 's|^.*/(drivers/xen/events/)|\1|; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' |
		sort -u
}

# The warnings base has: later commits may keep them, not add to them.
git -C "$wt" checkout -q -f --detach base
declare -A BASELINE
for arch in "${ARCHES[@]}"; do
	log=$LOGS/bisect-0-$arch.log
	kmake "$wt" "$BUILD/kbuild-bisect-$arch" "$arch" olddefconfig >"$log" 2>&1 </dev/null
	BASELINE[$arch]=$(events_warnings "$wt" "$BUILD/kbuild-bisect-$arch" "$arch" "$log")
	say "base, $arch: $(grep -c . <<<"${BASELINE[$arch]}" || true) W=1/sparse warning(s) in drivers/xen/events/"
done

failed=0
for i in "${!commits[@]}"; do
	git -C "$wt" checkout -q -f --detach "${commits[$i]}"
	say "[$((i + 1))/$n] $(git -C "$wt" log -1 --format='%h %s')"
	for arch in "${ARCHES[@]}"; do
		o=$BUILD/kbuild-bisect-$arch
		log=$LOGS/bisect-$((i + 1))-$arch.log
		t0=$SECONDS
		# olddefconfig: take defaults for Kconfig symbols the commit adds
		# instead of prompting for them.
		if kmake "$wt" "$o" "$arch" olddefconfig >"$log" 2>&1 </dev/null &&
			kmake "$wt" "$o" "$arch" -j"$jobs" drivers/xen/ >>"$log" 2>&1 </dev/null; then
			new=$(comm -13 <(echo "${BASELINE[$arch]}") \
				<(events_warnings "$wt" "$o" "$arch" "$log"))
			if [[ -n $new ]]; then
				failed=$((failed + 1))
				printf '%s:       %-7s NEW WARNINGS  (log: %s)\n' "$PROG" "$arch" "$log"
				printf '        %s\n' "${new//$'\n'/$'\n'        }"
				continue
			fi
			printf '%s:       %-7s OK    %s\n' "$PROG" "$arch" "$(fmt_time $((SECONDS - t0)))"
		else
			failed=$((failed + 1))
			printf '%s:       %-7s FAIL  %s  (log: %s)\n' "$PROG" "$arch" "$(fmt_time $((SECONDS - t0)))" "$log"
			# One process, no pipe: no SIGPIPE, nothing for pipefail.
			awk '/error|Error/ && n++ < 10 { print "        " $0 }' "$log"
		fi
	done
done
((failed == 0)) || die "$failed of $((n * ${#ARCHES[@]})) commit builds failed"
say "all $n commit(s) build drivers/xen/ for ${ARCHES[*]}"
