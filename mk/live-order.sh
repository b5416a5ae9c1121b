#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/live-order.sh: 'make live-order', the order of service of the real
# upcall traced live on Xen, the base as released against the series.
#
# Two dom0 kernels, the same configuration: the live-Xen test kernel's
# (build/kunit-x86_64/.config, built by mk/kunit.sh if missing) plus
# lab/order/order.config (function tracer, modules, no KUnit), built from
# a worktree of build/linux at its base commit ("base": Linux as released)
# and at HEAD ("series") in one build directory, build/order/kbuild, so
# that the second build recompiles only what differs.  With each, the
# lab's load module lab/order/evtchn_order.c, built against it; the build
# fails unless evtchn_2l_handle_events is a function of its own in
# vmlinux (not inlined), and dom0 checks that ftrace can trace it.
#
# Each kernel boots as x86 PV dom0 on Debian's Xen 4.17 under QEMU (the
# make xen-test rig, xen.fifo_events=0, 2 vCPUs) with xentest.mode=order:
# for each scenario (SCENARIOS, default "flood burst"; lab/order/
# evtchn_order.c says what they do) dom0 traces the run (ORDER_SECS
# seconds, default 2) with the function tracer on evtchn_2l_handle_events
# and irq:irq_handler_entry, and reduces the trace with
# lab/order/order-reduce (lab/order/order-run.sh).  This script fails
# unless every scenario ran, the trace buffers dropped nothing and the
# trace holds every call of the module's handlers.
#
# Writes build/out/live-order.txt (the table) and build/out/live-order.png
# (the flooding port's share of each pass's services, both kernels);
# logs in build/logs/live-order-*.  Not part of make check (about 20
# minutes the first time, with both kernel builds; 3 minutes after);
# make check runs lab/order/test-order.sh, the reduction's self-test.
set -eEuo pipefail
trap 'echo "$PROG: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
# The rig (rig_prepare, busybox_root, mkcpio, run_qemu) and the verdict's
# pieces (between, marker_rc, splats).
# shellcheck source=mk/xen-rig.sh
. "$ROOT/mk/xen-rig.sh"
# shellcheck source=mk/xen-verdict.sh
. "$ROOT/mk/xen-verdict.sh"
XEN_ARCH=x86_64 XEN=4.17 PKG='' PKG_KIND=''
ORD=$BUILD/order
rig_init "$ORD/xen"
verdict_init

OLAB=$ROOT/lab/order
OWT=$ORD/linux
OKB=$ORD/kbuild
PREPLOG=$LOGS/live-order-prep.log
OUT=$BUILD/out
SECS=${ORDER_SECS:-2}
SCENARIOS=${SCENARIOS:-flood burst}
[[ $SECS =~ ^[1-9][0-9]?$ ]] || die "ORDER_SECS must be a number of seconds from 1 to 99, not '$SECS'"
declare -A seen_scenario=()
for s in $SCENARIOS; do
	case $s in flood | burst) ;; *) die "SCENARIOS: unknown scenario '$s' (flood, burst)" ;; esac
	[[ -z ${seen_scenario[$s]:-} ]] || die "SCENARIOS: '$s' twice"
	seen_scenario[$s]=1
done
TIMEOUT=600

# ------------------------------------------------------------ kernels ---
# order_kernel K REV: build/order/K-REV-SUM/{bzImage,evtchn_order.ko}
# (SUM: of the configuration and the module's source), built if missing;
# the directory in KDIR_OUT.
order_kernel() {
	local k=$1 rev=$2 sum out log=$LOGS/live-order-build-$1.log opt t0=$SECONDS
	sum=$(cat "$KCONFIG_FILE" "$OLAB/order.config" "$OLAB/evtchn_order.c" "$OLAB/Kbuild" |
		sha256sum | cut -c1-12)
	out=$ORD/$k-${rev:0:12}-$sum
	KDIR_OUT=$out
	if [[ -f $out/bzImage && -f $out/evtchn_order.ko ]]; then
		say "kernel $k: up to date (${out#"$ROOT"/})"
		return
	fi
	: >"$log"
	linux_worktree "$OWT" "$rev" >>"$log" 2>&1 || die "kernel $k: cannot check $rev out in $OWT (see $log)"
	mkdir -p "$OKB"
	cat "$KCONFIG_FILE" "$OLAB/order.config" >"$OKB/.config.order.new"
	if ! cmp -s "$OKB/.config.order.new" "$OKB/.config.order" || [[ ! -f $OKB/.config ]]; then
		mv "$OKB/.config.order.new" "$OKB/.config.order"
		cp "$OKB/.config.order" "$OKB/.config"
	fi
	rm -f "$OKB/.config.order.new"
	setup_ccache
	kmake "$OWT" "$OKB" x86_64 olddefconfig >>"$log" 2>&1 </dev/null ||
		die "kernel $k: olddefconfig failed (see $log)"
	while read -r opt; do
		grep -qx "$opt" "$OKB/.config" ||
			die "kernel $k: '$opt' (lab/order/order.config) did not stick in ${OKB#"$ROOT"/}/.config"
	done < <(grep -E '^(CONFIG_|# CONFIG_.* is not set)' "$OLAB/order.config")
	say "kernel $k: building $(git -C "$LINUX" log -1 --format='%h %s' "$rev") in ${OKB#"$ROOT"/} (log: $log)"
	start_ticker "$PROG" count_compiled "$log"
	kmake "$OWT" "$OKB" x86_64 -j"$(nproc)" bzImage modules >>"$log" 2>&1 </dev/null || {
		stop_ticker
		tail -n 20 "$log" >&2
		die "kernel $k: build failed (see $log)"
	}
	stop_ticker
	# (Not nm | grep -q: grep's early exit would fail nm under pipefail.)
	nm "$OKB/vmlinux" >"$ORD/vmlinux.nm"
	grep -qE ' [tT] evtchn_2l_handle_events$' "$ORD/vmlinux.nm" ||
		die "kernel $k: evtchn_2l_handle_events is not a function of its own in vmlinux (inlined?): its passes cannot be traced"
	rm -rf "$ORD/mod"
	mkdir -p "$ORD/mod"
	cp "$OLAB/evtchn_order.c" "$OLAB/Kbuild" "$ORD/mod/"
	kmake "$OWT" "$OKB" x86_64 M="$ORD/mod" W=1 modules >>"$log" 2>&1 </dev/null || {
		tail -n 20 "$log" >&2
		die "kernel $k: lab/order/evtchn_order.c does not build (see $log)"
	}
	! grep -E 'evtchn_order\.c:[0-9]+:[0-9]+: warning' "$log" ||
		die "kernel $k: lab/order/evtchn_order.c has warnings (see $log)"
	mkdir -p "$out.tmp"
	cp "$OKB/arch/x86/boot/bzImage" "$ORD/mod/evtchn_order.ko" "$out.tmp/"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	say "kernel $k: built in $(fmt_time $((SECONDS - t0))), $(count_compiled "$log") objects compiled"
}

# -------------------------------------------------------- user space ---
REDUCE=$ORD/bin/order-reduce
build_reduce() {
	mkdir -p "$ORD/bin"
	gcc -O2 -Wall -Wextra -Werror -static -o "$REDUCE" "$OLAB/order-reduce.c" >>"$PREPLOG" 2>&1 ||
		die "cannot build lab/order/order-reduce.c (see $PREPLOG)"
}

# order_initramfs K: dom0's initramfs for kernel K (KDIR_OUT).
order_initramfs() {
	local r=$XBUILD/dom0-root
	busybox_root "$r" "$LAB/dom0-init"
	mkdir -p "$r/xen-test"
	install -m 644 "$KDIR_OUT/evtchn_order.ko" "$r/xen-test/evtchn_order.ko"
	install -m 644 "$OLAB/order-run.sh" "$r/etc/order-run.sh"
	install -m 755 "$REDUCE" "$r/usr/bin/order-reduce"
	mkcpio "$r" "$XBUILD/dom0.cpio.gz"
}

# --------------------------------------------------------------- boot ---
# boot K: kernel K as dom0, the scenarios; its figures in
# build/order/K.figures ("SCENARIO KEY VALUE..." lines).  Dies on a
# failure, naming it.
boot() {
	local k=$1 s rc lines splat drop handled all
	L=$LOGS/live-order-$k
	SERIAL=$L-serial.log
	DOM0_KERNEL=$KDIR_OUT/bzImage
	DOM0_ARGS="$DOM0_BASE_ARGS xentest.mode=order xentest.scenarios=${SCENARIOS// /:}"
	DOM0_ARGS+=" xentest.secs=$SECS xentest.watchdog=$((TIMEOUT - 60))"
	say "kernel $k: booting as dom0 (serial log: $SERIAL)"
	run_qemu "$DOM0_KERNEL" "$DOM0_ARGS" "$SERIAL" "$TIMEOUT"
	grep -q 'xen:events: Using 2-level ABI' "$SERIAL" ||
		die "kernel $k: dom0 did not say 'xen:events: Using 2-level ABI' (see $SERIAL)"
	splat=$(splats "$SERIAL")
	[[ -z $splat ]] || die "kernel $k: a kernel splat: $(head -n 1 <<<"$splat") (see $SERIAL)"
	: >"$ORD/$k.figures"
	for s in $SCENARIOS; do
		rc=$(marker_rc "$SERIAL" "order-$s")
		lines=$(between "$SERIAL" "order-$s" | sed -n "s/^order: $s //p")
		# Lost trace events first: a full buffer may have dropped the
		# end marker, which the reduction then reports instead.
		drop=$(awk '$1 ~ /^cpu[0-9]+$/ {
			for (i = 2; i < NF; i += 2) if ($i == "overrun" || $i == "dropped") n += $(i + 1)
			if (!/ entries [0-9]+/ || !/ overrun [0-9]+/ || !/ dropped [0-9]+/) bad++
		} END { print (bad ? "bad" : n + 0) }' <<<"$lines")
		[[ $drop != bad ]] ||
			die "kernel $k, $s: tracefs's per-CPU stats lack entries, overrun or dropped events (see $SERIAL)"
		grep -q '^cpu0 ' <<<"$lines" || [[ $rc != 0 ]] ||
			die "kernel $k, $s: no trace statistics (see $SERIAL)"
		[[ -z $drop || $drop == 0 ]] ||
			die "kernel $k, $s: the trace lost $drop events (overrun/dropped; see $SERIAL)"
		[[ $rc == 0 ]] ||
			die "kernel $k, $s: $(rc_text "$rc"): $(between "$SERIAL" "order-$s" | tail -n 1) (see $SERIAL)"
		handled=$(awk '$1 == "handled" { print $2 }' <<<"$lines")
		all=$(awk '$1 == "services_all" { print $2 }' <<<"$lines")
		[[ -n $handled && $handled == "$all" ]] ||
			die "kernel $k, $s: the module handled ${handled:-?} events, the trace has ${all:-?}: the trace is not complete (see $SERIAL)"
		# A run in which nothing flowed proves nothing.
		[[ $(awk '$1 == "services" { print $2 }' <<<"$lines") -gt 0 ]] ||
			die "kernel $k, $s: no service of the module's ports traced (see $SERIAL)"
		[[ $s != flood || $(awk '$1 == "flood_services" { print $2 }' <<<"$lines") -gt 0 ]] ||
			die "kernel $k, $s: the flooding port was never serviced (see $SERIAL)"
		awk -v s="$s" '{ print s " " $0 }' <<<"$lines" >>"$ORD/$k.figures"
		say "kernel $k, $s: $(awk '$1 == "passes" { p = $2 } $1 == "double_passes" { d = $2 } END { print p " passes traced, " d " with a double service" }' <<<"$lines")"
	done
}

# ------------------------------------------------------------- report ---
# fig K S KEY [N]: field N (1) after KEY of scenario S of kernel K.
fig() {
	awk -v s="$2" -v key="$3" -v n="${4:-1}" '$1 == s && $2 == key { print $(2 + n) }' "$ORD/$1.figures"
}

report() {
	local k s tmp=$OUT/live-order.txt.tmp xenver kver
	xenver=$(<"$XROOT/.version")
	kver=$(git -C "$LINUX" log -1 --format=%s "$(git -C "$LINUX" rev-list --max-parents=0 HEAD)" | sed 's/ (.*//')
	{
		echo "make live-order, $(date -u '+%F %H:%M UTC'): Xen $xenver"
		echo "(x86) under QEMU TCG, PV dom0 with 2 vCPUs, xen.fifo_events=0; $SECS s a scenario;"
		echo "figures of vCPU 0's passes (function tracer on evtchn_2l_handle_events,"
		echo "irq:irq_handler_entry)."
		echo "base: $kver as released; series: with the series; one configuration."
		echo
		printf '%-5s %-6s %6s %7s %11s %5s %5s %8s %8s %8s\n' "" "" passes services \
			"double" flood flood "worst" "wait us" "ports a"
		printf '%-5s %-6s %6s %7s %11s %5s %5s %8s %8s %8s\n' "" "" "" "" "passes" share above \
			"wait" "p50/p99" "pass"
		for s in $SCENARIOS; do
			for k in base series; do
				local p d sv fl
				p=$(fig "$k" "$s" passes) d=$(fig "$k" "$s" double_passes)
				sv=$(fig "$k" "$s" services) fl=$(fig "$k" "$s" flood_services)
				printf '%-5s %-6s %6d %7d %11s %5s %5s %8s %8s %8s\n' "$s" "$k" "$p" "$sv" \
					"$d $(awk -v a="$d" -v b="$p" 'BEGIN { printf "%.2f%%", 100 * a / b }')" \
					"$([[ $s == flood ]] && awk -v a="$fl" -v b="$sv" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }' || echo -)" \
					"$([[ $s == flood ]] && fig "$k" "$s" flood_above_cursor || echo -)" \
					"$(fig "$k" "$s" wait_max_passes)/$(printf '%.0f' "$(fig "$k" "$s" wait_max_us)")" \
					"$(printf '%.0f/%.0f' "$(fig "$k" "$s" wait_us 1)" "$(fig "$k" "$s" wait_us 2)")" \
					"$(fig "$k" "$s" per_pass 2)/$(fig "$k" "$s" per_pass 3)/$(fig "$k" "$s" per_pass 4)"
			done
		done
		echo
		echo "double passes: passes in which an IRQ other than the VIRQ_TIMER's was handled"
		echo "twice; flood above: passes that began in the flooding port's word below it (the"
		echo "last service a port of that word); worst wait: of a raised port other than the"
		echo "flooding one, whole passes gone by / microseconds from its first raise to its"
		echo "service; wait us: the same waits' median and 99th percentile; ports a pass:"
		echo "the module's ports handled in a pass, p50/p90/max.  Trace entries (vCPU 0,"
		echo "vCPU 1), overrun and dropped, as tracefs counted them:"
		for s in $SCENARIOS; do
			for k in base series; do
				echo "  $s, $k: $(awk -v s="$s" '$1 == s && $2 ~ /^cpu[0-9]+$/ { e = e (e ? ", " : "") $4; o += $6; d += $8 }
					END { print "entries " e "; overrun " o ", dropped " d }' "$ORD/$k.figures")"
			done
		done
	} >"$tmp"
	mv "$tmp" "$OUT/live-order.txt"
	chart
}

# chart: build/out/live-order.png, the flooding port's share of a pass's
# services (flood scenario), a bar per kernel.
chart() {
	local data=$ORD/chart.data k b row
	[[ " $SCENARIOS " == *" flood "* ]] || return 0
	command -v gnuplot >/dev/null || die "gnuplot not found (mk/packages)"
	: >"$data"
	for b in 0 1 2 3 4 5 6 7 8 9 10; do
		row="\"$((b * 10))"
		if ((b < 10)); then
			row+="-$((b * 10 + 9))"
		fi
		row+="\""
		for k in base series; do
			row+=" $(awk -v b="$b" '$1 == "flood" && $2 == "flood_share_hist" {
				for (i = 3; i <= NF; i++) { split($i, a, ":"); t += a[2]; if (a[1] == b) n = a[2] }
			} END { printf "%.2f", t ? 100 * n / t : 0 }' "$ORD/$k.figures")"
		done
		echo "$row" >>"$data"
	done
	gnuplot >"$ORD/gnuplot.log" 2>&1 <<EOF || die "gnuplot failed (see $ORD/gnuplot.log)"
set terminal pngcairo size 900,480 font 'sans,11'
set output '$OUT/live-order.png.tmp'
set title "Flooding port's share of each pass's services (vCPU 0, live on Xen, $SECS s)"
set ylabel "passes (%)"
set xlabel "share of the pass's services taken by the flooding port (%)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set grid ytics
set key top right
plot '$data' using 2:xtic(1) title 'base (as released)', '' using 3 title 'series'
EOF
	mv "$OUT/live-order.png.tmp" "$OUT/live-order.png"
}

main() {
	local base head
	mkdir -p "$ORD" "$OUT"
	rig_prepare
	build_reduce
	base=$(git -C "$LINUX" rev-list --max-parents=0 HEAD)
	head=$(git -C "$LINUX" rev-parse HEAD)
	order_kernel base "$base"
	local base_dir=$KDIR_OUT
	order_kernel series "$head"
	local series_dir=$KDIR_OUT
	KDIR_OUT=$base_dir
	order_initramfs base
	boot base
	KDIR_OUT=$series_dir
	order_initramfs series
	boot series
	report
	cat "$OUT/live-order.txt"
	say "written: build/out/live-order.txt, build/out/live-order.png; logs: $LOGS/live-order-*"
	say "total time $(fmt_time "$SECONDS")"
}

main
