#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/bench.sh: build evtchn-bench (lab/scan/bench.c) into
# build/bench/ and run it: instructions and nanoseconds per serviced port
# of one upcall, for the rr, base and lowest scans, on a set of
# pending-bit patterns.  Prints the table and saves it to
# build/out/bench.txt.  Takes well under a minute.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

command -v valgrind >/dev/null || die "valgrind not found (run 'make deps')"
say "building build/bench/evtchn-bench"
lab_make "$BUILD/bench" bench
mkdir -p "$BUILD/out"
out=$BUILD/out/bench.txt
say "running (instruction counts under callgrind first, then timings; a row a family)"
if ! "$BUILD/bench/evtchn-bench" | tee "$out.tmp"; then
	rm -f "$out.tmp"
	die "evtchn-bench failed"
fi
mv "$out.tmp" "$out"
say "saved to $out"
