# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# mk/lib.sh: helpers shared by the mk/*.sh scripts.  Source it, don't run it.
#
# Sourcing it only defines: PROG (script name without .sh, used as message
# prefix), ROOT (repo root), the constants below and the functions; it
# changes no environment variable and never exits.  A script then calls
# lib_init, which picks the base: SERIES_BASE, BASE_PIN, BASE_VARIANT,
# BUILD, LINUX (the patched tree), LOGS.

# shellcheck disable=SC2034 # used by the scripts sourcing this file
PROG=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# arch_field ARCH FIELD: FIELD (kunit, make, xen, cross, image, debian,
# qemu, triplet or config) of ARCH's line in mk/arches, empty for "-";
# non-zero for an ARCH the table does not have.
arch_field() {
	awk -v a="$1" -v f="$2" '
		BEGIN { split("kunit make xen cross image debian qemu triplet", n, " ")
			for (i in n) col[n[i]] = i + 1 }
		/^#/ || $1 != a { next }
		{ found = 1
		  if (f == "config") { v = $0; for (k = 1; k <= 9; k++) sub(/^[^ \t]+[ \t]+/, "", v) }
		  else v = $col[f]
		  print v == "-" ? "" : v }
		END { exit !found }' "$ROOT/mk/arches"
}

# arches_with FIELD: the architectures whose FIELD (kunit, make, xen) is yes.
arches_with() {
	awk -v f="$1" 'BEGIN { split("kunit make xen", n, " "); for (i in n) c[n[i]] = i + 1 }
		!/^#/ && $c[f] == "yes" { printf "%s%s", s, $1; s = " " } END { print "" }' "$ROOT/mk/arches"
}

# The base the series is applied to: BASE=7.3 (the default, the series as
# submitted) or a backport base V (6.12, 6.1).  7.3 is pinned by BASE at the
# repo root and builds in build/; another base V is pinned by
# patches/V/BASE, differs from the series as patches/V/series says, and
# builds in build/V/, so the bases never rebuild each other.  BASE is
# handed on as SERIES_BASE and not left in the environment, where the
# kernel's make would see it.
MAIN_BASE=7.3
# What the targets accept (mk/args.sh checks them before any goal starts):
# make kunit's ARCH, make check's KUNIT_CONFIGS (mk/check.sh), make
# xen-test's ARCH and make check's XEN_TEST_ARCHS, make bisect-build's
# BISECT_VARIANTS (mk/bisect-build.sh).
KUNIT_ARCHES=$(arches_with kunit)
KUNIT_ALL_CONFIGS="x86_64 arm64 arm i386 x86_64-rt i386-rt arm64-rt x86_64-san arm-san"
XEN_TEST_ALL_ARCHES=$(arches_with xen)
# make check's live runs (XEN_TEST_ARCHS, live_run): x86_64 on Debian 12's
# Xen 4.17 and on Debian 13's 4.20, 32-bit Arm on 4.17 (Debian 13 has no
# Xen for armhf), and on the 7.3 base (below) the 32-bit Arm guest of
# arm64 Xen 4.17, with the width bug stage in the guest.
XEN_TEST_DEFAULT_RUNS="x86_64 x86_64:4.20 arm"
BISECT_ALL_VARIANTS="x86_64 i386 arm x86_64-m x86_64-clang"
# make check is what CI runs (.ci/run): on the main base these KUnit
# configurations, live runs and bisect builds, no make prove, then each
# backport's make check (no kernel there).  make lab-check runs all of the
# above (KUNIT_ALL_CONFIGS, XEN_TEST_DEFAULT_RUNS, BISECT_ALL_VARIANTS,
# make prove), and on a backport base its KUnit and live runs too.
KUNIT_CHECK_CONFIGS="x86_64 arm i386 arm64-rt"
XEN_TEST_CHECK_RUNS="x86_64:4.20 arm"
BISECT_CHECK_VARIANTS="x86_64 i386 arm"
# lib_init: what every script calls once it has sourced this file (which
# itself only defines): the base, BASE=V (else SERIES_BASE, else 7.3),
# handed on as SERIES_BASE and unset (the kernel's make would see it),
# with BASE_PIN, BASE_VARIANT, BUILD, LINUX, SERIES_STAMP and LOGS; 7.3's
# extra live runs in XEN_TEST_DEFAULT_RUNS; and the flags of the make that
# started us unset, so that the kernel builds these scripts start are
# independent of it (ARCH, CROSS_COMPILE and CC are always passed to the
# kernel's make explicitly).  Dies on a base that does not exist.
lib_init() {
	SERIES_BASE=${BASE:-${SERIES_BASE:-$MAIN_BASE}}
	unset BASE
	export SERIES_BASE
	[[ $SERIES_BASE != "$MAIN_BASE" || $XEN_TEST_DEFAULT_RUNS == *arm64:4.17:arm32* ]] ||
		XEN_TEST_DEFAULT_RUNS+=" arm64:4.17:arm32"
	if [[ $SERIES_BASE == "$MAIN_BASE" ]]; then
		BASE_PIN=$ROOT/BASE
		BASE_VARIANT=
		BUILD=$ROOT/build
	elif [[ $SERIES_BASE =~ ^[0-9]+\.[0-9]+$ && -f $ROOT/patches/$SERIES_BASE/BASE ]]; then
		BASE_PIN=$ROOT/patches/$SERIES_BASE/BASE
		BASE_VARIANT=$ROOT/patches/$SERIES_BASE
		BUILD=$ROOT/build/$SERIES_BASE
	else
		die "BASE=$SERIES_BASE: no such base ($MAIN_BASE, or a V with patches/V/BASE)"
	fi
	LINUX=$BUILD/linux
	# What mk/tree.sh made build/linux from: "FINGERPRINT HEAD" (or, while
	# mk/refresh.sh rebuilds it, "refreshed HEAD").
	SERIES_STAMP=$LINUX/.git/series-stamp
	LOGS=$BUILD/logs
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

warn() {
	echo "$PROG: warning: $*" >&2
}

say() {
	echo "$PROG: $*"
}

# Seconds as "12m34s".
fmt_time() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# read_pin: the base's pin (BASE_PIN) as BASE_PKG, BASE_VER and BASE_SUITE
# ("<package> <version> [<suite>]"; a suite means the package is not in the
# host's archive and is downloaded from that suite of Debian's archive).
# BASE_TARBALL: the source tarball the package holds, in /usr/src when it
# is installed on the host, else as mk/deps.sh unpacked it in build/dl/.
read_pin() {
	local pin=${BASE_PIN#"$ROOT"/}
	[[ -r $BASE_PIN ]] || die "$pin missing"
	BASE_PKG='' BASE_VER='' BASE_SUITE=''
	read -r BASE_PKG BASE_VER BASE_SUITE _ <"$BASE_PIN" || true
	[[ -n $BASE_PKG && -n $BASE_VER ]] ||
		die "$pin:1: expected '<package> <version> [<suite>]'"
	if [[ -n $BASE_SUITE ]]; then
		BASE_TARBALL=$ROOT/build/dl/${BASE_PKG}_$BASE_VER/$BASE_PKG.tar.xz
	else
		BASE_TARBALL=/usr/src/$BASE_PKG.tar.xz
	fi
}

# Fail unless mk/tree.sh has produced build/linux.
require_tree() {
	[[ -f $SERIES_STAMP ]] ||
		die "${LINUX#"$ROOT"/} is missing or incomplete; run 'make${BASE_VARIANT:+ BASE=$SERIES_BASE} tree' first"
}

# CCACHE_BASEDIR/NOHASHDIR: compile commands name files below the repo
# by absolute path; hash them relative to it, so that a fresh clone in
# another folder (CI) hits the cache of an earlier one.
setup_ccache() {
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
	export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
}

# load_start N NICE: N busy processes at nice NICE, a CPU load beside a
# test (xen-test's XEN_TEST_LOAD, ci-cold's CI_HOG).  Each ends by itself
# once the calling script is gone; load_stop ends them at once.
LOAD_PIDS=()
load_start() {
	local i
	for ((i = 0; i < $1; i++)); do
		# shellcheck disable=SC2016 # $1 is the inner shell's
		nice -n "$2" bash -c 'while kill -0 "$1" 2>/dev/null; do :; done' load "$$" &
		LOAD_PIDS+=("$!")
	done
}
load_stop() {
	((${#LOAD_PIDS[@]})) || return 0
	kill "${LOAD_PIDS[@]}" 2>/dev/null || true
	wait "${LOAD_PIDS[@]}" 2>/dev/null || true
	LOAD_PIDS=()
}

# start_ticker LABEL COUNT_CMD...: until stop_ticker (or until COUNT_CMD
# fails), print every 30 s a line with the elapsed time and the output of
# COUNT_CMD, a number of objects compiled.
TICKER_PID=
start_ticker() {
	local label=$1
	shift
	(
		t0=$SECONDS
		while sleep 30; do
			n=$("$@") || break
			echo "$label: $(fmt_time $((SECONDS - t0))) elapsed, $n objects compiled"
		done
	) &
	TICKER_PID=$!
	trap stop_ticker EXIT
}

stop_ticker() {
	if [[ -n $TICKER_PID ]]; then
		kill "$TICKER_PID" 2>/dev/null || true
		wait "$TICKER_PID" 2>/dev/null || true
		TICKER_PID=
	fi
}

# count_compiled LOG: objects compiled so far according to a kbuild log.
count_compiled() {
	grep -cE '^  (CC|AS)( \[M\])? ' "$1" || true
}

# cross_prefix ARCH: the CROSS_COMPILE prefix for a supported kernel ARCH.
cross_prefix() {
	arch_field "$1" cross || die "unsupported ARCH '$1' (mk/arches: $(arches_with kunit))"
}

# linux_worktree DIR REV: DIR as a git worktree of build/linux, detached
# at REV, (re)created if it is missing or belongs to an earlier build/linux
# (mk/tree.sh re-extracts it when the base changes); non-zero on a failure.
linux_worktree() {
	local wt=$1 rev=$2
	git -C "$LINUX" worktree prune
	if ! grep -qxF "worktree $wt" <<<"$(git -C "$LINUX" worktree list --porcelain)"; then
		rm -rf "$wt"
		git -C "$LINUX" worktree add -q --detach "$wt" "$rev" || return 1
	fi
	git -C "$wt" checkout -q -f --detach "$rev"
}

# kmake SRC O ARCH ARGS...: the kernel's make in source tree SRC, building
# out of tree in O for ARCH, compiling through ccache.
# KMAKE_LLVM=-19: with LLVM (make LLVM=-19, clang-19 through ccache).
kmake() {
	local src=$1 o=$2 arch=$3 cross cc
	shift 3
	cross=$(cross_prefix "$arch") || exit 1
	cc="ccache ${cross}gcc"
	[[ -z ${KMAKE_LLVM:-} ]] || cc="ccache clang$KMAKE_LLVM"
	make -C "$src" O="$o" ARCH="$arch" CROSS_COMPILE="$cross" \
		${KMAKE_LLVM:+LLVM=$KMAKE_LLVM} CC="$cc" --no-print-directory "$@"
}

# kernel_image ARCH: the path of ARCH's boot image in a build directory
# (what make builds; bindeb-pkg packs make image_name's, Image.gz on
# arm64); non-zero for an ARCH make does not build.
kernel_image() {
	[[ $(arch_field "$1" make) == yes ]] && arch_field "$1" image
}

# deb_arch ARCH: Debian's name of the kernel's ARCH (x86_64: amd64, arm:
# armhf); non-zero for one make does not build.
deb_arch() {
	[[ $(arch_field "$1" make) == yes ]] && arch_field "$1" debian
}

# kbuild_std ARCH: the standard configuration for ARCH, as make's targets
# (kbuild_config's arguments to make) followed, after a "+", by the
# options set on top: x86_64 "defconfig xen.config", arm
# "multi_v7_defconfig + XEN", arm64 "defconfig + XEN" (which arm64's
# defconfig has already).  Fails for an ARCH without one.
kbuild_std() {
	local std
	std=$(arch_field "$1" config) && [[ -n $std ]] && echo "$std"
}

# kbuild_config SRC O ARCH LOG: the build directory O configured for ARCH
# as kbuild_std says, output appended to LOG.
kbuild_config() {
	local src=$1 o=$2 arch=$3 log=$4 std targets opt
	std=$(kbuild_std "$arch") || die "no kernel configuration defined for ARCH '$arch'"
	read -ra targets <<<"${std%%+*}"
	kmake "$src" "$o" "$arch" "${targets[@]}" >>"$log" 2>&1 || return
	[[ $std == *+* ]] || return 0
	for opt in ${std#*+}; do
		"$src/scripts/config" --file "$o/.config" --enable "$opt" || return
	done
	kmake "$src" "$o" "$arch" olddefconfig >>"$log" 2>&1
}

# kconfig_arch FILE: the architecture a kernel configuration (FILE, or
# FILE.xz compressed) is for, as ARCH names it: from its first lines
# ("# Linux/arm 6.1.0 Kernel Configuration"; x86 is taken as x86_64), or
# from CONFIG_X86_64, CONFIG_ARM64 or CONFIG_ARM; nothing for one that
# names none (a savedefconfig), or that cannot be read.
kconfig_arch() {
	local cat=cat
	[[ $1 != *.xz ]] || cat="xz -dc"
	$cat "$1" 2>/dev/null | awk '
		NR <= 5 && match($0, /^# Linux\/[a-z0-9_]+ /) { a = substr($0, 9, RLENGTH - 9); print (a == "x86" ? "x86_64" : a); exit }
		/^CONFIG_X86_64=y$/ { print "x86_64"; exit }
		/^CONFIG_ARM64=y$/ { print "arm64"; exit }
		/^CONFIG_ARM=y$/ { print "arm"; exit }' || true
}

# lsmod_names FILE: the module names of a module list (lsmod's output, or
# a name a line): the first word of each line but the "Module" header and
# blank ones, as localmodconfig reads it.
lsmod_names() {
	awk 'NF && $1 != "Module" { print $1 }' "$1"
}

# dom0_config O LOG [keep] [ARCH]: configure the build directory O for a
# dom0 kernel of ARCH (default x86_64), output appended to LOG:
# KCONFIG=/path/to/.config (or .xz) copied then olddefconfig, else
# kbuild_config's (with "keep", only when O has no .config yet).  Then
# LSMOD=FILE (lsmod's output, or a module name a line) keeps only those
# modules, as the kernel's "make LSMOD=FILE localmodconfig" does (the =y
# options stay, but for those that depend on a module it drops): a
# Debian configuration's thousands of modules cut to what a dom0 loads.
# Either way CONFIG_XEN_DOM0 must end up =y.  O/config-from says where
# the configuration came from (KCONFIG=..., or the defconfig, then
# LSMOD=...): a kept one is named by it.
CONFIG_FROM=config-from
dom0_config() {
	local o=$1 log=$2 keep=${3:-} arch=${4:-x86_64} std kept=0
	std=$(kbuild_std "$arch") || die "no kernel configuration defined for ARCH '$arch'"
	if [[ -n ${KCONFIG:-} ]]; then
		[[ -f $KCONFIG ]] || die "KCONFIG=$KCONFIG: no such file"
		rm -f "$o/$CONFIG_FROM"
		say "configuring from $KCONFIG (olddefconfig, ARCH=$arch)"
		case $KCONFIG in
		*.xz) xz -dc "$KCONFIG" >"$o/.config" || die "KCONFIG=$KCONFIG: cannot uncompress it" ;;
		*) cp "$KCONFIG" "$o/.config" ;;
		esac
		# Debian's configs (linux-config-6.1's config.amd64_none_amd64.xz)
		# name Debian's certificates, which the source tree does not have.
		for k in SYSTEM_TRUSTED_KEYS SYSTEM_REVOCATION_KEYS; do
			v=$(sed -n "s/^CONFIG_$k=\"\(.*\)\"\$/\1/p" "$o/.config")
			if [[ -n $v && ! -f $LINUX/$v ]]; then
				warn "KCONFIG sets CONFIG_$k=\"$v\", which is not in the tree: cleared"
				"$LINUX/scripts/config" --file "$o/.config" --set-str "$k" ""
			fi
		done
		kmake "$LINUX" "$o" "$arch" olddefconfig >>"$log" 2>&1 ||
			die "olddefconfig failed; see $log"
	elif [[ $keep != keep || ! -f $o/.config ]]; then
		rm -f "$o/$CONFIG_FROM"
		say "configuring: $std"
		kbuild_config "$LINUX" "$o" "$arch" "$log" ||
			die "configuration failed; see $log"
	else
		say "the configuration of ${o#"$ROOT"/}, as an earlier make or make deb left it: $(cat "$o/$CONFIG_FROM" 2>/dev/null || echo 'origin not recorded')"
		kept=1
	fi
	if [[ -n ${LSMOD:-} ]]; then
		local lsmod nmod
		lsmod=$(realpath -e "$LSMOD") || die "LSMOD=$LSMOD: no such file"
		nmod=$(grep -c '=m$' "$o/.config" || true)
		kmake "$LINUX" "$o" "$arch" LSMOD="$lsmod" localmodconfig </dev/null >>"$log" 2>&1 ||
			die "localmodconfig with LSMOD=$LSMOD failed; see $log"
		say "LSMOD=$LSMOD: localmodconfig kept $(grep -c '=m$' "$o/.config" || true) of $nmod options =m"
	fi
	grep -qx 'CONFIG_XEN_DOM0=y' "$o/.config" ||
		die "CONFIG_XEN_DOM0 is not =y in $o/.config (from ${KCONFIG:-$std}; ARCH=$arch)"
	local from
	if ((!kept)); then
		from=$std
		[[ -z ${KCONFIG:-} ]] || from="KCONFIG=$(realpath "$KCONFIG")"
		echo "$from${LSMOD:+, LSMOD=$(realpath "$LSMOD")}" >"$o/$CONFIG_FROM"
	elif [[ -n ${LSMOD:-} ]]; then
		from=$(cat "$o/$CONFIG_FROM" 2>/dev/null) || from='origin not recorded'
		[[ $from == *", LSMOD=$(realpath "$LSMOD")" ]] ||
			echo "$from, LSMOD=$(realpath "$LSMOD")" >"$o/$CONFIG_FROM"
	fi
}

# count_objects DIR: object files present in a build directory.
count_objects() {
	find "$1" -name '*.o' 2>/dev/null | wc -l
}

# The KUnit build directory for ARCH (KUNIT_BUILD_DIR overrides its name
# below build/) and the log of its runs, named after it.
kunit_build_dir() {
	case ${KUNIT_BUILD_DIR:-} in
	"") echo "$BUILD/kunit-$1" ;;
	/*) echo "$KUNIT_BUILD_DIR" ;;
	*) echo "$BUILD/$KUNIT_BUILD_DIR" ;;
	esac
}

kunit_log() {
	echo "$LOGS/$(basename "$(kunit_build_dir "$1")").log"
}

# The KUNIT_KCONFIG_ADD a KUnit build directory's kernel was built with,
# which mk/kunit.sh writes there once kunit.py has built it (none: not
# built by mk/kunit.sh, or its last build failed).
# kunit_add_words: KUNIT_KCONFIG_ADD's options, a space between each (so
# that spacing alone does not make a kernel stale).
KUNIT_ADD_STAMP=kunit-kconfig-add
kunit_built_with() {
	[[ -f $1/$KUNIT_ADD_STAMP ]] || return 1
	cat "$1/$KUNIT_ADD_STAMP"
}
kunit_add_words() {
	local opts
	read -ra opts <<<"${KUNIT_KCONFIG_ADD:-}" || true
	echo "${opts[*]}"
}

# kunit_counts JSON: "PASSED FAILED SKIPPED" from a kunit.py --json file
# (mk/kunit.sh's, mk/xen-verdict.sh's): every test case of every suite;
# a crashed case (ERROR) counts as failed, and so do the parser's errors
# where kunit.py reports them (misc.errors, since 6.4; 6.1 has none).
# A file that is not kunit.py's JSON: one line on stderr, exit 1.
kunit_counts() {
	python3 - "$1" <<'EOF'
import json, sys

def walk(group, counts):
    for case in group.get("test_cases", []):
        counts[{"PASS": 0, "SKIP": 2}.get(case["status"], 1)] += 1
    for sub in group.get("sub_groups", []):
        walk(sub, counts)

try:
    with open(sys.argv[1]) as f:
        top = json.load(f)
    counts = [0, 0, 0]
    walk(top, counts)
    counts[1] += top.get("misc", {}).get("errors", 0)
except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
    sys.exit(f"kunit_counts: {sys.argv[1]}: not kunit.py's JSON ({e})")
print(*counts)
EOF
}

# extract_events_src REV DIR: events_2l.c and events_internal.h of commit
# REV of build/linux in DIR/drivers/xen/events/ (rewritten only when they
# change); sets EVENTS_SRC to that events_2l.c.
extract_events_src() {
	local rev=$1 dir=$2/drivers/xen/events f tmp
	require_tree
	mkdir -p "$dir"
	for f in events_2l.c events_internal.h; do
		tmp=$(mktemp "$dir/.$f.XXXXXX")
		if ! git -C "$LINUX" show "$rev:drivers/xen/events/$f" >"$tmp"; then
			rm -f "$tmp"
			die "cannot read drivers/xen/events/$f at $rev in build/linux"
		fi
		if cmp -s "$tmp" "$dir/$f"; then
			rm "$tmp"
		else
			mv "$tmp" "$dir/$f"
		fi
	done
	EVENTS_SRC=$dir/events_2l.c
}

# width_fixes_end: sets fixes_end to the last of the series' leading width
# fixes (patches 1 and 2) in build/linux: the parent of the first commit
# of base..HEAD that is not one of them.  The fixes are told by their
# Fixes: trailers, which they carry and the rest of the series does not:
# that holds when subjects are reworded and on every base.  No leading
# fix, or nothing but fixes, is an error.
width_fixes_end() {
	local tree=${LINUX#"$ROOT"/} c
	fixes_end=base
	for c in $(git -C "$LINUX" rev-list --reverse base..HEAD); do
		git -C "$LINUX" log -1 --format=%B "$c" | grep -q '^Fixes: ' || break
		fixes_end=$c
	done
	[[ $fixes_end != base ]] ||
		die "$tree: no width fix (a first commit with a Fixes: trailer) after base"
	[[ $(git -C "$LINUX" rev-parse "$fixes_end") != $(git -C "$LINUX" rev-parse HEAD) ]] ||
		die "$tree: every commit after base has a Fixes: trailer: no way to tell the width fixes"
}

# base_version: the kernel version of the base commit of build/linux
# ("6.12.117"), from its subject.
base_version() {
	git -C "$LINUX" log -1 --format=%s base | awk '{ print $2 }'
}

# extract_base_src: the base commit's files (Linux 7.3's; 6.12's or 6.1's
# with BASE=6.12 or 6.1) in build/replay/base/; sets RELEASED_SRC to its
# events_2l.c.
extract_base_src() {
	extract_events_src base "$BUILD/replay/base"
	RELEASED_SRC=$EVENTS_SRC
}

# lab_make OUT ARGS...: make ARGS in the comparison lab's lab/scan/
# (evtchn-replay, evtchn-bench), objects and binaries in OUT, "rr"
# compiled from build/linux HEAD's events_2l.c, "base" from the base
# commit's (extract_base_src).
lab_make() {
	local out=$1
	shift
	extract_events_src HEAD "$BUILD/replay/rr"
	local rr=$EVENTS_SRC
	extract_base_src
	mkdir -p "$out"
	make -C "$ROOT/lab/scan" -s OUTPUT="$out/" RR_SRC="$rr" \
		RELEASED_SRC="$RELEASED_SRC" KSRC="$LINUX" "$@"
}

# project_files PATH...: the repo's files below PATH... (tracked or untracked,
# but not ignored by .gitignore), one per line, sorted.
project_files() {
	local f
	git ls-files -z -c -o --exclude-standard -- "$@" |
		while IFS= read -r -d '' f; do
			if [[ -f $f ]]; then printf '%s\n' "$f"; fi
		done | sort -u
}

# series_tip: build/linux's (build/V/linux's) last commit of the mailed
# series, base's if none: the commit of patches/series' last entry (the
# lab's patches, lab/patches/series, come after it).  Reads the series.
series_tip() {
	local tip
	read_series
	if ((N_MAILED == 0)); then
		git -C "$LINUX" rev-parse base
		return
	fi
	tip=$(git -C "$LINUX" rev-list --reverse base..HEAD | sed -n "${N_MAILED}p")
	[[ -n $tip ]] ||
		die "${LINUX#"$ROOT"/} has fewer commits on base than patches/series' $N_MAILED: run 'make${BASE_VARIANT:+ BASE=$SERIES_BASE} tree'"
	echo "$tip"
}

# product_tree: PRODUCT, a worktree of build/linux (build/linux-series)
# at series_tip: the mailed series alone, what make and make deb build,
# without the lab's patches (those go only into the test kernels, which
# build from build/linux itself).
product_tree() {
	local tip
	tip=$(series_tip)
	PRODUCT=$BUILD/linux-series
	linux_worktree "$PRODUCT" "$tip" ||
		die "cannot make ${PRODUCT#"$ROOT"/}, a worktree of ${LINUX#"$ROOT"/} at the series' last commit"
	# -x: Debian's .gitignore ignores everything; nothing is built here.
	git -C "$PRODUCT" clean -fdqx
}

# sender_identity TARGET: who sends (make series) or exports (make export)
# the patches, "Name <mail>": SIGNOFF=, else git's user.name and
# user.email here if the address is a person's (never made up); and
# their author: AUTHOR=, else the sender.  Sets sender_name, sender_mail,
# author_name and author_mail; TARGET names the make target in errors.
sender_identity() {
	local ident name mail author
	if [[ -n ${SIGNOFF:-} ]]; then
		ident=$SIGNOFF
	else
		name=$(git -C "$ROOT" config user.name || true)
		mail=$(git -C "$ROOT" config user.email || true)
		[[ -n $name && -n $mail ]] ||
			die "no identity to sign the patches off with: set git config user.name and user.email, or run make $1 SIGNOFF=\"Your Name <you@example.org>\""
		ident="$name <$mail>"
		# The repo's own identity (a noreply or example address) is
		# not a person: it signs nothing.
		[[ ! $mail =~ (noreply|\.invalid$|\.example$|\.test$|\.localhost$) ]] ||
			die "git's user.email here, $mail, is not a person's address: run make $1 SIGNOFF=\"Your Name <you@example.org>\""
	fi
	[[ $ident =~ ^([^<>]*[^<>[:space:]])\ +\<([^<>[:space:]]+@[^<>[:space:]]+)\>$ ]] ||
		die "SIGNOFF must read \"Name <mail>\", not '$ident'"
	sender_name=${BASH_REMATCH[1]} sender_mail=${BASH_REMATCH[2]}
	author=${AUTHOR:-$ident}
	[[ $author =~ ^([^<>]*[^<>[:space:]])\ +\<([^<>[:space:]]+@[^<>[:space:]]+)\>$ ]] ||
		die "AUTHOR must read \"Name <mail>\", not '$author'"
	author_name=${BASH_REMATCH[1]} author_mail=${BASH_REMATCH[2]}
}

# signed_commits REPO FROM TIP: the commits FROM..TIP of REPO made again on
# FROM (signed_on).
signed_commits() {
	local c
	mapfile -t c < <(git -C "$1" rev-list --reverse "$2..$3")
	signed_on "$1" "$2" "${c[@]}"
}

# signed_on REPO PARENT COMMIT...: each COMMIT's change made again, in
# order, on PARENT (which need not be its parent: the change is applied
# to PARENT's tree in an index of its own, and must apply), authored by
# author_name <author_mail> (its date and message kept) and committed by
# the sender (sender_identity); only real people sign: the commits' own
# Signed-off-by lines go, the author's and then the sender's come
# instead.  Prints the new commits, oldest first.
signed_on() {
	local repo=$1 tip c msg signoffs tree
	shift
	signoffs=(--trailer "Signed-off-by: $author_name <$author_mail>")
	[[ "$author_name <$author_mail>" == "$sender_name <$sender_mail>" ]] ||
		signoffs+=(--trailer "Signed-off-by: $sender_name <$sender_mail>")
	tip=$(git -C "$repo" rev-parse "$1")
	shift
	for c in "$@"; do
		msg=$(git -C "$repo" log -1 --format=%B "$c" | sed '/^Signed-off-by: /d')
		msg=$(git -C "$repo" interpret-trailers --if-exists add "${signoffs[@]}" <<<"$msg")
		tree=$(git -C "$repo" diff --binary "$c^" "$c" | tree_plus "$repo" "$tip") ||
			die "$(git -C "$repo" log -1 --format='%h %s' "$c") does not apply on $(git -C "$repo" log -1 --format='%h %s' "$tip")"
		tip=$(GIT_AUTHOR_NAME=$author_name GIT_AUTHOR_EMAIL=$author_mail \
			GIT_AUTHOR_DATE=$(git -C "$repo" log -1 --format=%aD "$c") \
			GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_mail \
			git -C "$repo" commit-tree "$tree" -p "$tip" -m "$msg")
		echo "$tip"
	done
}

# tree_plus REPO TREE: the tree of TREE (a tree or commit of REPO) with
# the patch on standard input applied (git apply --cached, in an index
# of its own); non-zero if it does not apply.
tree_plus() {
	local idx rc=0
	idx=$(mktemp) || return 1
	{ GIT_INDEX_FILE=$idx git -C "$1" read-tree "$2" &&
		GIT_INDEX_FILE=$idx git -C "$1" apply --cached &&
		GIT_INDEX_FILE=$idx git -C "$1" write-tree; } || rc=1
	rm -f "$idx"
	return $rc
}

# series_fingerprint: after read_series, a hash of what make tree builds
# the tree from: BASE's pin, the two series files, their patches and the
# variant's files.  make tree records it in the tree's series-stamp.
series_fingerprint() {
	local pin=${BASE_PIN#"$ROOT"/}
	(cd "$ROOT" && sha256sum "$pin" patches/series lab/patches/series \
		"${E_PATCH[@]}" "${variant_files[@]}") |
		LC_ALL=C sort | sha256sum | cut -d' ' -f1
}

# series_lines FILE: FILE's lines without their comments, blank ones left
# out, each as "LINENO<tab>LINE".
series_lines() {
	awk '{ sub(/#.*/, "") } NF { print NR "\t" $0 }' "$1"
}

# read_series: parse patches/series (the mailed patches, in the series
# they are mailed in), lab/patches/series (the lab's, applied after them,
# never mailed) and, for a backport base, patches/V/series.  Sets, per
# entry in the order make tree applies them, E_PATCH (the patch file,
# repo-relative: patches/NAME.patch or lab/patches/NAME.patch) and E_PART
# (the mailed series it belongs to, "lab" for the lab's); N_MAILED, the
# number of mailed entries (they come first); PARTS, the mailed series'
# names in order, each based on the base alone; REPLACE[NAME.patch]=patches/V/NAME.patch of the variant
# and variant_files, the variant's files.  Dies, naming the file and line,
# on a malformed line.
#
# patches/series:    "series NAME" starts a mailed series (its cover
#                    letter: mk/cover-letter-NAME.in), based on the base
#                    alone; then its patches, one file name a line.
# lab/patches/series: the lab's patches, one file name a line.
# patches/V/series:  "replace NAME.patch": patches/V/NAME.patch, the same
#                    commit rebased onto base V, instead of NAME.patch.
# '#' starts a comment everywhere.
read_series() {
	local lineno line words where vdir f part p
	declare -gA REPLACE=() SEEN_PATCH=()
	variant_files=()
	E_PATCH=() E_PART=() PARTS=() N_MAILED=0
	if [[ -n $BASE_VARIANT ]]; then
		vdir=${BASE_VARIANT#"$ROOT"/}
		[[ -f $ROOT/$vdir/series ]] || die "$vdir/series missing"
		variant_files+=("$vdir/series")
		while IFS=$'\t' read -r lineno line; do
			read -ra words <<<"$line"
			where="$vdir/series:$lineno"
			[[ ${words[0]}:${#words[@]} == replace:2 ]] ||
				die "$where: expected 'replace NAME.patch'"
			[[ -f $ROOT/$vdir/${words[1]} ]] || die "$where: $vdir/${words[1]} not found"
			REPLACE[${words[1]}]=$vdir/${words[1]}
			variant_files+=("$vdir/${words[1]}")
		done < <(series_lines "$ROOT/$vdir/series")
	fi
	for f in patches/series lab/patches/series; do
		[[ -f $ROOT/$f ]] || die "$f missing"
		part=
		[[ $f == patches/series ]] || part=lab
		while IFS=$'\t' read -r lineno line; do
			read -ra words <<<"$line"
			where="$f:$lineno"
			if [[ ${words[0]} == series ]]; then
				[[ $part != lab ]] || die "$where: the lab's patches are not mailed: no 'series' line here"
				[[ ${#words[@]} == 2 && ${words[1]} =~ ^[a-z][a-z0-9-]*$ ]] ||
					die "$where: expected 'series NAME' (NAME: lower case letters, digits, -)"
				[[ " ${PARTS[*]} " != *" ${words[1]} "* ]] || die "$where: series ${words[1]} is named twice"
				[[ -f $ROOT/mk/cover-letter-${words[1]}.in ]] ||
					die "$where: series ${words[1]} has no cover letter (mk/cover-letter-${words[1]}.in)"
				part=${words[1]}
				PARTS+=("$part")
				continue
			fi
			p=${words[0]}
			((${#words[@]} == 1)) || die "$where: one patch file a line, not '${words[*]}'"
			[[ $p == *.patch && $p != */* ]] || die "$where: '$p' is not a patch file name (NNNN-name.patch)"
			[[ -n $part ]] || die "$where: $p comes before the first 'series NAME' line"
			[[ -f $ROOT/${f%series}$p ]] || die "$where: ${f%series}$p not found"
			[[ -z ${SEEN_PATCH[$p]:-} ]] || die "$where: $p is listed twice"
			SEEN_PATCH[$p]=1
			E_PATCH+=("${f%series}$p")
			E_PART+=("$part")
			[[ $part == lab ]] || N_MAILED=$((N_MAILED + 1))
		done < <(series_lines "$ROOT/$f")
	done
	for p in "${!REPLACE[@]}"; do
		[[ -n ${SEEN_PATCH[$p]:-} ]] || die "$vdir/series names $p, which neither patches/series nor lab/patches/series lists"
	done
}

# private_apt DIR ARCH LINE...: a private APT configuration in DIR (its
# own sources list of the LINEs, lists, status and cache; packages of ARCH,
# or of the host's architecture if ARCH is empty), then apt-get update
# with it (output in DIR/update.log).  Use it as APT_CONFIG=DIR/apt.conf;
# the host's apt sources and dpkg architectures stay as they are.
#
# A LINE that starts with "?" is an optional suite (security or updates):
# when apt-get update still fails after two retries (a mirror caught in
# its sync: an index whose size or hash is not the one its Release file
# names) and every index that failed belongs to an optional suite, the
# update succeeds without those indexes, with a warning on stderr naming
# them; packages then come from the other suites.  An index of a required
# suite that fails fails the update.
private_apt() {
	local dir=$1 arch=$2 line try url opt
	local -a apt_bad_urls=()
	shift 2
	local -a lines=() optional=()
	for line; do
		if [[ $line == \?* ]]; then
			line=${line#\?}
			optional+=("$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^https?:/) { print $i "/dists/" $(i + 1) "/"; exit } }' <<<"$line")")
		fi
		lines+=("$line")
	done
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	touch "$dir/status"
	printf '%s\n' "${lines[@]}" >"$dir/sources.list"
	{
		echo "Dir::Etc::SourceList \"$dir/sources.list\";"
		echo "Dir::Etc::SourceParts \"/nonexistent\";"
		echo "Dir::State::Lists \"$dir/lists\";"
		echo "Dir::State::status \"$dir/status\";"
		echo "Dir::Cache \"$dir/cache\";"
		echo "APT::Sandbox::User \"root\";"
		if [[ -n $arch ]]; then
			echo "APT::Architecture \"$arch\";"
			echo "APT::Architectures { \"$arch\"; };"
		fi
	} >"$dir/apt.conf"
	: >"$dir/update.log"
	for try in 1 2 3; do
		((try == 1)) || sleep $((try * 10))
		echo "== apt-get update, try $try" >>"$dir/update.log"
		APT_CONFIG=$dir/apt.conf apt-get -q update >>"$dir/update.log" 2>&1 && return 0
	done
	# Still failing: only the last try's errors count.
	mapfile -t apt_bad_urls < <(sed -n '/^== apt-get update, try 3$/,$ s/^E: Failed to fetch \([^ ]*\).*/\1/p' "$dir/update.log")
	((${#apt_bad_urls[@]})) || return 1
	for url in "${apt_bad_urls[@]}"; do
		for opt in "${optional[@]}"; do
			[[ $url == "$opt"* ]] && continue 2
		done
		return 1
	done
	for url in "${apt_bad_urls[@]}"; do
		warn "apt-get update: $url failed 3 times (an optional suite; see ${dir#"${ROOT:-}"/}/update.log): going on without it"
	done
	return 0
}

# apt_unpack APT ARCH DEST LOG PACKAGE... -- LINE...: Debian's PACKAGEs
# (names, or name:arch) downloaded under private_apt's configuration APT
# for ARCH and the sources LINE... (into APT/debs, emptied first) and
# unpacked into DEST, made anew through DEST.tmp; apt-get download's
# output appended to LOG.  Any failure stops the run with a line naming
# it.  What each caller's packages must hold, it checks itself.
apt_unpack() {
	local apt=$1 arch=$2 dest=$3 log=$4 deb
	local -a pkgs=()
	shift 4
	while (($#)) && [[ $1 != -- ]]; do
		pkgs+=("$1")
		shift
	done
	shift
	private_apt "$apt" "$arch" "$@" ||
		die "apt-get update for $arch failed (see ${apt#"${ROOT:-}"/}/update.log)"
	rm -rf "$apt/debs" "$dest.tmp"
	mkdir -p "$apt/debs" "$dest.tmp"
	(cd "$apt/debs" && APT_CONFIG=$apt/apt.conf apt-get -q download "${pkgs[@]}") >>"$log" 2>&1 ||
		die "cannot download Debian's ${pkgs[*]} (see $log)"
	for deb in "$apt/debs"/*.deb; do
		dpkg-deb -x "$deb" "$dest.tmp" || die "cannot unpack $deb"
	done
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
}

# ci_cold_args: make ci-cold's CI_* variables checked: prints a line
# naming the first bad one and what it may be; nothing when all are good.
# mk/args.sh and mk/ci-cold.sh call it.
ci_cold_args() {
	[[ ${CI_HOG:-0} =~ ^[0-8]$ ]] || { echo "CI_HOG=$CI_HOG: busy processes per host core, 0 to 8"; return; }
	[[ ${CI_CCACHE:-empty} =~ ^(empty|keep)$ ]] || { echo "CI_CCACHE=$CI_CCACHE: empty or keep"; return; }
	[[ ${CI_FULL:-0} =~ ^[01]$ ]] || { echo "CI_FULL=$CI_FULL: 0 or 1"; return; }
}

# xen_test_name ARCH XEN DOMU: the name of a make xen-test run's logs in
# build/logs (and of make check's .out of it): xen-test, then -ARCH unless
# x86_64, -XEN unless 4.17, -DOMU unless pv (empty XEN and DOMU: the
# defaults).
xen_test_name() {
	local n=xen-test
	[[ $1 == x86_64 ]] || n+=-$1
	[[ ${2:-4.17} == 4.17 ]] || n+=-$2
	[[ ${3:-pv} == pv ]] || n+=-$3
	echo "$n"
}

# live_run WORD: one word of make check's XEN_TEST_ARCHS, ARCH[:XEN[:DOMU]]
# (x86_64, arm, arm64:4.17:arm32), into LR_ARCH, LR_XEN (default 4.17) and
# LR_DOMU (default pv), each checked with xen_test_args; a bad word
# prints one line naming it and what is accepted, and returns 1.
live_run() {
	local rest err
	IFS=: read -r LR_ARCH LR_XEN LR_DOMU rest <<<"$1"
	LR_XEN=${LR_XEN:-4.17} LR_DOMU=${LR_DOMU:-pv}
	if [[ -n $rest || " $XEN_TEST_ALL_ARCHES " != *" $LR_ARCH "* ]]; then
		echo "XEN_TEST_ARCHS: '$1' is not ARCH[:XEN[:DOMU]] with ARCH one of $XEN_TEST_ALL_ARCHES (e.g. arm64:4.17:arm32)"
		return 1
	fi
	err=$(XEN=$LR_XEN DOMU=$LR_DOMU xen_test_args "$LR_ARCH" "")
	[[ -z $err ]] || { echo "XEN_TEST_ARCHS: '$1': $err"; return 1; }
}

# xen_test_args ARCH PKG: make xen-test's XEN_TEST_* variables checked for
# ARCH (PKG: the DEB= or IMAGE= kernel, empty for the test kernel):
# prints a line naming the first bad one, the value and what it may be;
# nothing when all are good.  mk/args.sh (before any goal starts) and
# mk/xen-test.sh call it.
xen_test_args() {
	local arch=$1 pkg=$2 v events
	v=${XEN_TEST_TIMEOUT:-}
	[[ -z $v ]] || { [[ $v =~ ^[0-9]+$ ]] && ((v >= 120)); } ||
		{ echo "XEN_TEST_TIMEOUT=$v: a number of seconds, at least 120"; return; }
	events=${XEN_TEST_EVENTS:-$([[ $arch == x86_64 ]] && echo 10000 || echo 2000)}
	[[ $events =~ ^[0-9]+$ ]] || { echo "XEN_TEST_EVENTS=$events: a number of events"; return; }
	v=${XEN_TEST_LOAD:-0}
	[[ $v =~ ^[0-8]$ ]] || { echo "XEN_TEST_LOAD=$v: busy processes per host core, 0 to 8"; return; }
	v=${XEN_TEST_LOAD_NICE:-0}
	[[ $v =~ ^1?[0-9]$ ]] || { echo "XEN_TEST_LOAD_NICE=$v: a nice value, 0 to 19"; return; }
	v=${XEN_TEST_TCG:-multi}
	[[ $v == @(multi|single) ]] || { echo "XEN_TEST_TCG=$v: multi or single"; return; }
	v=${XEN_TEST_FAULT:-none}
	[[ $v == @(none|late|stall|lost) ]] || { echo "XEN_TEST_FAULT=$v: late, stall, lost or none"; return; }
	[[ $v == none ]] || ((events >= 100)) ||
		{ echo "XEN_TEST_FAULT=$v acts on event 100: XEN_TEST_EVENTS=$events is too few"; return; }
	v=${XEN_TEST_GUEST_FAULTS:-1}
	[[ $v == [01] ]] || { echo "XEN_TEST_GUEST_FAULTS=$v: 0 or 1"; return; }
	v=${XEN_TEST_SAVE:-}
	[[ -z $v || $v == [01] ]] || { echo "XEN_TEST_SAVE=$v: 0 or 1"; return; }
	[[ $v != 1 ]] || [[ $arch == x86_64 && ${XEN_TEST_GUEST_FAULTS:-1} == 1 ]] ||
		{ echo "XEN_TEST_SAVE=1 needs ARCH=x86_64 (Xen on Arm cannot save a guest) and the guest faults (XEN_TEST_GUEST_FAULTS=1)"; return; }
	v=${XEN_TEST_WIDTH:-}
	[[ -z $v || $v == [01] ]] || { echo "XEN_TEST_WIDTH=$v: 0 or 1"; return; }
	[[ $v != 1 ]] || [[ ($arch == arm || ($arch == arm64 && ${DOMU:-} == arm32)) && -z $pkg ]] ||
		{ echo "XEN_TEST_WIDTH=1 needs ARCH=arm or ARCH=arm64 DOMU=arm32 (32-bit Arm, the bug's) and no DEB= or IMAGE="; return; }
	v=${XEN_TEST_WIDTH_RUNS:-1}
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "XEN_TEST_WIDTH_RUNS=$v: a number of runs, at least 1"; return; }
	v=${XEN_TEST_RESTORE:-}
	[[ -z $v || $v == [01] ]] || { echo "XEN_TEST_RESTORE=$v: 0 or 1"; return; }
	[[ $v != 1 ]] || [[ $arch == x86_64 && -z $pkg ]] ||
		{ echo "XEN_TEST_RESTORE=1 needs ARCH=x86_64 (Xen on Arm cannot save a guest) and no DEB= or IMAGE="; return; }
	v=${XEN_TEST_PORTS:-max}
	[[ $v == max ]] || { [[ $v =~ ^[1-9][0-9]*$ ]] && ((v % 2 == 0)); } ||
		{ echo "XEN_TEST_PORTS=$v: max, or an even number of ports"; return; }
	v=${XEN:-4.17}
	[[ $v == @(4.17|4.20) ]] || { echo "XEN=$v: 4.17 (Debian 12's Xen) or 4.20 (Debian 13's)"; return; }
	[[ $v != 4.20 || $arch != arm ]] ||
		{ echo "XEN=4.20 needs ARCH=x86_64 or arm64 (Debian 13 has no Xen for armhf), not arm"; return; }
	v=${XEN_TEST_QEMU:-host}
	[[ $v == @(host|backports) ]] || { echo "XEN_TEST_QEMU=$v: host or backports"; return; }
	v=${DOMU:-pv}
	[[ $v == @(pv|arm32) ]] || { echo "DOMU=$v: pv (the default; on Arm the Arm guest) or arm32 (arm64)"; return; }
	[[ $v != arm32 || $arch == arm64 ]] ||
		{ echo "DOMU=arm32 needs ARCH=arm64 (a 32-bit Arm guest of Xen arm64), not $arch"; return; }
}
