/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the replay engine needs of the 2-level ABI's geometry: the kernel
 * has no header for it (events_2l.c keeps its definitions to itself).
 */
#ifndef __EVR_GEOMETRY_H__
#define __EVR_GEOMETRY_H__

#include <linux/types.h>

#include <xen/interface/xen.h>

/* Bits per word of the 2-level bitmaps: each word is a xen_ulong_t. */
#ifndef BITS_PER_EVTCHN_WORD
#define BITS_PER_EVTCHN_WORD (sizeof(xen_ulong_t) * 8)
#endif

/* Where the next scan on one CPU starts: a port, as the kernel's
 * per-CPU current_word_idx * word bits + current_bit_idx. */
struct evtchn_2l_cursor {
	unsigned int port;
};

/* No VIRQ_TIMER port. */
#define EVTCHN_2L_NO_PORT	((evtchn_port_t)~0U)

#endif /* __EVR_GEOMETRY_H__ */
