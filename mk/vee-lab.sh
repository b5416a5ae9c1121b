#!/bin/bash
# mk/vee-lab.sh: 'make vee-lab', the original report's experiment live
# (Xen bug 1115; Ongaro, Cox, Rixner, VEE 2008): 7 guests receiving TCP
# streams through dom0, on Xen 4.17 in QEMU, with three dom0 kernels that
# differ only in the 2-level scan:
#   lowest   Linux 6.12 with lab/vee/lowest-first.patch (the 2.6.18-era
#            scan; outside the series, for this lab only)
#   base     Linux 6.12 as released
#   series   Linux 6.12 with the series (build/linux)
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
# KERNELS (default "lowest base series"), RUNS (3), SECS (180).  The
# tables and the chart come from lab/vee/vee-report.py: build/out/vee.txt
# and build/out/vee.png; logs in build/logs/vee-*.
set -eEuo pipefail
# The rig's functions (fetch_xen, busybox_root, stage_libs, mkcpio,
# run_qemu); it sources mk/lib.sh.
# shellcheck source=mk/xen-test.sh
. "$(dirname "$0")/xen-test.sh"

VEE=$BUILD/vee
SRC=$VEE/linux
KB=$VEE/kbuild
VLAB=$ROOT/lab/vee
XBUILD=$VEE/xen
XROOT=$XBUILD/root
XEN_ELF=$XBUILD/xen.elf
XEN_PKGS+=(xenstore-utils)
DOM0_KERNEL=$XBUILD/dom0-root/vee/bzImage
KERNELS=${KERNELS:-lowest base series}
VARIANTS=${VARIANTS:-bulk unmoderated noisy}
RUNS=${RUNS:-3}
SECS=${SECS:-180}
GUESTS=7
NOISY_GUEST=1
PORT_BASE=15000
OUT=$BUILD/out

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$RUNS'"
[[ $SECS =~ ^[1-9][0-9]*$ ]] || die "SECS must be a positive number of seconds, not '$SECS'"
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

# boot K V: one QEMU boot of kernel K, variant V; the runs' blocks, with
# dom0's ports filled in, appended to $RESULTS.
boot() {
	local k=$1 v=$2 hostfwd="" i nic=e1000,netdev=n0
	L=$LOGS/vee-$k-$v
	SERIAL=$L-serial.log
	MODE=bulk SENT=0 SENDER_PIDS=()
	[[ $v != small ]] || MODE=small
	for ((i = 1; i <= GUESTS; i++)); do
		hostfwd+=",hostfwd=tcp:127.0.0.1:$((PORT_BASE + i))-10.0.2.$((20 + i)):5001"
	done
	QEMU_MEM=4096
	# shellcheck disable=SC2054 # QEMU's options are comma-separated
	DOM0_ARGS="$DOM0_BASE_ARGS vee.guests=$GUESTS vee.secs=$SECS vee.runs=$RUNS vee.watchdog=$((TIMEOUT - 60))"
	[[ $v != noisy ]] || DOM0_ARGS+=" vee.noisy=$NOISY_GUEST"
	if [[ $v == unmoderated ]]; then
		nic+=,mitigation=off
		DOM0_ARGS+=" e1000.InterruptThrottleRate=0"
	fi
	QEMU_EXTRA=(-netdev "user,id=n0,net=10.0.2.0/24$hostfwd" -device "$nic")
	build_vee_initramfs "$k"
	say "== kernel $k, variant $v: $RUNS run(s) of $SECS s (serial log: $SERIAL)"
	run_qemu
	for i in "${SENDER_PIDS[@]}"; do wait "$i" || true; done
	grep -q 'xen:events: Using 2-level ABI' "$SERIAL" ||
		die "kernel $k: dom0 is not on the 2-level ABI (see $SERIAL)"
	[[ $v != unmoderated ]] || grep -q 'Interrupt Throttling Rate (ints/sec) turned off' "$SERIAL" ||
		die "kernel $k: dom0's e1000 did not turn its interrupt throttling off (see $SERIAL)"
	grep -q '^vee: runs done' "$SERIAL" ||
		die "kernel $k, variant $v: the runs did not finish: $(grep -a -m1 '^vee: error' "$SERIAL" || landmark "$SERIAL") (see $SERIAL)"
	collect "$k" "$v" >>"$RESULTS"
	! grep -q '^unmapped-irq:' "$RESULTS" ||
		warn "some interrupts have no port in Xen's table (unmapped-irq: lines in $RESULTS)"
}

# collect K V: the runs of $SERIAL in vee-report.py's format, the irq
# lines given dom0's port, from Xen's 'e' table: the NIC's is the pirq
# channel of the NIC's IRQ, a vif's the interdomain channel to the guest's
# port of that name.
collect() {
	awk -v k="$1" -v v="$2" '
	/^\(XEN\) Event channel information for domain / { dom = $NF; sub(":", "", dom); next }
	/^\(XEN\) +[0-9]+ \[/ && dom == 0 {
		port = $2
		if (match($0, / d=[0-9]+ p=[0-9]+/)) {
			split(substr($0, RSTART + 1, RLENGTH - 1), a, /[ =]/)
			inter[a[2] "/" a[4]] = port
		} else if (match($0, / p=[0-9]+ i=[0-9]+/)) {
			split(substr($0, RSTART + 1, RLENGTH - 1), a, /[ =]/)
			pirq[a[2]] = port
		}
		next
	}
	/^vee: vif guest=/ {
		for (i = 3; i <= NF; i++) { split($i, a, "="); f[a[1]] = a[2] }
		split($3, g, "="); gd[g[2]] = f["domid"]; gtx[g[2]] = f["tx"]; grx[g[2]] = f["rx"]
		next
	}
	# The flooding guest, from dom0'"'"'s command line (vee.noisy=N).
	/^\[ *[0-9.]+\] Command line: / && !cmdline++ {
		if (match($0, / vee\.noisy=[0-9]+/)) noisy = substr($0, RSTART + 11, RLENGTH - 11)
		next
	}
	/^vee: go run=/ { split($3, a, "="); run = a[2]
		printf "vee: kernel=%s variant=%s run=%s%s\n", k, v, run, noisy ? " noisy=" noisy : ""; next }
	/^vee: guest=/ || /^nic: / { print; next }
	/^irq: irq=/ {
		split($2, a, "="); irq = a[2]; split($3, b, "="); name = b[2]
		port = "?"
		if (name ~ /^eth/ && (irq in pirq)) port = pirq[irq]
		else if (match(name, /^vif[0-9]+/)) {
			d = substr(name, 4, RLENGTH - 3)
			for (n in gd) if (gd[n] == d) {
				key = d "/" (name ~ /-rx$/ ? grx[n] : gtx[n])
				if (key in inter) port = inter[key]
			}
		}
		# vee-report.py reads "irq:" lines only: one without its port
		# stays in the results as "unmapped-irq:".
		printf "%s: port=%s name=%s count=%s\n", port == "?" ? "unmapped-irq" : "irq",
			port, name, substr($4, 7)
	}' "$SERIAL"
}

# report: the tables and the chart again, from the serial logs of the
# boots that finished (make vee-report: a changed vee-report.py, or
# KERNELS/VARIANTS narrowed, without booting anything).
report() {
	local k v n=0 tmp=$RESULTS.tmp
	: >"$tmp"
	for v in $VARIANTS; do
		for k in $KERNELS; do
			SERIAL=$LOGS/vee-$k-$v-serial.log
			if ! grep -qa '^vee: runs done' "$SERIAL" 2>/dev/null; then
				say "kernel $k, variant $v: no finished boot ($SERIAL); left out"
				continue
			fi
			collect "$k" "$v" >>"$tmp"
			n=$((n + 1))
		done
	done
	((n > 0)) || { rm -f "$tmp"; die "no finished boot in $LOGS/vee-*-serial.log (make vee-lab first)"; }
	mv "$tmp" "$RESULTS"
	python3 "$VLAB/vee-report.py" --png "$OUT/vee.png" "$RESULTS" | tee "$OUT/vee.txt"
	say "tables in $OUT/vee.txt, chart $OUT/vee.png, runs in $RESULTS"
}

# ----------------------------------------------------------------- main ---
RESULTS=$LOGS/vee-results.txt
mkdir -p "$LOGS" "$VEE" "$XBUILD" "$OUT"
if [[ ${1:-} == --report ]]; then
	command -v gnuplot >/dev/null || die "gnuplot not found (Debian package gnuplot-nox)"
	report
	exit
fi
PREPLOG=$LOGS/vee-prepare.log
: >"$PREPLOG"
check_host
require_tree
command -v gnuplot >/dev/null || die "gnuplot not found (Debian package gnuplot-nox)"
setup_ccache
for k in $KERNELS; do build_kernel "$k"; done
fetch_xen
build_stress
build_tools
# Each boot: 7 guests' start (about 90 s), then RUNS runs of SECS + about
# 20 s; dom0's watchdog and QEMU's limit leave room for slow machines.
TIMEOUT=$((600 + RUNS * (SECS + 120)))
: >"$RESULTS"
t0=$SECONDS
for v in $VARIANTS; do
	for k in $KERNELS; do boot "$k" "$v"; done
done
python3 "$VLAB/vee-report.py" --png "$OUT/vee.png" "$RESULTS" | tee "$OUT/vee.txt"
say "tables in $OUT/vee.txt, chart $OUT/vee.png, runs in $RESULTS; total $(fmt_time $((SECONDS - t0)))"
