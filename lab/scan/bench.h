/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evtchn-bench: the state each scan policy runs on, and the per-port
 * service and upcall loop that all policies share, so that they differ
 * only in their scan.  The state of rr and base lives in their copy of
 * real_2l.c (built with EVR_LEAN), lowest's in bench.c.
 */
#ifndef __EVB_BENCH_H__
#define __EVB_BENCH_H__

#include "lab_shim.h"
#include "evtchn_2l_replay.h"

#define EVB_WORD_BITS	64
#define EVB_NR_PORTS	(EVB_WORD_BITS * EVB_WORD_BITS)

/**
 * struct evb_state - one policy's view of shared_info and its vCPU
 * @pending: shared_info->evtchn_pending[].
 * @mask: shared_info->evtchn_mask[].
 * @bound: the ports bound to the scanning CPU, a word at a time.
 * @sel: vcpu_info->evtchn_pending_sel.
 * @upcall_pending: vcpu_info->evtchn_upcall_pending.
 * @timer_port: the CPU's VIRQ_TIMER port, or EVR_NO_PORT.
 * @flood_port: a port that Xen sends again each time it is serviced, while
 *              @flood_left is not zero; EVR_NO_PORT for none.
 * @flood_left: sends of @flood_port left.
 * @services: services so far.
 */
struct evb_state {
	xen_ulong_t *pending;
	xen_ulong_t *mask;
	xen_ulong_t *bound;
	xen_ulong_t *sel;
	u8 *upcall_pending;
	unsigned int timer_port;
	unsigned int flood_port;
	unsigned int flood_left;
	unsigned long services;
};

static __always_inline xen_ulong_t evb_bit(unsigned int bit)
{
	return (xen_ulong_t)1 << bit;
}

/* What Xen does on a send: pend; if unmasked, raise selector and flag. */
static __always_inline void evb_send(struct evb_state *st, evtchn_port_t port)
{
	unsigned int word = port / EVB_WORD_BITS;
	xen_ulong_t bit = evb_bit(port % EVB_WORD_BITS);

	if (st->pending[word] & bit)
		return;
	st->pending[word] |= bit;
	if (!(st->mask[word] & bit) && !(*st->sel & evb_bit(word))) {
		*st->sel |= evb_bit(word);
		*st->upcall_pending = 1;
	}
}

/*
 * The service of every policy: clear the port's pending bit (the ack),
 * count it and, for the flooding port, let Xen send it again.
 */
static __always_inline void evb_service(struct evb_state *st,
					evtchn_port_t port)
{
	st->pending[port / EVB_WORD_BITS] &= ~evb_bit(port % EVB_WORD_BITS);
	st->services++;
	if (unlikely(port == st->flood_port) && st->flood_left) {
		st->flood_left--;
		evb_send(st, port);
	}
}

/* xen_evtchn_do_upcall(): passes while the upcall flag is raised again. */
static __always_inline void evb_upcall(struct evb_state *st,
				       void (*pass)(struct evb_state *st))
{
	do {
		*st->upcall_pending = 0;
		pass(st);
	} while (*st->upcall_pending);
}

/*
 * real_2l.c built with EVR_LEAN: a kernel's scan on its own state, the
 * series' (rr) and the released one (base).
 */
void evb_rr_attach(struct evb_state *st);
void evb_rr_set_cursor(unsigned int port);
void evb_upcall_rr(struct evb_state *st);
void evb_base_attach(struct evb_state *st);
void evb_base_set_cursor(unsigned int port);
void evb_upcall_base(struct evb_state *st);

#endif /* __EVB_BENCH_H__ */
