#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-order.sh: host-only self-test of make live-order's trace reduction
# (lab/order/order-reduce.c; README.md), run by make check: no QEMU, no Xen.
#
# Builds order-reduce with the host's cc into a temporary directory, then:
#  - tests/NAME.trace (saved traces with a known answer, made by hand)
#    reduces to exactly tests/NAME.expected (or, with tests/NAME.args,
#    order-reduce's arguments give NAME.expected: cpu1, --cpu 1 on
#    double.trace; all, --all on it; kprobe, --all on a trace whose passes
#    are kprobe events): double.trace has a double
#    service of the flooding port and one of another IRQ, and a timer
#    serviced twice that must not count; once.trace is the same without
#    the doubles (what the series must give);
#  - tests/NAME.trace with a tests/NAME.error exits 1 with one line on
#    stderr, "order-reduce: tests/NAME.trace:LINE: " and that message;
#  - a bad option exits 2.
# Ends with "test-order: N passed, M failed"; exits 1 if a check failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-order.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

if ! ${CC:-cc} -O2 -Wall -Wextra -Werror -o "$tmp/order-reduce" "$here/order-reduce.c" 2>"$tmp/cc.err"; then
	bad "order-reduce does not build: $(head -n 1 "$tmp/cc.err")"
	echo "test-order: $passed passed, $failed failed"
	exit 1
fi
cd "$here" || exit 2
shopt -s nullglob
# A test: NAME.expected with NAME.args (order-reduce's arguments) or
# NAME.trace; NAME.error with NAME.trace.
for t in tests/*.expected tests/*.error; do
	name=${t%.*}
	args=("$name.trace")
	if [[ -f $name.args ]]; then
		read -ra args <"$name.args"
	elif [[ ! -f $name.trace ]]; then
		bad "$t has neither $name.trace nor $name.args"
		continue
	fi
	rc=0
	"$tmp/order-reduce" "${args[@]}" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [[ $t == *.expected ]]; then
		if ((rc == 0)) && diff -u "$t" "$tmp/out" >"$tmp/diff"; then
			ok
		else
			bad "$name (${args[*]}): exit $rc, or not $t: $(head -n 1 "$tmp/err")$(tail -n +3 "$tmp/diff" | head -n 8)"
		fi
	else
		want=$(<"$t")
		got=$(<"$tmp/err")
		if ((rc == 1)) && [[ $got =~ ^order-reduce:\ $name.trace:[0-9]+:\ (.*)$ && ${BASH_REMATCH[1]} == "$want" && ! -s $tmp/out ]]; then
			ok
		else
			bad "$name.trace: want exit 1 and '$want', got exit $rc and '$got'"
		fi
	fi
done
for t in tests/*.trace; do
	[[ -f ${t%.trace}.expected || -f ${t%.trace}.error ]] ||
		grep -qsF -- "$t" tests/*.args ||
		bad "$t: no test uses it (no ${t%.trace}.expected or .error)"
done
rc=0
"$tmp/order-reduce" --bogus >"$tmp/out" 2>"$tmp/err" || rc=$?
if ((rc == 2)) && [[ $(wc -l <"$tmp/err") == 1 ]]; then ok; else bad "--bogus: exit $rc: $(<"$tmp/err")"; fi
rc=0
"$tmp/order-reduce" tests/does-not-exist.trace >"$tmp/out" 2>"$tmp/err" || rc=$?
if ((rc == 1)) && grep -q 'does-not-exist.trace' "$tmp/err"; then ok; else bad "a missing file: exit $rc: $(<"$tmp/err")"; fi
echo "test-order: $passed passed, $failed failed"
((failed == 0))
