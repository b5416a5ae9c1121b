# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# lab/xen/xen-tools.sh: start_tools, sourced by the live rig's dom0 init
# (lab/xen/dom0-init), installed in its initramfs as /etc/xen-tools.sh.
#
# C xenstored (Debian's init script prefers oxenstored; either works, the
# C one needs fewer files), run in the foreground of a background job so
# that its socket can be awaited; then xen-init-dom0 (dom0's xenstore
# entries) and xenconsoled, logging each guest's console to a file
# (/var/log/xen/console/guest-NAME.log).  Returns non-zero on a failure.
start_tools() {
	mkdir -p /proc/xen /var/run/xen /var/run/xenstored /var/lib/xen \
		/var/lib/xenstored /var/log/xen/console /var/lock /run/lock
	grep -q xenfs /proc/mounts || mount -t xenfs xenfs /proc/xen || return 1
	xenstored --no-fork --pid-file /var/run/xen/xenstored.pid &
	i=0
	until [ -S /var/run/xenstored/socket ]; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			echo "start_tools: the xenstored socket did not appear in 30 s"
			return 1
		fi
		sleep 0.1
	done
	xen-init-dom0 || return 1
	xenconsoled --pid-file=/var/run/xen/xenconsoled.pid --log=guest \
		--log-dir=/var/log/xen/console || return 1
	xl info | grep -E '^(xen_version|xen_caps|nr_cpus|free_memory|xen_commandline)' ||
		return 1
}
