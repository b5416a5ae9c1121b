// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel's evtchn_2l_handle_events(), compiled unchanged from its
 * events_2l.c (EVR_EVENTS_SRC) behind the stand-ins below and those of
 * events_2l_env.h, and driven against the replay engine's state.  It is built as the policy
 * EVR_POLICY: "rr" from the series' events_2l.c (build/linux's HEAD),
 * "base" from the released one (the tree's base commit).
 *
 * This file is built once per policy and word width (EVR_XEN_ULONG_BITS
 * = 32 or 64) and exports evr_<policy>_pass_w32() or _w64(); the 64-bit
 * copy also exports evr_pass_<policy>(), the policy of evtchn-replay and
 * of the replay engine, which runs the copy of the script's word width.
 *
 * The kernel's code reads shared_info and its own per-CPU state directly,
 * so the engine's state is copied into those before the pass and after
 * each service, and the selector and cursor are copied back.  The code
 * writes nothing else.
 *
 * Built with EVR_LEAN (64-bit words only), it is evtchn-bench's
 * policy instead: the kernel's code runs on its own shared_info and
 * per-CPU state, which the bench sets directly, with the bench's service
 * (bench.h) and no engine, and it exports evb_<policy>_attach(),
 * evb_<policy>_set_cursor() and evb_upcall_<policy>().
 */
#include "lab_shim.h"
#include "evtchn_2l_replay.h"
#ifdef EVR_LEAN
#include "bench.h"
#endif

#if !defined(EVR_POLICY) || !defined(EVR_EVENTS_SRC)
#error EVR_POLICY (rr or base) and EVR_EVENTS_SRC (its events_2l.c) must be set
#endif

#define EVR_CAT2(a, b) a##b
#define EVR_CAT(a, b) EVR_CAT2(a, b)
/* evr_<policy><name>, and with the word width after it. */
#define EVR_P(name) EVR_CAT(EVR_CAT(evr_, EVR_POLICY), name)
#define EVR_PW(name) EVR_CAT(EVR_P(name), EVR_XEN_ULONG_BITS)
#define EVB_P(name) EVR_CAT(EVR_CAT(evb_, EVR_POLICY), name)

/* Each policy's and width's copy of the file gets its own global names. */
#define xen_debug_interrupt EVR_PW(_debug_interrupt_w)
#define xen_evtchn_2l_init EVR_PW(_init_w)
#define evtchn_ops EVR_PW(_ops_w)

#define EVTCHN_WORDS EVR_XEN_ULONG_BITS
#define EVR_TIMER_IRQ_BASE 100000

struct evtchn_loop_ctrl {
#ifdef EVR_LEAN
	struct evb_state *st;
#else
	unsigned int count;
#endif
};

static int evr_nr_cpus(void);

#include "events_2l_env.h"

static struct evr_sim *evr_sim;

static int evr_nr_cpus(void)
{
	return evr_sim->nr_cpus;
}

static unsigned int cpu_from_evtchn(evtchn_port_t evtchn)
{
	return evr_sim->port_cpu[evtchn];
}

static unsigned int irq_from_evtchn(evtchn_port_t evtchn)
{
	return evtchn;
}

#ifdef EVR_LEAN
static struct evb_state *evb_st;

static unsigned int evr_timer_port(unsigned int cpu)
{
	return evb_st->timer_port;
}

static void evr_real_service(evtchn_port_t port)
{
	evb_service(evb_st, port);
}

static void handle_irq_for_port(evtchn_port_t port,
				struct evtchn_loop_ctrl *ctrl)
{
	evb_service(ctrl->st, port);
}
#else
static void evr_load_pending(void);
static void evr_store_sel(void);

static unsigned int evr_timer_port(unsigned int cpu)
{
	return evr_sim->cpu[cpu].timer_port;
}

static void evr_real_service(evtchn_port_t port)
{
	evr_store_sel();
	evr_service(evr_sim, port);
	evr_load_pending();
}

static void handle_irq_for_port(evtchn_port_t port,
				struct evtchn_loop_ctrl *ctrl)
{
	ctrl->count++;
	evr_real_service(port);
}
#endif

static int irq_evtchn_from_virq(unsigned int cpu, unsigned int virq,
				evtchn_port_t *evtchn)
{
	unsigned int port = evr_timer_port(cpu);

	if (virq != VIRQ_TIMER || port == EVR_NO_PORT)
		return -1;
	*evtchn = port;
	return EVR_TIMER_IRQ_BASE + port;
}

static int generic_handle_irq(unsigned int irq)
{
	evr_real_service(irq - EVR_TIMER_IRQ_BASE);
	return 0;
}

/*
 * events_2l.c defines it itself.  The KUnit code it has (a test suite
 * included at its end, helpers for the live cases) is the kernel's only:
 * leave it out whatever the command line says.
 */
#undef BITS_PER_EVTCHN_WORD
#undef CONFIG_XEN_EVTCHN_2L_KUNIT_TEST
#undef CONFIG_XEN_EVTCHN_2L_LIVE_KUNIT_TEST
#include EVR_EVENTS_SRC

const struct evtchn_ops *evtchn_ops;

#ifdef EVR_LEAN
#if EVTCHN_WORDS != EVB_WORD_BITS
#error EVR_LEAN needs EVR_XEN_ULONG_BITS=64
#endif

/* Point @st at this copy's state: CPU 0, every port bound to it. */
void EVB_P(_attach)(struct evb_state *st)
{
	evb_st = st;
	evr_this_cpu = 0;
	xen_vcpu[0] = &evr_vcpu_info[0];
	memset(cpu_evtchn_mask[0], 0xff, sizeof(cpu_evtchn_mask[0]));
	st->pending = evr_shared_info.evtchn_pending;
	st->mask = evr_shared_info.evtchn_mask;
	st->bound = cpu_evtchn_mask[0];
	st->sel = &evr_vcpu_info[0].evtchn_pending_sel;
	st->upcall_pending = &evr_vcpu_info[0].evtchn_upcall_pending;
}

void EVB_P(_set_cursor)(unsigned int port)
{
	current_word_idx[0] = port / EVTCHN_WORDS;
	current_bit_idx[0] = port % EVTCHN_WORDS;
}

static void evb_pass(struct evb_state *st)
{
	struct evtchn_loop_ctrl ctrl = { .st = st };

	evtchn_ops_2l.handle_events(0, &ctrl);
}

noinline void EVR_CAT(evb_upcall_, EVR_POLICY)(struct evb_state *st)
{
	evb_upcall(st, evb_pass);
}
#else
/*
 * The engine's state -> what the kernel's pass on this CPU reads of it:
 * the pending bits and the CPU's selector, which a service may change,
 * and once a pass the mask bits and the ports bound to the CPU, which it
 * does not.  The pass reads nothing of the other CPUs.
 */
static void evr_load_pending(void)
{
	unsigned int w;

	for (w = 0; w < EVTCHN_WORDS; w++)
		evr_shared_info.evtchn_pending[w] = evr_sim->pending[w];
	evr_vcpu_info[evr_this_cpu].evtchn_pending_sel =
		evr_sim->cpu[evr_this_cpu].sel;
}

static void evr_load(void)
{
	unsigned int w;

	for (w = 0; w < EVTCHN_WORDS; w++) {
		evr_shared_info.evtchn_mask[w] = evr_sim->mask[w];
		cpu_evtchn_mask[evr_this_cpu][w] =
			evr_sim->cpu[evr_this_cpu].bound[w];
	}
	xen_vcpu[evr_this_cpu] = &evr_vcpu_info[evr_this_cpu];
	evr_load_pending();
}

/* The kernel's code writes the selector (xchg), nothing else of the state. */
static void evr_store_sel(void)
{
	evr_sim->cpu[evr_this_cpu].sel =
		evr_vcpu_info[evr_this_cpu].evtchn_pending_sel;
}

void EVR_PW(_pass_w)(struct evr_sim *sim, unsigned int cpu)
{
	struct evtchn_loop_ctrl ctrl = { 0 };

	if (sim->word_bits != EVTCHN_WORDS)
		abort();
	evr_sim = sim;
	evr_this_cpu = cpu;
	evr_load();
	current_word_idx[cpu] = sim->cpu[cpu].cursor.port / EVTCHN_WORDS;
	current_bit_idx[cpu] = sim->cpu[cpu].cursor.port % EVTCHN_WORDS;

	evtchn_ops_2l.handle_events(cpu, &ctrl);

	evr_store_sel();
	sim->cpu[cpu].cursor.port = current_word_idx[cpu] * EVTCHN_WORDS +
				    current_bit_idx[cpu];
}

#if EVTCHN_WORDS == 64
void EVR_P(_pass_w32)(struct evr_sim *sim, unsigned int cpu);

/* The policy at the script's word width: this copy or the 32-bit one. */
void EVR_CAT(evr_pass_, EVR_POLICY)(struct evr_sim *sim, unsigned int cpu)
{
	if (sim->word_bits == 32)
		EVR_P(_pass_w32)(sim, cpu);
	else
		EVR_P(_pass_w64)(sim, cpu);
}
#endif
#endif /* EVR_LEAN */
