# SPDX-License-Identifier: GPL-2.0-only
#
# trace-table.awk: the "vee-trace:" lines of vee-lab boots' serial logs
# (make vee-lab VEE_TRACE=S; lab/vee/dom0-init's vee_trace) -> one table,
# a row per boot and dom0 vCPU.
#
#   awk -f trace-table.awk kernel=K variant=V SERIAL.log [kernel=K2 ...]
#
# Columns: passes traced, IRQs handled, ports a pass (p50/p90/max),
# passes in which an IRQ other than a VIRQ_TIMER's was handled twice, and
# tracefs's overrun and dropped counts of that vCPU.  A log with a
# "vee-trace: error" line, none with traced passes, or a vCPU whose
# figures are incomplete is an error naming the log (exit 1).

function fail(msg) {
	print "trace-table.awk: " msg > "/dev/stderr"
	err = 1
	exit 1
}

function flush(   c, i, n) {
	if (file == "")
		return
	if (!ncpu)
		fail(file ": no traced passes (no \"vee-trace: cpuN passes\" line)")
	n = split(cpus, list, " ")
	for (i = 1; i <= n; i++) {
		c = list[i]
		if (!((c, "passes") in v) || !((c, "services_all") in v) ||
		    !((c, "per_pass") in v) || !((c, "double_passes") in v) ||
		    !((c, "overrun") in v) || !((c, "dropped") in v))
			fail(file ": " c "'s figures are incomplete")
		rows = rows sprintf("%-8s %-7s %-5s %7d %8d %9s %7d %5d/%d\n",
		    fvariant, fkernel, c, v[c, "passes"], v[c, "services_all"],
		    v[c, "per_pass"], v[c, "double_passes"], v[c, "overrun"],
		    v[c, "dropped"])
	}
	if (secs == "")
		fail(file ": no vee.trace= on dom0's command line")
	if (all_secs != "" && all_secs != secs)
		fail(file ": traced " secs " s where an earlier log traced " all_secs " s")
	all_secs = secs
	delete v
	ncpu = 0
	cpus = ""
	secs = ""
}

FNR == 1 {
	flush()
	file = FILENAME
	fkernel = kernel
	fvariant = variant
	if (fkernel == "" || fvariant == "")
		fail(file ": no kernel= or variant= before it")
}

/Command line: .* vee\.trace=[0-9]+/ && secs == "" {
	match($0, /vee\.trace=[0-9]+/)
	secs = substr($0, RSTART + 10, RLENGTH - 10)
}

!/^vee-trace: / {
	next
}

/^vee-trace: error/ {
	fail(file ":" FNR ": " substr($0, 12))
}

$2 ~ /^cpu[0-9]+$/ && $3 == "entries" {
	# vee-trace: cpuN entries E overrun O dropped D
	v[$2, "overrun"] = $6
	v[$2, "dropped"] = $8
	next
}

$2 ~ /^cpu[0-9]+$/ && $3 == "passes" {
	ncpu++
	cpus = cpus " " $2
	v[$2, "passes"] = $4
	next
}

$2 ~ /^cpu[0-9]+$/ && ($3 == "services_all" || $3 == "double_passes") {
	v[$2, $3] = $4
	next
}

$2 ~ /^cpu[0-9]+$/ && $3 == "per_pass" {
	# vee-trace: cpuN per_pass MIN P50 P90 MAX
	v[$2, "per_pass"] = $5 "/" $6 "/" $7
	next
}

END {
	if (err)
		exit 1
	if (file == "")
		fail("no line read: no serial log given, or only empty ones")
	flush()
	printf "The 7-guest lab (make vee-lab VEE_TRACE=%s): %s s of dom0's\n", all_secs, all_secs
	print "order of service in run 1, per vCPU (a kprobe on"
	print "evtchn_2l_handle_events for the passes, irq:irq_handler_entry);"
	print "make vee-lab's kernels: lowest (lowest port first), base (as"
	print "released), series (with the series)."
	print ""
	print "variant  kernel  vCPU   passes    IRQs  ports a   double overrun/"
	print "                                         pass   passes dropped"
	printf "%s", rows
	print ""
	print "ports a pass: p50/p90/max; double passes: passes in which an IRQ"
	print "other than a VIRQ_TIMER's was handled twice."
}
