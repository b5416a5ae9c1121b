/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace stand-ins for the kernel interfaces that the 2-level scanner
 * core, the replay engine and the Linux 6.12 events_2l.c use, in the
 * style of tools/testing/vma: every <linux/...>, <asm/...> and <xen/...>
 * header they include resolves to this directory and lands here.
 *
 * EVR_XEN_ULONG_BITS picks xen_ulong_t (64 by default, as on x86_64 and
 * both Arm ABIs; 32 as on x86-32).  BITS_PER_LONG follows the compiler,
 * except that a 32-bit xen_ulong_t build models a 32-bit guest.
 */
#ifndef __EVR_SHIM_H__
#define __EVR_SHIM_H__

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef long long s64;

#ifndef EVR_XEN_ULONG_BITS
#define EVR_XEN_ULONG_BITS 64
#endif
#if EVR_XEN_ULONG_BITS == 64
typedef uint64_t xen_ulong_t;
#define PRI_xen_ulong "llx"
#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)
#elif EVR_XEN_ULONG_BITS == 32
typedef uint32_t xen_ulong_t;
#define PRI_xen_ulong "x"
#define BITS_PER_LONG 32
#else
#error EVR_XEN_ULONG_BITS must be 32 or 64
#endif
typedef uint32_t evtchn_port_t;

#undef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#define noinline __attribute__((__noinline__))
#define __init
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely(x) __builtin_expect(!!(x), 1)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define U32_MAX UINT32_MAX

static inline u64 evr_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/* The engine's only uses: min() of u32s and min_t(u64, ...). */
#define min(a, b) evr_min_u64(a, b)
#define min_t(t, a, b) ((t)evr_min_u64(a, b))

/* Allocation. */
typedef unsigned int gfp_t;
#define GFP_KERNEL 0u

static inline void *kzalloc(size_t n, gfp_t gfp)
{
	return calloc(1, n);
}

static inline void *kmalloc(size_t n, gfp_t gfp)
{
	return malloc(n);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	return calloc(n, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* Formatting. */
static inline int vscnprintf(char *buf, size_t size, const char *fmt,
			     va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

static inline __printf(3, 4) int scnprintf(char *buf, size_t size,
					   const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

static inline u64 div_u64_rem(u64 a, u32 b, u32 *rem)
{
	*rem = a % b;
	return a / b;
}

/* Bit operations. */
static inline unsigned long __ffs(unsigned long w)
{
	return __builtin_ctzl(w);
}

static inline unsigned int __ffs64(u64 w)
{
	return __builtin_ctzll(w);
}

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

#endif /* __EVR_SHIM_H__ */
