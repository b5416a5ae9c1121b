#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-verdict.sh: host-only self-test of make xen-test's verdict
# (mk/xen-verdict.sh), run by make check: no QEMU, no Xen.
#
#   lab/xen/test-verdict.sh        (needs build/linux's kunit.py: make tree)
#
# tests/x86-module-serial.log is the serial log of a passing run of make
# xen-test (x86_64, Xen 4.17.7, Linux 7.3.4 with the series, the live
# suite as a module, with guest faults), kept as it was;
# tests/arm-serial.log one of ARCH=arm from before the live suite became
# a module (its KTAP at boot); tests/arm64-arm32-deb-serial.log a
# package's dom0 with a 32-bit guest, tests/arm-hotplug-late-serial.log
# one with a vCPU late to come online, tests/arm-unplug-rcu-serial.log
# one with a vCPU slow to unplug (see below).  Each must pass as it is,
# but the 32-bit guest's, which died (below); then
# each change below, made to a copy of the x86 log, must fail the one stage
# it breaks and no other ("9 passed, 1 failed"): an event lost in the
# exchange, the exchange cut short without the peer's time budget saying
# so, or with fewer than 100 round trips, or with the two sides' counts
# apart, the guest's event read and never answered (the failure must say
# "lost"), a kernel WARNING, a guest's triple fault that Xen reports, a
# live case failing in the guest, dom0's
# stress without its end marker, dom0 on the FIFO ABI, QEMU killed at the
# time limit, a modules stage that did not run, the Xen tools' stage
# failing, the guest on the FIFO ABI, dom0's watchdog firing (and, on the
# Arm log, dom0's stress not reaching word 63); and these must pass: a
# late event in the exchange (its line says late 1), the exchange cut
# short by the peer's time budget (its line says so), dom0's diagnostics
# with xenctx's "Call Trace:" (not a splat; what set them off is said);
# a Xen line with "WARNING" must not count as a kernel splat; the Arm log judged as x86 must fail
# its timer_first skip (allowed on Arm only); dom0 booted with the
# built-in suite must show it skipped on Xen; bad input gets one line and
# exit 2.  Ends with "test-verdict: N passed, M failed"; exits 1 if a
# check failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
verdict=$here/../../mk/xen-verdict.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-verdict.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# judge NAME [OPTION...]: mk/xen-verdict.sh on $tmp/NAME-serial.log; its
# output in $tmp/NAME.out, its exit status in rc.
judge()
{
	local name=$1

	shift
	"$verdict" --out "$tmp/$name" "$@" "$tmp/$name-serial.log" >"$tmp/$name.out" 2>&1
	rc=$?
}

# result NAME WHY: check NAME passed (WHY empty) or failed (WHY says why;
# its output follows).
result()
{
	if [[ -z $2 ]]; then
		passed=$((passed + 1))
		echo "ok   $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1: $2; its output:"
		sed 's/^/     /' "$tmp/$1.out"
	fi
}

# expect NAME RC SUMMARY [STAGE]: the last judge gave exit RC, the summary
# line "xen-test: SUMMARY", and, if STAGE is given, "STAGE: FAILED".
expect()
{
	local name=$1 want_rc=$2 summary=$3 stage=${4:-} why=

	if [[ $rc != "$want_rc" ]]; then
		why="exit $rc, not $want_rc"
	elif ! grep -qx "xen-test: $summary" "$tmp/$name.out"; then
		why="no 'xen-test: $summary' line"
	elif [[ -n $stage ]] && ! grep -q "^xen-verdict: $stage: FAILED" "$tmp/$name.out"; then
		why="no '$stage: FAILED' line"
	fi
	result "$name" "$why"
}

# says NAME PATTERN: the output of the last judge of NAME has a line
# matching PATTERN (grep's basic regex): a check of its own, NAME-line.
says()
{
	cp "$tmp/$1.out" "$tmp/$1-line.out"
	if grep -q -- "$2" "$tmp/$1.out"; then
		result "$1-line" ""
	else
		result "$1-line" "no line matching '$2'"
	fi
}

# mutate NAME SED-SCRIPT [LOG]: $tmp/NAME-serial.log, tests/LOG (default
# x86-module-serial.log) changed by SED-SCRIPT; a script that changes nothing is
# a failed check.
mutate()
{
	local from=$here/tests/${3:-x86-module-serial.log}

	sed "$2" "$from" >"$tmp/$1-serial.log"
	if cmp -s "$from" "$tmp/$1-serial.log"; then
		failed=$((failed + 1))
		echo "FAIL $1: the change does not apply to ${from#"$here"/}"
		return 1
	fi
}

# timing_case NAME LOG SAYS [MUTATION SED]...: an Arm run saved as
# tests/LOG, with a report the verdict leaves out as timing: it passes,
# its splat stage saying SAYS; each MUTATION (SED applied to LOG) must
# fail the splat stage alone.
timing_case()
{
	local name=$1 log=$2 text=$3

	shift 3
	cp "$here/tests/$log" "$tmp/$name-serial.log"
	judge "$name" --arch arm
	expect "$name" 0 "10 passed, 0 failed"
	says "$name" "$text"
	while (($# >= 2)); do
		mutate "$1" "$2" "$log" &&
			{ judge "$1" --arch arm; expect "$1" 1 "9 passed, 1 failed" "kernel splats"; }
		shift 2
	done
}

cp "$here/tests/arm-serial.log" "$tmp/arm-serial.log"
judge arm --arch arm
expect arm 0 "9 passed, 0 failed"
cp "$here/tests/arm-serial.log" "$tmp/arm-as-x86-serial.log"
judge arm-as-x86
expect arm-as-x86 1 "7 passed, 2 failed" "dom0 KUnit"

mutate lost '0,/^exchange: 10000 events sent, 10000 received, 0 lost$/s//exchange: 10000 events sent, 9999 received, 1 lost/' &&
	{ judge lost; expect lost 1 "9 passed, 1 failed" "dom0<->domU exchange"; }
# Late is not lost: the peer's event 100 late (the stage passes, its line
# says late 1); the exchange cut short by the peer's time budget (passes
# with the count said), or short without it, or with too few round trips
# to judge, or with the two sides' counts apart (each fails); the guest's
# event read and never answered (fails, naming the loss).
peer_rt='^round trip: median [0-9]* us, p99 [0-9]* us, worst [0-9]* us; late 0 (past 5000 ms, lost after 60000 ms), worst by 0 ms$'
mutate late "/^xen-test: stage exchange begin/,/^xen-test: stage exchange end/{
	/$peer_rt/{
		i late: event 100 of 10000: round trip 8003 ms, past the 5000 ms deadline by 3003 ms
		s/late 0 (past 5000 ms, lost after 60000 ms), worst by 0 ms/late 1 (past 5000 ms, lost after 60000 ms), worst by 3003 ms/
	}
}" &&
	{ judge late; expect late 0 "10 passed, 0 failed"
		says late 'exchange: 20000 events (10000 each way), 0 lost; .* late 1 .*worst by 3003 ms'; }
short='s/^exchange: 10000 events sent, 10000 received, 0 lost$/exchange: 4321 events sent, 4321 received, 0 lost/'
stopped='/^xen-test: stage exchange begin/,/^xen-test: stage exchange end/s/^\(exchange: 4321 events sent.*\)$/exchange: stopped by --max-secs 180 after 4321 of 10000 round trips\n\1/'
mutate budget "$short; $stopped" &&
	{ judge budget; expect budget 0 "10 passed, 0 failed"
		says budget 'exchange: 8642 events (4321 each way, of 10000: stopped by the time budget of the peer), 0 lost'; }
mutate short "$short" &&
	{ judge short; expect short 1 "9 passed, 1 failed" "dom0<->domU exchange"; }
mutate too-few "${short//4321/99}; ${stopped//4321/99}" &&
	{ judge too-few; expect too-few 1 "9 passed, 1 failed" "dom0<->domU exchange"; }
mutate apart '/^xen-test: domU console begin/,/^xen-test: domU console end/s/^exchange: 10000 events sent, 10000 received, 0 lost$/exchange: 9999 events sent, 9999 received, 0 lost/' &&
	{ judge apart; expect apart 1 "9 passed, 1 failed" "dom0<->domU exchange"; }
mutate dropped "/^xen-test: domU console begin/,/^xen-test: domU console end/s/^exchange: 10000 events sent, 10000 received, 0 lost\$/exchange: event 100 read and not answered (--drop-at)/
	/^xen-test: stage exchange begin/,/^xen-test: stage exchange end/s/^exchange: 10000 events sent, 10000 received, 0 lost\$/exchange: 100 events sent, 99 received, 1 lost\nevtchn-stress: lost: no event 100 of 10000 from domain 1 (local port 23) in 60000 ms/
	s/^xen-test: stage domU-serve end rc=0/xen-test: stage domU-serve end rc=3/
	s/^xen-test: stage exchange end rc=0/xen-test: stage exchange end rc=1/" &&
	{ judge dropped; expect dropped 1 "9 passed, 1 failed" "dom0<->domU exchange"
		says dropped 'exchange: FAILED: lost: exchange: 100 events sent, 99 received, 1 lost;evtchn-stress: lost: no event 100'; }
# dom0's diagnostics of a stuck guest: xenctx's "Call Trace:" there is
# not a splat, and what set them off is said.
mutate diagnostics '/^xen-test: stage exchange begin/i xen-test: domU diagnostics begin (no exchange progress for 20s: 5000 of 10000 round trips, 61s after xl create)\nCall Trace:\n  [<ffffffff81000000>] xen_hypercall_sched_op+0x0\nxen-test: domU diagnostics end' &&
	{ judge diagnostics; expect diagnostics 0 "10 passed, 0 failed"
		says diagnostics 'diagnostics: (no exchange progress for 20s'; }
mutate warning '/^xen:events: Using 2-level ABI$/a [    1.000000] WARNING: CPU: 0 PID: 1 at drivers/xen/events/events_2l.c:1 evtchn_2l_handle_events+0x0/0x0' &&
	{ judge warning; expect warning 1 "9 passed, 1 failed" "kernel splats"; }
mutate xen-warning '/^xen:events: Using 2-level ABI$/a (XEN) WARNING: a message of Xen, not a kernel splat' &&
	{ judge xen-warning; expect xen-warning 0 "10 passed, 0 failed"; }
# A line of Xen's in the middle of the guest's closing line (a busy host:
# a Xen 4.20 run had it) leaves that line as it was.
mutate xen-midline '/^xen-test: domU console begin/,/^xen-test: domU console end/s/^exchange: 10000 events sent, 10000 received, 0 lost$/&(XEN) uart interrupt taking more than 4ms, switched to polling/' &&
	{ judge xen-midline; expect xen-midline 0 "10 passed, 0 failed"; }
# A guest that Xen saw crash (a vCPU's triple fault, as a Xen 4.20 run
# under TCG had one) is a splat, though the guest's kernel said nothing.
mutate triple-fault '/^xen-test: domU xentest-domu is domid 1$/a (XEN) d1v1 Triple fault - invoking HVM shutdown action 1' &&
	{ judge triple-fault; expect triple-fault 1 "9 passed, 1 failed" "kernel splats"; }
mutate domu-kunit '/^xen-test: domU console begin/,/^xen-test: domU console end/s/^    ok 3 evtchn_2l_live_test_flood_waits_a_pass$/    not ok 3 evtchn_2l_live_test_flood_waits_a_pass/' &&
	{ judge domu-kunit; expect domu-kunit 1 "9 passed, 1 failed" "domU KUnit"; }
mutate stress-end '/^xen-test: stage dom0-stress end rc=0/d' &&
	{ judge stress-end; expect stress-end 1 "9 passed, 1 failed" "dom0 stress"; }
mutate fifo '0,/^xen:events: Using 2-level ABI$/s//xen:events: Using FIFO-based ABI/' &&
	{ judge fifo; expect fifo 1 "9 passed, 1 failed" "dom0 boot"; }
mutate xen-tools 's/^xen-test: stage xen-tools end rc=0/xen-test: stage xen-tools end rc=1/' &&
	{ judge xen-tools; expect xen-tools 1 "9 passed, 1 failed" "dom0 Xen tools"; }
mutate domu-fifo '/^xen-test: domU console begin/,/^xen-test: domU console end/s/^xen:events: Using 2-level ABI$/xen:events: Using FIFO-based ABI/' &&
	{ judge domu-fifo; expect domu-fifo 1 "9 passed, 1 failed" "domU boot"; }
mutate watchdog '/^xen-test: stage xen-tools end rc=0/a xen-test: watchdog: dom0 init still running after 540s, powering off' &&
	{ judge watchdog; expect watchdog 1 "9 passed, 1 failed" "shutdown"; }
mutate arm-ports 's/^evtchn-stress: ports 3\.\.4094,/evtchn-stress: ports 3..4000,/' arm-serial.log &&
	{ judge arm-ports --arch arm; expect arm-ports 1 "8 passed, 1 failed" "dom0 stress"; }
# The live suite as an out-of-tree module (lab/live/), loaded by the inits
# between the markers of stages live-kunit and domU-live-kunit:
# tests/x86-module-serial.log, a passing run (7.3.4 with the series, Xen
# 4.17.7, with guest faults), must pass; so must its module output without
# the KTAP header (as before 6.3); a case failing there, the module not
# loading, or a load that never ends must fail that domain's KUnit stage.
cp "$here/tests/x86-module-serial.log" "$tmp/module-serial.log"
judge module
expect module 0 "10 passed, 0 failed"
mutate module-no-header '/^xen-test: stage live-kunit begin/,/^    KTAP version 1$/{/^KTAP version 1$/d; /^1\.\.1$/d}' x86-module-serial.log &&
	{ judge module-no-header; expect module-no-header 0 "10 passed, 0 failed"; }
mutate module-case '/^xen-test: stage live-kunit begin/,/^xen-test: stage live-kunit end/s/^    ok 4 evtchn_2l_live_test_start_word_split$/    not ok 4 evtchn_2l_live_test_start_word_split/' x86-module-serial.log &&
	{ judge module-case; expect module-case 1 "9 passed, 1 failed" "dom0 KUnit"; }
mutate module-load 's/^xen-test: stage live-kunit end rc=0/xen-test: stage live-kunit end rc=1/' x86-module-serial.log &&
	{ judge module-load; expect module-load 1 "9 passed, 1 failed" "dom0 KUnit"; }
mutate module-hung '/^xen-test: stage domU-live-kunit end rc=0/d' x86-module-serial.log &&
	{ judge module-hung; expect module-hung 1 "9 passed, 1 failed" "domU KUnit"; }

# dom0 booted with the built-in suite in its filter: its KTAP at boot must
# skip every case on Xen (it passes, saying so); a case that ran, or no
# KTAP of the suite at all, fails dom0's KUnit stage.
glob='1,/^Kernel command line:/s/kunit\.filter_glob=xen_evtchn_2l_live /kunit.filter_glob=xen_evtchn_2l* /'
skip='# SKIP on Xen: other CPUs would scan the fake state'
builtin="$glob; /^xen-test: dom0 init started/i KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: xen_evtchn_2l\n    # module: events_2l\n    1..2\n    ok 1 handle_events_resumes_at_cursor $skip\n    ok 2 handle_events_timer_first $skip\nok 1 xen_evtchn_2l # SKIP"
mutate builtin "$builtin" x86-module-serial.log &&
	{ judge builtin; expect builtin 0 "10 passed, 0 failed"; says builtin "built-in xen_evtchn_2l: 2 skipped on Xen"; }
mutate builtin-ran "${builtin/"ok 2 handle_events_timer_first $skip"/ok 2 handle_events_timer_first}" x86-module-serial.log &&
	{ judge builtin-ran; expect builtin-ran 1 "9 passed, 1 failed" "dom0 KUnit"; }
mutate builtin-none "$glob" x86-module-serial.log &&
	{ judge builtin-none; expect builtin-none 1 "9 passed, 1 failed" "dom0 KUnit"; }

# A Debian arm64 package as dom0 and the 32-bit Arm test kernel as its
# guest (tests/arm64-arm32-deb-serial.log: make xen-test ARCH=arm64
# DOMU=arm32 DEB=..., Xen 4.17.7 under QEMU 10.0.2's TCG, whose guest
# died as its live suite loaded, docs/live-xen.md): the guest, which has
# no modules, passes the modules stage by saying so; its KUnit stage is
# judged although dom0's is not; dom0's module failing fails the stage.
cp "$here/tests/arm64-arm32-deb-serial.log" "$tmp/arm32-deb-serial.log"
judge arm32-deb --arch arm64 --modules --no-kunit
expect arm32-deb 1 "5 passed, 6 failed" "domU KUnit"
says arm32-deb "dom0 KUnit: not run (the live suite's module is built for the test kernel only; not counted)"
says arm32-deb 'modules: ok (dom0: xen-evtchn xenfs xen-privcmd xen-gntdev; domU: the 32-bit test kernel, none)'
mutate arm32-deb-64 's/xentest\.domu=arm32/xentest.domu=arm/' arm64-arm32-deb-serial.log &&
	{ judge arm32-deb-64 --arch arm64 --modules --no-kunit; expect arm32-deb-64 1 "4 passed, 5 failed" "modules"; }
mutate arm32-deb-mod 's/stage modules end rc=0/stage modules end rc=1/' arm64-arm32-deb-serial.log &&
	{ judge arm32-deb-mod --arch arm64 --modules --no-kunit; expect arm32-deb-mod 1 "4 passed, 7 failed" "modules"; }

# A vCPU that missed its bring-up deadline is timing, not a fault:
# tests/arm-hotplug-late-serial.log, a run of make xen-test ARCH=arm
# XEN_TEST_LOAD=1 (one of several in a row) on a host far busier than
# that, where the guest's vCPU 1, plugged back in, did not come online
# within 32-bit Arm's 1 s
# ("CPU1: failed to come online") and the rollback warned twice (in
# sched_cpu_dying() and kthread_park(), both under _cpu_up()), must pass,
# saying what it did not count; without the "failed to come online" line,
# or with the warnings' traces not the rollback's, they count.
timing_case hotplug-late arm-hotplug-late-serial.log \
	'kernel splats: none; not counted, 2 warning(s) of a vCPU bring-up that timed out (CPU1: failed to come online, a busy host)' \
	hotplug-no-timeout '/CPU1: failed to come online/d' \
	hotplug-other 's/ _cpu_up+/ other_fn+/g; s/from _cpu_up+/from other_fn+/g'

# tests/arm-unplug-rcu-serial.log, a run of make xen-test ARCH=arm
# XEN_TEST_LOAD=1 (52bce70; one of several in a row) whose guest's vCPU 1
# took 23 s to unplug: its RCU stall report, on CPU 1, just before
# "CPU1 killed.", is timing
# and not counted; with CPU 0 killed instead, or no CPU killed, it counts.
timing_case unplug-rcu arm-unplug-rcu-serial.log \
	'kernel splats: none; not counted, 1 RCU stall report(s) on a vCPU being unplugged' \
	unplug-rcu-other 's/^CPU1 killed\./CPU0 killed./' \
	unplug-rcu-none '/^CPU1 killed\./d'

# The scheduler's warning in hrtimer_forward() from dl_task_timer(), as
# 7.3.4's 32-bit Arm dom0 printed it with make xen-test ARCH=arm
# XEN_TEST_LOAD=2 (its block below, put into the Arm log's exchange), is
# timing and not counted; from another timer, or with a Xen function in
# its trace, it counts.
cat >"$tmp/dls-source.txt" <<'EOF'
------------[ cut here ]------------
WARNING: ../linux/kernel/time/hrtimer.c:1098 at hrtimer_forward+0x10c/0x190, CPU#1: swapper/1/0
Modules linked in: events_2l_live_kunit(O)
CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Tainted: G           O     N  7.3.4-gc62c233e84a5 #2 VOLUNTARY  
Tainted: [O]=OOT_MODULE, [N]=TEST
Hardware name: Generic DT based system
Call trace: 
 unwind_backtrace from show_stack+0x10/0x14
 show_stack from dump_stack_lvl+0x68/0x74
 dump_stack_lvl from __warn+0x90/0x100
 __warn from warn_slowpath_fmt+0xa4/0x1b4
 warn_slowpath_fmt from hrtimer_forward+0x10c/0x190
 hrtimer_forward from dl_task_timer+0x390/0xb20
 dl_task_timer from __hrtimer_run_queues+0x130/0x1c4
 __hrtimer_run_queues from hrtimer_run_queues+0xc4/0xe0
 hrtimer_run_queues from update_process_times+0x30/0xb0
 update_process_times from tick_handle_periodic+0x28/0x80
 tick_handle_periodic from arch_timer_handler_virt+0x28/0x30
 arch_timer_handler_virt from handle_percpu_devid_irq+0xb0/0x174
 handle_percpu_devid_irq from handle_irq_desc+0x6c/0x7c
 handle_irq_desc from gic_handle_irq+0x74/0x88
 gic_handle_irq from generic_handle_arch_irq+0x34/0x44
 generic_handle_arch_irq from call_with_stack+0x18/0x20
 call_with_stack from __irq_svc+0x98/0xb0
Exception stack(0xf08c5f78 to 0xf08c5fc0)
5f60:                                                       00000003 00000001
5f80: 0011d4f4 40000000 c082b800 c0703f70 10c0387d c077dc44 7000406a 414fc0f0
5fa0: 00000000 00000000 f08c5f70 f08c5fc8 c04eda70 c04ede30 60000013 ffffffff
 __irq_svc from default_idle_call+0x2c/0x30
 default_idle_call from do_idle+0x7c/0x130
 do_idle from cpu_startup_entry+0x28/0x2c
 cpu_startup_entry from secondary_start_kernel+0x114/0x118
 secondary_start_kernel from 0x7010d0a4
---[ end trace 0000000000000000 ]---
EOF
dls_case()
{
	local name=$1 edit=$2 want=$3

	sed "$edit" "$tmp/dls-source.txt" >"$tmp/$name-block.txt"
	mutate "$name" "/^xen-test: stage exchange begin/r $tmp/$name-block.txt" arm-serial.log || return
	judge "$name" --arch arm
	if [[ $want == pass ]]; then
		expect "$name" 0 "9 passed, 0 failed"
		says "$name" "kernel splats: none; not counted, 1 warning(s) of the scheduler's deadline server in hrtimer_forward()"
	else
		expect "$name" 1 "8 passed, 1 failed" "kernel splats"
	fi
}
dls_case dlserver '' pass
dls_case dlserver-other 's/dl_task_timer+/other_timer+/g' fail
dls_case dlserver-xen 's/^ tick_handle_periodic from .*/ xen_timer_interrupt from tick_handle_periodic+0x28\/0x80/' fail

cp "$here/tests/x86-module-serial.log" "$tmp/killed-serial.log"
judge killed --qemu-status 124 --qemu-time 600
expect killed 1 "9 passed, 1 failed" "shutdown"
cp "$here/tests/x86-module-serial.log" "$tmp/modules-serial.log"
judge modules --modules
expect modules 1 "10 passed, 1 failed" "modules"

# Bad input: one line naming the file or the option, exit 2.
bad_input()
{
	local name=$1 want=$2

	shift 2
	"$verdict" "$@" >"$tmp/$name.out" 2>&1
	rc=$?
	if [[ $rc == 2 && $(wc -l <"$tmp/$name.out") == 1 ]] && grep -q -- "$want" "$tmp/$name.out"; then
		result "$name" ""
	else
		result "$name" "want one line with '$want' and exit 2; exit $rc"
	fi
}
bad_input missing-file "$tmp/none-serial.log: no such file" "$tmp/none-serial.log"
grep -v 'xentest\.events=' "$here/tests/x86-module-serial.log" >"$tmp/nocmd-serial.log"
bad_input no-cmdline "nocmd-serial.log: no dom0 command line" "$tmp/nocmd-serial.log"
bad_input bad-option "unknown option '--bogus'" --bogus "$tmp/module-serial.log"
bad_input bad-arch "--arch must be one of x86_64 arm64 arm, not 'sparc'" --arch sparc "$tmp/module-serial.log"
bad_input no-status-value "--qemu-status must be a number" --qemu-status "$tmp/module-serial.log"

echo "test-verdict: $passed passed, $failed failed"
[[ $failed == 0 ]]
