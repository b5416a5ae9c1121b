#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/bisect-build.sh: check that every commit of the series builds, as the
# kernel test robot builds a series.  Each commit of the series (base..the
# last commit before the lab: ones, what make series mails) of build/linux
# is checked out in the git worktree build/bisect (build/linux itself is
# left alone) and built in build/kbuild-bisect-<variant>, for each variant
# of BISECT_VARIANTS (default: all five):
#   x86_64   drivers/xen/ of defconfig + xen.config
#   i386     drivers/xen/ of defconfig + HYPERVISOR_GUEST PARAVIRT X86_PAE X86_GENERIC
#            SMP XEN (32-bit event words)
#   arm      drivers/xen/ of multi_v7_defconfig + XEN (64-bit event words,
#            32-bit longs)
#            (these three with KUnit and all its tests =y, so the suite is
#            built from the commit that adds it)
#   x86_64-m a small kernel (allnoconfig + MODULES, XEN and its drivers as
#            modules) with KUNIT=m and all tests =m, built whole: vmlinux
#            and modules, modpost included
#   x86_64-clang  as x86_64, with LLVM 19 (Debian 12's clang-19, lld-19;
#            7.3 needs LLVM 17.0.1 at least): LLVM=-19
# drivers/xen/events/ and every other C file the series changes (series
# (c)'s evtchn.c, gntdev.c, gntalloc.c: as single objects) are also
# rebuilt with W=1 and sparse (C=2) at base and at each commit: a warning
# in them that base does not have fails the commit, and so does a build
# where kbuild skips sparse.  The sparse is mk/sparse.sh's (sid's source
# package built here: Debian 12's 0.6.4 cannot parse 7.3's
# __typeof_unqual__).  The rest of the tree is built without W=1 (its own
# warnings are not the series'). Logs: build/logs/bisect-*.log.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
setup_ccache
SPARSE=$("$(dirname "$0")/sparse.sh")
SPARSE_VER=$(basename "$(dirname "$SPARSE")")
# sparse_ran LOG: kbuild goes on without sparse when its probe fails
# ("sparse is not available or not up to date"): that fails here, and so
# does a C file of events_warnings' that kbuild did not CHECK (C=2 checks
# every one, built again or not).
sparse_ran() {
	local f
	! grep -q 'sparse is not available' "$1" || die "kbuild skipped sparse ($SPARSE) in $1"
	for f in drivers/xen/events/events_2l.c "${OTHER_OBJS[@]/%.o/.c}"; do
		grep -qE "^  CHECK +(/.*/)?$f\$" "$1" || die "sparse did not check $f; see $1"
	done
}

ALL_VARIANTS=$BISECT_ALL_VARIANTS
read -ra ARCHES <<<"${BISECT_VARIANTS:-$ALL_VARIANTS}"
for v in "${ARCHES[@]}"; do
	[[ " $ALL_VARIANTS " == *" $v "* ]] ||
		die "BISECT_VARIANTS: unknown variant '$v' ($ALL_VARIANTS)"
done
wt=$BUILD/bisect
jobs=$(nproc)

# The series' commits, the ones make series mails (not the lab: ones,
# which the KUnit and live kernels build at HEAD).
tip=$(series_tip)
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse "base..$tip")
n=${#commits[@]}
if ((n == 0)); then
	say "nothing to build: patches/series has no series entries"
	exit 0
fi
mkdir -p "$LOGS"

# The architecture of a variant, and what is built at each commit.
varch() {
	local a=${1%-m}
	echo "${a%-clang}"
}
# vmake V WT O ARG...: make in the worktree WT for variant V, output in O.
vmake() {
	local v=$1
	shift
	if [[ $v == *-clang ]]; then
		KMAKE_LLVM=-19 kmake "$1" "$2" "$(varch "$v")" "${@:3}"
	else
		kmake "$1" "$2" "$(varch "$v")" "${@:3}"
	fi
}
vtargets() {
	case $1 in
	*-m) echo vmlinux modules ;;
	*) echo drivers/xen/ ;;
	esac
}

# variant_config V WT O LOG: configure the build directory O for variant V.
variant_config() {
	local v=$1 wt=$2 o=$3 log=$4 arch
	arch=$(varch "$v")
	case $v in
	i386)
		vmake "$v" "$wt" "$o" defconfig >>"$log" 2>&1 &&
			"$wt/scripts/config" --file "$o/.config" --enable HYPERVISOR_GUEST \
				--enable PARAVIRT --enable X86_PAE --enable X86_GENERIC --enable SMP --enable XEN \
				--enable KUNIT --enable KUNIT_ALL_TESTS
		;;
	*-m)
		vmake "$v" "$wt" "$o" allnoconfig >>"$log" 2>&1 &&
			"$wt/scripts/config" --file "$o/.config" --enable MODULES \
				--enable HYPERVISOR_GUEST --enable PARAVIRT --enable XEN \
				--enable XEN_PV --enable SMP --enable NET --enable UNIX \
				--module XEN_DEV_EVTCHN --module XENFS --module XEN_GNTDEV \
				--module XEN_GRANT_DEV_ALLOC --module XEN_PRIVCMD \
				--module KUNIT --module KUNIT_ALL_TESTS
		;;
	*-clang)
		vmake "$v" "$wt" "$o" defconfig xen.config >>"$log" 2>&1 &&
			"$wt/scripts/config" --file "$o/.config" --enable KUNIT --enable KUNIT_ALL_TESTS
		;;
	*)
		kbuild_config "$wt" "$o" "$arch" "$log" &&
			"$wt/scripts/config" --file "$o/.config" --enable KUNIT --enable KUNIT_ALL_TESTS
		;;
	esac || return 1
	vmake "$v" "$wt" "$o" olddefconfig >>"$log" 2>&1
}

# Configure once per variant, at the first commit.
linux_worktree "$wt" "${commits[0]}" || die "cannot make the worktree build/bisect of build/linux"
for v in "${ARCHES[@]}"; do
	o=$BUILD/kbuild-bisect-$v
	log=$LOGS/bisect-config-$v.log
	mkdir -p "$o"
	: >"$log"
	say "configuring $v in build/kbuild-bisect-$v (log: $log)"
	variant_config "$v" "$wt" "$o" "$log" </dev/null ||
		die "configuring $v failed; see $log"
	grep -qx 'CONFIG_XEN=y' "$o/.config" || die "CONFIG_XEN is not =y in $o/.config"
	case $v in
	*-m) want=m ;;
	*) want=y ;;
	esac
	grep -qx "CONFIG_KUNIT=$want" "$o/.config" || die "CONFIG_KUNIT is not =$want in $o/.config"
done

# The C files the series changes outside drivers/xen/events/, as objects
# (built alone with W=1 and sparse), and an extended regular expression
# of the files whose warnings count.
mapfile -t OTHER_OBJS < <(git -C "$LINUX" diff --name-only base "$tip" -- '*.c' |
	grep -v '^drivers/xen/events/' | sed 's/\.c$/.o/')
WFILES='drivers/xen/events/[^:]*'
for f in "${OTHER_OBJS[@]}"; do
	WFILES+="|${f%.o}\\.c"
done

# events_warnings WT O VARIANT LOG: the W=1 and sparse warnings of
# drivers/xen/events/ and OTHER_OBJS, without line numbers, sorted (also
# appended to LOG).
events_warnings() {
	# KCFLAGS=-Wno-error: a W=1 warning stays a warning under
	# CONFIG_WERROR, so the file is compiled and then checked by sparse
	# (kbuild checks a file after compiling it; 6.1's events_2l.c has a
	# W=1 warning of its own).
	vmake "$3" "$1" "$2" -j"$jobs" W=1 C=2 CHECK="$SPARSE" KCFLAGS=-Wno-error \
		drivers/xen/events/ "${OTHER_OBJS[@]}" >>"$4" 2>&1 </dev/null
	# gcc names the file relative to the source tree, sparse with its
	# absolute path: keep "drivers/xen/FILE: message".
	{ grep -E "(^|/)($WFILES):[0-9]+(:[0-9]+)?: (warning|error):" "$4" || true; } |
		sed -E 's|^.*/(drivers/xen/)|\1|; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' |
		sort -u
}

# The warnings base has: later commits may keep them, not add to them.
# For a whole build (x86_64-m), modpost's warnings too (W=1: a module
# without MODULE_DESCRIPTION(), for one).
modpost_warnings() {
	{ grep -E '^(WARNING|ERROR): modpost:' "$1" || true; } | sort -u
}
# build WT O VARIANT LOG: olddefconfig (defaults for Kconfig symbols a
# commit adds, instead of prompts) and the variant's targets.  Without
# W=1 but for the whole kernel of x86_64-m: the defconfigs have WERROR,
# and base's own drivers/xen/ has W=1 warnings (manage.c's
# format-truncation), which would fail every commit.
build() {
	local w=() t
	[[ $3 != *-m ]] || w=(W=1)
	read -ra t <<<"$(vtargets "$3")"
	vmake "$3" "$1" "$2" olddefconfig >"$4" 2>&1 </dev/null &&
		vmake "$3" "$1" "$2" -j"$jobs" "${w[@]}" "${t[@]}" >>"$4" 2>&1 </dev/null
}
git -C "$wt" checkout -q -f --detach base
declare -A BASELINE MODPOST
for v in "${ARCHES[@]}"; do
	log=$LOGS/bisect-0-$v.log
	if [[ $v == *-m ]]; then
		say "base, $v: building vmlinux and modules (log: $log)"
		build "$wt" "$BUILD/kbuild-bisect-$v" "$v" "$log" || die "base does not build for $v; see $log"
	else
		vmake "$v" "$wt" "$BUILD/kbuild-bisect-$v" olddefconfig >"$log" 2>&1 </dev/null
	fi
	MODPOST[$v]=$(modpost_warnings "$log")
	BASELINE[$v]=$(events_warnings "$wt" "$BUILD/kbuild-bisect-$v" "$v" "$log")
	sparse_ran "$log"
	say "base, $v: $(grep -c . <<<"${BASELINE[$v]}" || true) W=1/$SPARSE_VER warning(s) in drivers/xen/events/${OTHER_OBJS[*]:+ and ${OTHER_OBJS[*]}}"
done

failed=0
for i in "${!commits[@]}"; do
	git -C "$wt" checkout -q -f --detach "${commits[$i]}"
	say "[$((i + 1))/$n] $(git -C "$wt" log -1 --format='%h %s')"
	for v in "${ARCHES[@]}"; do
		o=$BUILD/kbuild-bisect-$v
		log=$LOGS/bisect-$((i + 1))-$v.log
		t0=$SECONDS
		if build "$wt" "$o" "$v" "$log"; then
			new=$(comm -13 <(echo "${MODPOST[$v]}") <(modpost_warnings "$log"))
			new+=$(comm -13 <(echo "${BASELINE[$v]}") \
				<(events_warnings "$wt" "$o" "$v" "$log"))
			sparse_ran "$log"
			if [[ -n $new ]]; then
				failed=$((failed + 1))
				printf '%s:       %-8s NEW WARNINGS  (log: %s)\n' "$PROG" "$v" "$log"
				printf '        %s\n' "${new//$'\n'/$'\n'        }"
				continue
			fi
			printf '%s:       %-8s OK    %s  (%s)\n' "$PROG" "$v" "$(fmt_time $((SECONDS - t0)))" "$(vtargets "$v")"
		else
			failed=$((failed + 1))
			printf '%s:       %-8s FAIL  %s  (log: %s)\n' "$PROG" "$v" "$(fmt_time $((SECONDS - t0)))" "$log"
			# One process, no pipe: no SIGPIPE, nothing for pipefail.
			awk '/error|Error/ && n++ < 10 { print "        " $0 }' "$log"
		fi
	done
done
echo "bisect-build: $((n * ${#ARCHES[@]} - failed)) passed, $failed failed"
((failed == 0)) || die "$failed of $((n * ${#ARCHES[@]})) commit builds failed"
say "all $n commit(s) build for ${ARCHES[*]}"
