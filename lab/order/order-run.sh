# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# lab/order/order-run.sh: one scenario of make live-order in dom0, sourced
# by lab/xen/dom0-init (xentest.mode=order) as /etc/order-run.sh with
# SCENARIO and ORDER_SECS set; busybox sh.
#
# Traces, into tracefs's ring buffer (per-CPU ORDER_BUF_KB, not
# overwritten when full: what does not fit is counted as dropped), the
# function tracer on evtchn_2l_handle_events (a pass) and
# irq:irq_handler_entry (a service), with the global clock, while
# /xen-test/evtchn_order.ko runs SCENARIO for ORDER_SECS seconds; then
# prints, each line starting "order: SCENARIO ":
#   cpuN entries E overrun O dropped D   (tracefs's per-CPU stats)
#   handled H                            (the module's own count)
#   the lines of order-reduce (lab/order/order-reduce.c) on the trace
# Returns non-zero on a failure, with a line saying which step.

order_scenario() {
	T=/sys/kernel/tracing
	ORDER_BUF_KB=${ORDER_BUF_KB:-131072}
	[ -d $T/per_cpu ] || mount -t tracefs nodev $T || {
		echo "order: $SCENARIO: cannot mount tracefs"
		return 1
	}
	# Every write checked: a clock that is not global would order the
	# CPUs' events wrongly, a buffer that overwrites would lose some
	# unseen.
	if ! { echo 0 >$T/tracing_on &&
		echo nop >$T/current_tracer &&
		echo global >$T/trace_clock &&
		grep -q '\[global\]' $T/trace_clock &&
		echo 0 >$T/options/overwrite &&
		[ "$(cat $T/options/overwrite)" = 0 ]; }; then
		echo "order: $SCENARIO: cannot set up tracefs (tracing_on, current_tracer, trace_clock global, options/overwrite)"
		return 1
	fi
	echo "$ORDER_BUF_KB" >$T/buffer_size_kb || {
		echo "order: $SCENARIO: cannot size the trace buffers to $ORDER_BUF_KB KiB"
		return 1
	}
	# Only if the function is traceable (not inlined, not notrace).
	echo evtchn_2l_handle_events >$T/set_ftrace_filter 2>/dev/null
	if ! grep -qx evtchn_2l_handle_events $T/set_ftrace_filter; then
		echo "order: $SCENARIO: evtchn_2l_handle_events cannot be traced (not in available_filter_functions)"
		return 1
	fi
	if ! { echo function >$T/current_tracer &&
		echo 1 >$T/events/irq/irq_handler_entry/enable &&
		echo >$T/trace &&
		echo 1 >$T/tracing_on; }; then
		echo "order: $SCENARIO: cannot start the function tracer and irq:irq_handler_entry"
		return 1
	fi
	insmod /xen-test/evtchn_order.ko scenario="$SCENARIO" secs="$ORDER_SECS" || {
		echo 0 >$T/tracing_on
		echo "order: $SCENARIO: insmod evtchn_order failed"
		dmesg | grep evtchn_order | tail -n 5
		return 1
	}
	echo 0 >$T/tracing_on
	for c in "$T"/per_cpu/cpu*; do
		echo "order: $SCENARIO ${c##*/} $(sed -n 's/^entries: /entries /p; s/^overrun: /overrun /p; s/^dropped events: /dropped /p' "$c/stats" | tr '\n' ' ')"
	done
	echo "order: $SCENARIO handled $(dmesg | sed -n "s/.*evtchn_order: $SCENARIO: handled //p" | tail -n 1)"
	rc=0
	order-reduce $T/trace >"/tmp/order-$SCENARIO.txt" || rc=1
	sed "s/^/order: $SCENARIO /" "/tmp/order-$SCENARIO.txt"
	rmmod evtchn_order || { echo "order: $SCENARIO: rmmod evtchn_order failed"; rc=1; }
	echo 0 >$T/events/irq/irq_handler_entry/enable
	echo nop >$T/current_tracer
	echo >$T/trace
	return $rc
}
