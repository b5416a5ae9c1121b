#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/xen-test.sh: 'make xen-test', the series on a live Xen.
#
# Boots Debian's Xen (Debian 12's 4.17, or XEN=4.20: Debian 13's) under
# QEMU (TCG) with the x86_64 KUnit kernel (build/kunit-x86_64, configured
# with lab/xen/xen-test.config) as PV dom0 with xen.fifo_events=0, and
# judges from the serial log:
#   dom0 boot      Xen (XEN) up, dom0 says "xen:events: Using 2-level ABI"
#   dom0 KUnit     the live suite, an out-of-tree module (lab/live/) built
#                  against the test kernel and loaded by dom0's init: its
#                  KTAP (kunit.py parse), no failure and no skip
#   dom0 stress    evtchn-stress loop in dom0 (TAP)
#   Xen tools      xenstored, xen-init-dom0, xenconsoled started in dom0
#   domU boot      a PV guest running the same kernel (xen.fifo_events=0),
#                  created with xl, reached its init, 2-level ABI
#   domU KUnit     the guest's KTAP, from its console log
#   exchange       events between dom0 and the guest over an interdomain
#                  channel (evtchn-stress serve/peer), none lost
#   guest faults   during the exchange the guest paused and unpaused,
#                  saved and restored (x86: xl save, xl restore; it comes
#                  back as a new domain, and evtchn-stress binds new
#                  ports), its vCPU 1 unplugged and plugged back (xl
#                  vcpu-set); the exchange goes on after each
#   kernel splats  no WARNING/BUG/Oops/Call Trace/UBSAN/hung task/RCU
#                  stall/panic (nor a Xen panic) anywhere in the serial log
#   shutdown       dom0's init finished and powered off in time
#   width bug      (ARCH=arm) the base as released and the base with patch 1
#                  alone, booted as dom0 running evtchn-stress width: the
#                  base must lose events, on ports 2048-4095 only, patch 1
#                  none (XEN_TEST_WIDTH_RUNS=N: N runs of each; figures in
#                  build/out/width.txt, for the cover letter)
#   restore        (x86_64) series (c) live: small PV guests run
#                  evtchn-restore while dom0 saves and restores them, on
#                  both ABIs: Linux as
#                  released must show the bug, with series (c) alone
#                  nothing (figures in build/out/restore.txt)
# then prints "xen-test: N passed, M failed"; non-zero exit on a failure.
# ARCH=arm|arm64 (XEN_ARCH): Debian's Xen for armhf or arm64 and the arm
# or arm64 KUnit kernel (lab/xen/xen-test-arm.config), the guest an Arm
# (PVH-style) guest; dom0's stress then uses every free port (up to 4095).
# dom0's init is lab/xen/dom0-init (the guest's lab/xen/domU-init): the
# stages are between "xen-test: stage NAME begin/end rc=N" markers there.
#
# DEB=path/to/linux-image-*.deb (from 'make deb', or any Debian kernel
# package) boots that package's kernel instead, as dom0 and as the guest,
# with its modules in both initramfs images and loaded by a "modules"
# stage (dom0: those lab/xen/dom0.lsmod names; the guest:
# xen-evtchn); the KUnit stages are reported as not run, not as passed
# (the live suite's module is built for the test kernel only).
# With DOMU=arm32 only dom0 is the package's kernel: the guest is the
# 32-bit test kernel, with its KUnit stage.
# IMAGE=path/to/bzImage (e.g. build/out/bzImage from 'make') boots that
# image the same way, its configuration the "config" beside it (or
# IMAGE_CONFIG=path), its modules the modules-*.tar.xz beside it if any.
# Logs: build/logs/xen-test[-ARCH][-XEN][-DOMU][-deb|-image]-* (xen_test_name).
#
# The rig is mk/xen-rig.sh; the verdict, mk/xen-verdict.sh, which also
# judges a saved serial log alone.
#
# Late is not lost: in evtchn-stress an event that misses its deadline
# (--timeout-ms) is late and reported with its delay; only one still
# missing 60 s after its send (--lost-ms) is lost, and fails the stage.
# The exchange stops early on a time budget (a minute before the guest's
# time is up) rather than run into the limits on a slow host, and dom0's
# diagnostics of a stuck guest run only when the exchange stops advancing.
#
# Environment: XEN_TEST_TIMEOUT (QEMU's hard limit, seconds, default 600;
# 1500 on Arm, 2400 on Arm with a 32-bit guest),
# XEN_TEST_EVENTS (events exchanged, default 10000, 2000 on Arm), XEN_TEST_NO_BUILD=1
# (use the KUnit kernel as it is, never rebuild it), XEN_TEST_LOAD=N (N
# busy processes per host core beside QEMU, default 0: the test under
# load; XEN_TEST_LOAD_NICE=N their nice value, default 0), XEN_TEST_TCG=
# multi|single (QEMU's TCG with a thread per vCPU, the default, or one
# thread for all), XEN_TEST_FAULT=late|stall|lost (test only: the guest answers its
# event 100 8 s late, or 30 s late, so that dom0's diagnostics run, or
# never; the exchange must then pass with one late event, or fail with
# one lost), XEN_TEST_GUEST_FAULTS=0 (no guest-faults stage: by default
# the guest is paused for 3 s, saved and restored (x86), and its vCPU 1
# unplugged and plugged back, during the exchange, which must go on after
# each and lose nothing), XEN_TEST_SAVE=0|1 (the save and restore among
# them: on by default on x86 with the test kernel, off with DEB= or
# IMAGE=, whose kernels may not have series (c)'s fixes, patches 0005
# and 0006).
set -eEuo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
# shellcheck source=mk/xen-rig.sh
. "$ROOT/mk/xen-rig.sh"
# shellcheck source=mk/xen-verdict.sh
. "$ROOT/mk/xen-verdict.sh"
# A command that ends the script under set -e says which, and where (once,
# a make check run on a new machine stopped here without a word).
trap 'echo "$PROG: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR

# XEN_ARCH (make xen-test ARCH=...): x86_64 (PV dom0 and guest), arm
# (Xen armhf, 32-bit dom0 and guest) or arm64 (Xen arm64, 64-bit dom0).
# DEB= or IMAGE=: the kernel (not left in the environment of what runs).
[[ -z ${DEB:-} || -z ${IMAGE:-} ]] || die "DEB= and IMAGE= name two kernels: give one"
[[ -z ${KERNEL:-} ]] || die "KERNEL= is now DEB= (a .deb) or IMAGE= (a kernel image)"
PKG='' PKG_KIND=''
if [[ -n ${DEB:-} ]]; then
	PKG=$DEB PKG_KIND=deb
elif [[ -n ${IMAGE:-} ]]; then
	PKG=$IMAGE PKG_KIND=image
fi
unset DEB IMAGE
# The XEN_TEST_* variables (mk/args.sh checked them too, for make).
err=$(xen_test_args "${XEN_ARCH:-x86_64}" "$PKG")
[[ -z $err ]] || die "$err"
GUEST32=0
[[ ${DOMU:-pv} != arm32 ]] || GUEST32=1
rig_init '' # the default directory
verdict_init
# Under TCG an Arm machine runs several times slower than an x86 one:
# longer limits there, and a longer wait for an event in evtchn-stress.
# A 32-bit guest runs a stress of its own too: 2400 s on Arm.
TIMEOUT=600
((!FOREIGN)) || TIMEOUT=$( ((GUEST32)) && echo 2400 || echo 1500)
TIMEOUT=${XEN_TEST_TIMEOUT:-$TIMEOUT}
STRESS_TIMEOUT_MS=$( ((FOREIGN)) && echo 20000 || echo 2000)
# 2000 round trips take about 15 s in an Arm guest under TCG (10000 on x86).
EVENTS=${XEN_TEST_EVENTS:-$( ((FOREIGN)) && echo 2000 || echo 10000)}
# dom0's evtchn-stress loop: every free port (XEN_TEST_PORTS: max), up to
# 4095, words 0-63 (on Arm ports 2048-4095, words 32-63, are the width
# bug's), or XEN_TEST_PORTS ports.
STRESS_PORTS=${XEN_TEST_PORTS:-max}
LOAD=${XEN_TEST_LOAD:-0}
LOAD_NICE=${XEN_TEST_LOAD_NICE:-0}
# TCG: rig_init's, from XEN_TEST_TCG (multi by default).
[[ $TCG != single ]] || QEMU=("${QEMU[@]/#tcg/tcg,thread=single}")
# Named threads ("CPU 0/TCG"), for qemu_tick's view of them.
QEMU_EXTRA+=(-name "xen-test,debug-threads=on")
FAULT=${XEN_TEST_FAULT:-none}
DOM0_ARGS="$DOM0_BASE_ARGS $KUNIT_ON_XEN xentest.events=$EVENTS xentest.watchdog=$((TIMEOUT - 60))"
DOM0_ARGS+=" xentest.guest=$((TIMEOUT / 2)) xentest.timeout=$STRESS_TIMEOUT_MS xentest.ports=$STRESS_PORTS"
GUEST_FAULTS=${XEN_TEST_GUEST_FAULTS:-1}
DOM0_ARGS+=" xentest.lost=60000 xentest.fault=$FAULT xentest.faults=$GUEST_FAULTS"
FAULTS=$GUEST_FAULTS
# The guest saved and restored during the exchange (x86: Xen on Arm cannot
# save a guest), by default with the test kernel, whose series (c)
# (patches 0005 and 0006) fixes the BUG and the lost ports that the
# kernels as released hit there (DEB= and IMAGE=: XEN_TEST_SAVE=1 to try them).
SAVE=${XEN_TEST_SAVE:-$([[ $XEN_ARCH == x86_64 && -z $PKG && $FAULTS == 1 ]] && echo 1 || echo 0)}
DOM0_ARGS+=" xentest.save=$SAVE"
# DOMU=arm32 (arm64): a 32-bit Arm guest of Xen arm64, the arm KUnit kernel
# (lab/xen/domU-arm32.cfg, guest32_prepare in mk/xen-rig.sh), whose
# xen_ulong_t is 64 bits and unsigned long 32 (patch 1's geometry), with
# a stress of its own over every free port up to 4095 (a "domU stress"
# stage).
DOM0_ARGS+=" xentest.domu=${DOMU:-pv}"
[[ ${DOMU:-pv} != arm32 ]] || GUEST_KIND=ARM32

# DEB= or IMAGE=: logs named xen-test-deb-* or -image-*, apart from the
# test kernel's.
L=$LOGS/$(xen_test_name "$XEN_ARCH" "$XEN_SERIES" "${DOMU:-pv}")${PKG_KIND:+-$PKG_KIND}
SERIAL=$L-serial.log
PREPLOG=$L-prepare.log

# ------------------------------------------------------------ width bug ---
# Patch 1's bug shown live (make xen-test ARCH=arm): the base as released
# and the base with patch 1 alone (as stable would apply it), each booted
# as dom0 running only evtchn-stress width (xentest.mode=width).  Both are
# built with the test kernel's configuration in $XBUILD/width/kbuild, from
# a worktree of build/linux in $XBUILD/width/linux (stage_kernel).  XEN_TEST_WIDTH=0|1 turns the stage off or on (on by
# default for ARCH=arm without DEB= or IMAGE=).  With ARCH=arm64
# DOMU=arm32 the stage runs in the 32-bit Arm guest instead: the two
# kernels are built with the guest's configuration and each boots as the
# guest of the test kernel's dom0, which runs no other stage
# (xentest.widthin=domu); on by default there too.
WIDTH=${XEN_TEST_WIDTH:-$([[ ($XEN_ARCH == arm || ($XEN_ARCH == arm64 && $GUEST32 == 1)) && -z $PKG ]] && echo 1 || echo 0)}
WIDTH_IN=$( ((GUEST32)) && echo domu || echo dom0)
WIDTH_RUNS=${XEN_TEST_WIDTH_RUNS:-1}
WIDTH_ROUNDS=2000

# stage_kernel DIR ARCH CONFIG NAME REV [COMMIT...]: a kernel of a live
# stage, REV of build/linux with each COMMIT's change applied, built with
# the configuration CONFIG (a test kernel's .config) in DIR/kbuild from
# the worktree DIR/linux; in STAGE_IMAGE (DIR/NAME-KEY-SUM.IMAGE, built
# if missing), or STAGE_ERR says why not.  The worktree takes the test
# kernel's drivers/xen/Kconfig: it only adds the KUnit suite's symbol,
# which no code reads without the suite, and makes the worktree's
# autoconf.h the test kernel's; with the path from the objects to their
# sources that of the test kernel's (../linux), ccache serves every
# object the trees share, so a cold run compiles only the others.
stage_kernel() {
	local dir=$1 arch=$2 config=$3 name=$4 rev=$5 wt=$1/linux obj=$1/kbuild log key sum c image
	shift 5
	log=$L-${dir##*/}-build.log
	image=$(arch_field "$arch" image)
	key=$(git -C "$LINUX" rev-parse "$rev" "$@" | sha256sum | cut -c1-12)
	sum=$(cat "$config" "$LINUX/drivers/xen/Kconfig" | sha256sum | cut -c1-12)
	STAGE_IMAGE=$dir/$name-$key-$sum.${image##*/}
	STAGE_ERR=
	[[ ! -f $STAGE_IMAGE ]] || return 0
	mkdir -p "$obj"
	linux_worktree "$wt" "$rev" >>"$log" 2>&1 ||
		{ STAGE_ERR="cannot check $rev out in the worktree $wt (see $log)"; return 1; }
	for c in "$@"; do
		git -C "$LINUX" diff "$c^" "$c" | git -C "$wt" apply >>"$log" 2>&1 ||
			{ STAGE_ERR="$(git -C "$LINUX" log -1 --format='%h %s' "$c") does not apply on $rev (see $log)"; return 1; }
	done
	cp "$LINUX/drivers/xen/Kconfig" "$wt/drivers/xen/Kconfig"
	cmp -s "$config" "$obj/.config.test" || cp "$config" "$obj/.config.test"
	[[ $obj/.config -nt $obj/.config.test ]] || cp "$obj/.config.test" "$obj/.config"
	say "building the $name kernel ($(git -C "$LINUX" log -1 --format='%h %s' "$rev")$( (($#)) && echo " + $# commit(s)")) in ${obj#"$ROOT"/}; log: $log"
	setup_ccache
	kmake "$wt" "$obj" "$arch" olddefconfig >>"$log" 2>&1 </dev/null ||
		{ STAGE_ERR="the $name kernel could not be configured (see $log)"; return 1; }
	start_ticker "$PROG" count_compiled "$log"
	kmake "$wt" "$obj" "$arch" -j"$(nproc)" "${image##*/}" >>"$log" 2>&1 </dev/null ||
		{ stop_ticker; STAGE_ERR="the $name kernel did not build (see $log)"; return 1; }
	stop_ticker
	cp "$obj/$image" "$STAGE_IMAGE.tmp"
	mv "$STAGE_IMAGE.tmp" "$STAGE_IMAGE"
}

# width_kernel NAME REV: stage_kernel's kernel of the width stage, with
# the configuration of the kernel it stands in for (dom0's or the guest's).
width_kernel() {
	local config=$KCONFIG_FILE
	[[ $WIDTH_IN == dom0 ]] || config=$GUEST32_CONFIG
	stage_kernel "$XBUILD/width" arm "$config" "$@"
}

# width_run NAME KERNEL: boots KERNEL as dom0 with xentest.mode=width;
# sets WIDTH_LINE (evtchn-stress width's line), WIDTH_RC and WIDTH_LOG.
# (The main run's QEMU_TIME, QEMU_STATUS and logs are kept.)
width_run() {
	local serial=$L-width-$1-serial.log splat qtime=${QEMU_TIME:-0} qstatus=${QEMU_STATUS:-0}
	WIDTH_LOG=$serial
	if [[ $WIDTH_IN == dom0 ]]; then
		run_qemu "$2" "$DOM0_ARGS xentest.mode=width xentest.watchdog=420 xentest.rounds=$WIDTH_ROUNDS" \
			"$serial" 480
	else
		# The kernel as the guest's: dom0's initramfs with it.
		GUEST32_IMAGE=$2
		build_initramfs
		run_qemu "$DOM0_KERNEL" "$DOM0_ARGS xentest.mode=width xentest.widthin=domu xentest.watchdog=840 xentest.guest=600 xentest.rounds=$WIDTH_ROUNDS" \
			"$serial" 900
	fi
	QEMU_TIME=$qtime QEMU_STATUS=$qstatus
	WIDTH_RC=$(marker_rc "$serial" width)
	WIDTH_LINE=$(between "$serial" width | grep -m1 '^width: ') || true
	if [[ -z $WIDTH_LINE ]]; then
		WIDTH_LINE="no 'width:' line ($(rc_text "$WIDTH_RC"): $(between "$serial" width | tail -n 1))"
	fi
	# The splat rules of the main run: a splat fails the run.
	splat=$(splats "$serial")
	if [[ -n $splat ]]; then
		WIDTH_RC="splat"
		WIDTH_LINE="a kernel splat: $(head -n 1 <<<"$splat")"
	fi
}

# width_fields LINE: "LOST ROUNDS SECONDS FIRST LAST" of a width: line
# (SECONDS: of the rounds; FIRST..LAST: the lost ports' range, if any).
width_fields() {
	sed -nE 's/^width: rounds ([0-9]+), .* lost ([0-9]+)( \(ports ([0-9]+)\.\.([0-9]+):[^)]*\))?, late [0-9]+, ([0-9.]+) s of rounds.*/\2 \1 \6 \4 \5/p' <<<"$1"
}

# width_stage: in every one of WIDTH_RUNS runs, the base must lose events,
# on ports 2048-4095 only, and the base with patch 1 none.  Each run's
# line goes to $L-width.log.
width_stage() {
	local base p1 i ok=1 lost rounds secs lo hi what="width bug" name
	local base_img p1_img wlog=$L-width.log bl=() br=() bs=() plo=0 pr=0
	base=$(git -C "$LINUX" rev-list --max-parents=0 HEAD)
	p1=$(git -C "$LINUX" rev-list --reverse "$base..HEAD")
	p1=${p1%%$'\n'*}
	name=$(git -C "$LINUX" log -1 --format=%s "$base" | sed 's/ (.*//')
	if [[ $(git -C "$LINUX" log -1 --format=%s "$p1") != *"selector bits 32-63"* ]]; then
		fail "$what" "the first commit after the base, $(git -C "$LINUX" log -1 --format='%h %s' "$p1"), is not the selector fix"
		return
	fi
	if ! width_kernel base "$base"; then
		fail "$what" "$STAGE_ERR"
		return
	fi
	base_img=$STAGE_IMAGE
	if ! width_kernel patch1 "$p1"; then
		fail "$what" "$STAGE_ERR"
		return
	fi
	p1_img=$STAGE_IMAGE
	: >"$wlog"
	for ((i = 1; i <= WIDTH_RUNS; i++)); do
		say "width run $i/$WIDTH_RUNS: $name as released"
		width_run base "$base_img"
		echo "run $i, base: $WIDTH_LINE" >>"$wlog"
		read -r lost rounds secs lo hi <<<"$(width_fields "$WIDTH_LINE")" || true
		if [[ $WIDTH_RC != 0 || -z ${lost:-} || $lost == 0 ]] || ((lo < 2048 || hi > 4095)); then
			ok=0
			say "  base: not the bug (want events lost, on ports 2048-4095 only): $WIDTH_LINE (log: $WIDTH_LOG)"
		else
			say "  base: $lost events lost, ports $lo..$hi, in $rounds rounds ($secs s)"
			bl+=("$lost") br+=("$rounds") bs+=("$secs")
		fi
		say "width run $i/$WIDTH_RUNS: $name with patch 1 alone"
		width_run patch1 "$p1_img"
		echo "run $i, base + patch 1: $WIDTH_LINE" >>"$wlog"
		read -r lost rounds secs lo hi <<<"$(width_fields "$WIDTH_LINE")" || true
		if [[ $WIDTH_RC != 0 || ${lost:-} != 0 || ${rounds:-} != "$WIDTH_ROUNDS" ]]; then
			ok=0
			say "  patch 1: want 0 lost in $WIDTH_ROUNDS rounds: $WIDTH_LINE (log: $WIDTH_LOG)"
		else
			say "  patch 1: 0 lost in $rounds rounds ($secs s)"
			plo=$((plo + lost)) pr=$((pr + rounds))
		fi
	done
	local out=$BUILD/out/width.txt base_sum p1_sum lost_line where="dom0 with xen.fifo_events=0 runs evtchn-stress"
	if [[ $WIDTH_IN == domu ]]; then
		out=$BUILD/out/width-arm32-guest.txt
		where="a 32-bit Arm guest of it, xen.fifo_events=0, runs evtchn-stress"
	fi
	mkdir -p "$BUILD/out"
	rm -f "$out"
	if ((ok)); then
		# "32 lost in 38 rounds (8.4 s)", or its ranges over the runs.
		span() { printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd- | sed -E 's/^([^-]*)-\1$/\1/'; }
		lost_line="$(span "${bl[@]}") lost in $(span "${br[@]}") rounds ($(span "${bs[@]}") s)"
		base_sum="$lost_line, on ports 2048-4095 only, in each of $WIDTH_RUNS run(s)"
		p1_sum="$plo lost in $pr rounds ($WIDTH_RUNS run(s) of $WIDTH_ROUNDS)"
		{
			echo "Patch 1's bug live (make xen-test ARCH=$XEN_ARCH${DOMU:+ DOMU=$DOMU}): Xen $(<"$XROOT/.version") $DEB_ARCH"
			echo "under QEMU TCG, 2 vCPUs; $where"
			echo "width (a port in each word 32-63 and two in each word 1-31 on vCPU 0, a"
			echo "low and a high one raised together from vCPU 1):"
			echo "  $name as released: $lost_line,"
			echo "    on ports 2048-4095 only, in each of $WIDTH_RUNS run(s)"
			echo "  with patch 1 alone: $p1_sum"
		} >"$out"
		pass "$what" "$name: $base_sum; with patch 1: $p1_sum (figures: ${out#"$ROOT"/}, lines: $wlog)"
	else
		fail "$what" "see the lines above, $wlog and $L-width-{base,patch1}-serial.log"
	fi
}

# -------------------------------------------------------------- restore ---
# Series (c) shown live (x86_64; Xen on Arm cannot save a guest): PV
# guests run evtchn-restore, series (c)'s reproducer, with RESTORE_PAIRS
# loopback pairs, while dom0 saves and restores them, on both ABIs
# (xen.fifo_events=0 and 1), in one boot of Xen with the test kernel as
# dom0 (xentest.mode=restore).  Their kernels, of the test kernel's
# configuration (stage_kernel), are built in $XBUILD/restore/kbuild from
# a worktree of build/linux: the base as released, with series (c)'s
# first K patches, and with all of them (restore_stage says what each
# must show).
# XEN_TEST_RESTORE=0|1 turns it off or on (on by default for x86_64
# with the PV guest, DOMU=pv, and without DEB= or IMAGE=); figures in
# build/out/restore.txt.
RESTORE=${XEN_TEST_RESTORE:-$([[ $XEN_ARCH == x86_64 && -z $PKG && ${DOMU:-pv} == pv ]] && echo 1 || echo 0)}
RESTORE_PAIRS=600


# restore_section SERIAL LABEL: run LABEL's guest console, as dom0-init
# printed it.
restore_section() {
	awk -v b="xen-test: restore $2 console begin" -v e="xen-test: restore $2 console end" \
		'index($0, e) == 1 { f = 0 } f { print } index($0, b) == 1 { f = 1 }' "$1"
}

# restore_stage: the runs below in one boot.  Linux as released, on each
# ABI, must show a bug (a kernel BUG or WARNING in drivers/xen, or a port
# it cannot unbind); the base with series (c)'s first K patches (K < 4)
# must show the bug patch K+1 fixes, as its changelog says (patch 2's:
# the new bind's EEXIST and then the old ports' ENOTCONN; patch 3's, on
# the FIFO ABI: an old port from 1024 on that cannot be unbound, EINVAL;
# patch 4's: a WARNING in evtchn_put()); series (c) whole, on each ABI,
# must unbind every port, with no splat, after each of two saves and
# restores.  (Not xl migrate: Debian's Xen is built without
# CONFIG_SHADOW_PAGING, and a PV guest's live migration needs log-dirty
# mode, which needs shadow paging: "Failed to enable logdirty: 95".)
restore_stage() {
	local what="restore" serial=$L-restore-serial.log base c runs=() ok=1 run label kernel abi
	local sec line splat n saves out=$BUILD/out/restore.txt lines=() evtchn=() k img expect i
	local -A image=() pattern=()
	base=$(git -C "$LINUX" rev-list --max-parents=0 HEAD)
	read_series
	mapfile -t c < <(git -C "$LINUX" rev-list --reverse "$base..HEAD")
	for i in "${!E_PART[@]}"; do
		[[ ${E_PART[i]} != evtchn ]] || evtchn+=("${c[i]}")
	done
	((${#evtchn[@]} == 4)) ||
		{ fail "$what" "series evtchn of patches/series has ${#evtchn[@]} patches, not the 4 this stage knows"; return; }
	# The kernels: released, p1 .. p3 (the first K patches), fixed.
	for k in 0 1 2 3 4; do
		stage_kernel "$XBUILD/restore" x86_64 "$KCONFIG_FILE" "restore-$k" "$base" "${evtchn[@]:0:k}" ||
			{ fail "$what" "$STAGE_ERR"; return; }
		image[$k]=$STAGE_IMAGE
	done
	# What each run must show (an extended grep of its console), and
	# the runs: LABEL KERNEL ABI SAVES.
	pattern[released]='kernel BUG at (\.\./linux/)?drivers/xen/|WARNING: .*drivers/xen/|unbind of old port [0-9]+: '
	pattern[p1]='unbind of old port [0-9]+: Transport endpoint is not connected'
	pattern[p12]='unbind of old port (102[4-9]|10[3-9][0-9]|1[1-9][0-9]{2}|[2-9][0-9]{3}): Invalid argument'
	pattern[p123]='WARNING: .*drivers/xen/events/events_base.c.*evtchn_put'
	runs=("released-2level /xen-test/restore-0 0 1"
		"released-fifo /xen-test/restore-0 1 1"
		"p1-2level /xen-test/restore-1 0 1"
		"p12-fifo /xen-test/restore-2 1 1"
		"p123-2level /xen-test/restore-3 0 1"
		"fixed-2level /xen-test/restore-4 0 2"
		"fixed-fifo /xen-test/restore-4 1 2")
	printf '%s\n' "${runs[@]}" >"$XBUILD/restore.runs"
	RESTORE_INSTALL=("$XBUILD/restore.runs:restore.runs" "$LAB/domU-restore.cfg:domU-restore.cfg")
	for k in "${!image[@]}"; do
		RESTORE_INSTALL+=("${image[$k]}:restore-$k")
	done
	build_initramfs
	say "restore stage: Linux as released, with series (c)'s first 1, 2 and 3 patches, and with all 4, as guests saved and restored (${#runs[@]} runs, one boot)"
	run_qemu "$DOM0_KERNEL" "$DOM0_ARGS xentest.mode=restore xentest.pairs=$RESTORE_PAIRS xentest.watchdog=1700" \
		"$serial" 1800
	RESTORE_INSTALL=()
	for run in "${runs[@]}"; do
		read -r label kernel abi saves <<<"$run"
		sec=$(restore_section "$serial" "$label")
		abi=$( [[ $abi == 0 ]] && echo 2-level || echo FIFO)
		if [[ $label != fixed-* ]]; then
			expect=${pattern[${label%-*}]}
			line=$(grep -aE -m1 "$expect" <<<"$sec") || true
			if [[ -n $line ]]; then
				say "  $label: as expected: $line"
				lines+=("  ${label%-*} ($abi): $line")
			else
				ok=0
				say "  $label: no line matching '$expect': $(tail -n 3 <<<"$sec" | paste -sd'|') (log: $serial)"
			fi
			continue
		fi
		splat=$(grep -aE "$SPLATS|kernel BUG at" <<<"$sec" | head -n 1) || true
		n=$(grep -ac '^evtchn-restore: ok$' <<<"$sec") || true
		if [[ -n $splat || $n != "$saves" ]]; then
			ok=0
			say "  $label: want $saves times \"evtchn-restore: ok\" and no splat: $n; ${splat:-no splat} (log: $serial)"
		else
			say "  $label: every port unbound after each of $saves saves, no splat"
			lines+=("  series (c) ($abi): \"evtchn-restore: ok\" after each of $saves saves and restores, no splat")
		fi
	done
	mkdir -p "$BUILD/out"
	rm -f "$out"
	if ((ok)); then
		{
			echo "Series (c) live (make xen-test): Xen $(<"$XROOT/.version") $DEB_ARCH under QEMU TCG;"
			echo "PV guests (the test kernel's configuration) run evtchn-restore $RESTORE_PAIRS (loopback pairs, and a"
			echo "gntalloc page notifying the first port) while dom0 saves and restores them (xl save,"
			echo "xl restore).  Linux as released, with series (c)'s first 1 (p1), 2 (p12) and 3"
			echo "(p123) patches, and whole:"
			printf '%s\n' "${lines[@]}"
		} >"$out"
		pass "$what" "released: a bug on both ABIs; p1, p12, p123: the next patch's bug; series (c): every port unbound after each of two saves and restores, on both ABIs (figures: ${out#"$ROOT"/}, log: $serial)"
	else
		fail "$what" "see the lines above and $serial"
	fi
}

# start_load: XEN_TEST_LOAD busy processes per host core (lib.sh's
# load_start), each ending by itself once this script is gone.
start_load() {
	local n=$((LOAD * $(nproc)))
	((n)) || return 0
	load_start "$n" "$LOAD_NICE"
	say "load: $n busy processes beside QEMU (XEN_TEST_LOAD=$LOAD on $(nproc) cores, nice $LOAD_NICE)"
}

# qemu_tick RAW NAME (run_qemu's, each second): the host's view of QEMU's
# vCPU threads, cumulative (/proc/PID/task/TID/schedstat: ns run, ns
# waited for a host CPU), a line a second in NAME-qemu-sched.log
# ($L-qemu-sched.log for the main run); qemu_sched_summary
# then says how long they waited in all and in the worst second.
qemu_tick() {
	local q t comm run wait line=$SECONDS
	q=$(pgrep -P "$QEMU_PID" 2>/dev/null | head -n 1) || return 0
	# QEMU may be exiting: a thread (or QEMU) gone between the glob and
	# the reads is skipped.  Not $(<file): under set -e a failed
	# redirection there ends the script, "|| continue" or not.
	for t in /proc/"$q"/task/*; do
		comm=$(cat "$t/comm" 2>/dev/null) || continue
		[[ $comm == *TCG* ]] || continue
		{ read -r run wait _ <"$t/schedstat"; } 2>/dev/null || continue
		line+=" ${comm// /_}=$run:$wait"
	done
	# None read (QEMU exiting): no line, which the summary would take for
	# counters back at zero.
	[[ $line == *=* ]] || return 0
	echo "$line" >>"$2-qemu-sched.log"
}
qemu_sched_summary() {
	[[ -s $L-qemu-sched.log ]] || return 0
	awk -v tcg="$TCG" '{
		r = 0; w = 0
		for (i = 2; i <= NF; i++) { split($i, a, /[=:]/); r += a[2]; w += a[3] }
		if (n++ && w - pw > worst) { worst = w - pw; at = $1 - t0 }
		if (n == 1) { t0 = $1; r0 = r; w0 = w }
		pw = w; pr = r; t = $1 - t0
	} END {
		if (n < 2) exit
		printf "host: QEMU vCPU threads (TCG %s) ran %.1f s, waited for a host CPU %.1f s, in %d s; worst second: %.2f s of waiting, at %d s\n",
			tcg, (pr - r0) / 1e9, (pw - w0) / 1e9, t, worst / 1e9, at
	}' "$L-qemu-sched.log"
}

# ----------------------------------------------------------------- main ---
main() {
	rig_prepare
	((!GUEST32)) || guest32_prepare
	[[ -z $MODDIR ]] || WITH_MODULES=1
	build_initramfs
	say "kernel: ${BZIMAGE#"$ROOT"/} ($(date -r "$BZIMAGE" '+%F %T'))"
	say "initramfs: $XBUILD/dom0.cpio.gz ($(du -h "$XBUILD/dom0.cpio.gz" | cut -f1)), guest: $XBUILD/domU$( ((!GUEST32)) || echo 32).cpio.gz"
	start_load
	rm -f "$L-qemu-sched.log"
	run_qemu "$DOM0_KERNEL" "$DOM0_ARGS" "$SERIAL" "$TIMEOUT"
	QEMU_SCHED=$(qemu_sched_summary)
	[[ -z $QEMU_SCHED ]] || say "$QEMU_SCHED"
	split_logs
	judge
	((!WIDTH)) || width_stage
	((!RESTORE)) || restore_stage
	load_stop
	say "logs: $L-serial.log (the whole serial console), $L-{dom0,domU}.log,"
	if ((HAS_KUNIT)); then
		say "      $L-{dom0,domU}-ktap.log, $L-{dom0,domU}-kunit.txt,"
	elif ((GUEST32)); then
		say "      $L-domU-ktap.log, $L-domU-kunit.txt,"
	fi
	say "      $L-dom0-stress.log,$( ((!GUEST32)) || echo " $L-domU-stress.log,") $L-exchange.log"
	say "total time $(fmt_time "$SECONDS") (QEMU $(fmt_time "$QEMU_TIME"))"
	echo "xen-test: $PASSED passed, $FAILED failed"
	((FAILED == 0)) || exit 1
}

# One line: bash reads a script as it runs it, and an edit of this file
# during a run must not feed it more.
main; exit
