#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# xtrace-stalls-test.sh: xtrace-stalls (../xtrace-stalls.c) on a trace
# made here with known answers, in xentrace's format: two pCPUs that
# write a record each 5 ms, dom0's vCPU 0 and the guest's (domain 1)
# vCPU 0, and six round trips of evtchn-stress's marks: one of 10 ms,
# then one of each class, its guest leg 1 s long: the guest's vCPU
# runnable (Xen held it), pCPU 1 silent for 900 ms (it did not run), the
# guest's vCPU running (it did not take the event), blocked (not woken),
# runnable, blocked and running, none for half of it (mixed); then a
# slow leg into dom0 with dom0's ftrace of it (--ftrace).  Also: a
# trace with no marks, a truncated record, bad arguments.  Run by lab/xen/test-verdict.sh;
# prints "xtrace-stalls-test: N passed, M failed", exit 1 on a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xtrace-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
result() {
	if [[ -z $2 ]]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: xtrace-stalls: $1: $2"
	fi
}

gcc -O2 -Wall -Wextra -Werror -std=gnu11 -o "$tmp/xtrace-stalls" "$here/../xtrace-stalls.c" ||
	{ echo "xtrace-stalls-test: 0 passed, 1 failed"; exit 1; }

# The trace: TSC at 1000 MHz (1 ms = 10^6 cycles).
python3 - "$tmp" <<'EOF'
import struct, sys
tmp = sys.argv[1]
MS = 10**6
RUN, RUNNABLE, BLOCKED = 0, 1, 2
recs = {0: [], 1: []}          # pCPU -> [(tsc, words)]

def rec(cpu, t, event, *data):
    recs[cpu].append((t, event, data))

def runstate(cpu, t, dom, vcpu, old, new):
    rec(cpu, t, 0x00021001 | old << 8 | new << 4, dom << 16 | vcpu)

def mark(cpu, t, kind, k):
    # TRC_PV_HYPERCALL_V2: sched_op (29) with its arg 0 present
    rec(cpu, t, 0x0020100d, 29 | 1 << 20, 0x7e000000 | kind << 20 | k)

def evtchn_op(cpu, t):
    # TRC_PV_HYPERCALL_V2: event_channel_op (32), no argument kept
    rec(cpu, t, 0x0020100d, 32)

t = 10 * MS
silent = (0, 0)
# round trip 1: 10 ms, the guest's vCPU 0 running on pCPU 1
runstate(1, t - MS, 1, 0, BLOCKED, RUN)
runstate(0, t - MS, 0, 0, BLOCKED, RUN)
mark(0, t, 1, 1); evtchn_op(1, t + 5 * MS); mark(0, t + 10 * MS, 3, 1)
t += 100 * MS
# then one slow guest leg (1 s) per class
for k, kind in enumerate(["runnable", "silent", "running", "blocked", "mixed"], 2):
    a, b = t, t + 1000 * MS
    mark(0, a, 1, k)
    if kind == "runnable":
        runstate(1, a + MS, 1, 0, RUN, RUNNABLE)
        runstate(1, b - MS, 1, 0, RUNNABLE, RUN)
    elif kind == "running":
        evtchn_op(1, a + 3 * MS)  # an IPI on the way: not the answer
    elif kind == "silent":
        silent = (a + 50 * MS, a + 950 * MS)
    elif kind == "blocked":
        runstate(1, a + MS, 1, 0, RUN, BLOCKED)
        runstate(1, b - 2 * MS, 1, 0, BLOCKED, RUNNABLE)
        runstate(1, b - MS, 1, 0, RUNNABLE, RUN)
    elif kind == "mixed":
        runstate(1, a + MS, 1, 0, RUN, RUNNABLE)
        runstate(1, a + 400 * MS, 1, 0, RUNNABLE, BLOCKED)
        runstate(1, a + 800 * MS, 1, 0, BLOCKED, RUN)
    evtchn_op(1, b)             # the guest's answer, on the pCPU it runs on
    evtchn_op(0, b + MS)        # dom0's, which must not count
    mark(0, b + 2 * MS, 3, k)
    t = b + 100 * MS
# a slow leg into dom0 (800 ms), its ftrace: IRQ at +100 ms, peer woken
# at +100.1, running at +700, its mark at +800; a hypercall of the
# guest's after the IRQ, which is not its answer
a = t
mark(0, a, 1, 7)
evtchn_op(1, a + 2 * MS)
g = a + 2 * MS
evtchn_op(1, g + 150 * MS)     # the guest's, after dom0 had its answer
mark(0, g + 800 * MS, 3, 7)
with open(tmp + "/dom0.ftrace", "w") as f:
    f.write("# tracer: nop\n#\n")
    f.write("  xenstored-90 [001] d.h1. %d: irq_handler_entry: irq=9 name=evtchn:xenstored\n" % (g + 50 * MS))
    f.write("  <idle>-0 [000] d.h2. %d: irq_handler_entry: irq=52 name=evtchn:evtchn-stress\n" % (g + 100 * MS))
    f.write("  <idle>-0 [000] dNh4. %d: sched_wakeup: comm=evtchn-stress pid=210 prio=120 target_cpu=001\n" % (g + 100 * MS + 100000))
    f.write("  sh-80 [001] d..2. %d: sched_switch: prev_comm=sh prev_pid=80 prev_prio=120 prev_state=R ==> next_comm=evtchn-stress next_pid=210 next_prio=120\n" % (g + 700 * MS))
with open(tmp + "/bad.ftrace", "w") as f:
    f.write("  <idle>-0 [000] d.h2. 123.456789: irq_handler_entry: irq=52 name=evtchn:evtchn-stress\n")
t = g + 900 * MS
end = t
# each pCPU's own records, each 5 ms (TRC_SCHED_CONTINUE_RUNNING)
for cpu in (0, 1):
    for tt in range(0, end, 5 * MS):
        if cpu == 1 and silent[0] <= tt < silent[1]:
            continue
        rec(cpu, tt, 0x00021002, 0)

with open(tmp + "/good.trace", "wb") as f:
    for cpu in (0, 1):
        body = b""
        for tt, event, data in sorted(recs[cpu], key=lambda r: r[0]):
            body += struct.pack("<III", event | len(data) << 28 | 1 << 31,
                                tt & 0xffffffff, tt >> 32)
            body += struct.pack("<%dI" % len(data), *data)
        # a window of this pCPU: TRC_TRACE_CPU_CHANGE, cpu, size
        f.write(struct.pack("<III", 0x0001f003 | 2 << 28, cpu, len(body)))
        f.write(body)
with open(tmp + "/nomarks.trace", "wb") as f:
    f.write(struct.pack("<III", 0x0001f003 | 2 << 28, 0, 12))
    f.write(struct.pack("<III", 0x00021002 | 1 << 31, 1, 0))
with open(tmp + "/good.trace", "rb") as g, open(tmp + "/short.trace", "wb") as f:
    f.write(g.read()[:30])
EOF

"$tmp/xtrace-stalls" --tsc-mhz 1000 "$tmp/good.trace" >"$tmp/out" 2>&1
rc=$?
want="round trips: 7 traced, 6 of at least 500 ms: silent 1 runnable 1 running 2 blocked 1 mixed 1"
if [[ $rc == 0 ]] && grep -qx "$want" "$tmp/out"; then
	result classes ""
else
	result classes "exit $rc, want '$want' in: $(cat "$tmp/out")"
fi
# mixed: 201 ms running, 399 runnable, 400 blocked of 1000: none half
want="event 6: round trip 1002.0 ms: dom0 -> guest 1000.0 ms, guest -> dom0 2.0 ms; over the first leg the guest silent 0 ms, runnable 399 ms, running 201 ms, blocked 400 ms: mixed (d1v0 ran 201, silent 0, runnable 399, blocked 400 ms)"
if grep -qxF "$want" "$tmp/out"; then
	result legs ""
else
	result legs "want '$want' in: $(cat "$tmp/out")"
fi
# the guest's side is its answer, not the IPI it made on the way
if grep -q "^event 4: round trip 1002.0 ms: dom0 -> guest 1000.0 ms, guest -> dom0 2.0 ms; over the first leg" "$tmp/out"; then
	result answer ""
else
	result answer "event 4's guest side is not its last event channel hypercall: $(grep '^event 4' "$tmp/out")"
fi
"$tmp/xtrace-stalls" --tsc-mhz 1000 --min-ms 2000 "$tmp/good.trace" >"$tmp/out" 2>&1
if grep -qx "round trips: 7 traced, 0 of at least 2000 ms: silent 0 runnable 0 running 0 blocked 0 mixed 0" "$tmp/out"; then
	result min-ms ""
else
	result min-ms "$(cat "$tmp/out")"
fi

# dom0's ftrace: the slow leg into dom0, the sums, the clock check
"$tmp/xtrace-stalls" --tsc-mhz 1000 --ftrace "$tmp/dom0.ftrace" "$tmp/good.trace" >"$tmp/out" 2>&1
want="event 7: round trip 802.0 ms: dom0 -> guest 2.0 ms, guest -> dom0 800.0 ms; over the second leg the dom0 silent 0 ms, runnable 0 ms, running 800 ms, blocked 0 ms: running (d0v0 ran 800, silent 0, runnable 0, blocked 0 ms); dom0's ftrace after the guest's send: IRQ on vCPU 0 +100.0 ms, woke peer +100.1 ms, peer ran +700.0 ms, marked +800.0 ms"
if grep -qxF "$want" "$tmp/out" &&
	grep -qxF "ftrace: 1 IRQs, 1 wakeups, 1 switches to evtchn-stress; dom0's IRQ between its send and its mark (the clocks agree) in 1 of 7 round trips" "$tmp/out" &&
	grep -qxF "ftrace: over 1 slow legs into dom0: the guest's send to dom0's IRQ 100 ms, the IRQ to peer's mark 700 ms; peer's wakeup to running 600 ms in the 1 of them where it slept" "$tmp/out"; then
	result ftrace ""
else
	result ftrace "want '$want' and the ftrace lines in: $(cat "$tmp/out")"
fi

# --named 2: two slow round trips named, the sums still over all of them
"$tmp/xtrace-stalls" --tsc-mhz 1000 --named 2 --ftrace "$tmp/dom0.ftrace" "$tmp/good.trace" >"$tmp/out" 2>&1
if [[ $(grep -c '^event ' "$tmp/out") == 2 ]] && grep -qx '\.\.\. 4 more slow round trips not named' "$tmp/out" &&
	grep -q "^ftrace: over 1 slow legs into dom0: the guest's send to dom0's IRQ 100 ms" "$tmp/out"; then
	result named ""
else
	result named "want 2 events named, 4 more, and the ftrace sums in: $(cat "$tmp/out")"
fi

# bad input: one line, non-zero
bad() {
	local name=$1 want=$2 code=$3
	shift 3
	"$tmp/xtrace-stalls" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [[ $rc == "$code" && $(wc -l <"$tmp/out") -le 2 ]] && grep -q -- "$want" "$tmp/out"; then
		result "$name" ""
	else
		result "$name" "want '$want' and exit $code; exit $rc: $(cat "$tmp/out")"
	fi
}
bad no-marks "nomarks.trace: no evtchn-stress marks" 1 --tsc-mhz 1000 "$tmp/nomarks.trace"
bad truncated "short.trace: truncated record" 1 --tsc-mhz 1000 "$tmp/short.trace"
bad missing "none.trace: No such file" 1 --tsc-mhz 1000 "$tmp/none.trace"
bad no-mhz "usage:" 2 "$tmp/good.trace"
bad bad-ftrace "bad.ftrace: not an x86-tsc timestamp before \"irq_handler_entry" 1 --tsc-mhz 1000 --ftrace "$tmp/bad.ftrace" "$tmp/good.trace"
bad bad-mhz "usage:" 2 --tsc-mhz x "$tmp/good.trace"

echo "xtrace-stalls-test: $passed passed, $failed failed"
[[ $failed == 0 ]]
