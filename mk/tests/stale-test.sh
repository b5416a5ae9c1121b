#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/tests/stale-test.sh: when make xen-test reuses a built test kernel
# (image_stale in mk/xen-rig.sh), on a made kernel tree and build
# directory in a temporary folder:
# - a missing image, or one mk/kunit.sh did not record as built, is
#   rebuilt;
# - one built with the KUNIT_KCONFIG_ADD of now is reused; one built with
#   other options (make kunit KUNIT_KCONFIG_ADD=CONFIG_ARM_LPAE=y) is
#   rebuilt, and so is one without options when options are asked;
# - a file of drivers/xen or the configuration fragment newer than the
#   image makes it rebuilt.
# Ends with "stale-test: N passed, M failed"; exits 1 if a check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=mk/tests/lib.sh
. "$here/lib.sh"
# shellcheck source=mk/lib.sh
. "$here/../lib.sh"
lib_init
# shellcheck source=mk/xen-rig.sh
. "$here/../xen-rig.sh"

# Not the caller's options (make check KUNIT_KCONFIG_ADD=...).
unset KUNIT_KCONFIG_ADD
# What image_stale reads, made: a tree, its series stamp, a fragment.
LINUX=$tmp/linux
SERIES_STAMP=$LINUX/.git/series-stamp
frag=$tmp/xen-test.config
bdir=$tmp/kunit-arm
img=$bdir/zImage
mkdir -p "$LINUX/drivers/xen/events/tests" "$LINUX/include/xen" "$LINUX/.git" "$bdir"
touch "$LINUX/drivers/xen/events/events_2l.c" "$LINUX/include/xen/events.h" \
	"$LINUX/drivers/xen/events/tests/.kunitconfig" "$SERIES_STAMP" "$frag"
old() { touch -d '2000-01-01 00:00' "$@"; }
old "$LINUX/drivers/xen/events/events_2l.c" "$LINUX/include/xen/events.h" \
	"$LINUX/drivers/xen/events/tests/.kunitconfig" "$SERIES_STAMP" "$frag"
# image_stale also compares mk/kunit.sh, this repository's: the image is
# made newer than it.
fresh_image() { echo image >"$img" && touch -d '+1 minute' "$img"; }

# check NAME EXPECTED [VAR=VALUE]: image_stale's answer, stale or reused.
check() {
	local got=reused
	if (
		(($# < 3)) || export "${@:3}"
		image_stale "$img" "$frag" "$bdir"
	); then
		got=stale
	fi
	result "$1" "$([[ $got == "$2" ]] || echo "$got, not $2")"
}

check no-image stale
fresh_image
check not-recorded stale
printf '\n' >"$bdir/$KUNIT_ADD_STAMP"
check built-plain reused
check built-plain-lpae-asked stale KUNIT_KCONFIG_ADD=CONFIG_ARM_LPAE=y
echo CONFIG_ARM_LPAE=y >"$bdir/$KUNIT_ADD_STAMP"
check built-lpae-plain-asked stale KUNIT_KCONFIG_ADD=
check built-lpae-lpae-asked reused KUNIT_KCONFIG_ADD=CONFIG_ARM_LPAE=y
check built-lpae-spaced-asked reused "KUNIT_KCONFIG_ADD=  CONFIG_ARM_LPAE=y "
printf '\n' >"$bdir/$KUNIT_ADD_STAMP"
touch -d '+2 minutes' "$LINUX/drivers/xen/events/events_2l.c"
check source-newer stale
old "$LINUX/drivers/xen/events/events_2l.c"
touch -d '+2 minutes' "$frag"
check fragment-newer stale
old "$frag"
check back-to-reused reused
summary stale-test
