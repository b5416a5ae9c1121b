#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/prove.sh: 'make prove', Frama-C's EVA on the real
# evtchn_2l_handle_events() from its most general state (lab/prove/).
#
# Three codes, all compiled unchanged from build/linux: "series" (HEAD's
# events_2l.c), "released" (the base commit's) and "fixed" (the released
# one with the series' two width fixes only), each in three
# geometries, Frama-C's machdep and the lab's stand-ins set to match:
#
#   lp64    unsigned long 64 bits, xen_ulong_t 64  (x86_64, arm64)
#   arm32   unsigned long 32 bits, xen_ulong_t 64  (32-bit Arm)
#   x86_32  unsigned long 32 bits, xen_ulong_t 32  (32-bit x86)
#
# EVA checks every operation of one pass for undefined behaviour and
# invalid memory access (signed overflow, shifts, indexes, pointers:
# -eva-warn-undefined-pointer-comparison all; and the implementation-
# defined conversions: -warn-signed-downcast, -warn-pointer-downcast,
# -warn-invalid-bool), and must reach every statement of the pass (EVA's
# coverage, else the run fails); each alarm is printed as
# FILE:LINE, with the line that called the function it is in when that is
# not the pass itself.  Unsigned wrap-around is defined in C and the scan
# relies on it: MASK_LSBS() shifts bits out of ~0.  So
# -warn-unsigned-overflow is off: with it, EVA flags those two shifts and
# then goes on as if they had not wrapped, which leaves 3 statements of
# the pass unreached (55 of 58): no longer a proof for every state.
#
# The pass takes find_first_bit() by its contract (lab/prove/
# prove_bitops.h), which is checked first, on the stand-in's body: by EVA
# in each geometry, for all inputs (lab/prove/check_bitops.c), and by gcc
# natively and for 32-bit Arm against the compiler's count of trailing
# zeros.
#
# The word loop's bound (the counter `i` cannot overflow), which none of
# EVA's domains can see, is WP's (step 3): lab/prove/wp-annotate.py
# gives the file the loop's ACSL invariants as comments at the start of
# existing lines (code and line numbers unchanged), EVA takes the ones
# it cannot decide as assumptions, and WP proves them for the series'
# code in each geometry, from lab/prove/wp_bits.h's lemmas and its
# bit-vector facts, which z3 checks (lab/prove/bv-facts.smt2.in).
# Step 4: WP proves patch 3's at-most-once property (no port handed to
# handle_irq_for_port() twice in a pass) for the series' code in the
# 64-bit geometry (wp-annotate.py --order, prove_2l.c's PROVE_ORDER).
#
# events_internal.h is taken with its three "return f();" in void
# functions (a GCC extension Frama-C's parser rejects) written "f();";
# events_2l.c is not touched.  Files in build/prove/, log
# build/logs/prove.log, the table in build/out/prove.txt.
#
# Exit status 1 if the stand-ins' check fails, if the series' code or
# the fixed one has an alarm, if a bit-vector fact or a WP goal fails
# (the at-most-once proof's among them),
# or if the released code's alarms in the arm32 geometry miss the lines
# the series' two width fixes change.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
require_tree
for c in frama-c why3 z3 cvc4; do
	command -v $c >/dev/null || die "$c is missing: run 'make deps' (mk/packages: [prove])"
done
# WP reaches z3 and cvc4 through Why3's configuration.
[[ -f ${WHY3CONFIG:-$HOME/.why3.conf} ]] || why3 config detect >/dev/null 2>&1 ||
	die "why3 config detect failed"

PROVE=$ROOT/lab/prove
out=$BUILD/prove
log=$LOGS/prove.log
mkdir -p "$out" "$LOGS" "$BUILD/out"
: >"$log"
say "log: ${log#"$ROOT"/}"
FFS_H=$LINUX/include/asm-generic/bitops/__ffs.h
[[ -f $FFS_H ]] || die "${FFS_H#"$ROOT"/} is missing"

geometries=("lp64 gcc_x86_64 64 64" "arm32 gcc_x86_32 32 64" "x86_32 gcc_x86_32 32 32")
failed=0 lines=() npassed=0 nfailed=0
# counted OK: one check of the closing "prove: N passed, M failed" line,
# passed if OK is 1.
counted() {
	if (($1)); then
		npassed=$((npassed + 1))
	else
		nfailed=$((nfailed + 1)) failed=1
	fi
}

# 1. The stand-ins.
for g in "${geometries[@]}"; do
	read -r name machdep long xlong <<<"$g"
	csv=$out/check-bitops-$name.csv
	{
		echo "== check_bitops.c, EVA, $name"
		frama-c -c11 -machdep "$machdep" -cpp-extra-args="-I$PROVE -I$PROVE/shim -DPROVE_EVA -DEVR_LONG_BITS=$long -DEVR_XEN_ULONG_BITS=$xlong -DPROVE_FFS_H='\"$FFS_H\"'" \
			"$PROVE/check_bitops.c" -eva -eva-slevel 8 -then -report-csv "$csv"
	} >>"$log" 2>&1 || die "frama-c failed on check_bitops.c ($name): see ${log#"$ROOT"/}"
	props=$(grep -cP '\t(check_bitops\.c|prove_bitops\.h)\t' "$csv" || true)
	open=$(grep -P '\t(check_bitops\.c|prove_bitops\.h)\t' "$csv" | grep -cvP '\tValid\t' || true)
	counted "$((props > 0 && open == 0))"
	if ((props == 0 || open > 0)); then
		lines+=("find_first_bit() contract, $name: $open of $props properties not valid")
	else
		lines+=("find_first_bit() contract, $name: $props of $props properties valid")
	fi
done
builds=("native gcc" "arm32 arm-linux-gnueabihf-gcc qemu-arm-static" "arm32-32 arm-linux-gnueabihf-gcc qemu-arm-static")
for b in "${builds[@]}"; do
	read -r name cc run <<<"$b"
	xlong=64
	[[ $name != arm32-32 ]] || xlong=32
	bin=$out/check-bitops-$name
	$cc -O2 -Wall -Wextra -static -I"$PROVE" -DEVR_XEN_ULONG_BITS=$xlong -DPROVE_FFS_H="\"$FFS_H\"" \
		"$PROVE/check_bitops.c" -o "$bin" >>"$log" 2>&1 ||
		die "$cc failed on check_bitops.c: see ${log#"$ROOT"/}"
	if r=$(${run:+$run} "$bin" 2>>"$log"); then
		counted 1
		lines+=("${r#check-bitops: }")
	else
		counted 0
		lines+=("${r#check-bitops: } (FAILED)")
	fi
done

# 2. The pass.  alarms CODE GEOMETRY: runs EVA, sets ALARMS (one line per
# alarm, "FILE:LINE: text[ (called at FILE:LINE)]").
alarms() {
	local dir=$out/$1 machdep=$2 long=$3 xlong=$4 name=$5
	{
		echo "== $1, $name"
		(cd "$dir" && frama-c -c11 -machdep "$machdep" \
			-cpp-extra-args="-I$PROVE/shim -I$PROVE -I$ROOT/lab/scan -I$ROOT/lab/scan/shim -I$ROOT/lab/xen-evtchn/shim -I$LINUX/tools/include -I$ROOT/lab/xen-evtchn -DEVR_LONG_BITS=$long -DEVR_XEN_ULONG_BITS=$xlong -DPROVE_FFS_H='\"$FFS_H\"' -DPROVE_EVENTS_SRC='\"events_2l.c\"'" \
			"$PROVE/prove_2l.c" -eva -eva-use-spec find_first_bit \
			-warn-signed-downcast -warn-pointer-downcast -warn-invalid-bool \
			-eva-warn-undefined-pointer-comparison all -eva-print-callstacks \
			-then -metrics -metrics-eva-cover)
	} >"$out/$1-$name.log" 2>&1 || {
		cat "$out/$1-$name.log" >>"$log"
		die "frama-c failed on $1's events_2l.c ($name): see ${log#"$ROOT"/}"
	}
	cat "$out/$1-$name.log" >>"$log"
	grep -q 'ANALYSIS SUMMARY' "$out/$1-$name.log" ||
		die "EVA did not finish on $1 ($name): see ${log#"$ROOT"/}"
	# Every statement of the pass reached, or the proof says little.
	COVER=$(grep -o -m1 'evtchn_2l_handle_events: [0-9]* stmts out of [0-9]* ([0-9.]*%)' "$out/$1-$name.log" || true)
	ALARMS=$(awk '
		function flush() { if (loc != "") print loc ": " text (via != "" ? " (called at " via ")" : ""); loc = "" }
		/^\[/ { flush() }
		/^\[eva:alarm\] / { loc = $2; sub(/:$/, "", loc); text = $0; sub(/^[^ ]* [^ ]* *(Warning: *)?/, "", text); via = ""; stack = 0; next }
		loc != "" && /^  stack: / { stack = 1; if ($3 == "::" && $4 ~ /^events_2l\.c:/) via = $4; next }
		loc != "" && !stack { t = $0; sub(/^ +/, "", t); text = text (text == "" ? "" : " ") t }
		END { flush() }' "$out/$1-$name.log" | sort -u)
	# The loop invariants of wp-annotate.py that EVA could not decide
	# are not alarms of the code: EVA takes them as assumptions, and
	# step 3 has WP prove them.  Any other annotation left is an alarm.
	ASSUMED=$(grep -o "loop invariant '[a-z]*' got status unknown" <<<"$ALARMS" | cut -d"'" -f2 | sort -u | tr '\n' ' ')
	ALARMS=$(grep -v "^events_2l\.c:[0-9]*: loop invariant '\(wrange\|ibound\|laps\)' got status unknown\.\?\$" <<<"$ALARMS" || true)
}

# wp ARGS...: frama-c's WP on prove_2l.c with the events_2l.c of $dir,
# for the geometry of $machdep, $long and $xlong (its caller's locals)
# and the cpp options of $defs.
wp() {
	(cd "$dir" && frama-c -c11 -machdep "$machdep" \
		-cpp-extra-args="-I$PROVE/shim -I$PROVE -I$ROOT/lab/scan -I$ROOT/lab/scan/shim -I$ROOT/lab/xen-evtchn/shim -I$LINUX/tools/include -I$ROOT/lab/xen-evtchn -DPROVE_WP $defs -DEVR_LONG_BITS=$long -DEVR_XEN_ULONG_BITS=$xlong -DPROVE_FFS_H='\"$FFS_H\"' -DPROVE_EVENTS_SRC='\"events_2l.c\"'" \
		"$PROVE/prove_2l.c" -wp -wp-timeout 60 -wp-par "$(nproc)" "$@")
}

# wp_count LOG: sets WP_LINE from LOG's "Proved goals" lines (and the
# goals left); fails if a goal is left.
wp_count() {
	local goals=0 proved=0 p g
	while read -r p g; do
		goals=$((goals + g)) proved=$((proved + p))
	done < <(sed -n 's|^\[wp\] Proved goals: *\([0-9]*\) / \([0-9]*\)$|\1 \2|p' "$1")
	WP_LINE="$proved of $goals goals proved (model $model)"
	((goals > 0 && proved == goals)) || {
		WP_LINE="$WP_LINE; not proved: $(grep -E '^\[wp\] \[[^]]*\] Goal typed_' "$1" | grep -v ': Valid' | grep -o 'Goal typed_[a-z0-9_]*' | sed -E 's/Goal typed_(cast_)?//' | sort -u | paste -sd' ' | cut -c1-400) (FAILED)"
		return 1
	}
}

# wp_logged RC WLOG CODE NAME: a WP step's log WLOG (exit status RC)
# appended to make prove's log; the run stops if frama-c failed, else
# its goals are counted (wp_count: WP_LINE).
wp_logged() {
	cat "$2" >>"$log"
	(($1 == 0)) || die "frama-c (WP) failed on $3's events_2l.c ($4): see ${log#"$ROOT"/}"
	wp_count "$2"
}

# wp_bound CODE GEOMETRY...: WP proves, for CODE's events_2l.c as EVA
# ran it, wp-annotate.py's loop invariants, assigns and variants (one
# pass visits at most B + 2 words) and wp_bits.h's lemmas, taking
# find_first_bit() by its contract with the lowest set bit
# (PROVE_FFB_LOWEST, which step 1 checks on the body); sets WP_LINE.
wp_bound() {
	local dir=$out/$1 machdep=$2 long=$3 xlong=$4 name=$5 wlog=$out/$1-$5-wp.log model=Typed defs='' rc
	# 32-bit Arm: EVTCHN_FIRST_BIT() passes the xen_ulong_t word as
	# (unsigned long *) and the contract reads it back as (xen_ulong_t *),
	# a cast the Typed model refuses.  Typed+cast takes the pointer
	# through it; it is unsound only for an object read through a type
	# it does not have, which the pass never does (find_first_bit()'s
	# body, which does, is EVA's: step 1).
	((long == xlong)) || model=Typed+cast
	{
		# set -e does not hold left of ||: each step chains with &&.
		echo "== WP, $1, $name" &&
			wp -wp-model "$model" -wp-fct evtchn_2l_handle_events -wp-prop=-@assigns \
				-wp-prover z3,cvc4 -wp-split &&
			# The assigns, with the arrays' cells unfolded (without,
			# the provers miss their trivial existentials).
			echo "== WP, $1's loop assigns, $name" &&
			wp -wp-model "$model" -wp-fct evtchn_2l_handle_events -wp-prop=@assigns \
				-wp-prover z3-ce,cvc4 -wp-unfold-assigns -1 &&
			echo "== WP, wp_bits.h's lemmas, $name" &&
			wp -wp-prop @lemma -wp-prover z3,cvc4
	} >"$wlog" 2>&1 && rc=0 || rc=$?
	wp_logged "$rc" "$wlog" "$1" "$name"
}

# wp_order CODE GEOMETRY...: WP proves, for CODE's events_2l.c with
# wp-annotate.py --order's annotations ($out/CODE-order/), that the pass
# hands no port to handle_irq_for_port() twice (prove_2l.c, PROVE_ORDER:
# the ports' positions from the start port increase); sets WP_LINE.
# The invariants wp_bound proves are taken here.
wp_order() {
	local dir=$out/$1-order machdep=$2 long=$3 xlong=$4 name=$5 wlog=$out/$1-$5-order.log model=Typed defs=-DPROVE_ORDER rc
	((long == xlong)) || model=Typed+cast
	{
		echo "== WP, at most once, $1, $name" &&
			wp -wp-model "$model" -wp-fct evtchn_2l_handle_events \
				-wp-prop order,bits_range,bits_first,bits_second,order_bits,at_most_once,order_start,order_S \
				-wp-prover z3,cvc4 -wp-split
	} >"$wlog" 2>&1 && rc=0 || rc=$?
	wp_logged "$rc" "$wlog" "$1" "$name"
}

width_fixes_end
for code in series released fixed; do
	case $code in
	series) rev=HEAD ;;
	released) rev=base ;;
	fixed) rev=$fixes_end ;;
	esac
	extract_events_src "$rev" "$out/src-$code"
	mkdir -p "$out/$code"
	# The file with wp-annotate.py's ACSL comments only (it checks that).
	python3 "$PROVE/wp-annotate.py" "$EVENTS_SRC" "$out/$code/events_2l.c" >>"$log" 2>&1 ||
		die "wp-annotate.py failed on $code's events_2l.c: see ${log#"$ROOT"/}"
	sed -E 's/^(\s*)return (evtchn_ops->(mask|unmask|handle_events)\()/\1\2/' \
		"$out/src-$code/drivers/xen/events/events_internal.h" >"$out/$code/events_internal.h"
done
# The series' file with the at-most-once proof's annotations too (WP's).
mkdir -p "$out/series-order"
python3 "$PROVE/wp-annotate.py" --order "$out/src-series/drivers/xen/events/events_2l.c" "$out/series-order/events_2l.c" >>"$log" 2>&1 ||
	die "wp-annotate.py --order failed on the series' events_2l.c: see ${log#"$ROOT"/}"
cp "$out/series/events_internal.h" "$out/series-order/"

series_alarms=0 fixed_alarms=0
for code in series released fixed; do
	for g in "${geometries[@]}"; do
		read -r name machdep long xlong <<<"$g"
		say "EVA: $code, $name"
		alarms "$code" "$machdep" "$long" "$xlong" "$name"
		n=0
		[[ -z $ALARMS ]] || n=$(wc -l <<<"$ALARMS")
		case $code in
		series) series_alarms=$((series_alarms + n)) ;;
		fixed) fixed_alarms=$((fixed_alarms + n)) ;;
		esac
		lines+=("$code, $name: $n alarm(s); ${COVER:-evtchn_2l_handle_events: no coverage}${ASSUMED:+; loop invariants taken: $ASSUMED(WP: $([[ $code == series ]] && echo below || echo "not run for this code"))}")
		# Every statement reached; and no alarm but in the released code.
		ok=0
		[[ $COVER != *"(100.0%)" ]] || [[ $code != released && $n != 0 ]] || ok=1
		counted "$ok"
		while IFS= read -r a; do
			[[ -z $a ]] || lines+=("    $a")
		done <<<"$ALARMS"
		[[ $code/$name != released/arm32 ]] || arm32_released=$ALARMS
	done
done

# 3. The loop invariants EVA took (wp-annotate.py: one pass visits at
# most B + 2 words, so `i++` cannot overflow), proved by WP for the
# series' code in each geometry, with wp_bits.h's lemmas, from its
# bit-vector facts, which z3 checks first.  About 3 minutes per geometry
# on 2 cores.  The released code and the fixed one are not WP's here
# (docs/testing.md says what that leaves).
for bits in 64 32; do
	smt=$out/bv-facts-$bits.smt2
	sed "s/@B@/$bits/g" "$PROVE/bv-facts.smt2.in" >"$smt"
	nfacts=$(grep -c '^(check-sat)' "$smt")
	want=$(for ((k = 0; k < nfacts; k++)); do echo unsat; done | paste -sd' ')
	r=$(timeout 120 z3 "$smt" 2>>"$log" | paste -sd' ') || true
	counted "$([[ $r == "$want" ]] && echo 1 || echo 0)"
	if [[ $r == "$want" ]]; then
		lines+=("wp_bits.h's $nfacts bit-vector facts at $bits bits: z3 ${want// /, } (each holds)")
	else
		lines+=("wp_bits.h's $nfacts bit-vector facts at $bits bits: z3 '$r', not '$want' (FAILED)")
	fi
done
# wp_step WHAT GEOMETRY: wp_bound (WHAT empty) or wp_order (WHAT "at
# most once, ") on the series' code in GEOMETRY ("name machdep long
# xlong"), counted, its line kept.
wp_step() {
	local what=$1 name machdep long xlong ok=1
	read -r name machdep long xlong <<<"$2"
	say "WP: ${what}series, $name"
	if [[ -z $what ]]; then
		wp_bound series "$machdep" "$long" "$xlong" "$name" || ok=0
	else
		wp_order series "$machdep" "$long" "$xlong" "$name" || ok=0
	fi
	counted "$ok"
	lines+=("WP, ${what}series, $name: $WP_LINE")
}
for g in "${geometries[@]}"; do
	wp_step "" "$g"
done
# 4. At most once: no port handed to handle_irq_for_port() twice in a
# pass (patch 3), whatever the handlers raise meanwhile; WP, for the
# series' code in the 64-bit geometry (x86_64, arm64).  With patch 3
# reverted, its invariant bits_second is not established.
wp_step "at most once, " "${geometries[0]}"

# The lines of the released code that the width fixes change.
rel=$out/released/events_2l.c
fix1=$(grep -n 'pending_words &= ~(1UL << word_idx);' "$rel" | cut -d: -f1 | head -1)
fix2=$(grep -n 'word_idx = evtchn / BITS_PER_LONG;' "$rel" | cut -d: -f1 | head -1)
[[ -n $fix1 && -n $fix2 ]] || die "the released events_2l.c has not the lines the width fixes change"
# The pre-check's call of active_evtchns() follows patch 2's two lines.
call2=$(awk -v from="$fix2" 'NR > from && /active_evtchns\(/ { print NR; exit }' "$rel")
hit1=0 hit2=0
grep -q "^events_2l\.c:$fix1: invalid RHS operand for shift" <<<"$arm32_released" && hit1=1
grep -q "(called at events_2l\.c:$call2)" <<<"$arm32_released" && hit2=1
lines+=("released, arm32: patch 1's line $fix1 $( ((hit1)) && echo has || echo has NOT) its shift alarm; patch 2's lines $fix2-$((fix2 + 1)) $( ((hit2)) && echo have || echo have NOT) their index alarm (active_evtchns() called at $call2)")
counted "$((hit1 && hit2))"

{
	echo "# make prove: $(frama-c -version | head -1), EVA on evtchn_2l_handle_events() from the most general state"
	echo "# series: build/linux $(git -C "$LINUX" rev-parse --short HEAD); released: $(git -C "$LINUX" log -1 --format=%s base)"
	printf '%s\n' "${lines[@]}"
	echo "prove: series $series_alarms alarm(s) in 3 geometries, released with the width fixes $fixed_alarms; $( ((failed)) && echo FAILED || echo passed)"
	echo "prove: $npassed passed, $nfailed failed"
} >"$BUILD/out/prove.txt"
cat "$BUILD/out/prove.txt"
exit "$failed"
