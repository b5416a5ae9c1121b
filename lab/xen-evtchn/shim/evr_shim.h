/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space stand-ins for the kernel interfaces that the 2-level replay
 * engine (evtchn_2l_replay.c) uses, in the style of tools/testing/vma: each
 * <linux/...> and <xen/...> header it includes resolves to this
 * directory and lands here, but for <linux/compiler.h>, tools/include's.
 *
 * EVR_XEN_ULONG_BITS picks xen_ulong_t: 64 by default (x86-64, and both
 * Arm ABIs, where it is 64 bits even on 32-bit Arm), or 32 (x86-32).
 */
#ifndef __EVR_SHIM_H__
#define __EVR_SHIM_H__

#include <asm/types.h>		/* __u8 ... for tools/include's compiler.h */
#include <linux/compiler.h>
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
typedef uint32_t evtchn_port_t;

#ifndef EVR_XEN_ULONG_BITS
#define EVR_XEN_ULONG_BITS 64
#endif
#if EVR_XEN_ULONG_BITS == 64
typedef uint64_t xen_ulong_t;
#elif EVR_XEN_ULONG_BITS == 32
typedef uint32_t xen_ulong_t;
#else
#error "EVR_XEN_ULONG_BITS must be 32 or 64"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define U32_MAX UINT32_MAX

static inline u64 evr_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 evr_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* The engine's uses: min() and clamp() of unsigned ints. */
#define min(a, b) evr_min_u64(a, b)
#define clamp(v, lo, hi) evr_min_u64(evr_max_u64(v, lo), hi)

#define GFP_KERNEL 0u

static inline void *kvzalloc(size_t size, unsigned int gfp)
{
	return calloc(1, size);
}

static inline void *kvcalloc(size_t n, size_t size, unsigned int gfp)
{
	return calloc(n, size);
}

static inline void *kvrealloc(const void *p, size_t size, unsigned int gfp)
{
	return realloc((void *)p, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

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

static inline unsigned int __ffs64(u64 w)
{
	return __builtin_ctzll(w);
}

#endif /* __EVR_SHIM_H__ */
