#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/xen-runs.sh: 'make xen-runs', the live test (mk/xen-test.sh) run
# XEN_RUNS (10) times in a row for one configuration, and each run's verdict and
# delays in one table: how the exchange holds on an idle host and on a
# busy one (XEN_TEST_LOAD=N), run after run.
#
# The kernel is built (if it must be) by the first run only; the others
# take it as it is (XEN_TEST_NO_BUILD=1).  The other XEN_TEST_* variables
# go to every run unchanged (XEN_TEST_LOAD, XEN_TEST_TCG, ...); the width
# bug stage is left out (XEN_TEST_WIDTH=0) unless it is set.
#
# Output: a line per run as it ends, then the table,
# build/out/xen-runs-ARCH[-BASE]-idle|loadN[-tcgMODE][-qemuQEMU][-XEN][-DOMU][-HV].txt (written whole
# when the last run ended: the command, the date, the tree's commit, a
# line per run, a summary), each run's output in
# build/logs/xen-runs-NAME/run-I.out and its serial log beside it.
# Exit status 1 if a run failed, 2 on a bad XEN_RUNS.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"

RUNS=${XEN_RUNS:-10}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || {
	echo "$PROG: XEN_RUNS=$RUNS: a number of runs, at least 1" >&2
	exit 2
}
ARCH_=${XEN_ARCH:-x86_64}
LOAD=${XEN_TEST_LOAD:-0}
name=xen-runs-$ARCH_
[[ $SERIES_BASE == "$MAIN_BASE" ]] || name+=-$SERIES_BASE
if [[ $LOAD == 0 ]]; then name+=-idle; else name+=-load$LOAD; fi
[[ -z ${XEN_TEST_TCG:-} ]] || name+=-tcg$XEN_TEST_TCG
[[ -z ${XEN_TEST_QEMU:-} ]] || name+=-qemu$XEN_TEST_QEMU
[[ ${XEN:-4.17} == 4.17 ]] || name+=-$XEN
[[ ${DOMU:-pv} == pv ]] || name+=-$DOMU
[[ ${XEN_HV:-debian} == debian ]] || name+=-$XEN_HV
RLOGS=$LOGS/$name
OUTDIR=$BUILD/out
mkdir -p "$RLOGS" "$OUTDIR"
export XEN_TEST_WIDTH=${XEN_TEST_WIDTH:-0}

# field RE FILE: the first line of FILE that matches RE, after the
# script's "xen-test: " prefix.
field() {
	grep -m1 -E "$1" "$2" | sed 's/^xen-test: //' || true
}

rows=() failed=0 worst_all=0
for ((i = 1; i <= RUNS; i++)); do
	out=$RLOGS/run-$i.out
	say "run $i/$RUNS ($ARCH_${LOAD:+, XEN_TEST_LOAD=$LOAD}): output in ${out#"$ROOT"/}"
	t=$SECONDS
	rc=0
	if ((i == 1)); then
		mk/xen-test.sh >"$out" 2>&1 || rc=$?
	else
		XEN_TEST_NO_BUILD=1 mk/xen-test.sh >"$out" 2>&1 || rc=$?
	fi
	cp -f "$LOGS/$(xen_test_name "$ARCH_" "${XEN:-}" "${DOMU:-}")${DEB:+-deb}${IMAGE:+-image}-serial.log" "$RLOGS/run-$i-serial.log" 2>/dev/null || true
	verdict=$(grep -m1 -E '^xen-test: [0-9]+ passed, [0-9]+ failed$' "$out" | sed 's/^xen-test: //') || true
	[[ -n $verdict ]] || verdict="no verdict (rc=$rc)"
	ex=$(field '^xen-test: dom0<->domU exchange: ' "$out")
	ex=${ex#dom0<->domU exchange: }
	host=$(field '^xen-test: host: QEMU vCPU threads' "$out")
	host=$(sed -nE 's/.*waited for a host CPU ([0-9.]+ s), in ([0-9]+ s).*/host waited \1 in \2/p' <<<"$host")
	# The worst round trip of the exchange's line ("worst N us"), in ms.
	w=$(sed -nE 's/.*round trip: .*worst ([0-9]+) us.*/\1/p' <<<"$ex")
	w=$(awk -v us="${w:-0}" 'BEGIN { printf "%.1f", us / 1000 }')
	worst_all=$(awk -v a="$worst_all" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
	if ((rc == 0)); then res=passed; else res=FAILED failed=$((failed + 1)); fi
	row="run $i: $res, $verdict, $(fmt_time $((SECONDS - t))); exchange: ${ex:-no line}${host:+; $host}"
	if ((rc)); then
		row+=$'\n'"    $(grep -m3 -E '^xen-test: .*FAILED' "$out" | paste -sd ';' -)"
	fi
	echo "$row"
	rows+=("$row")
done

table=$OUTDIR/$name.txt
{
	echo "# make xen-runs XEN_RUNS=$RUNS ARCH=$ARCH_ BASE=$SERIES_BASE XEN_TEST_LOAD=$LOAD${XEN_TEST_TCG:+ XEN_TEST_TCG=$XEN_TEST_TCG}${XEN_TEST_QEMU:+ XEN_TEST_QEMU=$XEN_TEST_QEMU}${XEN:+ XEN=$XEN}${DOMU:+ DOMU=$DOMU}${XEN_HV:+ XEN_HV=$XEN_HV}"
	echo "# $(date -u '+%F %T UTC'), $(nproc) host cores, project commit $(git -C "$ROOT" rev-parse --short HEAD)"
	printf '%s\n' "${rows[@]}"
	echo "$((RUNS - failed)) of $RUNS runs passed; worst round trip of all: $worst_all ms"
} >"$table.tmp"
mv -f "$table.tmp" "$table"
say "$((RUNS - failed)) of $RUNS runs passed; worst round trip of all: $worst_all ms"
say "table: ${table#"$ROOT"/}"
((failed == 0)) || exit 1
