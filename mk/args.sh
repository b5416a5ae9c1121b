#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/args.sh [GOAL...]: the Makefile's check of its variables for the
# goals given (none: all), before any goal starts: no package installed,
# no tree extracted, no kernel built for a run that would stop on a bad
# value later.  Prints one line naming the variable and what it may be,
# and exits 1, on the first bad value; prints nothing otherwise.  The
# Makefile runs it when it is read and stops with that line.
set -uo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh" || exit 1
lib_init

bad() {
	echo "$*"
	exit 1
}

# in_list VALUE LIST: VALUE is a word of LIST.
in_list() { [[ " $2 " == *" $1 "* ]]; }

# each VAR LIST: every word of $VAR (if set) is in LIST.
each() {
	local w
	for w in ${!1:-}; do
		in_list "$w" "$2" || bad "$1: unknown '$w' (one or more of: $2)"
	done
}

# Flags (FLAGS, from the Makefile's "#= NAME: 0: ...", "1: ..." and
# "0 or 1: ..." lines): 0 or 1, or unset; any other word is refused, so
# that PROVE=no or FORCE=yes cannot mean the opposite.
for v in ${FLAGS:-}; do
	[[ -z ${!v:-} || ${!v} == [01] ]] || bad "$v=${!v}: 0 or 1"
done
# Numbers and lists that scripts read only after a download or a tree.
for v in FUZZ_SECS FUZZ_PASSES XEN_TEST_WIDTH_RUNS XEN_TEST_LOAD; do
	[[ -z ${!v:-} || ${!v} =~ ^[0-9]+$ ]] || bad "$v=${!v}: a number"
done
[[ -z ${REVISION:-} || $REVISION =~ ^[1-9][0-9]*$ ]] ||
	bad "REVISION=$REVISION: a version number (1, 2, ...)"

# ARCH, whatever the goal: one of mk/arches (each goal narrows it below).
[[ -z ${ARCH:-} ]] || arch_field "$ARCH" kunit >/dev/null ||
	bad "ARCH=$ARCH: not an architecture of mk/arches ($(arches_with kunit))"

arch=${ARCH:-x86_64}
(($#)) || set -- all
for goal in "$@"; do
	case $goal in
	all | deb)
		name='make'
		[[ $goal == all ]] || name="make $goal"
		kernel_image "$arch" >/dev/null ||
			bad "ARCH=$arch: $name builds $(arches_with make) kernels"
		[[ -z ${KCONFIG:-} || -f ${KCONFIG:-} ]] || bad "KCONFIG=$KCONFIG: no such file"
		[[ -z ${LSMOD:-} || -f ${LSMOD:-} ]] || bad "LSMOD=$LSMOD: no such file (lsmod's output, or a module name a line)"
		if [[ -n ${LSMOD:-} ]]; then
			names=$(lsmod_names "$LSMOD")
			[[ -n $names ]] || bad "LSMOD=$LSMOD: names no module"
			# localmodconfig matches names as lsmod prints them.
			! grep -q -- - <<<"$names" ||
				bad "LSMOD=$LSMOD: '$(grep -m1 -- - <<<"$names")': module names with _, as lsmod prints them"
		fi
		# A configuration for another architecture is refused; one that
		# names none (a savedefconfig) is taken.
		if [[ -n ${KCONFIG:-} ]]; then
			karch=$(kconfig_arch "$KCONFIG")
			[[ -z $karch || $karch == "$arch" ]] || bad "KCONFIG=$KCONFIG: a configuration for $karch, not for ARCH=$arch"
		fi
		;;
	kunit)
		in_list "$arch" "$KUNIT_ARCHES" || bad "ARCH=$arch: make kunit runs on $KUNIT_ARCHES"
		;;
	xen-test)
		in_list "$arch" "$XEN_TEST_ALL_ARCHES" || bad "ARCH=$arch: make xen-test runs on $XEN_TEST_ALL_ARCHES"
		[[ -z ${DEB:-} || -z ${IMAGE:-} ]] || bad "DEB= and IMAGE= name two kernels: give one"
		[[ -z ${DEB:-} || -f ${DEB:-} ]] || bad "DEB=$DEB: no such file"
		if [[ -n ${DEB:-} ]]; then
			darch=$(dpkg-deb -f "$DEB" Architecture 2>/dev/null) || bad "DEB=$DEB: not a Debian package (dpkg-deb cannot read it)"
			want=$(deb_arch "$arch")
			[[ $darch == "$want" ]] || bad "DEB=$DEB: a package for $darch, not for ARCH=$arch ($want)"
		fi
		[[ -z ${IMAGE:-} || -f ${IMAGE:-} ]] || bad "IMAGE=$IMAGE: no such file"
		err=$(xen_test_args "$arch" "${DEB:-}${IMAGE:-}")
		[[ -z $err ]] || bad "$err"
		;;
	check | lab-check)
		[[ ${KUNIT_CONFIGS:-} == none ]] || each KUNIT_CONFIGS "$KUNIT_ALL_CONFIGS"
		if [[ ${XEN_TEST:-1} != 0 ]]; then
			for w in ${XEN_TEST_ARCHS:-$XEN_TEST_DEFAULT_RUNS}; do
				err=$(live_run "$w") || bad "$err"
			done
		fi
		each BISECT_VARIANTS "$BISECT_ALL_VARIANTS"
		;;
	ci-cold)
		err=$(ci_cold_args)
		[[ -z $err ]] || bad "$err"
		;;
	bisect-build)
		each BISECT_VARIANTS "$BISECT_ALL_VARIANTS"
		;;
	series | export)
		who='^([^<>]*[^<>[:space:]]) +<([^<>[:space:]]+@[^<>[:space:]]+)>$'
		[[ -z ${SIGNOFF:-} || $SIGNOFF =~ $who ]] || bad "SIGNOFF=$SIGNOFF: not \"Name <mail>\""
		[[ -z ${AUTHOR:-} || $AUTHOR =~ $who ]] || bad "AUTHOR=$AUTHOR: not \"Name <mail>\""
		[[ $goal == series || -z ${DIR:-} || ! -e $DIR || -d $DIR ]] ||
			bad "DIR=$DIR: not a directory"
		;;
	esac
done
exit 0
