#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/objsize.sh: the object size of evtchn_2l_handle_events() (nm -S on
# drivers/xen/events/events_2l.o) as the base has it, with the series' two
# width fixes, and with each later commit of the series that changes
# events_2l.c, for x86_64 (defconfig + xen.config) and arm
# (multi_v7_defconfig + XEN), KUnit off: side by side in one run, table in
# build/out/objsize.txt.  Builds in build/kbuild-size-ARCH from a worktree
# of build/linux (build/size).
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
setup_ccache

ARCHES=(x86_64 arm)
wt=$BUILD/size
out=$BUILD/out/objsize.txt
mkdir -p "$LOGS" "$BUILD/out"

# The revisions: base, then each commit of the series touching events_2l.c.
revs=(base)
mapfile -t -O 1 revs < <(git -C "$LINUX" rev-list --reverse base..HEAD -- \
	drivers/xen/events/events_2l.c)
((${#revs[@]} > 1)) || die "no commit of the series changes events_2l.c"

linux_worktree "$wt" base || die "cannot make the worktree $wt of build/linux"

declare -A SIZE
for arch in "${ARCHES[@]}"; do
	o=$BUILD/kbuild-size-$arch
	log=$LOGS/objsize-$arch.log
	mkdir -p "$o"
	: >"$log"
	git -C "$wt" checkout -q -f --detach base
	if [[ ! -f $o/.config ]]; then
		say "configuring and preparing $arch in ${o#"$ROOT"/} (log: $log) ..."
		kbuild_config "$wt" "$o" "$arch" "$log" </dev/null ||
			die "configuring $arch failed; see $log"
	fi
	kmake "$wt" "$o" "$arch" -j"$(nproc)" prepare >>"$log" 2>&1 </dev/null ||
		die "make prepare for $arch failed; see $log"
	for rev in "${revs[@]}"; do
		git -C "$wt" checkout -q -f --detach "$rev"
		kmake "$wt" "$o" "$arch" drivers/xen/events/events_2l.o >>"$log" 2>&1 </dev/null ||
			die "building events_2l.o at $rev for $arch failed; see $log"
		hex=$(nm -S "$o/drivers/xen/events/events_2l.o" |
			awk '$4 == "evtchn_2l_handle_events" { print $2 }')
		[[ $hex =~ ^[0-9a-f]+$ ]] ||
			die "no evtchn_2l_handle_events in events_2l.o at $rev for $arch (inlined?)"
		SIZE[$arch:$rev]=$((16#$hex))
		cp "$o/drivers/xen/events/events_2l.o" "$o/events_2l-${rev:0:12}.o"
	done
done

{
	echo "Object size of evtchn_2l_handle_events() (nm -S on events_2l.o, $(gcc --version | head -n 1 | sed 's/^gcc //'); KUnit off)"
	printf '%-60s' "commit"
	printf ' %8s' "${ARCHES[@]}"
	echo
	for rev in "${revs[@]}"; do
		if [[ $rev == base ]]; then
			name="$(base_version) as released"
		else
			name=$(git -C "$LINUX" log -1 --format=%s "$rev")
		fi
		printf '%-60.60s' "$name"
		for arch in "${ARCHES[@]}"; do
			printf ' %8s' "${SIZE[$arch:$rev]}"
		done
		echo
	done
	for arch in "${ARCHES[@]}"; do
		b=${SIZE[$arch:base]} h=${SIZE[$arch:${revs[-1]}]}
		awk -v a="$arch" -v b="$b" -v h="$h" 'BEGIN {
			printf "%s: %d -> %d bytes (%+.1f%%)\n", a, b, h, (h - b) * 100 / b }'
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"

# scripts/bloat-o-meter of each commit against the one before it (the
# whole object, KUnit off), as a changelog quotes it.
bloat=$BUILD/out/bloat.txt
{
	for ((i = 1; i < ${#revs[@]}; i++)); do
		for arch in "${ARCHES[@]}"; do
			o=$BUILD/kbuild-size-$arch
			echo "$ ./scripts/bloat-o-meter events_2l.o.old events_2l.o  # $arch: $(git -C "$LINUX" log -1 --format=%s "${revs[i]}")"
			"$LINUX/scripts/bloat-o-meter" "$o/events_2l-${revs[i - 1]:0:12}.o" \
				"$o/events_2l-${revs[i]:0:12}.o"
			echo
		done
	done
} >"$bloat.tmp"
mv "$bloat.tmp" "$bloat"
say "bloat-o-meter per commit: ${bloat#"$ROOT"/}"
