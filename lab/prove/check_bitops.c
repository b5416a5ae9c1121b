// SPDX-License-Identifier: GPL-2.0-only
/*
 * The check of prove_bitops.h's stand-ins, which the proof of the pass
 * takes by their contract.  Built twice:
 *
 * - by Frama-C (PROVE_EVA), once per geometry (EVR_LONG_BITS,
 *   EVR_XEN_ULONG_BITS): EVA runs find_first_bit()'s body on every
 *   xen_ulong_t there is, in cases that cover them all: 0, and for each
 *   unsigned long of the word, the words whose lowest non-zero unsigned
 *   long it is (any non-zero value there, zeros below, anything above).
 *   The checks say that the result is the size for 0 and below it
 *   otherwise: the contract's two behaviours.  And for each bit b, on
 *   the words whose lowest set bit is b (any bits above): the result is
 *   b, the lowest set bit, as WP takes it (PROVE_FFB_LOWEST);
 *
 * - by gcc, natively and for 32-bit Arm: the body's result against the
 *   compiler's count of trailing zeros (what x86's and Arm's own __ffs()
 *   compute) on 0, on every single-bit word and on random words, at the
 *   machine's unsigned long and xen_ulong_t widths.  Prints one line,
 *   exit status 1 on a difference.
 */
#ifdef PROVE_EVA
#include "__fc_builtin.h"
#endif
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef EVR_LONG_BITS
#define EVR_LONG_BITS (__SIZEOF_LONG__ * 8)
#endif
#define BITS_PER_LONG EVR_LONG_BITS
#if EVR_XEN_ULONG_BITS == 64
typedef uint64_t xen_ulong_t;
#else
typedef uint32_t xen_ulong_t;
#endif
typedef unsigned char __u8;	/* for asm-generic/bitops/__ffs.h's <asm/types.h> */
#include "prove_bitops.h"

#define XBITS (8 * sizeof(xen_ulong_t))
#define LONGS (sizeof(xen_ulong_t) / sizeof(unsigned long))

#ifdef PROVE_EVA
#if EVR_XEN_ULONG_BITS == 64
#define PROVE_ANY_XEN_ULONG() Frama_C_unsigned_long_long_interval(0, ULLONG_MAX)
#else
#define PROVE_ANY_XEN_ULONG() Frama_C_unsigned_int_interval(0, UINT_MAX)
#endif

int main(void)
{
	union {
		xen_ulong_t w;
		unsigned long l[LONGS];
	} u;
	unsigned long r;
	unsigned int k, j;

	u.w = 0;
	r = find_first_bit(u.l, XBITS);
	//@ check zero: r == XBITS;

	//@ loop unroll LONGS;
	for (k = 0; k < LONGS; k++) {
		//@ loop unroll LONGS;
		for (j = 0; j < LONGS; j++)
			u.l[j] = j < k ? 0 : Frama_C_unsigned_long_interval(j == k, ULONG_MAX);
		r = find_first_bit(u.l, XBITS);
		//@ check nonzero: r < XBITS;
	}

	/*
	 * The lowest set bit (PROVE_FFB_LOWEST, which WP takes): every
	 * non-zero word is bit b set, the bits below clear and any bits
	 * above, for one b; for each b, the result is b.
	 */
	//@ loop unroll XBITS;
	for (k = 0; k < XBITS; k++) {
		xen_ulong_t above = ~(xen_ulong_t)0 << k << 1;

		u.w = ((xen_ulong_t)1 << k) | (PROVE_ANY_XEN_ULONG() & above);
		r = find_first_bit(u.l, XBITS);
		//@ check lowest: r == k;
	}
	return 0;
}
#else
static unsigned long ref(xen_ulong_t w)
{
	return w ? (unsigned long)__builtin_ctzll(w) : XBITS;
}

static uint64_t rnd = 0x9e3779b97f4a7c15ull;

static xen_ulong_t next(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	/* Random bits, thinned so that the lowest set bit goes anywhere. */
	return (xen_ulong_t)(rnd & (rnd >> (rnd % 61) | ~(xen_ulong_t)0 << (rnd % XBITS)));
}

static int bad;
static unsigned long tried;

static void one(xen_ulong_t w)
{
	xen_ulong_t copy = w;
	unsigned long got = find_first_bit((unsigned long *)&copy, XBITS);

	tried++;
	if (got != ref(w) && bad++ < 5)
		fprintf(stderr, "check-bitops: find_first_bit(%#llx, %zu) = %lu, not %lu\n",
			(unsigned long long)w, XBITS, got, ref(w));
}

int main(void)
{
	unsigned long i, b;

	one(0);
	for (b = 0; b < XBITS; b++)
		one((xen_ulong_t)1 << b);
	for (i = 0; i < 1000000; i++)
		one(next());
	for (b = 0; b < BITS_PER_LONG; b++) {
		unsigned long w = 1UL << b;

		if (__ffs(w) != b && bad++ < 5)
			fprintf(stderr, "check-bitops: __ffs(%#lx) = %u\n", w, __ffs(w));
	}
	printf("check-bitops: %d-bit long, %zu-bit xen_ulong_t: %lu words, %d wrong\n",
	       BITS_PER_LONG, XBITS, tried, bad);
	return bad != 0;
}
#endif
