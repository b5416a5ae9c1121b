# SPDX-License-Identifier: GPL-2.0
# Top-level Makefile of the Xen 2-level event-channel scanner series.
# The work is done by the scripts in mk/; see README.md.
#
# BASE=7.3 (the default) or a backport base, BASE=6.12 or BASE=6.1, picks
# the base every target below works on: Linux 7.3 (BASE) in build/, or
# patches/V/BASE with the variant patches/V/series describes in build/V/.
# The bases never share a tree or a build directory.

# The scripts parallelise their own kernel builds; keep targets sequential.
.NOTPARALLEL:
MAKEFLAGS += --no-print-directory

ARCH ?= x86_64

.PHONY: all deps tree refresh kunit replay-check check series bisect-build clean \
	bench fairness xen-test fuzz fuzz-long deb vee-lab vee-report objsize

# Default: the patched, dom0-capable x86_64 kernel in build/out/
# (mk/kernel.sh; KCONFIG=/path/to/.config replaces defconfig + xen.config).
all: tree
	@mk/kernel.sh

# The patched kernel as Debian packages (bindeb-pkg) in build/out/
# (mk/deb.sh; LOCALVERSION=-evtchn-rr, KCONFIG= as for 'make').
deb: tree
	@mk/deb.sh

deps:
	@mk/deps.sh

# build/linux: base + patches/series, one commit per entry (mk/tree.sh).
tree: deps
	@mk/tree.sh

# The KUnit suite under QEMU (mk/kunit.sh): ARCH=x86_64|arm64|arm,
# KUNIT_KCONFIG_ADD="CONFIG_...=y ...", KUNIT_BUILD_DIR=<name in build/>.
kunit: tree
	@mk/kunit.sh $(ARCH)

# The replay tool's userspace tests (mk/replay.sh): the lab's evtchn-replay
# (lab/scan/), its policies rr and base the series' and the released
# events_2l.c of build/linux compiled unchanged, on the host and for
# 32-bit Arm (there also with base = the released one plus the width fixes).
replay-check: tree
	@mk/replay.sh check

# Userspace replay tests, then the KUnit suite on x86_64, arm64, arm and
# x86_64 with KASAN+UBSAN (mk/check.sh; KUNIT_CONFIGS="x86_64 ..." picks a
# subset); one summary line at the end.
check: replay-check
	@mk/check.sh

# build/linux's commits back into patches/ and the new files (mk/refresh.sh;
# BASE=V: into patches/V/), checked by rebuilding the tree from them.
refresh: deps
	@mk/refresh.sh
# The series as mail in build/series/, checked by checkpatch.pl --strict.
series: tree
	@mk/series.sh

# Every commit of the series must build drivers/xen/ for x86_64 and arm.
bisect-build: tree
	@mk/bisect-build.sh

clean:
	rm -rf build

# The comparison lab (lab/, outside the series; tree: HEAD's and the base
# commit's events_2l.c are the "rr" and "base" policies).  bench:
# instructions and ns per serviced port of rr, base and lowest
# (mk/bench.sh, lab/scan/bench.c, table in build/out/bench.txt).  fairness: per-guest services in the
# replay scenarios of lab/fairness/ (mk/fairness.sh, build/out/fairness.txt
# and build/out/fairness-<scenario>.png).
bench: tree
	@mk/bench.sh

# The object size of evtchn_2l_handle_events() for x86_64 and arm at the
# base and at each commit of the series changing events_2l.c
# (mk/objsize.sh, build/out/objsize.txt).
objsize: tree
	@mk/objsize.sh

fairness: tree
	@mk/fairness.sh

# The series on a live Xen 4.17 under QEMU (mk/xen-test.sh): the x86_64
# KUnit kernel (built by mk/kunit.sh if needed) as PV dom0 and as PV guest
# with xen.fifo_events=0, the KUnit suites, evtchn-stress in dom0 and an
# exchange dom0<->guest; one line per stage, logs in build/logs/xen-test-*.
# KERNEL=build/out/linux-image-...deb boots that package's kernel instead,
# with its modules (logs build/logs/xen-test-pkg-*).
xen-test: tree
	@mk/xen-test.sh

# Fuzzing (mk/fuzz.sh, lab/fuzz/): libFuzzer with ASan and UBSan over the
# replay script parser and engine (fuzz-script) and over a differential of
# the series' evtchn_2l_handle_events() against a reference (fuzz-diff),
# FUZZ_SECS (60) each; FUZZ_MERGE=1 minimizes the corpora back into
# lab/fuzz/corpus/.  fuzz-long: the differential as a plain seeded loop,
# FUZZ_PASSES (10^7) passes on the host and on 32-bit Arm (qemu-arm-static).
fuzz: tree
	@mk/fuzz.sh

fuzz-long: tree
	@mk/fuzz.sh long

# The original report's experiment live (mk/vee-lab.sh, lab/vee/): 7
# guests receiving TCP streams through dom0 on Xen 4.17 in QEMU, dom0
# kernels lowest, base and series (KERNELS=), variants bulk, unmoderated
# and noisy (VARIANTS=; small too), RUNS (3) runs of SECS (180) seconds;
# tables and chart in build/out/vee.{txt,png}.  vee-report: the same
# tables and chart again from the boots' serial logs, without booting.
vee-lab: tree
	@mk/vee-lab.sh

vee-report:
	@mk/vee-lab.sh --report
