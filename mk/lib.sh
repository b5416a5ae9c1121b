# shellcheck shell=bash
# mk/lib.sh: helpers shared by the mk/*.sh scripts.  Source it, don't run it.
#
# Sets: PROG (script name without .sh, used as message prefix), ROOT (repo
# root), BUILD, LINUX (the patched tree), LOGS.

# shellcheck disable=SC2034 # used by the scripts sourcing this file
PROG=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
LINUX=$BUILD/linux
LOGS=$BUILD/logs

# The kernel builds started by these scripts are independent of the make
# that may have started us: don't leak its flags, jobserver or command-line
# variables (e.g. ARCH=, KCONFIG=) into them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

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

# Fail unless mk/tree.sh has produced build/linux.
require_tree() {
	[[ -f $LINUX/.git/series-stamp ]] ||
		die "build/linux is missing or incomplete; run 'make tree' first"
}
