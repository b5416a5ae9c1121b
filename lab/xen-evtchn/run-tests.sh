#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-tests.sh REPLAY TESTS [GOLDEN...]: the evtchn-replay checks.
#
#  - every TESTS/*.replay passes (its expect lines hold) with --policy rr;
#  - TESTS/NAME.POLICY.out is the exact output of
#    "--policy POLICY --stats TESTS/NAME.replay", and so in each further
#    GOLDEN directory (outputs that hold for one build or one set of
#    policies only), of scripts in that directory or in TESTS;
#  - each TESTS/errors/*.replay, whose first line is "# error: LINE: MSG",
#    exits 2 with exactly "FILE:LINE: MSG" on stderr, and prints on
#    stdout only what TESTS/errors/NAME.out holds (or nothing);
#  - command line errors exit 2 with a one-line message.
#
# REPLAY may be a command with a prefix ("qemu-arm-static evtchn-replay"):
# it is split into words, nothing else is.
# The last line is "replay: N passed, M failed".

set -u
shopt -s nullglob
read -ra replay <<<"$1"
tests=$2
shift 2
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run ARGS...: run the tool, stdout/stderr to $tmp/out, $tmp/err; sets rc.
run() { "${replay[@]}" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

for f in "$tests"/*.replay; do
	run --policy rr "$f"
	if [ $rc -eq 0 ]; then ok; else bad "$f (rr): exit $rc: $(cat "$tmp/err")"; fi
done

outs=("$tests"/*.*.out)
for d in "$@"; do
	outs+=("$d"/*.*.out)
done
for want in "${outs[@]}"; do
	base=${want%.out}
	policy=${base##*.}
	# The script is beside its output, or in TESTS or a GOLDEN directory.
	script=${base%.*}.replay
	for d in "$tests" "$@"; do
		[ -f "$script" ] || script=$d/$(basename "${base%.*}").replay
	done
	run --policy "$policy" --stats "$script"
	if [ $rc -eq 0 ] && diff -u "$want" "$tmp/out" >"$tmp/diff"; then
		ok
	else
		bad "$script ($policy): exit $rc $(cat "$tmp/err")"
		cat "$tmp/diff"
	fi
done

for f in "$tests"/errors/*.replay; do
	msg=$(sed -n '1s/^# error: //p' "$f")
	want_out=${f%.replay}.out
	run "$f"
	if [ $rc -ne 2 ]; then
		bad "$f: exit $rc, want 2"
	elif [ "$(cat "$tmp/err")" != "$f:$msg" ]; then
		bad "$f: stderr '$(cat "$tmp/err")', want '$f:$msg'"
	elif ! { if [ -f "$want_out" ]; then cat "$want_out"; fi; } | cmp -s - "$tmp/out"; then
		bad "$f: unexpected stdout: $(cat "$tmp/out")"
	else
		ok
	fi
done

# Command line errors.
cli() {
	local want=$1; shift
	run "$@"
	if [ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ]; then
		ok
	else
		bad "evtchn-replay $*: exit $rc, stderr '$(cat "$tmp/err")', want '$want'"
	fi
}
cli "evtchn-replay: $tmp/missing.replay: No such file or directory" "$tmp/missing.replay"
any=$tests/double-scan.replay
cli "evtchn-replay: unknown policy 'fifo'" --policy fifo "$any"
cli "evtchn-replay: --word-bits must be 32 or 64, not '48'" --word-bits 48 "$any"

# Standard input, and --word-bits as the default geometry.
printf 'pend 1023\nupcall 0\n' | "${replay[@]}" --word-bits 32 - >"$tmp/out" 2>"$tmp/err"
if [ "$(cat "$tmp/out")" = "upcall cpu=0 serviced=1023 cursor=0" ]; then
	ok
else
	bad "stdin, --word-bits 32: $(cat "$tmp/out" "$tmp/err")"
fi

echo "replay: $pass passed, $fail failed"
[ $fail -eq 0 ]
