# SPDX-License-Identifier: GPL-2.0-only
#
# collect.awk: a vee-lab boot's serial log -> vee-report.py's runs.
#
#   awk -v kernel=K -v variant=V -f collect.awk SERIAL.log
#
# Prints, per run, the header "vee: kernel=K variant=V run=R [noisy=G]"
# (G from dom0's command line, vee.noisy=G), the guests' "vee: guest="
# lines and dom0's "nic:" line as they are, and each "irq: irq=I name=N
# count=C" line of dom0-init as "irq: port=P name=N count=C", P being
# dom0's event channel port of that interrupt in Xen's table (debug key
# 'e'): for the NIC (eth*) the pirq channel of IRQ I; for a vif (vifD.*)
# the interdomain channel to domain D's port that dom0-init's "vee: vif
# guest=" line names for its tx or rx.  An interrupt without a port comes
# out as "unmapped-irq:", which vee-report.py does not read.

/^\(XEN\) Event channel information for domain / {
	dom = $NF
	sub(":", "", dom)
	next
}
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
	for (i = 3; i <= NF; i++) {
		split($i, a, "=")
		f[a[1]] = a[2]
	}
	split($3, g, "=")
	gd[g[2]] = f["domid"]
	gtx[g[2]] = f["tx"]
	grx[g[2]] = f["rx"]
	next
}
# dom0's command line: the only Linux one on the serial console (the
# guests' consoles are files in dom0).
/Command line: / && !/^\(XEN\)/ && !cmdline++ {
	if (match($0, / vee\.noisy=[0-9]+/))
		noisy = substr($0, RSTART + 11, RLENGTH - 11) + 0
	next
}
/^vee: go run=/ {
	split($3, a, "=")
	printf "vee: kernel=%s variant=%s run=%s%s\n", kernel, variant, a[2],
		noisy ? " noisy=" noisy : ""
	next
}
/^vee: guest=/ || /^nic: / {
	print
	next
}
/^irq: irq=/ {
	split($2, a, "=")
	irq = a[2]
	split($3, b, "=")
	name = b[2]
	port = "?"
	if (name ~ /^eth/ && (irq in pirq)) {
		port = pirq[irq]
	} else if (match(name, /^vif[0-9]+/)) {
		d = substr(name, 4, RLENGTH - 3)
		for (n in gd) {
			if (gd[n] != d)
				continue
			key = d "/" (name ~ /-rx$/ ? grx[n] : gtx[n])
			if (key in inter)
				port = inter[key]
		}
	}
	printf "%s: port=%s name=%s count=%s\n",
		port == "?" ? "unmapped-irq" : "irq", port, name, substr($4, 7)
}
