#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/xen-verdict.sh: make xen-test's verdict, from the serial log alone.
#
#   mk/xen-verdict.sh [--arch A] [--kernel NAME] [--modules] [--no-kunit]
#                     [--qemu-status N] [--qemu-time S] [--out PREFIX]
#                     SERIAL.log
#
# judges a saved serial log of make xen-test as the test does: a line per
# stage ("STAGE: ..." or "STAGE: FAILED: ..."), then "xen-test: N passed,
# M failed"; exit 1 on a failure, 2 on bad input (one line).  The
# exchange's count, the stress's ports and the time limit come from dom0's
# command line in the log (xentest.events=, xentest.ports=,
# xentest.watchdog=); --arch (x86_64, the default, arm or arm64) the
# architecture; --kernel NAME a DEB= or IMAGE= kernel's run (named in the
# boot line), --modules its modules stages (dom0's and the guest's) to be
# judged; --no-kunit a kernel without the suite; --qemu-status and
# --qemu-time how QEMU ended (default 0, as after a power-off); --out
# PREFIX where the split logs go (default: beside a run's own log in
# build/logs/, the log's name without -serial.log; for a log elsewhere,
# e.g. lab/xen/tests/, build/logs/verdict/NAME, so that nothing is written
# into the repo).  lab/xen/test-verdict.sh tests it on saved logs.
#
# Sourced (by mk/xen-test.sh, after mk/lib.sh), it
# only defines: verdict_init, judge and its pieces (splats, marker_rc,
# between, kunit_stage, tap_counts).

# On Xen the built-in suite, xen_evtchn_2l, runs at boot and must skip
# every case (it would swap in a fake shared_info that other CPUs scan;
# the bare KUnit runs cover it), and the live suite's module runs later.
KUNIT_ON_XEN="kunit.filter_glob=xen_evtchn_2l*"

# verdict_init: the rules for XEN_ARCH (FOREIGN, from rig_init), and the
# counts at 0.  judge also reads SERIAL, L (the split logs' prefix), PKG
# (a DEB= or IMAGE= kernel's name), WITH_MODULES (1: its modules stages),
# HAS_KUNIT, EVENTS, STRESS_PORTS, TIMEOUT, QEMU_STATUS, QEMU_TIME and
# FAULTS (1: the guest-faults stage ran and is judged).
verdict_init() {
	WITH_MODULES=0
	FAULTS=0
	SPLATS='WARNING:|BUG:|Oops|Call Trace|UBSAN|blocked for more than|detected stall|Kernel panic'
	# Xen's own: a panic, a BUG, an assertion; and a guest that Xen saw
	# crash, whose kernel may say nothing (its console just stops): a
	# vCPU's triple fault, a domain_crash().
	XEN_SPLATS='\(XEN\) (Panic on CPU|Xen BUG at|Assertion .* failed|FATAL |d[0-9]+v[0-9]+ Triple fault|.*domain_crash called from)'
	PASSED=0 FAILED=0
	# On Arm no VIRQ_TIMER port exists (only x86 binds one): the live suite
	# has no timer_first case there; in logs from before it left the
	# series (tests/arm-serial.log) the case skipped, saying so, and only
	# that skip is allowed.
	ALLOWED_SKIP=
	GUEST_KIND=PV
	if ((FOREIGN)); then
		ALLOWED_SKIP='evtchn_2l_live_test_timer_first # SKIP .*VIRQ_TIMER.*only x86'
		GUEST_KIND="Arm guest"
	fi
}

# stress_stage NAME LOG STAGE MINTOP WORDS PORTS: evtchn-stress loop's
# stage STAGE in LOG (TAP, then the program's closing line "ports A..B,
# ..."): passed with no failure, and, when it was asked for every free
# port (PORTS max), B at least MINTOP, so that WORDS were all in use.
stress_stage() {
	local name=$1 log=$2 stage=$3 mintop=$4 words=$5 ports=$6 rc out n line top
	rc=$(marker_rc "$log" "$stage")
	out=$(between "$log" "$stage")
	printf '%s\n' "$out" >"$L-$stage.log"
	n=$(tap_counts "$out")
	line=$(grep -m1 '^evtchn-stress: ports' <<<"$out" | sed 's/^evtchn-stress: //') || true
	top=$(sed -n 's/^ports [0-9]*\.\.\([0-9]*\),.*/\1/p' <<<"$line")
	if ! [[ $rc == 0 && $n =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ 0\ skipped$ ]]; then
		fail "$name" "$(rc_text "$rc"), $n (see $L-$stage.log)"
	elif [[ $ports == max ]] && ((${top:-0} < mintop)); then
		fail "$name" "ports up to ${top:-?} only: $words must all be in use (see $L-$stage.log)"
	else
		pass "$name" "$n (evtchn-stress loop: ${line:-no summary line})"
	fi
}

# splats LOG: the lines of LOG (numbered) that break the splat rules: a
# kernel's SPLATS outside Xen's own lines and outside dom0's diagnostics
# of a stuck guest (xenctx prints its stacks as "Call Trace:"), then
# Xen's XEN_SPLATS.
splats() {
	timing_reports keep "$1" | sed -E 's/(.)\(XEN\) .*/\1/' |
		{ grep -aE "^[0-9]+:.*($SPLATS)" | grep -av '^[0-9]*:(XEN)'; } || true
	grep -anE "$XEN_SPLATS" "$1" || true
}

# timing_reports keep|late|unplug|dlserver LOG: the kernel's reports of
# a busy host's timing below, which are not faults: keep: LOG's lines
# (numbered) without them and without dom0's diagnostics of a stuck
# guest; late, unplug, dlserver: the first line of each report of a
# vCPU's bring-up, of an unplug, of the deadline server's timer.
# Left out, as timing, not a fault, on a busy host:
# - the warnings of a CPU bring-up that timed out: within 200 lines
#   after a kernel's "CPUn: failed to come online" (a vCPU plugged back
#   in did not run within the kernel's deadline), each "cut here" block
#   whose trace goes through _cpu_up() (the rollback of that bring-up);
# - an RCU stall report ("rcu: INFO: rcu_... detected stalls") whose
#   stalled CPUs include one the kernel then reports "CPUn killed." for,
#   within 80 lines and with no "cut here", BUG or Oops in between: a
#   vCPU unplug (xl vcpu-set) that took longer than RCU's stall timeout,
#   its timers (the grace-period kthread's among them) held until the
#   CPU is dead;
# - the scheduler's warning in hrtimer_forward() called from
#   dl_task_timer() (a "cut here" block whose WARNING is in
#   hrtimer_forward and whose trace goes through dl_task_timer): 7.3.4's
#   deadline server finding its timer queued again while its callback
#   runs, seen on the 32-bit Arm dom0 with make xen-test
#   XEN_TEST_LOAD=2, in the tick, with no Xen or event channel function
#   in the trace.
# Any other report there counts.
timing_reports() {
	awk -v mode="$1" '
		function out(line) { if (mode == "keep" && !d) printf "%s\n", line }
		function out_blk() { if (mode == "keep" && !d) printf "%s", blk; b = 0 }
		function flush_rcu(  n, i, a) {
			n = split(rbuf, a, "\n")
			for (i = 1; i < n; i++) out(a[i])
			r = 0; rbuf = ""
		}
		/^xen-test: domU diagnostics begin/ { d = 1 }
		/CPU[0-9]+: failed to come online/ { hp = NR + 200 }
		!r && !b && /rcu: INFO: rcu_[a-z]+ detected stalls on CPUs\/tasks/ {
			r = 1; rn = 0; rbad = 0; rbuf = ""; rcpus = " "
			rfirst = sprintf("%d:%s", NR, $0)
		}
		r {
			if (/^CPU[0-9]+ killed\./) {
				c = $0; sub(/^CPU/, "", c); sub(/ .*/, "", c)
				if (index(rcpus, " " c " ") && !rbad) {
					if (mode == "unplug") print rfirst
					r = 0; rbuf = ""
				} else {
					flush_rcu()
				}
			} else {
				if (/^rcu:[ \t]+[0-9]+-/) {
					c = $0; sub(/^rcu:[ \t]+/, "", c); sub(/-.*/, "", c)
					rcpus = rcpus c " "
				}
				if (/-+\[ cut here \]-+|BUG:|Oops/) rbad = 1
				rbuf = rbuf sprintf("%d:%s", NR, $0) "\n"
				if (++rn > 80) flush_rcu()
				next
			}
		}
		# A block that never ends (a panic), or one cut by the next, is kept.
		b && /-+\[ cut here \]-+/ { out_blk() }
		/-+\[ cut here \]-+/ { b = 1; blk = ""; first = ""; inhp = NR <= hp }
		b {
			line = sprintf("%d:%s", NR, $0)
			blk = blk line "\n"
			if (first == "" && /WARNING:|BUG:/) first = line
			if (/---\[ end trace/) {
				b = 0
				late = inhp && blk ~ /[ :]_cpu_up\+/
				dls = first ~ /WARNING: .*hrtimer\.c:[0-9]+ at hrtimer_forward\+/ &&
					blk ~ /[ :]dl_task_timer\+/ && blk !~ /xen|evtchn/
				if (mode == "keep" && !d && !late && !dls) printf "%s", blk
				if (mode == "late" && late) print first
				if (mode == "dlserver" && dls) print first
			}
			next
		}
		{ out(sprintf("%d:%s", NR, $0)) }
		/^xen-test: domU diagnostics end/ { d = 0 }
		END { if (r) flush_rcu(); if (b) out_blk() }' "$2"
}

pass() {
	PASSED=$((PASSED + 1))
	say "$1: $2"
}
fail() {
	FAILED=$((FAILED + 1))
	say "$1: FAILED: $2"
}

# marker_rc LOG STAGE: the rc of "xen-test: stage STAGE end rc=N" in LOG,
# "skipped (...)" or "missing".
marker_rc() {
	local m
	m=$(grep -aoE "^xen-test: stage $2 (end rc=[0-9]+|skipped.*)" "$1" | tail -n 1) || true
	case $m in
	*"end rc="*) echo "${m##*rc=}" ;;
	*skipped*) echo "skipped${m##*skipped}" ;;
	*) echo missing ;;
	esac
}

# rc_text RC: marker_rc's answer for a failure message.
rc_text() {
	case $1 in
	missing) echo "no end marker (the stage did not finish)" ;;
	skipped*) echo "stage $1" ;;
	*) echo "rc=$1" ;;
	esac
}

# between LOG STAGE: the lines between the stage's begin and end markers.
between() {
	awk -v b="xen-test: stage $2 begin" -v e="xen-test: stage $2 end" \
		'index($0, e) == 1 { f = 0 } f { print } index($0, b) == 1 { f = 1 }' "$1"
}

# Splits the serial log: the guest's console (printed by dom0's init
# between markers), dom0's console (the rest, without Xen's own lines).
split_logs() {
	# Xen writes its own lines to the same serial port, and one may land
	# in the middle of a kernel's line ("... 0 lost(XEN) uart interrupt
	# taking more than 4ms, switched to polling" on a busy host): the
	# kernel's line is what came before it.
	awk -v d0="$L-dom0.log" -v du="$L-domU.log" '
		BEGIN { printf "" > d0; printf "" > du }
		!/^\(XEN\)/ { sub(/\(XEN\) .*$/, "") }
		/^xen-test: domU console begin/ { u = 1; next }
		/^xen-test: domU console end/ { u = 0; next }
		u { print > du; next }
		/^\(XEN\)/ { next }
		{ print > d0 }' "$SERIAL"
}

# The suite that must report from the live module.
expected_suites() {
	echo xen_evtchn_2l_live
}

# Boot messages printed among KTAP (e.g. "Freeing initrd memory") start
# in column 0 and are not KTAP: an awk condition that leaves them out, or
# kunit.py misreads the suite they fall into.  KTAP's own column-0 lines
# are kept.
IS_KTAP='/^[ \t]/ || /^(KTAP version|1\.\.|ok |not ok |# )/'

# boot_ktap CONSOLE MARK: the KTAP CONSOLE's kernel printed at boot, from
# its first "KTAP version 1" up to MARK (the init's first line), without
# printk's times.
boot_ktap() {
	awk -v m="$2" 'index($0, m) { exit } { print }' "$1" | sed 's/^\[ *[0-9.]*\] //' |
		awk "/KTAP version 1/ { k = 1 } k && ($IS_KTAP)"
}

# builtin_skips CONSOLE MARK: for a kernel booted with KUNIT_ON_XEN, the
# built-in suite's KTAP before MARK: "N skipped on Xen" when the suite's
# line and every case say "# SKIP on Xen", else why not, and 1.  Nothing
# for a kernel booted without it (the saved logs before it ran).
builtin_skips() {
	local cmdline lines cases n
	cmdline=$(grep -a -m1 -o 'Kernel command line: .*' "$1") || true
	[[ "$cmdline " == *" $KUNIT_ON_XEN "* ]] || return 0
	lines=$(boot_ktap "$1" "$2" | grep -aE '^ *(not )?ok [0-9]+ ') || true
	if ! grep -qE '^ok [0-9]+ xen_evtchn_2l # SKIP' <<<"$lines"; then
		echo "no 'ok N xen_evtchn_2l # SKIP' line before '$2'"
		return 1
	fi
	cases=$(grep -E '^ +(not )?ok ' <<<"$lines") || true
	n=$(grep -cE '^ +ok [0-9]+ [a-z0-9_]+ # SKIP on Xen' <<<"$cases") || true
	if ((n == 0 || n != $(grep -c . <<<"$cases"))); then
		echo "built-in xen_evtchn_2l: not every case skipped on Xen: $(grep -vE '# SKIP on Xen' <<<"$cases" | head -n 1)"
		return 1
	fi
	echo "built-in xen_evtchn_2l: $n skipped on Xen"
}

# kunit_stage WHO CONSOLE INIT_MARK STAGE: the KTAP of the live suite's
# module, loaded by the init between the markers of STAGE (under a KTAP
# header if it has none: before 6.3 a module's suite prints none), or, in
# a log of a kernel with the
# suite built in (before lab/live/), the KTAP of CONSOLE up to INIT_MARK
# (the init's first line); in $L-WHO-ktap.log, parsed by kunit.py (its
# output in $L-WHO-kunit.txt, its results as JSON in $L-WHO-kunit.json,
# counted by kunit_counts).
kunit_stage() {
	local who=$1 console=$2 mark=$3 stage=$4 ktap=$L-$1-ktap.log out=$L-$1-kunit.txt
	local json=$L-$1-kunit.json counts p f s status=0 suite missing=() bad rc
	rc=$(marker_rc "$console" "$stage")
	if [[ $rc == missing ]] && ! grep -q "^xen-test: stage $stage begin" "$console"; then
		boot_ktap "$console" "$mark" >"$ktap"
	elif [[ $rc != 0 ]]; then
		fail "$who KUnit" "loading the live suite's module: $(rc_text "$rc") (see $console)"
		return
	else
		between "$console" "$stage" | awk "$IS_KTAP" >"$ktap"
		if [[ $(head -n 1 "$ktap") != "KTAP version 1" ]]; then
			sed -i '1i KTAP version 1\n1..1' "$ktap"
		fi
	fi
	if ! grep -qE '^ *(not )?ok ' "$ktap"; then
		fail "$who KUnit" "no KTAP output in $console"
		return
	fi
	rm -f "$json"
	python3 "$LINUX/tools/testing/kunit/kunit.py" parse --json="$json" "$ktap" >"$out" 2>&1 || status=$?
	if ! counts=$(kunit_counts "$json" 2>&1); then
		fail "$who KUnit" "kunit.py parse left no results: $counts (see $out)"
		return
	fi
	read -r p f s <<<"$counts"
	for suite in $(expected_suites); do
		grep -qE "^ *(not )?ok [0-9]+ $suite( |$)" "$ktap" || missing+=("$suite")
	done
	local summary="$p passed, $f failed, $s skipped" builtin
	builtin=$(builtin_skips "$console" "$mark") || {
		fail "$who KUnit" "$builtin (see $console)"
		return
	}
	# A skip is a failure but where ALLOWED_SKIP names the case and why.
	bad=$(grep -E '^ *(not )?ok [0-9]+ .*# SKIP' "$ktap" | grep -cvE "${ALLOWED_SKIP:-^$}") || true
	((s == 0)) || summary+=" ($(grep -oE '[a-z0-9_]+ # SKIP .*' "$ktap" | head -n 3 | paste -sd ';'))"
	if ((status != 0 || f != 0 || bad != 0 || p == 0)); then
		fail "$who KUnit" "$summary (see $out)"
	elif ((${#missing[@]})); then
		fail "$who KUnit" "$summary, but no result for suite(s) ${missing[*]}"
	else
		pass "$who KUnit" "$summary${builtin:+; $builtin}"
	fi
}

# tap_counts TEXT: "N passed, M failed, K skipped" of TAP "ok"/"not ok"
# lines ("ok N - name # SKIP why" is a skip).
tap_counts() {
	local ok nok skip
	ok=$(grep -cE '^ok [0-9]+' <<<"$1") || true
	nok=$(grep -cE '^not ok [0-9]+' <<<"$1") || true
	skip=$(grep -ciE '^(not )?ok [0-9]+.*# *skip' <<<"$1") || true
	echo "$((ok - skip)) passed, $nok failed, $skip skipped"
}

judge() {
	local d0=$L-dom0.log du=$L-domU.log rc rc2 out ver abi n line

	# dom0 boot
	ver=$(grep -aoE '^\(XEN\) Xen version [^ ]+' "$SERIAL" | head -n 1 | awk '{print $4}') || true
	abi=$(grep -aoE 'xen:events: Using [-a-zA-Z0-9]+ ABI' "$d0" | head -n 1) || true
	if [[ $ver != "$XEN_SERIES".* ]]; then
		fail "dom0 boot" "no '(XEN) Xen version $XEN_SERIES' line"
	elif ! grep -q 'Linux version ' "$d0"; then
		fail "dom0 boot" "Xen $ver up, but dom0's kernel printed nothing"
	elif [[ $abi != *"Using 2-level ABI" ]]; then
		fail "dom0 boot" "Xen $ver, dom0 says '${abi:-no xen:events: line}', not 'Using 2-level ABI'"
	elif ! grep -q '^xen-test: dom0 init started' "$d0"; then
		fail "dom0 boot" "Xen $ver, 2-level ABI, but dom0's init did not start"
	else
		pass "dom0 boot" "ok (Xen $ver, 2-level ABI${PKG:+, $(basename "$PKG")})"
	fi

	# The modules of a DEB= or IMAGE= kernel that has them.
	if ((WITH_MODULES)); then
		rc=$(marker_rc "$d0" modules)
		rc2=$(marker_rc "$du" domU-modules)
		if [[ $GUEST_KIND == ARM32 && $rc == 0 && $rc2 == skipped* ]]; then
			# The 32-bit guest is the test kernel, its Xen drivers built in.
			pass "modules" "ok (dom0: ${PKG_MODULES[*]}; domU: the 32-bit test kernel, none)"
		elif [[ $rc == 0 && $rc2 == 0 ]]; then
			pass "modules" "ok (dom0: ${PKG_MODULES[*]}; domU: xen-evtchn)"
		else
			fail "modules" "dom0: $(rc_text "$rc"); domU: $(rc_text "$rc2") (see $d0, $du)"
		fi
	fi

	if ((HAS_KUNIT)); then
		kunit_stage dom0 "$d0" "xen-test: dom0 init started" live-kunit
	else
		say "dom0 KUnit: not run (the live suite's module is built for the test kernel only; not counted)"
	fi

	# dom0 stress: every free port up to 4095, words 32-63 among them.
	stress_stage "dom0 stress" "$d0" dom0-stress 4032 "words 32-63 (ports 2048-4095)" "$STRESS_PORTS"

	# Xen tools
	rc=$(marker_rc "$d0" xen-tools)
	if [[ $rc == 0 ]]; then
		pass "dom0 Xen tools" "ok (xenstored, xen-init-dom0, xenconsoled, xl)"
	else
		fail "dom0 Xen tools" "$(rc_text "$rc") (see $d0)"
	fi

	# domU boot
	rc=$(marker_rc "$d0" domU)
	abi=$(grep -aoE 'xen:events: Using [-a-zA-Z0-9]+ ABI' "$du" | head -n 1) || true
	if [[ $rc != 0 ]]; then
		fail "domU boot" "xl create or the guest's run: $(rc_text "$rc") (see $d0)"
	elif ! grep -q 'Linux version ' "$du"; then
		fail "domU boot" "no kernel output in the guest's console log ($du)"
	elif [[ $abi != *"Using 2-level ABI" ]]; then
		fail "domU boot" "the guest says '${abi:-no xen:events: line}', not 'Using 2-level ABI'"
	elif ! grep -q '^xen-test: domU init done' "$du"; then
		fail "domU boot" "the guest's init did not finish (see $du)"
	elif [[ $GUEST_KIND == ARM32 ]] && ! grep -q '^xen-test: domU machine: armv7l$' "$du"; then
		fail "domU boot" "the 32-bit Arm guest says '$(grep -m1 '^xen-test: domU machine:' "$du" || echo 'no machine line')', not armv7l (see $du)"
	elif [[ $GUEST_KIND == ARM32 ]]; then
		pass "domU boot" "ok (32-bit Arm guest of Xen arm64, armv7l, 2-level ABI, powered off)"
	else
		pass "domU boot" "ok ($GUEST_KIND, 2-level ABI, powered off)"
	fi

	# A 32-bit guest is the test kernel whatever dom0 is.
	if ! ((HAS_KUNIT)) && [[ $GUEST_KIND != ARM32 ]]; then
		say "domU KUnit: not run (as in dom0; not counted)"
	elif [[ -s $du ]]; then
		kunit_stage domU "$du" "xen-test: domU init started" domU-live-kunit
	else
		fail "domU KUnit" "no guest console log"
	fi

	# The 32-bit Arm guest's: 64-bit words, a 32-bit unsigned long (patch
	# 1's geometry), every port up to 4095 (words 32-63: ports 2048-4095).
	[[ $GUEST_KIND != ARM32 ]] ||
		stress_stage "domU stress" "$du" domU-stress 4032 "words 32-63 (ports 2048-4095)" max

	# exchange: the guest's serve and dom0's peer, each must end with
	# "exchange: N events sent, N received, 0 lost", the same N: N =
	# XEN_TEST_EVENTS, or fewer (at least 100) if dom0's peer stopped on
	# its time budget.  A late event is a figure, a lost one a failure.
	exchange_stage
	# guest faults (xentest.faults=1 on dom0's command line): what was done
	# to the guest during the exchange, each followed by more round trips.
	if [[ $FAULTS == 1 ]]; then
		rc=$(marker_rc "$d0" guest-faults)
		out=$(between "$d0" guest-faults | grep '^xen-test: fault ' | sed 's/^xen-test: fault //' | paste -sd ';') || true
		printf '%s\n' "$(between "$d0" guest-faults)" >"$L-guest-faults.log"
		if [[ $rc == 0 && -n $out ]]; then
			pass "guest faults" "$out"
		else
			fail "guest faults" "$(rc_text "$rc"): ${out:-no fault line} (see $L-guest-faults.log)"
		fi
	fi
	# dom0's diagnostics of a stuck guest: what set them off.
	line=$(grep -a -m1 '^xen-test: domU diagnostics begin' "$d0") || true
	[[ -z $line ]] || say "diagnostics: ${line#xen-test: domU diagnostics begin }"

	# kernel splats, anywhere
	splats "$SERIAL" >"$L-splats.txt"
	if [[ -s $L-splats.txt ]]; then
		fail "kernel splats" "$(wc -l <"$L-splats.txt") line(s) in $SERIAL, first: $(head -n 1 "$L-splats.txt") (all: $L-splats.txt)"
	else
		local late unplug dls why=()
		late=$(timing_reports late "$SERIAL")
		unplug=$(timing_reports unplug "$SERIAL")
		dls=$(timing_reports dlserver "$SERIAL")
		[[ -z $late ]] ||
			why+=("$(wc -l <<<"$late") warning(s) of a vCPU bring-up that timed out ($(grep -a -m1 -o 'CPU[0-9]*: failed to come online' "$SERIAL"), a busy host): $(head -n 1 <<<"$late")")
		[[ -z $unplug ]] ||
			why+=("$(wc -l <<<"$unplug") RCU stall report(s) on a vCPU being unplugged (the kernel's CPUn killed. after it: an unplug slower than RCU's stall timeout, a busy host): $(head -n 1 <<<"$unplug")")
		[[ -z $dls ]] ||
			why+=("$(wc -l <<<"$dls") warning(s) of the scheduler's deadline server in hrtimer_forward() (dl_task_timer(), in the tick, no Xen function in the trace; a busy host): $(head -n 1 <<<"$dls")")
		if ((${#why[@]} == 0)); then
			pass "kernel splats" "none"
		else
			pass "kernel splats" "none; not counted, $(printf '%s; ' "${why[@]}" | sed 's/; $//')"
		fi
	fi

	# shutdown
	if ((QEMU_STATUS == 124 || QEMU_STATUS == 137)); then
		fail "shutdown" "QEMU killed after the ${TIMEOUT}s limit (serial log at: $(landmark "$SERIAL"))"
	elif grep -q '^xen-test: watchdog' "$SERIAL"; then
		fail "shutdown" "$(grep -m1 '^xen-test: watchdog' "$SERIAL")"
	elif ((QEMU_STATUS != 0)); then
		fail "shutdown" "QEMU exited with status $QEMU_STATUS (see $L-qemu.log)"
	elif ! grep -q '^xen-test: dom0 init done' "$d0"; then
		fail "shutdown" "QEMU ended before dom0's init finished (at: $(landmark "$SERIAL"))"
	else
		pass "shutdown" "dom0 powered off${QEMU_TIME:+ after $(fmt_time "$QEMU_TIME")}"
	fi
}

# exchange_stage: the exchange's verdict (judge's part; d0, du: the
# split logs).
exchange_stage() {
	local rc rc2 out out2 n0 n1 rt stop held stalls lost min=$((EVENTS < 100 ? EVENTS : 100))
	local what="dom0<->domU exchange"
	rc=$(marker_rc "$d0" exchange)
	rc2=$(marker_rc "$du" domU-serve)
	out=$(between "$d0" exchange) || true
	out2=$(between "$du" domU-serve) || true
	{
		echo "== domU: evtchn-stress serve --domid 0 --count $EVENTS"
		printf '%s\n' "$out2"
		echo "== dom0: evtchn-stress peer --domid GUEST --port P --count $EVENTS"
		printf '%s\n' "$out"
	} >"$L-exchange.log"
	n0=$(sed -nE 's/^exchange: ([0-9]+) events sent, \1 received, 0 lost$/\1/p' <<<"$out" | tail -n 1)
	n1=$(sed -nE 's/^exchange: ([0-9]+) events sent, \1 received, 0 lost$/\1/p' <<<"$out2" | tail -n 1)
	rt=$(grep -m1 '^round trip:' <<<"$out") || true
	stop=$(grep -m1 '^exchange: stopped by --max-secs' <<<"$out") || true
	held=$(grep -m1 '^exchange: going on past' <<<"$out") || true
	stalls=$(grep -m1 '^stalls:' <<<"$out") || true
	lost=$(grep -hE '^exchange: .* [1-9][0-9]* lost$|^evtchn-stress: lost:' <<<"$out$(printf '\n%s' "$out2")" | paste -sd ';') || true
	if [[ -n $lost ]]; then
		fail "$what" "lost: $lost (see $L-exchange.log)"
	elif [[ $rc != 0 || $rc2 != 0 ]]; then
		fail "$what" "peer: $(rc_text "$rc"); serve: $(rc_text "$rc2") (see $L-exchange.log)"
	elif [[ -z $n0 || -z $n1 || $n0 != "$n1" ]]; then
		fail "$what" "no 'exchange: N events sent, N received, 0 lost' with the same N from both sides (dom0: ${n0:-none}, guest: ${n1:-none}; see $L-exchange.log)"
	elif ((n0 < EVENTS)) && [[ -z $stop ]]; then
		fail "$what" "$n0 of $EVENTS round trips, and the peer's budget did not stop it (see $L-exchange.log)"
	elif ((n0 > EVENTS)) && [[ -z $held ]]; then
		fail "$what" "$n0 round trips, more than $EVENTS, and no guest faults held it (see $L-exchange.log)"
	elif ((n0 < min)); then
		fail "$what" "only $n0 round trips before the peer's time budget ran out, fewer than $min: too slow to judge, nothing lost (see $L-exchange.log)"
	else
		pass "$what" "$((2 * n0)) events ($n0 each way${stop:+, of $EVENTS: stopped by the time budget of the peer}${held:+, past $EVENTS while the guest faults ran}), 0 lost${rt:+; $rt}${stalls:+; dom0 $stalls}"
	fi
}

# input_error MESSAGE: bad input to the command: one line, exit 2.
input_error() {
	echo "$PROG: $*" >&2
	exit 2
}

# verdict_main ARG...: the command (see the top of this file).
verdict_main() {
	local arch=x86_64 cmdline v
	PKG='' QEMU_STATUS=0 QEMU_TIME='' L=''
	local mods=0 kunit=1
	while (($#)); do
		case $1 in
		--arch) arch=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
		--kernel) PKG=${2:-}; [[ -n $PKG ]] || input_error "--kernel needs a name"; shift 2 ;;
		--modules) mods=1; shift ;;
		--no-kunit) kunit=0; shift ;;
		--qemu-status) QEMU_STATUS=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
		--qemu-time) QEMU_TIME=${2:--}; shift $(($# > 1 ? 2 : 1)) ;;
		--out) L=${2:-}; [[ -n $L ]] || input_error "--out needs a prefix"; shift 2 ;;
		-*) input_error "unknown option '$1' (see the top of mk/xen-verdict.sh)" ;;
		*) break ;;
		esac
	done
	[[ $QEMU_STATUS =~ ^[0-9]+$ ]] || input_error "--qemu-status must be a number, not '$QEMU_STATUS'"
	[[ -z $QEMU_TIME || $QEMU_TIME =~ ^[0-9]+$ ]] || input_error "--qemu-time must be seconds, not '$QEMU_TIME'"
	(($# == 1)) || input_error "usage: mk/xen-verdict.sh [options] SERIAL.log (see the top of mk/xen-verdict.sh)"
	SERIAL=$1
	[[ -f $SERIAL ]] || input_error "$SERIAL: no such file"
	[[ $(arch_field "$arch" xen) == yes ]] ||
		input_error "--arch must be one of $XEN_TEST_ALL_ARCHES, not '$arch'"
	XEN_ARCH=$arch
	# The Xen version comes from the log (below), not from XEN.
	XEN=
	rig_init '' # the default directory
	verdict_init
	# After rig_init, which sets them for the test kernel.
	WITH_MODULES=$mods
	HAS_KUNIT=$kunit
	if [[ -z $L ]]; then
		L=${SERIAL%-serial.log}
		if [[ $(cd "$(dirname "$SERIAL")" && pwd) != "$LOGS" ]]; then
			mkdir -p "$LOGS/verdict" || input_error "cannot create $LOGS/verdict"
			L=$LOGS/verdict/$(basename "$L")
		fi
	fi
	cmdline=$(grep -a -m1 -o 'xentest\.events=.*' "$SERIAL") ||
		input_error "$SERIAL: no dom0 command line with xentest.events= (not a make xen-test serial log?)"
	EVENTS=$(sed -n 's/.*xentest\.events=\([0-9]*\).*/\1/p' <<<"$cmdline")
	STRESS_PORTS=$(sed -n 's/.*xentest\.ports=\([0-9a-z]*\).*/\1/p' <<<"$cmdline")
	TIMEOUT=$(sed -n 's/.*xentest\.watchdog=\([0-9]*\).*/\1/p' <<<"$cmdline")
	[[ -n $EVENTS && -n $STRESS_PORTS && -n $TIMEOUT ]] ||
		input_error "$SERIAL:$(grep -a -n -m1 'xentest\.events=' "$SERIAL" | cut -d: -f1): dom0's command line lacks xentest.ports= or xentest.watchdog="
	TIMEOUT=$((TIMEOUT + 60))
	# The Xen the log was made on (make xen-test XEN=4.20, or 4.17).
	v=$(grep -a -m1 -o '^(XEN) Xen version [0-9]*\.[0-9]*' "$SERIAL" | awk '{ print $4 }') || true
	XEN_SERIES=${v:-$XEN_SERIES}
	FAULTS=0
	[[ $cmdline != *xentest.faults=1* ]] || FAULTS=1
	[[ $cmdline != *xentest.domu=arm32* ]] || GUEST_KIND=ARM32
	split_logs
	judge
	echo "xen-test: $PASSED passed, $FAILED failed"
	((FAILED == 0))
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	# shellcheck source=mk/lib.sh
	. "$(dirname "$0")/lib.sh"
	lib_init
	# shellcheck source=mk/xen-rig.sh
	. "$ROOT/mk/xen-rig.sh"
	verdict_main "$@"
fi
