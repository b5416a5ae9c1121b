/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The logic WP needs to bound evtchn_2l_handle_events()'s word loop
 * (wp-annotate.py's invariants; ../../mk/prove.sh, step 3), for
 * prove_2l.c built with PROVE_WP, after xen_ulong_t.
 *
 * prove_bit(p, k): bit k of p is set; prove_none(p, a, b): no bit of p
 * in [a, b).  WP encodes the C bit operations as integer functions
 * (land, lsl, to_uint64, ...), on which Debian 12's provers (z3 4.8.12,
 * cvc4 1.8) do not prove four basic facts; those are the axioms of
 * prove_bv, each checked in bit-vector logic by z3 (bv-facts.smt2.in, at
 * 32 and 64 bits).  WP proves every lemma below from them.
 */
#ifndef __PROVE_WP_BITS_H__
#define __PROVE_WP_BITS_H__

#define PROVE_B (8 * sizeof(xen_ulong_t))

/*@ predicate prove_bit(integer p, integer k) = ((p >> k) & 1) != 0;
    predicate prove_none(integer p, integer a, integer b) =
      \forall integer k; a <= k < b ==> !prove_bit(p, k);
    logic integer prove_mask(integer w) =
      (xen_ulong_t)((xen_ulong_t)~(xen_ulong_t)0 << w);

    axiomatic prove_bv {
      axiom prove_zero: \forall xen_ulong_t p;
        prove_none(p, 0, PROVE_B) ==> p == 0;
      axiom prove_mask_bit: \forall xen_ulong_t p, integer w, k;
        0 <= w < PROVE_B ==> 0 <= k < PROVE_B ==>
        (prove_bit(p & prove_mask(w), k) <==> (prove_bit(p, k) && w <= k));
      axiom prove_none_ffs: \forall xen_ulong_t p, integer w, x;
        0 <= w < PROVE_B ==> x <= PROVE_B ==>
        prove_none(p & prove_mask(w), 0, x) ==> prove_none(p, w, x);
      axiom prove_low_bit: \forall xen_ulong_t p, integer w, k;
        0 <= w < PROVE_B ==> 0 <= k < PROVE_B ==>
        (prove_bit(p & (xen_ulong_t)(((xen_ulong_t)1 << w) - 1), k) <==>
         (prove_bit(p, k) && k < w));
    }
    lemma prove_clear_bit: \forall xen_ulong_t p, integer x, k;
      0 <= x < PROVE_B ==> 0 <= k ==>
      (prove_bit(p & (xen_ulong_t)~((xen_ulong_t)1 << x), k) <==> (prove_bit(p, k) && k != x));
    lemma prove_bit0: \forall integer k; 0 <= k ==> !prove_bit(0, k);

    lemma prove_none_mask: \forall xen_ulong_t p, integer w;
      0 <= w < PROVE_B ==> (p & prove_mask(w)) == 0 ==>
      prove_none(p, w, PROVE_B);
    lemma prove_bit_ffs: \forall xen_ulong_t p, integer w, x;
      0 <= w < PROVE_B ==> 0 <= x < PROVE_B ==>
      prove_bit(p & prove_mask(w), x) ==> prove_bit(p, x) && w <= x;
    lemma prove_none_clear: \forall xen_ulong_t p, integer x, a, b;
      0 <= x < PROVE_B ==> 0 <= a ==>
      prove_none(p, a, b) ==> prove_none(p & (xen_ulong_t)~((xen_ulong_t)1 << x), a, b);
    lemma prove_none_clear_at: \forall xen_ulong_t p, integer x, a;
      0 <= x < PROVE_B ==> 0 <= a ==>
      prove_none(p, a, x) ==> prove_none(p & (xen_ulong_t)~((xen_ulong_t)1 << x), a, x + 1);
    lemma prove_none_join: \forall integer p, a, b, c;
      prove_none(p, a, b) ==> prove_none(p, b, c) ==> prove_none(p, a, c);
    lemma prove_none_sub: \forall integer p, a, b, c, d;
      a <= c ==> d <= b ==> prove_none(p, a, b) ==> prove_none(p, c, d);
    lemma prove_none_low: \forall xen_ulong_t p, integer w;
      0 <= w < PROVE_B ==>
      prove_none(p & (xen_ulong_t)(((xen_ulong_t)1 << w) - 1), w, PROVE_B);
    lemma prove_visit: \forall xen_ulong_t p, integer w, x, a;
      0 <= a <= w ==> w <= x < PROVE_B ==>
      prove_none(p, a, w) ==> prove_none(p & prove_mask(w), 0, x) ==>
      prove_none(p & (xen_ulong_t)~((xen_ulong_t)1 << x), a, x + 1);
*/

#endif /* __PROVE_WP_BITS_H__ */
