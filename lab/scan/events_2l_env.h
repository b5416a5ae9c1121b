/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel around events_2l.c, reduced to what the file uses, for the
 * programs that compile it unchanged in user space: real_2l.c (the
 * replay, fuzz and bench lab) and ../prove/prove_2l.c (Frama-C).
 *
 * Before including it, the includer defines EVTCHN_WORDS (the bits of a
 * xen_ulong_t), EVR_MAX_CPUS, the types xen_ulong_t, u8, evtchn_port_t
 * and bool, and the functions the 2-level code calls that differ between
 * the two: cpu_from_evtchn(), irq_from_evtchn(), irq_evtchn_from_virq(),
 * handle_irq_for_port(), generic_handle_irq() and evr_nr_cpus().
 *
 * Per-CPU variables are arrays indexed by the CPU the code runs on,
 * evr_this_cpu; one thread runs it, with interrupts "disabled".
 */
#ifndef __EVR_EVENTS_2L_ENV_H__
#define __EVR_EVENTS_2L_ENV_H__

#define KBUILD_MODNAME "events_2l"
#define EVTCHN_2L_NR_CHANNELS (sizeof(xen_ulong_t) * sizeof(xen_ulong_t) * 64)
#define VIRQ_TIMER 0
#define EVTCHNOP_unmask 9

#define irqreturn_t int
#define IRQ_HANDLED 1

struct shared_info {
	xen_ulong_t evtchn_pending[EVTCHN_WORDS];
	xen_ulong_t evtchn_mask[EVTCHN_WORDS];
};

struct vcpu_info {
	u8 evtchn_upcall_pending;
	u8 evtchn_upcall_mask;
	xen_ulong_t evtchn_pending_sel;
};

struct evtchn_unmask {
	evtchn_port_t port;
};

struct pt_regs;

static unsigned int evr_this_cpu;
#define DEFINE_PER_CPU(type, name) __typeof__(type) name[EVR_MAX_CPUS]
#define per_cpu(var, cpu) ((var)[cpu])
#define __this_cpu_read(var) ((var)[evr_this_cpu])
#define __this_cpu_write(var, val) ((var)[evr_this_cpu] = (val))
#define smp_processor_id() evr_this_cpu
#define get_cpu() evr_this_cpu
#define put_cpu() do { } while (0)
#define for_each_online_cpu(c) for (c = 0; c < evr_nr_cpus(); c++)
#define DEFINE_SPINLOCK(name) int name
#define spin_lock_irqsave(lock, flags) ((void)(lock), (flags) = 0)
#define spin_unlock_irqrestore(lock, flags) ((void)(lock), (void)(flags))
#define printk(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)

static void BUG_ON(bool cond)
{
	if (cond)
		abort();
}

static bool irqs_disabled(void)
{
	return true;
}

/* One thread: no barrier is needed. */
static void smp_wmb(void)
{
}

static bool xen_hvm_domain(void)
{
	return false;
}

/*@ assigns *ptr; */
static xen_ulong_t xchg_xen_ulong(xen_ulong_t *ptr, xen_ulong_t val)
{
	xen_ulong_t old = *ptr;

	*ptr = val;
	return old;
}

static struct pt_regs *get_irq_regs(void)
{
	return NULL;
}

static int xen_irqs_disabled(struct pt_regs *regs)
{
	return 0;
}

static struct shared_info evr_shared_info;
static struct shared_info *HYPERVISOR_shared_info = &evr_shared_info;
static struct vcpu_info evr_vcpu_info[EVR_MAX_CPUS];
static DEFINE_PER_CPU(struct vcpu_info *, xen_vcpu);

static int HYPERVISOR_event_channel_op(int op, void *arg)
{
	abort();	/* Only the unmask slow path calls it; the scan never does. */
}

#endif /* __EVR_EVENTS_2L_ENV_H__ */
