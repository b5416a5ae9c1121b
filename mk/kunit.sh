#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/kunit.sh [ARCH]: run the series' KUnit suite (drivers/xen/events/tests/
# .kunitconfig) with tools/testing/kunit/kunit.py under QEMU for ARCH
# (x86_64 by default, arm64, arm, i386), building in build/kunit-ARCH (kept
# between runs).  On x86_64 that kernel is also the live-Xen test kernel
# of mk/xen-test.sh (lab/xen/xen-test.config).  KUNIT_KCONFIG_ADD="CONFIG_A=y CONFIG_B=y" adds options
# (e.g. sanitizers); KUNIT_BUILD_DIR names another build directory;
# KUNIT_FILTER="xen_evtchn_2l.handle_events_timer_first" runs only the cases it names;
# KUNIT_CPUS=N gives QEMU N CPUs (kunit.py's --qemu_args -smp N).  The
# output is also written to build/logs/<build dir name>.log, the results as
# kunit.py's JSON to build/logs/<build dir name>.json.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
setup_ccache

arch=${1:-x86_64}
cross=$(cross_prefix "$arch") || exit 1
bdir=$(kunit_build_dir "$arch")
log=$(kunit_log "$arch")
# The results as kunit.py's JSON, beside the log (mk/check.sh counts them
# with kunit_counts).
json=${log%.log}.json
rm -f "$json"
kunitconfig=drivers/xen/events/tests/.kunitconfig
[[ -f $LINUX/$kunitconfig ]] ||
	die "build/linux has no $kunitconfig (not added by patches/series yet?)"

args=(run --arch="$arch" --build_dir="$bdir" --kunitconfig="$kunitconfig" --json="$json"
	--jobs="$(nproc)" --make_options="CC=ccache ${cross}gcc")
[[ -z $cross ]] || args+=(--cross_compile="$cross")
# On x86_64 the KUnit kernel is also the live-Xen test kernel (PV dom0 and
# domU, mk/xen-test.sh): lab/xen/xen-test.config adds what that needs,
# CONFIG_HYPERVISOR_GUEST and CONFIG_PARAVIRT (which CONFIG_XEN needs on
# x86) among it.  KUNIT_XEN_TEST=0 (the sanitizer build) adds just those
# two.  The .kunitconfig stays arch-neutral.
# On arm and arm64 lab/xen/xen-test-arm.config does the same for Xen on
# Arm (make xen-test ARCH=arm|arm64).
xen_test=0
if [[ $arch == x86_64 && ${KUNIT_XEN_TEST:-1} == 1 ]]; then
	args+=(--kunitconfig="$ROOT/lab/xen/xen-test.config")
	xen_test=1
elif [[ $arch == x86_64 ]]; then
	args+=(--kconfig_add CONFIG_HYPERVISOR_GUEST=y --kconfig_add CONFIG_PARAVIRT=y)
elif [[ $arch == i386 ]]; then
	# 32-bit x86: 32-bit event words (1024 ports).  XEN needs PAE, a
	# generic or P4-class CPU and the local APIC (SMP brings it).  The
	# kernel only runs the suite (no live test boots it).
	for opt in HYPERVISOR_GUEST PARAVIRT X86_PAE X86_GENERIC SMP; do
		args+=(--kconfig_add "CONFIG_$opt=y")
	done
	# In the older bases (6.1, 6.12) PAE comes with the 64 GB highmem
	# choice (7.3 has no HIGHMEM64G).
	if grep -qx 'config HIGHMEM64G' "$LINUX/arch/x86/Kconfig"; then
		args+=(--kconfig_add CONFIG_HIGHMEM64G=y)
	fi
elif [[ ${KUNIT_XEN_TEST:-1} == 1 ]]; then
	args+=(--kunitconfig="$ROOT/lab/xen/xen-test-arm.config")
	# Debian's armhf binaries in the initramfs (busybox, the Xen tools)
	# use VFP: without it /init dies of SIGILL.  (arm64 has no such option.)
	if [[ $arch == arm ]]; then
		args+=(--kconfig_add CONFIG_VFP=y)
	fi
	xen_test=1
fi
# Every kernel leaves out what neither the suite nor the live test needs
# (lab/kunit/lean.config), for a shorter cold build; one that only runs
# the suite leaves out ACPI too (x86's dom0 needs it).
args+=(--kunitconfig="$ROOT/lab/kunit/lean.config")
((xen_test)) || args+=(--kconfig_add CONFIG_ACPI=n)
# KUNIT_FILTER=suite[.case] (globs): run only those, kunit.py's filter_glob.
[[ -z ${KUNIT_FILTER:-} ]] || args+=("$KUNIT_FILTER")
read -ra extra <<<"${KUNIT_KCONFIG_ADD:-}"
for opt in "${extra[@]}"; do
	args+=(--kconfig_add "$opt")
done
if [[ -n ${KUNIT_CPUS:-} ]]; then
	[[ $KUNIT_CPUS =~ ^[1-9][0-9]*$ ]] || die "KUNIT_CPUS: a number of CPUs, not '$KUNIT_CPUS'"
	args+=(--qemu_args "-smp $KUNIT_CPUS")
fi

# kunit.py (since 6.17) asks QEMU for "-accel kvm -accel hvf -accel tcg".
# On these machines /dev/kvm exists but a guest under it stalls while the
# kernel decompresses, so QEMU runs under TCG, as every other stage does,
# through a wrapper early in PATH that drops the kvm and hvf choices
# (KUNIT_ACCEL=any leaves kunit.py's choice).
if [[ ${KUNIT_ACCEL:-tcg} == tcg ]]; then
	wrap=$ROOT/build/bin
	qemu=$(arch_field "$arch" qemu)
	real=$(command -v "$qemu") || die "$qemu not found (install qemu-system-x86 / qemu-system-arm)"
	mkdir -p "$wrap"
	cat >"$wrap/$qemu.tmp" <<-EOF
		#!/bin/bash
		# made by mk/kunit.sh: $qemu under TCG only (see there)
		args=()
		while ((\$#)); do
			if [[ \$1 == -accel && (\${2:-} == kvm || \${2:-} == hvf) ]]; then
				shift 2
				continue
			fi
			args+=("\$1")
			shift
		done
		exec $real "\${args[@]}"
	EOF
	chmod +x "$wrap/$qemu.tmp"
	mv "$wrap/$qemu.tmp" "$wrap/$qemu"
	export PATH=$wrap:$PATH
fi

mkdir -p "$LOGS"
say "log: $log"
say "kunit.py ${args[*]}"
# Progress lines while kunit.py builds (it is silent then), none once the
# tests run.
building() {
	! grep -q 'Starting KUnit Kernel' "$log" && count_objects "$bdir"
}
cd "$LINUX"
start_ticker "$PROG" building
status=0
# What the kernel is built with, once it is built (mk/xen-rig.sh's
# image_stale reads it: a kernel built with other options is rebuilt).
rm -f "$bdir/$KUNIT_ADD_STAMP"
python3 tools/testing/kunit/kunit.py "${args[@]}" 2>&1 | tee "$log" || status=$?
stop_ticker
if grep -q 'Starting KUnit Kernel' "$log"; then
	kunit_add_words >"$bdir/$KUNIT_ADD_STAMP"
fi
((status == 0)) || die "kunit.py failed (exit $status); full log: $log"

# A sanitizer report fails the run even where it did not fail a test
# (kunit.py keeps the kernel's whole console output in test.log).
# A splat fails the run even when every case says "ok": a sanitizer's
# report anywhere in the log; from the tests' start on, any BUG, WARNING
# or lockdep report (a sleeping lock taken in atomic context on
# PREEMPT_RT).  Splats of the boot before the tests (e.g. x86_64-rt's
# DEBUG_PREEMPT on QEMU's AMD CPU model in amd_fill_cpuid4_info()) are
# the base kernel's: shown, not counted.
splats=$bdir/sanitizer-reports.txt
{
	grep -E 'UBSAN:|BUG: KASAN|BUG: KFENCE' "$bdir/test.log" || true
	sed -n '/KTAP version/,$p' "$bdir/test.log" |
		grep -E 'BUG: |WARNING: |INFO: (possible|inconsistent)' || true
} | sort -u >"$splats"
if [[ -s $splats ]]; then
	cat "$splats"
	die "kernel splat(s) in $bdir/test.log"
fi
boot=$(sed '/KTAP version/q' "$bdir/test.log" | grep -cE 'BUG: |WARNING: ' || true)
((boot == 0)) || warn "$boot splat(s) during the boot, before the tests, in $bdir/test.log (not the suite's)"
