/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bit searches events_2l.c calls, for ../prove: __ffs() is the
 * kernel's own generic___ffs(), included from the tree
 * (PROVE_FFS_H: include/asm-generic/bitops/__ffs.h), and find_first_bit()
 * is the kernel's (include/linux/find.h, lib/find_bit.c's
 * FIND_FIRST_BIT()) written out for the sizes events_2l.c passes, which
 * are constants: one masked word when the size fits an unsigned long,
 * else a walk over the unsigned longs of the bitmap.
 *
 * Their results bound every index and shift of the scan, so the proof
 * takes find_first_bit() by its contract below (-eva-use-spec), and
 * check_bitops.c checks that contract on the body, at each word width,
 * for all inputs (EVA, split by the lowest non-zero long), and the body
 * against the compiler's count of trailing zeros on every single-bit
 * and on random inputs (gcc, native and 32-bit Arm).
 *
 * Before including it: BITS_PER_LONG and xen_ulong_t (the bitmaps
 * events_2l.c searches are one xen_ulong_t).
 */
#ifndef __PROVE_BITOPS_H__
#define __PROVE_BITOPS_H__

#ifndef __always_inline
#define __always_inline inline
#endif
#ifndef __attribute_const__
#define __attribute_const__
#endif
#include PROVE_FFS_H

/* GENMASK(size - 1, 0) of include/linux/bits.h, for 0 < size <= BITS_PER_LONG */
#define PROVE_LOW_MASK(size) (~0UL >> (BITS_PER_LONG - (size)))

/*
 * For WP (PROVE_WP, after wp_bits.h): the result is the lowest set bit.
 * WP takes it; EVA checks it on the body (check_bitops.c, check
 * 'lowest'), with the rest of the contract.
 */
#ifdef PROVE_WP
#define PROVE_FFB_LOWEST \
	ensures prove_bit(*(xen_ulong_t *)addr, \result); \
	ensures prove_none(*(xen_ulong_t *)addr, 0, \result);
#else
#define PROVE_FFB_LOWEST
#endif

/*@ requires size == 8 * sizeof(xen_ulong_t);
    requires \valid_read((xen_ulong_t *)addr);
    assigns \result \from ((xen_ulong_t *)addr)[0], size;
    behavior none:
      assumes *(xen_ulong_t *)addr == 0;
      ensures \result == size;
    behavior some:
      assumes *(xen_ulong_t *)addr != 0;
      ensures \result < size;
      PROVE_FFB_LOWEST
    complete behaviors;
    disjoint behaviors;
*/
static unsigned long find_first_bit(const unsigned long *addr,
				    unsigned long size)
{
	unsigned long idx, val, sz = size;

	if (size <= BITS_PER_LONG) {
		val = *addr & PROVE_LOW_MASK(size);
		return val ? __ffs(val) : size;
	}
	for (idx = 0; idx * BITS_PER_LONG < sz; idx++) {
		val = addr[idx];
		if (val) {
			val = idx * BITS_PER_LONG + __ffs(val);
			sz = val < sz ? val : sz;
			break;
		}
	}
	return sz;
}

#endif /* __PROVE_BITOPS_H__ */
