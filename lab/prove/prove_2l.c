// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frama-C's entry point for a kernel's evtchn_2l_handle_events(),
 * compiled unchanged from its events_2l.c (PROVE_EVENTS_SRC) behind the
 * lab's stand-ins (../scan/shim, ../scan/events_2l_env.h) and this
 * directory's bit searches (prove_bitops.h), in one geometry:
 * EVR_LONG_BITS, the bits of an unsigned long (Frama-C's -machdep gives
 * the same), and EVR_XEN_ULONG_BITS, those of a xen_ulong_t.
 *
 * main() runs one pass from the most general state: every pending, mask
 * and per-CPU binding bit and every selector bit any value, the pass on
 * any CPU, its cursor at any port, the VIRQ_TIMER port absent or any
 * port.  Each port handled (handle_irq_for_port(), and
 * generic_handle_irq() for the timer) clears its pending bit, as the
 * kernel's handler does, and then Xen and the handler may set any
 * pending bit, mask or unmask any port, rebind any port and set any
 * selector bit: after a service, everything the pass reads is any value
 * again, but for the port's own pending bit.
 *
 * EVA checks every operation of the pass for undefined behaviour and
 * invalid memory access; ../../mk/prove.sh counts the alarms.
 */
#include "__fc_builtin.h"

#define EVR_OWN_FIND_BIT
#include "lab_shim.h"

#undef BITS_PER_LONG
#define BITS_PER_LONG EVR_LONG_BITS
_Static_assert(sizeof(long) * 8 == EVR_LONG_BITS,
	       "the machdep's unsigned long is EVR_LONG_BITS bits");
_Static_assert(sizeof(xen_ulong_t) * 8 == EVR_XEN_ULONG_BITS,
	       "xen_ulong_t is EVR_XEN_ULONG_BITS bits");

#include "wp_bits.h"
#include "prove_bitops.h"

#define EVTCHN_WORDS EVR_XEN_ULONG_BITS
#define EVR_MAX_CPUS 2
#define PROVE_TIMER_IRQ 100000

struct evtchn_loop_ctrl {
	int unused;
};

static int evr_nr_cpus(void)
{
	return EVR_MAX_CPUS;
}

#include "events_2l_env.h"

/* Not called by the pass. */
static unsigned int cpu_from_evtchn(evtchn_port_t evtchn)
{
	return 0;
}

static unsigned int irq_from_evtchn(evtchn_port_t evtchn)
{
	return evtchn;
}

/* Whether the pass's CPU has a VIRQ_TIMER port, and which. */
static bool prove_timer_bound;
static evtchn_port_t prove_timer_port;

/*@ assigns *evtchn; */
static int irq_evtchn_from_virq(unsigned int cpu, unsigned int virq,
				evtchn_port_t *evtchn)
{
	if (virq != VIRQ_TIMER || !prove_timer_bound)
		return -1;
	*evtchn = prove_timer_port;
	return PROVE_TIMER_IRQ;
}

static void prove_any_state(void);

/*
 * The handler of @port clears its pending bit (the ack of
 * clear_evtchn()), with the port's word and bit as the kernel's code
 * computes them from it; then anything but that bit may change.
 */
static void prove_service(evtchn_port_t port)
{
	unsigned int w = port / EVTCHN_WORDS;
	xen_ulong_t bit = (xen_ulong_t)1 << (port % EVTCHN_WORDS);
	xen_ulong_t pending;

	evr_shared_info.evtchn_pending[w] &= ~bit;
	pending = evr_shared_info.evtchn_pending[w];
	prove_any_state();
	evr_shared_info.evtchn_pending[w] &= ~bit;
	evr_shared_info.evtchn_pending[w] |= pending;
}

static void handle_irq_for_port(evtchn_port_t port,
				struct evtchn_loop_ctrl *ctrl)
{
	prove_service(port);
}

static int generic_handle_irq(unsigned int irq)
{
	if (irq != PROVE_TIMER_IRQ)
		abort();
	prove_service(prove_timer_port);
	return 0;
}

#ifdef PROVE_ORDER
/*
 * The at-most-once proof (wp-annotate.py --order): prove_S is the pass's
 * start port, prove_last the position of the port it handled last (-1:
 * none yet).  A port's position is its distance from S going up, past
 * the last port to port 0: prove_pos().  prove_base(w, i, s, b) is the
 * position of bit 0 of word w in the visit of the pass's loop at i, for
 * the start word s and bit b: on the first visit of the start word,
 * going up from it, and after the wrap (the second visit of the start
 * word among them).
 */
/*@ ghost int prove_last; */
/*@ ghost int prove_S; */
/*@ logic integer prove_pos(integer port, integer start) =
      port >= start ? port - start
                    : port - start + EVTCHN_WORDS * EVTCHN_WORDS;
    logic integer prove_base(integer w, integer i, integer s, integer b) =
      w == s && i == 0 ? -b
      : w > s ? (w - s) * EVTCHN_WORDS - b
      : (EVTCHN_WORDS - s + w) * EVTCHN_WORDS - b;
*/
#endif

#undef BITS_PER_EVTCHN_WORD
#undef CONFIG_XEN_EVTCHN_2L_KUNIT_TEST
#undef CONFIG_XEN_EVTCHN_2L_LIVE_KUNIT_TEST
#include PROVE_EVENTS_SRC

const struct evtchn_ops *evtchn_ops;

#ifdef PROVE_WP
/*
 * For WP, which takes the pass's calls by their contracts: what a
 * service may change (the pass's locals it cannot).
 */
#ifdef PROVE_ORDER
/*
 * Each port the pass hands here is past the last one it handled, going
 * round from the start port once: none twice in a pass.
 */
/*@ requires at_most_once: prove_last < prove_pos(port, prove_S);
    assigns prove_last, evr_shared_info,
      cpu_evtchn_mask[0 .. EVR_MAX_CPUS - 1][0 .. EVTCHN_WORDS - 1],
      evr_vcpu_info[0 .. EVR_MAX_CPUS - 1];
    ensures prove_last == prove_pos(port, prove_S);
*/
#else
/*@ assigns evr_shared_info,
      cpu_evtchn_mask[0 .. EVR_MAX_CPUS - 1][0 .. EVTCHN_WORDS - 1],
      evr_vcpu_info[0 .. EVR_MAX_CPUS - 1];
*/
#endif
static void handle_irq_for_port(evtchn_port_t port,
				struct evtchn_loop_ctrl *ctrl);
/*@ assigns evr_shared_info,
      cpu_evtchn_mask[0 .. EVR_MAX_CPUS - 1][0 .. EVTCHN_WORDS - 1],
      evr_vcpu_info[0 .. EVR_MAX_CPUS - 1];
*/
static int generic_handle_irq(unsigned int irq);
#endif

/* Everything the pass reads but the cursor: any value. */
static void prove_any_state(void)
{
	Frama_C_make_unknown((char *)&evr_shared_info,
			     sizeof(evr_shared_info));
	Frama_C_make_unknown((char *)cpu_evtchn_mask, sizeof(cpu_evtchn_mask));
	Frama_C_make_unknown((char *)&evr_vcpu_info, sizeof(evr_vcpu_info));
}

int main(void)
{
	struct evtchn_loop_ctrl ctrl = { 0 };
	unsigned int cpu = Frama_C_unsigned_int_interval(0, EVR_MAX_CPUS - 1);
	unsigned int c;

	//@ loop unroll EVR_MAX_CPUS;
	for (c = 0; c < EVR_MAX_CPUS; c++)
		xen_vcpu[c] = &evr_vcpu_info[c];
	evr_this_cpu = cpu;
	prove_any_state();
	current_word_idx[cpu] = Frama_C_unsigned_int_interval(0, EVTCHN_WORDS - 1);
	current_bit_idx[cpu] = Frama_C_unsigned_int_interval(0, EVTCHN_WORDS - 1);
	prove_timer_bound = Frama_C_nondet(0, 1);
	/* EVA keeps apart the passes with and without a timer port. */
	//@ split prove_timer_bound;
	prove_timer_port = Frama_C_unsigned_int_interval(0, EVTCHN_2L_NR_CHANNELS - 1);

	evtchn_2l_handle_events(cpu, &ctrl);
	return 0;
}
