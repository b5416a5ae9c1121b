#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The checks are strings for eval, expanded when evaluated:
# shellcheck disable=SC2016
#
# test-vee.sh: host-only self-test of lab/vee (README.md): no QEMU, no Xen.
#
#   lab/vee/test-vee.sh        (VEE_TEST_BASE=15000: ports BASE+1..BASE+7)
#
# It builds vee-recv (dynamic, and once -static as the guests need it) and
# vee-send into a temporary directory; runs seven vee-recv on 127.0.0.1
# and vee-send against them for 3 s in each mode (bulk, small, short),
# checking that every guest got bytes and that each receiver counted what
# the sender wrote; checks the receiver's window when it is shorter than
# the sending, the sender's retries while the receivers are not yet
# listening, its failure when one never listens, the receiver's bytes=0
# exit, a bind error and bad arguments; then feeds synthetic run logs to
# vee-report.py and checks its arithmetic (Jain, max/min, spread), its
# order, its irq and NIC tables, the noisy guest left out of the fairness
# figures, the text chart, its FILE:LINE errors and its PNG (none left
# behind when gnuplot fails); lab/vee/collect.awk on a serial log; and
# lab/vee/trace-table.awk on traced ones.  Ends with "test-vee: N passed,
# M failed"; exits 1
# if any check failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
base=${VEE_TEST_BASE:-15000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-vee.XXXXXX") || exit 2
pids=()
passed=0
failed=0

cleanup()
{
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

ok()
{
	passed=$((passed + 1))
	echo "ok   $1"
}

bad()
{
	failed=$((failed + 1))
	echo "FAIL $1"
}

# check DESCRIPTION COMMAND...: one check, passed when COMMAND succeeds.
check()
{
	local what=$1

	shift
	if "$@"; then
		ok "$what"
	else
		bad "$what"
	fi
}

# field FILE PREFIX GUEST KEY: KEY's value on FILE's "PREFIX guest=GUEST" line.
field()
{
	awk -v pre="$2" -v g="guest=$3" -v k="$4=" '
		$1 == pre && $2 == g {
			for (i = 3; i <= NF; i++)
				if (index($i, k) == 1)
					print substr($i, length(k) + 1)
		}' "$1"
}

# start_recv TAG GUESTS ARGS...: vee-recv for each guest in GUESTS, in the
# background; guest i's output in $tmp/TAG.i.{out,err}, its pid in rpid[i].
declare -A rpid
start_recv()
{
	local tag=$1 guests=$2 i

	shift 2
	for i in $guests; do
		"$tmp/vee-recv" --bind 127.0.0.1 --port $((base + i)) \
			--guest "$i" "$@" >"$tmp/$tag.$i.out" \
			2>"$tmp/$tag.$i.err" &
		rpid[$i]=$!
		pids+=("$!")
	done
}

# wait_recv TAG GUESTS: wait for them; guest i's exit status in $tmp/TAG.i.rc.
wait_recv()
{
	local i

	for i in $2; do
		wait "${rpid[$i]}"
		echo $? >"$tmp/$1.$i.rc"
	done
}

all="1 2 3 4 5 6 7"
n='[0-9]+'
recv_re="^vee: guest=$n bytes=$n secs=$n\\.[0-9]{3} mbps=$n\\.[0-9]{2} conns=$n\$"

# --- build ---------------------------------------------------------------
cflags=(-O2 -Wall -Wextra -Werror)
check "build vee-recv" gcc "${cflags[@]}" -o "$tmp/vee-recv" "$here/vee-recv.c"
check "build vee-send" gcc "${cflags[@]}" -o "$tmp/vee-send" "$here/vee-send.c"
static_ok()
{
	gcc "${cflags[@]}" -static -o "$tmp/vee-recv.static" "$here/vee-recv.c" &&
		! readelf -l "$tmp/vee-recv.static" | grep -q INTERP
}
check "build vee-recv -static (no ELF interpreter)" static_ok
if [ ! -x "$tmp/vee-recv" ] || [ ! -x "$tmp/vee-send" ]; then
	echo "test-vee: $passed passed, $((failed + 1)) failed (no binaries)"
	exit 1
fi

# --- the three modes: the receivers' 6 s window covers 3 s of sending -----
for mode in bulk small short; do
	start_recv "$mode" "$all" --secs 6
	"$tmp/vee-send" --secs 3 --mode "$mode" --base-port "$base" \
		--out "$tmp/$mode.send" 2>"$tmp/$mode.send.err"
	rc=$?
	wait_recv "$mode" "$all"
	check "$mode: vee-send exits 0" test "$rc" = 0
	check "$mode: vee-send prints 7 lines" \
		test "$(grep -c '^send: guest=[1-7] bytes=[0-9]* conns=[0-9]*$' \
			"$tmp/$mode.send")" = 7
	errs=""
	for i in $all; do
		out=$tmp/$mode.$i.out
		rb=$(field "$out" vee: "$i" bytes)
		rn=$(field "$out" vee: "$i" conns)
		sb=$(field "$tmp/$mode.send" send: "$i" bytes)
		sc=$(field "$tmp/$mode.send" send: "$i" conns)
		why=""
		[ "$(cat "$tmp/$mode.$i.rc")" = 0 ] || why="exit $(cat "$tmp/$mode.$i.rc")"
		[ "$(wc -l <"$out")" = 1 ] && grep -Eq "$recv_re" "$out" ||
			why="$why output '$(head -c 200 "$out")'"
		[ -s "$tmp/$mode.$i.err" ] && why="$why stderr '$(head -c 200 "$tmp/$mode.$i.err")'"
		[ "${rb:-0}" -gt 0 ] 2>/dev/null || why="$why bytes=${rb:-none}"
		[ "$rb" = "$sb" ] || why="$why received $rb != sent $sb"
		case $mode in
		short)
			# Every connection but the last carried 16 KiB; the
			# receiver may have accepted one more, still empty.
			[ "${sc:-0}" -gt 1 ] 2>/dev/null &&
			[ "$sb" -le $((sc * 16384)) ] &&
			[ "$sb" -gt $(((sc - 1) * 16384)) ] &&
			[ "$rn" -ge "$sc" ] && [ "$rn" -le $((sc + 1)) ] ||
				why="$why conns sent $sc received $rn"
			;;
		*)
			[ "$sc" = 1 ] && [ "$rn" = 1 ] ||
				why="$why conns sent $sc received $rn"
			;;
		esac
		[ -z "$why" ] || errs="$errs guest $i:$why;"
	done
	check "$mode: each guest received bytes > 0, all the sender wrote${errs:+ ($errs)}" \
		test -z "$errs"
	{
		echo "vee: kernel=host variant=$mode run=1"
		cat "$tmp/$mode".[1-7].out
	} >"$tmp/$mode.log"
	check "$mode: vee-report.py takes the receivers' lines" \
		python3 "$here/vee-report.py" "$tmp/$mode.log" >/dev/null
done

# --- a window shorter than the sending: 1.5 s of 3 s ----------------------
start_recv win "$all" --secs 1.5
"$tmp/vee-send" --secs 3 --mode bulk --base-port "$base" \
	--out "$tmp/win.send" 2>"$tmp/win.send.err"
rc=$?
wait_recv win "$all"
check "window: vee-send exits 0 when the receivers leave first" test "$rc" = 0
errs=""
for i in $all; do
	rb=$(field "$tmp/win.$i.out" vee: "$i" bytes)
	rs=$(field "$tmp/win.$i.out" vee: "$i" secs)
	sb=$(field "$tmp/win.send" send: "$i" bytes)
	awk -v rb="${rb:-0}" -v sb="${sb:-0}" -v s="${rs:-0}" \
		-v rc="$(cat "$tmp/win.$i.rc")" \
		'BEGIN { exit !(rc == 0 && rb > 0 && rb <= sb &&
				s >= 1.5 && s < 2.5) }' ||
		errs="$errs guest $i: rc $(cat "$tmp/win.$i.rc") received $rb in ${rs}s, sent $sb;"
done
check "window: 0 < received <= sent, secs in [1.5, 2.5)${errs:+ ($errs)}" \
	test -z "$errs"

# --- the sender waits for receivers that are not listening yet ------------
"$tmp/vee-send" --secs 1 --mode bulk --base-port "$base" \
	--out "$tmp/late.send" 2>"$tmp/late.send.err" &
spid=$!
pids+=("$spid")
sleep 1.5
start_recv late "$all" --secs 3
wait "$spid"
rc=$?
wait_recv late "$all"
check "late receivers: vee-send retries and exits 0" test "$rc" = 0
errs=""
for i in $all; do
	rb=$(field "$tmp/late.$i.out" vee: "$i" bytes)
	sb=$(field "$tmp/late.send" send: "$i" bytes)
	[ "${rb:-0}" -gt 0 ] 2>/dev/null && [ "$rb" = "$sb" ] ||
		errs="$errs guest $i: received ${rb:-none} sent ${sb:-none};"
done
check "late receivers: each received all it was sent${errs:+ ($errs)}" \
	test -z "$errs"

# --- guest 7 never listens: vee-send gives up; the others get no byte ----
start_recv none "1 2 3 4 5 6" --secs 1 --wait 1.5
"$tmp/vee-send" --secs 1 --mode bulk --base-port "$base" --wait 1 \
	>"$tmp/none.send" 2>"$tmp/none.send.err"
rc=$?
wait_recv none "1 2 3 4 5 6"
check "no guest 7: vee-send exits 1" test "$rc" = 1
check "no guest 7: one stderr line naming guest 7 only" \
	eval '[ "$(wc -l <"$tmp/none.send.err")" = 1 ] &&
	grep -q "guest 7 127.0.0.1:$((base + 7)) (Connection refused)" \
		"$tmp/none.send.err" && ! grep -q "guest 1 " "$tmp/none.send.err"'
check "no guest 7: vee-send prints no result lines" test ! -s "$tmp/none.send"
errs=""
for i in 1 2 3 4 5 6; do
	grep -Eq "^vee: guest=$i bytes=0 secs=0.000 mbps=0.00 conns=[1-9][0-9]*$" \
		"$tmp/none.$i.out" && [ "$(cat "$tmp/none.$i.rc")" = 1 ] ||
		errs="$errs guest $i: rc $(cat "$tmp/none.$i.rc") '$(cat "$tmp/none.$i.out")';"
done
check "no byte: vee-recv prints bytes=0 and exits 1${errs:+ ($errs)}" \
	test -z "$errs"

# --- vee-recv's errors ---------------------------------------------------
start_recv busy 1 --secs 1 --wait 30
sleep 0.3
"$tmp/vee-recv" --bind 127.0.0.1 --port $((base + 1)) --guest 2 \
	>"$tmp/busy2.out" 2>"$tmp/busy2.err"
rc=$?
kill "${rpid[1]}" 2>/dev/null
# shellcheck disable=SC2034 # read by the eval below
want="vee-recv: bind 127.0.0.1 port $((base + 1)): Address already in use"
check "bind in use: vee-recv exits 2 with one line naming bind" \
	eval '[ "$rc" = 2 ] && [ ! -s "$tmp/busy2.out" ] &&
	[ "$(cat "$tmp/busy2.err")" = "$want" ]'
for args in "--port 5001" "--guest 1 --port 0" "--guest 1 --secs x" \
	    "--guest 1 --bind nowhere" "--guest 1 --frob 2" "--guest 1 7"; do
	# shellcheck disable=SC2086 # $args is a command line: split it
	"$tmp/vee-recv" $args >"$tmp/arg.out" 2>"$tmp/arg.err"
	rc=$?
	check "vee-recv $args: exit 2, one usage line" \
		eval '[ "$rc" = 2 ] && [ ! -s "$tmp/arg.out" ] &&
		[ "$(wc -l <"$tmp/arg.err")" = 1 ] &&
		grep -q "^vee-recv: .*usage: vee-recv" "$tmp/arg.err"'
done
for args in "--secs 1" "--mode bulk" "--secs 1 --mode tiny" \
	    "--secs 0 --mode bulk" "--secs 1 --mode bulk --guests 0" \
	    "--secs 1 --mode bulk --base-port 65530"; do
	# shellcheck disable=SC2086 # $args is a command line: split it
	"$tmp/vee-send" $args >"$tmp/arg.out" 2>"$tmp/arg.err"
	rc=$?
	check "vee-send $args: exit 2, one usage line" \
		eval '[ "$rc" = 2 ] && [ ! -s "$tmp/arg.out" ] &&
		[ "$(wc -l <"$tmp/arg.err")" = 1 ] &&
		grep -q "^vee-send: .*usage: vee-send" "$tmp/arg.err"'
done

# --- vee-report.py on synthetic runs --------------------------------------
report=$here/vee-report.py
# mkrun FILE KERNEL VARIANT RUN MBPS...: a run log, 1 s per guest, irqs;
# the header gets " noisy=$NOISY" when NOISY is set.
mkrun()
{
	local f=$1 k=$2 v=$3 r=$4 g=0 m

	shift 4
	{
		echo "[    1.234] console noise before the run"
		echo "vee: kernel=$k variant=$v run=$r${NOISY:+ noisy=$NOISY}"
		for m in "$@"; do
			g=$((g + 1))
			echo "vee: guest=$g bytes=$((m * 125000)) secs=1.000 mbps=$m.00 conns=1"
		done
		echo "irq: port=3 name=eth0 count=$((1000 + r))"
		for m in $(seq 1 $g); do
			echo "irq: port=$((10 + 2 * m)) name=vif$m.0-q0-tx count=$((m * 10))"
			echo "irq: port=$((11 + 2 * m)) name=vif$m.0-q0-rx count=$((m * 20))"
		done
		echo "irq: port=1 name=timer0 count=5"
	} >"$f"
}
mkrun "$tmp/ones" series bulk 1 1 1 1 1 1 1 1
mkrun "$tmp/ramp" lowest bulk 1 1 2 3 4 5 6 7
mkrun "$tmp/five" lowest bulk 2 5 5 5 5 5 5 5
mkrun "$tmp/mid" base bulk 1 2 2 2 2 2 2 2
python3 "$report" "$tmp/ones" "$tmp/five" "$tmp/mid" "$tmp/ramp" \
	>"$tmp/rep.out" 2>"$tmp/rep.err"
rc=$?
check "report: exit 0, nothing on stderr" \
	eval '[ "$rc" = 0 ] && [ ! -s "$tmp/rep.err" ]'
# section KERNEL: the report's lines for that kernel.
section()
{
	awk -v k="== kernel=$1 " 'index($0, "== ") == 1 { on = index($0, k) == 1 }
		on' "$tmp/rep.out"
}
# row SECTION FIELDS...: SECTION has a table row of exactly these fields.
row()
{
	local k=$1

	shift
	section "$k" | tr -s " " | grep -Fqx "$*"
}
check "report: 1,1,1,1,1,1,1 -> 1.00-1.00, max/min 1.00, Jain 1.000, total 7" \
	row series 1 1.00 1.00 1.00 1.00 1.00 1.00 1.00 1.00-1.00 1.00 1.000 7.00
check "report: 1..7 -> 1.00-7.00, max/min 7.00, Jain 784/980 = 0.800, total 28" \
	row lowest 1 1.00 2.00 3.00 4.00 5.00 6.00 7.00 1.00-7.00 7.00 0.800 28.00
check "report: means of 1..7 and 5s, Jain 992.25/1041.25 = 0.953" \
	row lowest mean 3.00 3.50 4.00 4.50 5.00 5.50 6.00 3.00-6.00 2.00 0.953 \
	31.50
check "report: slowest and fastest guest per run (1..7, then all 5s: a tie goes to g1)" \
	eval 'section lowest | grep -qx "slowest guest per run: g1 g1" &&
	section lowest | grep -qx "fastest guest per run: g7 g1"'
check "report: total spread 28-35, stddev 4.95" \
	eval 'section lowest | grep -qx "total: mean 31.50 min-max 28.00-35.00 stddev 4.95"'
check "report: Jain spread 0.8-1, stddev 0.141" \
	eval 'section lowest | grep -qx "Jain: mean 0.900 min-max 0.800-1.000 stddev 0.141"'
check "report: one run has no stddev" \
	eval 'section base | grep -qx "total: mean 14.00 min-max 14.00-14.00 stddev -"'
order=$(sed -n 's/^== kernel=\([a-z]*\) .*/\1/p' "$tmp/rep.out" | tr "\n" " ")
check "report: kernels in the order lowest, base, series" \
	test "$order" = "lowest base series "
mkrun "$tmp/o1" base noisy 1 1 1
mkrun "$tmp/o2" lowest bulk 1 1 1
mkrun "$tmp/o3" lowest noisy 1 1 1
mkrun "$tmp/o4" series unmoderated 1 1 1
order=$(python3 "$report" "$tmp/o1" "$tmp/o2" "$tmp/o3" "$tmp/o4" |
	sed -n 's/^== kernel=\([a-z]*\) variant=\([a-z]*\):.*/\1-\2/p' | tr "\n" " ")
check "report: by variant (bulk, unmoderated, noisy), then kernel" \
	test "$order" = "lowest-bulk series-unmoderated lowest-noisy base-noisy "
check "report: NIC port and counts per run" \
	eval 'section lowest | grep -Eq "^eth0 +3 +1001 +1002 +1002$"'
check "report: vif ports and counts, timer left out" \
	eval 'section lowest | grep -Eq "^vif7\.0-q0-rx +25 +140 +140 +140$" &&
	[ "$(section lowest | grep -c "^vif")" = 14 ] && ! grep -q timer0 "$tmp/rep.out"'
check "report: comparison lines, nearer the right range" \
	eval 'section lowest | grep -qx "compare: per-guest means 3.00-6.00 Mb/s \
(max/min 2.00); report: lowest-first 23.9-192.3 (max/min 8.05), \
round robin 83.8-140.26 (max/min 1.67); nearer round robin" &&
	python3 "$report" "$tmp/ramp" | grep -q "max/min 7.00); .*; nearer lowest-first$"'

# The noisy neighbour: shown, in the total, out of the fairness figures.
NOISY=1 mkrun "$tmp/noisy1" base noisy 1 9 1 2 3 4 5 6
NOISY=1 mkrun "$tmp/noisy2" base noisy 2 7 3 4 5 6 7 8
python3 "$report" "$tmp/noisy1" "$tmp/noisy2" >"$tmp/rep.out" 2>"$tmp/rep.err"
rc=$?
check "report, noisy=1: exit 0, g1 marked, 1..6 -> max/min 6.00, Jain 441/546 = 0.808, total 30" \
	eval '[ "$rc" = 0 ] && [ ! -s "$tmp/rep.err" ] &&
	section base | grep -Eq "^run +g1\* +g2 " &&
	row base 1 9.00 1.00 2.00 3.00 4.00 5.00 6.00 1.00-6.00 6.00 0.808 30.00'
check "report, noisy=1: means 2..7 -> 2.00-7.00, Jain 729/834 = 0.874, the flooder's 8.00 in the total only" \
	eval 'row base mean 8.00 2.00 3.00 4.00 5.00 6.00 7.00 2.00-7.00 3.50 0.874 35.00 &&
	section base | grep -q "^\* guest 1 floods dom0" &&
	section base | grep -q "^compare: per-guest means 2.00-7.00 Mb/s (max/min 3.50)"'
# The chart: 0-200 Mb/s in 60 columns after a label column of 21; 23.9
# and 192.3 fall in columns 7 and 58, 83.8 and 140.26 in 25 and 42, 2 and
# 7 in 1 and 2, 3 in 1.
# bar LABEL SPACES EQUALS AFTER RANGE: a row of the chart.
bar()
{
	printf "%-21s%*s[%s]%*s  %s\n" "$1" "$2" "" "$(printf "%*s" "$3" "" | tr " " =)" \
		"$4" "" "$5"
}
mkrun "$tmp/narrow" series bulk 1 3 3 3 3
python3 "$report" "$tmp/noisy1" "$tmp/noisy2" "$tmp/narrow" >"$tmp/chart.out"
check "report, noisy=1: the flooder is never the fastest or slowest" \
	eval 'grep -qx "slowest guest per run: g2 g2" "$tmp/chart.out" &&
	grep -qx "fastest guest per run: g7 g7" "$tmp/chart.out"'
check "report: the text chart, the report's ranges and each group's" \
	eval 'grep -Fxq "chart: per-guest means, min to max, Mb/s" "$tmp/chart.out" &&
	grep -Fxq "$(bar "report lowest-first" 7 50 2 23.90-192.30)" "$tmp/chart.out" &&
	grep -Fxq "$(bar "report round robin" 25 16 18 83.80-140.26)" "$tmp/chart.out" &&
	grep -Fxq "$(printf "%-21s |%59s  3.00-3.00" "series bulk" "")" "$tmp/chart.out" &&
	grep -Fxq "$(bar "base noisy" 1 0 58 2.00-7.00)" "$tmp/chart.out"'

# What reached the NIC: packets and bytes per packet, per run and mean.
{ cat "$tmp/mid"; echo "nic: rx_packets=1000 rx_bytes=1514000"; } >"$tmp/nic1"
{ sed 's/run=1$/run=2/' "$tmp/mid"; echo "nic: rx_packets=3000 rx_bytes=354000"; } >"$tmp/nic2"
python3 "$report" "$tmp/nic1" "$tmp/nic2" >"$tmp/rep.out" 2>"$tmp/rep.err"
check "report: NIC packets 1000/3000, bytes/packet 1514/118, mean 1868000/4000 = 467" \
	eval 'section base | grep -Eq "^NIC rx packets +1000 +3000 +2000$" &&
	section base | grep -Eq "^NIC rx bytes/packet +1514 +118 +467$"'

# Malformed inputs: exit 2, one line FILE:LINE: on stderr, no PNG.
# malformed WHAT LINE SUFFIX [FIRST]: $tmp/bad.SUFFIX, after FIRST (a good
# run, $tmp/ones by default), is malformed at LINE.
malformed()
{
	local what=$1 line=$2 f=$tmp/bad.$3 first=${4:-$tmp/ones}

	python3 "$report" --png "$tmp/bad.png" "$first" "$f" \
		>"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	check "report, malformed ($what): exit 2, '$f:$line:' only" \
		eval '[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] &&
		grep -q "^$f:$line: " "$tmp/bad.err" && [ ! -e "$tmp/bad.png" ] &&
		[ -z "$(ls -A "$tmp" | grep "^\.vee-report")" ]'
}
sed 's/bytes=375000 /bytes=abc /' "$tmp/ramp" >"$tmp/bad.num"
malformed "bytes=abc" 5 num
sed '2d' "$tmp/ramp" >"$tmp/bad.nohead"
malformed "guest before header" 2 nohead
sed '5p' "$tmp/ramp" >"$tmp/bad.dup"
malformed "guest twice" 6 dup
sed '6d' "$tmp/ramp" >"$tmp/bad.gap"
malformed "guest 5 missing" 2 gap
sed 's/mbps=4.00/mbps=4.50/' "$tmp/ramp" >"$tmp/bad.mbps"
malformed "mbps against bytes/secs" 6 mbps
sed 's/name=eth0 count=1001/name=eth0 count=-1/' "$tmp/ramp" >"$tmp/bad.irq"
malformed "negative irq count" 10 irq
cp "$tmp/ones" "$tmp/bad.again"
malformed "same run twice" 2 again
sed 's/run=1$/run=1 noisy=8/' "$tmp/ramp" >"$tmp/bad.noisy"
malformed "noisy=8 of 7 guests" 2 noisy
sed 's/run=1$/run=1 noisy=x/' "$tmp/ramp" >"$tmp/bad.noisyx"
malformed "noisy=x" 2 noisyx
NOISY=2 mkrun "$tmp/bad.noisy2" base noisy 3 1 1 1 1 1 1 1
malformed "noisy=2 where run 1 has noisy=1" 2 noisy2 "$tmp/noisy1"
{ cat "$tmp/ramp"; echo "nic: rx_packets=1 rx_bytes=2"; echo "nic: rx_packets=1 rx_bytes=2"; } >"$tmp/bad.nic"
malformed "nic line twice" 27 nic
printf 'nothing here\n' >"$tmp/bad.empty"
malformed "no header" 1 empty

# The chart.
python3 "$report" --png "$tmp/chart.png" "$tmp/ramp" "$tmp/five" \
	"$tmp/mid" "$tmp/ones" >/dev/null 2>"$tmp/png.err"
rc=$?
check "report --png: exit 0, a PNG, no temporary left" \
	eval '[ "$rc" = 0 ] && [ ! -s "$tmp/png.err" ] &&
	[ "$(head -c 8 "$tmp/chart.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ] &&
	[ -z "$(ls -A "$tmp" | grep "^\.vee-report")" ]'
# A gnuplot that writes half a file and fails must leave no PNG behind.
mkdir "$tmp/fake"
cat >"$tmp/fake/gnuplot" <<'EOF'
#!/bin/sh
[ $# -gt 0 ] && { echo "        png  PNG images"; exit 0; }
out=$(sed -n 's/^set output "\(.*\)"$/\1/p')
printf 'partial' >"$out"
echo "gnuplot: fake failure" >&2
exit 1
EOF
chmod +x "$tmp/fake/gnuplot"
PATH=$tmp/fake:$PATH python3 "$report" --png "$tmp/fail.png" "$tmp/ramp" \
	>/dev/null 2>"$tmp/fail.err"
rc=$?
check "report --png, gnuplot fails: exit 1, one line, no PNG, no temporary" \
	eval '[ "$rc" = 1 ] && [ "$(wc -l <"$tmp/fail.err")" = 1 ] &&
	[ ! -e "$tmp/fail.png" ] &&
	[ -z "$(ls -A "$tmp" | grep "^\.vee-report")" ]'

# --- collect.awk on a serial log ------------------------------------------
# Traps: Xen's own command line, a second Linux one, a pirq-like line in
# another domain's table, a vif of a domain without a guest.
cat >"$tmp/serial.log" <<'EOF'
(XEN) Command line: console=com1 vee.noisy=5
[    0.000000] Command line: console=hvc0 vee.guests=2 vee.noisy=2
vee: vif guest=1 domid=3 tx=9 rx=10
vee: vif guest=2 domid=4 tx=9 rx=10
(XEN) Event channel information for domain 0:
(XEN)       25 [0/0/1]: s=4 n=1 x=0 p=10 i=10
(XEN)       30 [1/0/1]: s=3 n=0 x=0 d=3 p=9
(XEN)       31 [0/0/1]: s=3 n=1 x=0 d=3 p=10
(XEN)       34 [0/0/1]: s=3 n=0 x=0 d=4 p=9
(XEN)       35 [0/0/1]: s=3 n=1 x=0 d=4 p=10
(XEN) Event channel information for domain 3:
(XEN)        9 [0/0/1]: s=3 n=0 x=0 d=0 p=30
(XEN)       10 [0/0/1]: s=4 n=0 x=0 p=10 i=10
[   12.000000] Command line: vee.noisy=7
vee: go run=1 (uptime 50.00s)
vee: guest=1 bytes=125000 secs=1.000 mbps=1.00 conns=1
vee: guest=2 bytes=250000 secs=1.000 mbps=2.00 conns=1
irq: irq=10 name=eth0 count=100
irq: irq=46 name=vif3.0-q0-tx count=7
irq: irq=47 name=vif3.0-q0-rx count=0
irq: irq=50 name=vif4.0-q0-tx count=8
irq: irq=51 name=vif4.0-q0-rx count=1
irq: irq=52 name=vif9.0-q0-tx count=3
nic: rx_packets=10 rx_bytes=15140
vee: run 1 end (uptime 60.00s)
EOF
cat >"$tmp/collect.want" <<'EOF'
vee: kernel=base variant=noisy run=1 noisy=2
vee: guest=1 bytes=125000 secs=1.000 mbps=1.00 conns=1
vee: guest=2 bytes=250000 secs=1.000 mbps=2.00 conns=1
irq: port=25 name=eth0 count=100
irq: port=30 name=vif3.0-q0-tx count=7
irq: port=31 name=vif3.0-q0-rx count=0
irq: port=34 name=vif4.0-q0-tx count=8
irq: port=35 name=vif4.0-q0-rx count=1
unmapped-irq: port=? name=vif9.0-q0-tx count=3
nic: rx_packets=10 rx_bytes=15140
EOF
awk -v kernel=base -v variant=noisy -f "$here/collect.awk" "$tmp/serial.log" \
	>"$tmp/collect.out" 2>&1
check "collect.awk: header with dom0's noisy=, ports from dom0's table, unmapped vif" \
	cmp -s "$tmp/collect.want" "$tmp/collect.out"
check "collect.awk: its output is vee-report.py's input" \
	eval 'python3 "$report" "$tmp/collect.out" | grep -Eq "^eth0 +25 +100 +100$"'

# --- trace-table.awk on traced serial logs ---------------------------------
# trace_log FILE SECS DOUBLE: a boot's vee-trace: lines as dom0-init's
# vee_trace prints them, traced SECS s, cpu0 with DOUBLE double passes.
trace_log()
{
	cat >"$1" <<EOF
[    0.000000] Command line: vee.guests=7 vee.secs=60 vee.runs=1 vee.trace=$2
vee: go run=1 (uptime 50.00s)
vee-trace: cpu0 entries 5634 overrun 0 dropped 0 
vee-trace: cpu1 entries 4517 overrun 3 dropped 1 
vee-trace: cpu0 passes 2135
vee-trace: cpu0 services 3499
vee-trace: cpu0 services_all 3499
vee-trace: cpu0 double_passes $3
vee-trace: cpu0 per_pass 0 1 3 8
vee-trace: cpu1 passes 2108
vee-trace: cpu1 services_all 2409
vee-trace: cpu1 double_passes 0
vee-trace: cpu1 per_pass 0 1 2 3
EOF
}
trace_log "$tmp/t-base.log" 5 0
trace_log "$tmp/t-series.log" 5 7
cat >"$tmp/trace.want" <<'EOF'
bulk     base    cpu0     2135     3499     1/3/8       0     0/0
bulk     base    cpu1     2108     2409     1/2/3       0     3/1
bulk     series  cpu0     2135     3499     1/3/8       7     0/0
bulk     series  cpu1     2108     2409     1/2/3       0     3/1
EOF
awk -f "$here/trace-table.awk" kernel=base variant=bulk "$tmp/t-base.log" \
	kernel=series variant=bulk "$tmp/t-series.log" >"$tmp/trace.out" 2>&1
rc=$?
check "trace-table.awk: exit 0, a row per boot and vCPU, in order" \
	eval 'test "$rc" = 0 && grep "^bulk " "$tmp/trace.out" | cmp -s "$tmp/trace.want" -'
check "trace-table.awk: the traced seconds from dom0's command line" \
	grep -q 'VEE_TRACE=5): 5 s of dom0' "$tmp/trace.out"
trace_log "$tmp/t-other.log" 10 0
awk -f "$here/trace-table.awk" kernel=base variant=bulk "$tmp/t-base.log" \
	kernel=series variant=bulk "$tmp/t-other.log" >"$tmp/trace.out" 2>&1
rc=$?
check "trace-table.awk: boots traced for different times: exit 1, one line naming the log" \
	eval 'test "$rc" = 1 && test "$(wc -l <"$tmp/trace.out")" = 1 && grep -q "t-other.log: traced 10 s" "$tmp/trace.out"'
grep -v 'cpu1 per_pass' "$tmp/t-base.log" >"$tmp/t-part.log"
awk -f "$here/trace-table.awk" kernel=base variant=bulk "$tmp/t-part.log" >"$tmp/trace.out" 2>&1
rc=$?
check "trace-table.awk: a vCPU's figures incomplete: exit 1, one line naming the log and vCPU" \
	eval 'test "$rc" = 1 && test "$(wc -l <"$tmp/trace.out")" = 1 && grep -q "t-part.log: cpu1" "$tmp/trace.out"'
printf 'vee: go run=1\nvee-trace: error: cannot set up tracefs\n' >"$tmp/t-err.log"
awk -f "$here/trace-table.awk" kernel=base variant=bulk "$tmp/t-err.log" >"$tmp/trace.out" 2>&1
rc=$?
check "trace-table.awk: a vee-trace error: exit 1, FILE:LINE and the error" \
	eval 'test "$rc" = 1 && test "$(wc -l <"$tmp/trace.out")" = 1 && grep -q "t-err.log:2: error: cannot set up tracefs" "$tmp/trace.out"'
echo "test-vee: $passed passed, $failed failed"
[ "$failed" = 0 ]
