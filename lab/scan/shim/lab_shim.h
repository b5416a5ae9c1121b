/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The comparison lab's stand-ins, on top of the replay engine's
 * (../xen-evtchn/shim/evr_shim.h): what the kernel's events_2l.c needs
 * besides, to be compiled unchanged in user space as the policies rr
 * (the series') and base (the released one) by real_2l.c.  The headers
 * of this directory that events_2l.c includes are this one, but for
 * kunit/'s two, KUnit's interfaces reduced to nothing.
 *
 * BITS_PER_LONG follows the compiler, except that a 32-bit xen_ulong_t
 * build models a 32-bit (x86-32) guest.
 */
#ifndef __EVR_LAB_SHIM_H__
#define __EVR_LAB_SHIM_H__

#include "evr_shim.h"
#include <linux/kconfig.h>	/* IS_ENABLED(), tools/include's */

/* tools/include's <linux/compiler.h> has its own of these two. */
#undef BITS_PER_LONG
#undef noinline
#if EVR_XEN_ULONG_BITS == 64
#define PRI_xen_ulong "llx"
#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)
#else
#define PRI_xen_ulong "x"
#define BITS_PER_LONG 32
#endif

#define noinline __attribute__((__noinline__))
#define __init

static inline void *kzalloc(size_t n, unsigned int gfp)
{
	return calloc(1, n);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

/*
 * Bit operations.  ../prove (EVR_OWN_FIND_BIT) brings its own __ffs() and
 * find_first_bit(), the kernel's generic ones with their contracts.
 */
#ifndef EVR_OWN_FIND_BIT
static inline unsigned long __ffs(unsigned long w)
{
	return __builtin_ctzl(w);
}
#endif

/*
 * The kernel's bitmap operations on an "unsigned long *" view of
 * xen_ulong_t arrays.  Bit N is bit N % 8 of byte N / 8 on the
 * little-endian machines Xen runs on, whatever the word width, which is
 * what these stand-ins rely on.
 */
#define EVR_BYTE(addr, nr) (((unsigned char *)(addr))[(nr) / 8])
#define EVR_BYTE_BIT(nr) (1u << ((nr) % 8))

static inline void set_bit(long nr, unsigned long *addr)
{
	EVR_BYTE(addr, nr) |= EVR_BYTE_BIT(nr);
}

static inline void clear_bit(long nr, unsigned long *addr)
{
	EVR_BYTE(addr, nr) &= ~EVR_BYTE_BIT(nr);
}

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return EVR_BYTE(addr, nr) & EVR_BYTE_BIT(nr);
}

static inline bool test_and_set_bit(long nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	set_bit(nr, addr);
	return old;
}

#define sync_set_bit set_bit
#define sync_clear_bit clear_bit
#define sync_test_bit test_bit
#define sync_test_and_set_bit test_and_set_bit

#ifndef EVR_OWN_FIND_BIT
/*
 * find_first_bit() as the kernel builds it: one masked word when the
 * size fits an unsigned long, else a walk over unsigned longs.  The load
 * copies only the bytes of the bitmap, so a 32-bit xen_ulong_t in a
 * 64-bit process is not over-read.
 */
static inline unsigned long find_first_bit(const unsigned long *addr,
					   unsigned long size)
{
	unsigned long idx, val;

	if (size <= BITS_PER_LONG) {
		val = 0;
		memcpy(&val, addr, size / 8);
		if (size < sizeof(val) * 8)
			val &= (1UL << size) - 1;
		return val ? __ffs(val) : size;
	}
	for (idx = 0; idx * BITS_PER_LONG < size; idx++) {
		if (addr[idx]) {
			val = idx * BITS_PER_LONG + __ffs(addr[idx]);
			return val < size ? val : size;
		}
	}
	return size;
}
#endif /* EVR_OWN_FIND_BIT */

#endif /* __EVR_LAB_SHIM_H__ */
