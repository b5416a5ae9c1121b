#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/vee-lab.sh: 'make vee-lab', the original report's experiment live
# (Xen bug 1115; Ongaro, Cox, Rixner, VEE 2008): 7 guests receiving TCP
# streams through dom0, on Xen 4.17 in QEMU, with three dom0 kernels that
# differ only in the 2-level scan:
#   lowest   the base (build/linux's base commit, Linux 7.3) with
#            lab/vee/lowest-first.patch (the 2.6.18-era scan; outside the
#            series, for this lab only)
#   base     the base as released
#   series   the base with the series (build/linux)
# all built from one worktree of build/linux (build/vee/linux) in one
# build directory (build/vee/kbuild), defconfig + xen.config +
# lab/vee/vee.config, so that only what differs is recompiled.
#
# For each kernel and variant, one boot: dom0 (2-level ABI) bridges QEMU's
# e1000 with the guests' vifs, starts 7 guests (the same kernel) and runs
# RUNS runs; on each "vee: go run=R" of dom0's console this script sends
# with lab/vee/vee-send for SECS + 2 seconds to 127.0.0.1:15000+N, which
# QEMU forwards to guest N, whose vee-recv counts SECS seconds of it.
# Variants (VARIANTS, default "bulk unmoderated noisy"):
#   bulk         one stream a guest, 64 KiB writes
#   unmoderated  bulk, with the NIC's interrupt moderation off: QEMU's
#                e1000 without mitigation, dom0's e1000 driver with
#                InterruptThrottleRate=0 (the NIC's port raised as often
#                as NAPI lets it)
#   noisy        bulk, and guest NOISY_GUEST floods dom0 with UDP through
#                its vif (lab/vee/vee-flood.c), raising its own netback
#                channel without pause
#   small        (not by default) one stream a guest, TCP_NODELAY, 64-byte
#                writes; QEMU's user network re-sends the stream to the
#                guests in full-size segments, so the NIC sees what bulk
#                gives it (lab/vee/README.md)
#
# KERNELS (default "lowest base series"), RUNS (3), SECS (180).
# VEE_TRACE=S: in run 1 of each boot, S seconds of dom0's order of
# service traced (a kprobe on evtchn_2l_handle_events, irq events;
# lab/vee/dom0-init's vee_trace, lab/order/order-reduce.c --all): the
# "vee-trace:" lines of the serial log, also in build/logs/vee-K-V-trace.txt,
# and the table of all traced boots, build/out/vee-trace.txt
# (lab/vee/trace-table.awk).  The runs come out of the serial logs through
# lab/vee/collect.awk, the tables and the chart through
# lab/vee/vee-report.py: build/out/vee.txt and build/out/vee.png; logs in
# build/logs/vee-*.
#
# mk/vee-lab.sh --report ('make vee-report'): the tables and the chart
# again from the serial logs of the boots that finished, without building
# or booting.
set -eEuo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
trap 'echo "$PROG: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
# The rig (fetch_xen, busybox_root, stage_libs, stage_xen_tools, mkcpio,
# run_qemu, landmark) and DOM0_BASE_ARGS.
# shellcheck source=mk/xen-rig.sh
. "$ROOT/mk/xen-rig.sh"
XEN_ARCH=x86_64 XEN=4.17 PKG='' PKG_KIND=''
VEE=$BUILD/vee
rig_init "$VEE/xen"

SRC=$VEE/linux
KB=$VEE/kbuild
VLAB=$ROOT/lab/vee
XEN_PKGS+=(xenstore-utils)
DOM0_KERNEL=$XBUILD/dom0-root/vee/bzImage
KERNELS=${KERNELS:-lowest base series}
VARIANTS=${VARIANTS:-bulk unmoderated noisy}
RUNS=${RUNS:-3}
SECS=${SECS:-180}
VEE_TRACE=${VEE_TRACE:-0}
GUESTS=7
NOISY_GUEST=1
PORT_BASE=15000
OUT=$BUILD/out

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$RUNS'"
[[ $SECS =~ ^[1-9][0-9]*$ ]] || die "SECS must be a positive number of seconds, not '$SECS'"
[[ $VEE_TRACE =~ ^[0-9]+$ ]] || die "VEE_TRACE must be a number of seconds (0: no trace), not '$VEE_TRACE'"
((VEE_TRACE == 0 || VEE_TRACE + 15 < SECS)) || die "VEE_TRACE=$VEE_TRACE does not fit in a run of SECS=$SECS (it starts 15 s in)"
for k in $KERNELS; do
	case $k in lowest | base | series) ;; *) die "KERNELS: unknown kernel '$k' (lowest, base, series)" ;; esac
done
for v in $VARIANTS; do
	case $v in bulk | unmoderated | noisy | small) ;; *) die "VARIANTS: unknown variant '$v' (bulk, unmoderated, noisy, small)" ;; esac
done

# ------------------------------------------------------------- kernels ---
# kernel_rev K: the commit of build/linux kernel K is built from.
kernel_rev() {
	case $1 in
	lowest | base) git -C "$LINUX" rev-parse base ;;
	series) git -C "$LINUX" rev-parse HEAD ;;
	esac
}

build_kernel() {
	local k=$1 rev stamp log=$LOGS/vee-kernel-$1.log opt
	rev=$(kernel_rev "$k")
	stamp="$rev $(sha256sum "$VLAB/vee.config" | cut -c1-16)"
	[[ $k != lowest ]] || stamp+=" $(sha256sum "$VLAB/lowest-first.patch" | cut -c1-16)"
	if [[ -f $VEE/bzImage-$k && $(cat "$VEE/bzImage-$k.stamp" 2>/dev/null) == "$stamp" ]]; then
		say "kernel $k: up to date ($VEE/bzImage-$k)"
		return
	fi
	if ! git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$SRC"
		git -C "$LINUX" worktree prune
		git -C "$LINUX" worktree add -q --detach "$SRC" "$rev"
	fi
	# Only the files that differ are rewritten: make recompiles those.
	git -C "$SRC" checkout -q -f --detach "$rev"
	if [[ $k == lowest ]]; then
		git -C "$SRC" apply "$VLAB/lowest-first.patch" ||
			die "lab/vee/lowest-first.patch does not apply to $rev"
	fi
	mkdir -p "$KB"
	: >"$log"
	if [[ ! -f $KB/.config || $VLAB/vee.config -nt $KB/.config ]]; then
		kmake "$SRC" "$KB" x86_64 defconfig xen.config >>"$log" 2>&1 ||
			die "kernel $k: configuration failed; see $log"
		cat "$VLAB/vee.config" >>"$KB/.config"
	fi
	kmake "$SRC" "$KB" x86_64 olddefconfig >>"$log" 2>&1 ||
		die "kernel $k: olddefconfig failed; see $log"
	while read -r opt; do
		grep -qx "$opt" "$KB/.config" ||
			die "kernel $k: $opt (lab/vee/vee.config) did not stick in $KB/.config"
	done < <(grep -E '^CONFIG_' "$VLAB/vee.config")
	say "kernel $k: building bzImage from $(git -C "$LINUX" log -1 --format='%h %s' "$rev")$([[ $k != lowest ]] || echo " + lowest-first.patch") (log: $log)"
	local t0=$SECONDS
	start_ticker "$PROG" count_compiled "$log"
	kmake "$SRC" "$KB" x86_64 -j"$(nproc)" bzImage >>"$log" 2>&1 || {
		stop_ticker
		tail -n 20 "$log" >&2
		die "kernel $k: build failed; see $log"
	}
	stop_ticker
	cp "$KB/arch/x86/boot/bzImage" "$VEE/bzImage-$k"
	echo "$stamp" >"$VEE/bzImage-$k.stamp"
	say "kernel $k: built in $(fmt_time $((SECONDS - t0))), $(count_compiled "$log") objects compiled"
}

# --------------------------------------------------------- user space ---
VEE_RECV=$VEE/bin/vee-recv
VEE_SEND=$VEE/bin/vee-send
VEE_FLOOD=$VEE/bin/vee-flood
build_tools() {
	mkdir -p "$VEE/bin"
	gcc -O2 -Wall -static -o "$VEE_RECV" "$VLAB/vee-recv.c" ||
		die "cannot build lab/vee/vee-recv.c"
	gcc -O2 -Wall -static -o "$VEE_FLOOD" "$VLAB/vee-flood.c" ||
		die "cannot build lab/vee/vee-flood.c"
	gcc -O2 -Wall -o "$VEE_SEND" "$VLAB/vee-send.c" ||
		die "cannot build lab/vee/vee-send.c"
	gcc -O2 -Wall -Wextra -Werror -static -o "$VEE/bin/order-reduce" "$ROOT/lab/order/order-reduce.c" ||
		die "cannot build lab/order/order-reduce.c"
}

# build_vee_initramfs K: dom0's and the guests' initramfs, kernel K.
build_vee_initramfs() {
	local k=$1 g=$XBUILD/guest-root r=$XBUILD/dom0-root
	busybox_root "$g" "$VLAB/guest-init"
	install -m 755 "$VEE_RECV" "$g/usr/bin/vee-recv"
	install -m 755 "$VEE_FLOOD" "$g/usr/bin/vee-flood"
	mkcpio "$g" "$XBUILD/guest.cpio.gz"

	busybox_root "$r" "$VLAB/dom0-init"
	stage_xen_tools "$r"
	mkdir -p "$r/etc/xen/scripts" "$r/vee" "$r/usr/bin"
	cp -L "$XROOT/usr/bin/xenstore-read" "$r/usr/bin/xenstore-read" ||
		die "xenstore-utils has no usr/bin/xenstore-read"
	stage_libs "$r" "$XROOT/usr/bin/xenstore-read"
	install -m 755 "$VLAB/vif-vee" "$r/etc/xen/scripts/vif-vee"
	install -m 755 "$VEE/bin/order-reduce" "$r/usr/bin/order-reduce"
	install -m 644 "$VLAB/guest.cfg" "$r/vee/guest.cfg"
	install -m 644 "$VEE/bzImage-$k" "$r/vee/bzImage"
	install -m 644 "$XBUILD/guest.cpio.gz" "$r/vee/guest.cpio.gz"
	mkcpio "$r" "$XBUILD/dom0.cpio.gz"
}

# ------------------------------------------------------------ one boot ---
MODE=
SENT=0
SENDER_PIDS=()
# qemu_tick RAW: on each new "vee: go run=R", start the sender.
qemu_tick() {
	local n
	n=$(grep -ac '^vee: go run=' "$1" 2>/dev/null) || true
	while ((SENT < n)); do
		SENT=$((SENT + 1))
		"$VEE_SEND" --secs $((SECS + 2)) --mode "$MODE" --base-port "$PORT_BASE" \
			--guests "$GUESTS" --wait 120 >"$L-send-$SENT.txt" 2>&1 &
		SENDER_PIDS+=($!)
		say "run $SENT: sending ($MODE, $((SECS + 2)) s)"
	done
}

# boot K V: one QEMU boot of kernel K, variant V, its serial log in
# $LOGS/vee-K-V-serial.log; dies unless it finished its runs.
boot() {
	local k=$1 v=$2 hostfwd="" i nic=e1000,netdev=n0 why
	L=$LOGS/vee-$k-$v
	SERIAL=$L-serial.log
	MODE=bulk SENT=0 SENDER_PIDS=()
	[[ $v != small ]] || MODE=small
	for ((i = 1; i <= GUESTS; i++)); do
		hostfwd+=",hostfwd=tcp:127.0.0.1:$((PORT_BASE + i))-10.0.2.$((20 + i)):5001"
	done
	QEMU_MEM=4096
	DOM0_ARGS="$DOM0_BASE_ARGS vee.guests=$GUESTS vee.secs=$SECS vee.runs=$RUNS vee.watchdog=$((TIMEOUT - 60))"
	[[ $v != noisy ]] || DOM0_ARGS+=" vee.noisy=$NOISY_GUEST"
	((VEE_TRACE == 0)) || DOM0_ARGS+=" vee.trace=$VEE_TRACE"
	if [[ $v == unmoderated ]]; then
		nic+=,mitigation=off
		DOM0_ARGS+=" e1000.InterruptThrottleRate=0"
	fi
	QEMU_EXTRA=(-netdev "user,id=n0,net=10.0.2.0/24$hostfwd" -device "$nic")
	build_vee_initramfs "$k"
	say "== kernel $k, variant $v: $RUNS run(s) of $SECS s (serial log: $SERIAL)"
	run_qemu "$DOM0_KERNEL" "$DOM0_ARGS" "$SERIAL" "$TIMEOUT"
	for i in "${SENDER_PIDS[@]}"; do wait "$i" || true; done
	why=$(check_boot "$k" "$v") || die "kernel $k, variant $v: $why"
	if ((VEE_TRACE)); then
		grep -a '^vee-trace: ' "$SERIAL" >"$L-trace.txt" || true
		! grep -q 'vee-trace: error' "$L-trace.txt" ||
			die "kernel $k, variant $v: $(grep -m1 'vee-trace: error' "$L-trace.txt")"
		grep -q '^vee-trace: cpu0 passes ' "$L-trace.txt" ||
			die "kernel $k, variant $v: no traced passes in the serial log (see $SERIAL)"
		! awk '$2 ~ /^cpu[0-9]+$/ && $3 == "entries" && ($6 != 0 || $8 != 0) { bad = 1 } END { exit !bad }' "$L-trace.txt" ||
			die "kernel $k, variant $v: the trace lost events (overrun/dropped; see $L-trace.txt)"
		say "kernel $k, variant $v: traced $(awk '$3 == "passes" { p = p (p ? ", " : "") $2 ": " $4 } END { print p }' "$L-trace.txt") passes; ports a pass (p50/p90/max) $(awk '$3 == "per_pass" { q = q (q ? ", " : "") $2 ": " $5 "/" $6 "/" $7 } END { print q }' "$L-trace.txt"); double passes $(awk '$3 == "double_passes" { d = d (d ? ", " : "") $2 ": " $4 } END { print d }' "$L-trace.txt") ($L-trace.txt)"
	fi
}

# check_boot K V: whether the boot of kernel K, variant V, finished its
# runs as that variant: dom0 on the 2-level ABI, the NIC's moderation off
# for unmoderated; if not, why, in one line.
check_boot() {
	local s=$LOGS/vee-$1-$2-serial.log
	if [[ ! -f $s ]]; then
		echo "no serial log $s"
	elif ! grep -qa 'xen:events: Using 2-level ABI' "$s"; then
		echo "dom0 is not on the 2-level ABI (see $s)"
	elif [[ $2 == unmoderated ]] && ! grep -qa 'Interrupt Throttling Rate (ints/sec) turned off' "$s"; then
		echo "dom0's e1000 did not turn its interrupt throttling off (see $s)"
	elif ! grep -qa '^vee: runs done' "$s"; then
		echo "the runs did not finish: $(grep -a -m1 '^vee: error' "$s" || landmark "$s") (see $s)"
	else
		return 0
	fi
	return 1
}

# boot_params K V: "R run(s) of S s", from dom0's command line in the boot's
# serial log.
boot_params() {
	sed -n 's/.*Command line: .* vee\.secs=\([0-9]*\) vee\.runs=\([0-9]*\) .*/\2 run(s) of \1 s/p' \
		"$LOGS/vee-$1-$2-serial.log" | head -n 1
}

# make_report: the runs of every finished boot of KERNELS x VARIANTS
# (lab/vee/collect.awk) into $RESULTS, and vee-report.py's tables and
# chart into $OUT/vee.txt and $OUT/vee.png.  Each is replaced only when
# the report succeeds; otherwise all are left as they were, and the runs
# collected stay in $LOGS/vee-results.new.txt for a look.
make_report() {
	local k v n=0 why tmp=$LOGS/vee-results.new.txt txt=$OUT/.vee.txt.tmp
	: >"$tmp"
	for v in $VARIANTS; do
		for k in $KERNELS; do
			if ! why=$(check_boot "$k" "$v"); then
				say "kernel $k, variant $v: left out: $why"
				continue
			fi
			say "kernel $k, variant $v: $(boot_params "$k" "$v"), boot of $(date -r "$LOGS/vee-$k-$v-serial.log" '+%F %T')"
			awk -v kernel="$k" -v variant="$v" -f "$VLAB/collect.awk" \
				"$LOGS/vee-$k-$v-serial.log" >>"$tmp"
			n=$((n + 1))
		done
	done
	if ((n == 0)); then
		rm -f "$tmp"
		die "no finished boot of kernels '$KERNELS', variants '$VARIANTS' in $LOGS (make vee-lab first)"
	fi
	! grep -q '^unmapped-irq:' "$tmp" ||
		warn "some interrupts have no port in Xen's table (unmapped-irq: lines in $RESULTS)"
	if ! python3 "$VLAB/vee-report.py" --png "$OUT/vee.png" "$tmp" >"$txt"; then
		rm -f "$txt"
		die "vee-report.py failed on the runs collected in $tmp (its message above); $RESULTS and $OUT/vee.txt left as they were"
	fi
	mv "$tmp" "$RESULTS"
	mv "$txt" "$OUT/vee.txt"
	cat "$OUT/vee.txt"
	say "tables in $OUT/vee.txt, chart $OUT/vee.png, runs in $RESULTS"
	trace_report
}

# trace_report: every finished boot whose serial log in $LOGS was traced
# (VEE_TRACE), of any kernel and variant, as one table
# (lab/vee/trace-table.awk) in $OUT/vee-trace.txt, which make series
# quotes; when no such log is left, an older table is removed.
trace_report() {
	local k v s args=() txt=$OUT/.vee-trace.txt.tmp
	for v in bulk unmoderated noisy small; do
		for k in lowest base series; do
			s=$LOGS/vee-$k-$v-serial.log
			check_boot "$k" "$v" >/dev/null || continue
			grep -qa '^vee-trace: cpu0 passes ' "$s" || continue
			args+=("kernel=$k" "variant=$v" "$s")
		done
	done
	if ((${#args[@]} == 0)); then
		[[ ! -e $OUT/vee-trace.txt ]] || say "no traced boot's serial log is left in $LOGS: removing the older $OUT/vee-trace.txt"
		rm -f "$OUT/vee-trace.txt"
		return 0
	fi
	awk -f "$VLAB/trace-table.awk" "${args[@]}" >"$txt" ||
		{ rm -f "$txt"; die "lab/vee/trace-table.awk failed (its message above); $OUT/vee-trace.txt left as it was"; }
	mv "$txt" "$OUT/vee-trace.txt"
	cat "$OUT/vee-trace.txt"
	say "order of service in $OUT/vee-trace.txt"
}

# ----------------------------------------------------------------- main ---
RESULTS=$LOGS/vee-results.txt
case ${1:-} in
"" | --report) ;;
*) die "unknown argument '$1' (none, or --report)" ;;
esac
mkdir -p "$LOGS" "$OUT"
command -v gnuplot >/dev/null || die "gnuplot not found (Debian package gnuplot-nox)"
# One lab or report at a time: they share the serial logs and results.
exec 9>"$LOGS/vee.lock"
flock -n 9 || die "another make vee-lab or vee-report is running (lock: $LOGS/vee.lock)"
if [[ ${1:-} == --report ]]; then
	make_report
	exit
fi
mkdir -p "$VEE" "$XBUILD"
PREPLOG=$LOGS/vee-prepare.log
: >"$PREPLOG"
check_host
require_tree
setup_ccache
for k in $KERNELS; do build_kernel "$k"; done
fetch_xen
build_stress
build_tools
# Each boot: 7 guests' start (about 90 s), then RUNS runs of SECS + about
# 20 s; dom0's watchdog and QEMU's limit leave room for slow machines.
TIMEOUT=$((600 + RUNS * (SECS + 120)))
t0=$SECONDS
for v in $VARIANTS; do
	for k in $KERNELS; do boot "$k" "$v"; done
done
say "boots done in $(fmt_time $((SECONDS - t0)))"
make_report
