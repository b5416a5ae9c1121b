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

# Every goal must be a target make help lists ('## TARGET:' below): an
# unknown one stops make before any goal starts.
MAKEFILE := $(firstword $(MAKEFILE_LIST))
GOALS := $(shell sed -n 's/^## \([^:]*\): .*/\1/p' $(MAKEFILE))
ifneq ($(filter-out $(GOALS),$(MAKECMDGOALS)),)
$(error unknown target(s): $(filter-out $(GOALS),$(MAKECMDGOALS)) (make help lists them))
endif

# The variables ('#= VARIABLE:' and '#- VARIABLE:' below), checked before any goal starts
# (mk/args.sh): a bad value, or a word but 0 or 1 for a flag, stops make
# here with one line, before packages, trees or kernels.  make 4.3's
# $(shell) does not see command-line variables in its environment, so
# each value is quoted as Kbuild quotes (escsq): an apostrophe is kept
# and nothing in a value runs.  Recipes get them from the environment.
squote := '
escsq = $(subst $(squote),'\$(squote)',$1)
KNOBS := $(shell sed -n 's/^#[=-] \([A-Z0-9_]*\): .*/\1/p' $(MAKEFILE))
FLAGS := $(shell sed -n 's/^#[=-] \([A-Z0-9_]*\): \(0\|1\|0 or 1\): .*/\1/p' $(MAKEFILE))
ARGS_ERROR := $(shell $(foreach v,ARCH $(KNOBS),$(v)='$(call escsq,$($(v)))') \
	FLAGS='$(FLAGS)' mk/args.sh $(MAKECMDGOALS) 2>&1)
ifneq ($(ARGS_ERROR),)
$(error $(ARGS_ERROR))
endif

# '## TARGET: what it does' above each target is what make help prints
# (mk/check.sh checks that every target has one).
.PHONY: help lab-help all deps tree refresh kunit replay-check check lab-check series export bisect-build clean \
	bench xen-test fuzz fuzz-long prove deb objsize ci-cold

# Default: the patched, dom0-capable x86_64 kernel in build/out/
# (mk/kernel.sh; KCONFIG=/path/to/.config replaces defconfig + xen.config,
# LSMOD=file keeps only the modules it names); ARCH=arm|arm64:
# cross-built, in build/out/ARCH/.
## all: the dom0-capable kernel of the mailed series (not the lab's patches) in build/out/ (ARCH=arm|arm64: build/out/ARCH/; KCONFIG= replaces the defconfig + Xen; LSMOD=)
all: tree
	@mk/kernel.sh

# The patched kernel as Debian packages (bindeb-pkg) in build/out/
# (mk/deb.sh; LOCALVERSION=-evtchn-rr, ARCH=, KCONFIG= and LSMOD= as for
# 'make').
## deb: the mailed series' kernel (not the lab's patches) as Debian packages in build/out/ (ARCH=arm|arm64: armhf, arm64 in build/out/ARCH/; LOCALVERSION=, KCONFIG=, LSMOD=)
deb: tree
	@mk/deb.sh

# Each goal installs the groups of mk/packages it names there (make check
# and make deps: all of them).
## deps: install the Debian packages of mk/packages the goals need (make deps: all); fetch the base linux-source
deps:
	@mk/deps.sh $(or $(MAKECMDGOALS),all)

# build/linux: base + patches/series, one commit per entry (mk/tree.sh).
## tree: build/linux: the base plus patches/series, then lab/patches/series, one commit per patch
tree: deps
	@mk/tree.sh

# The KUnit suite under QEMU (mk/kunit.sh): ARCH=x86_64|arm64|arm|i386,
# KUNIT_KCONFIG_ADD="CONFIG_...=y ...", KUNIT_BUILD_DIR=<name in build/>.
## kunit: the KUnit suites under QEMU for ARCH=x86_64|arm64|arm|i386 (KUNIT_FILTER=, KUNIT_KCONFIG_ADD=, KUNIT_BUILD_DIR=)
kunit: tree
	@mk/kunit.sh $(ARCH)

# The replay tool's userspace tests (mk/replay.sh): the lab's evtchn-replay
# (lab/scan/), its policies rr and base the series' and the released
# events_2l.c of build/linux compiled unchanged, on the host and for
# 32-bit Arm (there also with base = the released one plus the width fixes).
## replay-check: the lab's replay tests: the series' and the released events_2l.c in user space
replay-check: tree
	@mk/replay.sh check

# What CI runs (.ci/run is make check), one summary line at the end
# (mk/check.sh; what it runs and how long: docs/testing.md).  lab-check:
# every test, the KUnit configurations, live runs and bisect builds make
# check leaves out, and make prove.
## check: what CI runs: replay, KUnit x86_64 arm i386 arm64-rt, the robot's builds, make series and export, fuzzing, live on Xen 4.20 (x86_64) and Arm, the backports
check: replay-check
	@mk/check.sh

## lab-check: every test: make check plus KUnit arm64 x86_64-rt i386-rt and the sanitizers, more bisect builds and live runs, make prove
lab-check: replay-check
	@LAB_CHECK=1 mk/check.sh

# build/linux's commits back into patches/ and the new files (mk/refresh.sh;
# BASE=V: into patches/V/), checked by rebuilding the tree from them.
## refresh: build/linux's commits back into patches/ and lab/patches/, whole patches
refresh: deps
	@mk/refresh.sh
# The two series as mail in build/series/events-2l/ and build/series/evtchn/
# (there only once every check passed), checked by checkpatch.pl --strict.
## series: the two series as mail in build/series/events-2l/ and evtchn/, checked (SIGNOFF=, AUTHOR=, REVISION=)
series: tree
	@mk/series.sh

# The series as complete git format-patch files and a quilt series file,
# for git am or quilt on a tree of that base (mk/export.sh checks both).
## export: the series (BASE=V's too) as git format-patch files and a quilt series file in build/export/ (DIR=, SIGNOFF=, AUTHOR=)
export: tree
	@mk/export.sh

# Every commit of the series must build as the kernel test robot builds.
## bisect-build: every commit of the series built: drivers/xen/ for x86_64, i386, arm and x86_64 with clang (W=1, sparse), an x86_64 kernel with KUnit =m (modpost)
bisect-build: tree
	@mk/bisect-build.sh

# A kernel tree of build/ that holds work make tree did not make is kept
# (mk/clean.sh names it; FORCE=1 removes it anyway).
## clean: remove build/ (the ccache stays) but a kernel tree with commits or changes of yours (FORCE=1: all)
clean:
	@mk/clean.sh

# The comparison lab (lab/, outside the series; tree: HEAD's and the base
# commit's events_2l.c are the "rr" and "base" policies).  bench:
# instructions and ns per serviced port of rr, base and lowest
# (mk/bench.sh, lab/scan/bench.c, table in build/out/bench.txt).
## bench: instructions and ns per serviced port of rr, base and lowest (build/out/bench.txt)
bench: tree
	@mk/bench.sh

# The object size of evtchn_2l_handle_events() for x86_64 and arm at the
# base and at each commit of the series changing events_2l.c
# (mk/objsize.sh, build/out/objsize.txt).
## objsize: evtchn_2l_handle_events()'s size at the base and each commit (build/out/objsize.txt)
objsize: tree
	@mk/objsize.sh

# The series on a live Xen 4.17 under QEMU (mk/xen-test.sh): the x86_64
# KUnit kernel (built by mk/kunit.sh if needed) as PV dom0 and as PV guest
# with xen.fifo_events=0, the KUnit suites, evtchn-stress in dom0 and an
# exchange dom0<->guest; one line per stage, logs in build/logs/xen-test-*.
# ARCH=arm|arm64: Xen for armhf or arm64 and that KUnit kernel; ARCH=arm
# adds the width bug stage (the base loses events on ports 2048-4095, the
# base with patch 1 alone none; XEN_TEST_WIDTH_RUNS=N repeats it).
# DEB=build/out/linux-image-...deb boots that package's kernel instead,
# with its modules (logs build/logs/xen-test-deb-*); IMAGE=build/out/bzImage
# the kernel image that make left, with its config and modules beside it
# (logs build/logs/xen-test-image-*).  mk/xen-verdict.sh judges a saved
# serial log alone.
## xen-test: the series live on Xen 4.17 under QEMU, dom0 and guest (ARCH=x86_64|arm|arm64, XEN=4.20, DOMU=, DEB=...deb, IMAGE=bzImage)
xen-test: tree
	@XEN_ARCH=$(ARCH) mk/xen-test.sh

# .ci/run as on a new machine (mk/ci-cold.sh): a fresh clone of HEAD, an
# empty ccache; its times to docs/ci-cold.txt when it passes.  CI_HOG=1
# with a CPU hog beside it, CI_CCACHE=keep with the last run's ccache,
# CI_FULL=1 with the full make check (docs/ci-cold-full.txt).
## ci-cold: .ci/run in a fresh clone of HEAD with an empty ccache; its times in docs/ci-cold.txt
ci-cold:
	@mk/ci-cold.sh

# Fuzzing (mk/fuzz.sh, lab/fuzz/): libFuzzer with ASan and UBSan over the
# replay script parser and engine (fuzz-script) and over a differential of
# the series' evtchn_2l_handle_events() against a reference (fuzz-diff),
# FUZZ_SECS (60) each; FUZZ_MERGE=1 minimizes the corpora back into
# lab/fuzz/corpus/.  fuzz-long: the differential as a plain seeded loop,
# FUZZ_PASSES (10^7) passes on the host and on 32-bit Arm (qemu-arm-static).
## fuzz: the libFuzzer fuzzers, FUZZ_SECS (60) each (FUZZ_MERGE=1)
fuzz: tree
	@mk/fuzz.sh

## fuzz-long: the differential as a seeded loop, FUZZ_PASSES, host and 32-bit Arm
fuzz-long: tree
	@mk/fuzz.sh long

# Frama-C's EVA on the real evtchn_2l_handle_events() (mk/prove.sh,
# lab/prove/): the series' and the released events_2l.c of build/linux,
# with ACSL comments only, from the most general state, in three
# geometries (64-bit, 32-bit Arm, 32-bit x86); each alarm with its line,
# in build/out/prove.txt.  WP proves the loop invariants EVA takes, for
# the series.  make check runs it too (PROVE=0 leaves it out).
## prove: Frama-C's EVA and WP on the real evtchn_2l_handle_events(), 3 geometries (build/out/prove.txt)
prove: tree
	@mk/prove.sh

# '#= VARIABLE: what it does' lines are the variables make help lists, one
# line each, at most 12 (a user's: the base, the kernel, the mail, the
# live test's kernel); '#- VARIABLE:' lines are make check's and the lab's,
# which make lab-help lists.  mk/check.sh checks that the scripts read
# each of them.
#= BASE: 7.3 (default), 6.12 or 6.1: the base every target works on
#= ARCH: x86_64 (default), arm64 or arm (make kunit: also i386): the architecture of make, make deb, make kunit and make xen-test
#= KCONFIG: a .config (or .config.xz) of ARCH for make and make deb instead of the defconfig + Xen (e.g. a Debian kernel's /boot/config-*)
#= LSMOD: lsmod's output (or a module name a line) for make and make deb: only those modules built, the =y options kept but for those needing a dropped module (the kernel's localmodconfig; lab/xen/dom0.lsmod: what make xen-test DEB= loads)
#= LOCALVERSION: make deb's release suffix (default -evtchn-rr)
#- KUNIT_CONFIGS: make check's KUnit configurations (default x86_64 arm i386 arm64-rt; make lab-check: x86_64 arm64 arm i386 x86_64-rt i386-rt arm64-rt x86_64-san arm-san; or none)
#= KUNIT_FILTER: make kunit's suite[.case] globs (kunit.py's filter_glob)
#- KUNIT_KCONFIG_ADD: more options for make kunit's kernel, and for each test kernel make xen-test builds ("CONFIG_A=y CONFIG_B=y"; a kernel built with others is rebuilt)
#- KUNIT_BUILD_DIR: another build directory for make kunit (under build/)
#= SIGNOFF: make series' and make export's sender, "Name <mail>" (default: git's user.name and user.email)
#= AUTHOR: make series' and make export's author of every patch, "Name <mail>" (default: the sender)
#- DIR: make export's directory (default build/export, build/V/export for BASE=V)
#= REVISION: make series' version, n > 1 for "[PATCH vn ...]"
#- COVER_FIGURES: 0: make series leaves bloat-o-meter (make objsize) out of the cover letters
#- KUNIT_XEN_TEST: 0: make kunit's x86_64 kernel without lab/xen/xen-test.config (as the sanitizer build)
#- KUNIT_ACCEL: tcg (default) or any: QEMU's accelerators for make kunit (any: kunit.py's choice)
#- SERIES_TEST: 0: make check leaves make series out
#- EXPORT_TEST: 0: make check leaves make export out
#- FORCE: 1: make clean removes all of build/, a kernel tree with unsaved work too
#- BISECT: 0: make check and make lab-check leave make bisect-build out
#- BISECT_VARIANTS: make bisect-build's builds (default x86_64 i386 arm x86_64-m x86_64-clang; make check: x86_64 i386 arm)
#- FUZZ: 0: make check leaves the fuzzers out (a backport's make check runs none)
#- FUZZ_SECS: seconds each fuzzer runs (default 60)
#- FUZZ_MERGE: 1: make fuzz merges what it found into the corpora
#- FUZZ_PASSES: make fuzz-long's passes (default 10000000)
#- VERDICT_TEST: 0: make check leaves the xen-test verdict's self-test out
#- PROVE: 0 or 1: make prove (0 in make check, 1 in make lab-check)
#- XEN_TEST: 0: make check leaves the live tests on Xen out (a backport's make check runs none)
#- XEN_TEST_ARCHS: make check's live runs, each ARCH[:XEN[:DOMU]] (default x86_64:4.20 arm; make lab-check: x86_64 x86_64:4.20 arm, and arm64:4.17:arm32 on 7.3)
#- XEN_TEST_NO_BUILD: 1: make xen-test boots the KUnit kernel as it is, never rebuilt
#- XEN_TEST_TIMEOUT: make xen-test's limit for QEMU, seconds (600 on x86_64; 1500 on Arm, 2400 with a 32-bit guest)
#- XEN_TEST_EVENTS: events exchanged between dom0 and the guest (10000, 2000 on Arm)
#- XEN_TEST_WIDTH: 0 or 1: the width bug stage (default 1 for ARCH=arm only)
#- XEN_TEST_WIDTH_RUNS: runs of the width bug stage (default 1)
#- XEN_TEST_RESTORE: 0 or 1: the restore stage, series (c) live (default 1 for ARCH=x86_64 with the PV guest, without DEB= or IMAGE=)
#= XEN: make xen-test's Xen, 4.17 (Debian 12's, the default) or 4.20 (Debian 13's; x86_64 and arm64)
#- DOMU: make xen-test's guest: pv (the default; on Arm the Arm guest), or on arm64 arm32 (the arm kernel, 32-bit)
#- XEN_TEST_PORTS: ports of dom0's evtchn-stress loop, max (every free one, the default) or an even number
#- XEN_TEST_LOAD: busy processes per host core beside QEMU in make xen-test (default 0)
#- XEN_TEST_LOAD_NICE: their nice value (default 0)
#- CI_HOG: busy processes per host core beside make ci-cold's .ci/run (default 0)
#- CI_WRITE_ONLY: 1: make ci-cold only writes its docs file from the last run's clone
#- CI_FULL: 1: make ci-cold's .ci/run runs the full make check (its cold time)
#- CI_CCACHE: keep: make ci-cold keeps the last run's ccache (default empty)
#- XEN_TEST_TCG: QEMU's TCG, multi (a thread per vCPU, the default) or single (one thread for all)
#- XEN_TEST_QEMU: make xen-test's QEMU, host (Debian 12's 7.2) or backports (bookworm-backports', unpacked in build/qemu-backports; the default with ARCH=arm64 DOMU=arm32)
#- XEN_TEST_FAULT: late, stall or lost: the guest answers its event 100 late or never (test only)
#- XEN_TEST_GUEST_FAULTS: 0: no pause, save and restore, and vCPU unplug of the guest during the exchange (default 1)
#- XEN_TEST_SAVE: 0 or 1: the guest saved and restored among the guest faults (default 1 on x86 with the test kernel)
#= DEB: make xen-test boots this linux-image-*.deb instead of the KUnit kernel
#= IMAGE: make xen-test boots this kernel image (e.g. build/out/bzImage) instead
#- IMAGE_CONFIG: IMAGE's configuration (default: the config beside it)

## help: this list
help:
	@echo 'Targets (BASE=7.3, the default, or BASE=6.12|6.1 for a backport):'
	@sed -n 's/^## \([^:]*\): /  \1\t/p' $(MAKEFILE) | expand -t 16
	@echo 'Variables (make lab-help: the ones of make check and the lab):'
	@sed -n 's/^#= \([^:]*\): /  \1\t/p' $(MAKEFILE) | expand -t 22

## lab-help: the variables of make check, the live tests and the lab
lab-help:
	@echo 'Variables of make check, the live tests and the lab (docs/testing.md, docs/live-xen.md):'
	@sed -n 's/^#- \([^:]*\): /  \1\t/p' $(MAKEFILE) | expand -t 22
