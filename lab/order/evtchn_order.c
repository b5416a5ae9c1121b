// SPDX-License-Identifier: GPL-2.0
/*
 * evtchn_order: the load of make live-order (mk/live-order.sh), a lab
 * module outside the series.  Loaded in dom0 on Xen with the 2-level ABI,
 * it runs one scenario for a few seconds on loopback event channels and
 * leaves the order of service to the kernel's own tracing (the function
 * tracer on evtchn_2l_handle_events(), irq:irq_handler_entry), which
 * lab/order/order-reduce.c reduces.
 *
 * Every port it binds is named "evo:PORT:ROLE" (the IRQ's action name, which
 * irq_handler_entry prints), so the trace itself maps IRQs to ports.  The
 * ports that receive are bound to vCPU 0, where the trace is read; their
 * raisers run on vCPU 1.  Each raise of a port whose wait is measured is
 * recorded with trace_printk("evo raise PORT"); "evo begin" and "evo end"
 * bound the run.
 *
 *   scenario=flood  one port (the top bit of a word, above the ping-pong
 *                   ports of that word) re-raised without pause by a
 *                   kthread on vCPU 1 and before each pong, while 18
 *                   ports in three words ping-pong with peers on vCPU 1;
 *   scenario=burst  32 ports in two words raised at once by a kthread on
 *                   vCPU 1, each re-raising itself from its handler
 *                   reraise times; again when all are done.
 *
 * insmod returns when the run is over (secs seconds, ended by the raiser
 * itself: a flood may keep vCPU 0 in the upcall until it stops); the
 * module's own count of its handlers' calls on vCPU 0, taken with the
 * markers on vCPU 0 with interrupts off, is printed as
 * "evtchn_order: SCENARIO: handled N", to be checked against the trace's.
 * Unloading it closes every port.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>

#include <xen/events.h>
#include <xen/interface/event_channel.h>
#include <asm/xen/hypercall.h>

static char *scenario = "flood";
module_param(scenario, charp, 0444);
MODULE_PARM_DESC(scenario, "flood or burst");
static unsigned int secs = 2;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "length of the run in seconds");
static unsigned int reraise = 3;
module_param(reraise, uint, 0444);
MODULE_PARM_DESC(reraise, "burst: times each port re-raises itself");

#define EVO_WORD_BITS	(sizeof(xen_ulong_t) * 8)
/* Loopback pairs are allocated until they span this many ports. */
#define EVO_SPAN	(6 * EVO_WORD_BITS)
#define EVO_MAX		(EVO_SPAN + 64)

enum evo_role { EVO_NONE, EVO_PP, EVO_PEER, EVO_FLOOD, EVO_BURST };
static const char *const evo_role_name[] = {
	[EVO_PP] = "pp", [EVO_PEER] = "peer", [EVO_FLOOD] = "flood",
	[EVO_BURST] = "burst",
};

struct evo_port {
	evtchn_port_t port;
	evtchn_port_t peer;	/* the other end of its loopback pair */
	int irq;
	enum evo_role role;
	char *name;
	bool closed;		/* closed already (a failed bind closes it) */
	atomic_t budget;	/* burst: self re-raises left */
};

static struct evo_port evo_ports[EVO_MAX];
static unsigned int evo_nr;
static bool evo_running;
static atomic_long_t evo_handled;	/* handler calls on vCPU 0 */
static long evo_handled_at_end;
static atomic_t evo_burst_left;
static u64 evo_deadline;		/* ktime_get_ns() of the run's end */
static evtchn_port_t evo_flood_peer;	/* sending on it raises the flood */
static DECLARE_COMPLETION(evo_done);

static void evo_send(evtchn_port_t port)
{
	struct evtchn_send send = { .port = port };

	HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
}

static struct evo_port *evo_find(evtchn_port_t port)
{
	unsigned int i;

	for (i = 0; i < evo_nr; i++)
		if (evo_ports[i].port == port)
			return &evo_ports[i];
	return NULL;
}

static irqreturn_t evo_handler(int irq, void *dev_id)
{
	struct evo_port *p = dev_id;

	if (p->role != EVO_PEER)
		atomic_long_inc(&evo_handled);
	if (!READ_ONCE(evo_running))
		return IRQ_HANDLED;
	switch (p->role) {
	case EVO_PP:
		/* Ping: raise the peer on vCPU 1. */
		evo_send(p->port);
		break;
	case EVO_PEER:
		/*
		 * The flood, again (vCPU 1 is mostly in these handlers, the
		 * raiser thread gets little time), then the pong: raise the
		 * ping-pong port on vCPU 0 again.
		 */
		if (evo_flood_peer)
			evo_send(evo_flood_peer);
		trace_printk("evo raise %u\n", p->peer);
		evo_send(p->port);
		break;
	case EVO_BURST:
		if (atomic_dec_if_positive(&p->budget) >= 0) {
			trace_printk("evo raise %u\n", p->port);
			evo_send(p->peer);
		} else {
			atomic_dec(&evo_burst_left);
		}
		break;
	default:
		break;
	}
	return IRQ_HANDLED;
}

/*
 * The raiser ends the run itself at evo_deadline: under the flood vCPU 0
 * may stay in the upcall until the flood stops, and evo_init() may be
 * waiting there.
 */
static bool evo_over(void)
{
	return ktime_get_ns() >= evo_deadline || kthread_should_stop();
}

static int evo_raiser(void *data)
{
	bool flood = data;
	struct evo_port *f = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < evo_nr && !f; i++)
		if (evo_ports[i].role == EVO_FLOOD)
			f = &evo_ports[i];
	while (!evo_over()) {
		if (flood) {
			evo_send(f->peer);
			if (!(++n & 255))
				cond_resched();
			continue;
		}
		/* A burst: every burst port at once, then wait for them. */
		atomic_set(&evo_burst_left, 0);
		for (i = 0; i < evo_nr; i++) {
			if (evo_ports[i].role != EVO_BURST)
				continue;
			atomic_set(&evo_ports[i].budget, reraise);
			atomic_inc(&evo_burst_left);
		}
		for (i = 0; i < evo_nr; i++) {
			if (evo_ports[i].role != EVO_BURST)
				continue;
			trace_printk("evo raise %u\n", evo_ports[i].port);
			evo_send(evo_ports[i].peer);
		}
		for (i = 0; atomic_read(&evo_burst_left) > 0 && i < 1000 &&
		     !evo_over(); i++)
			usleep_range(50, 100);
		usleep_range(200, 300);
	}
	WRITE_ONCE(evo_running, false);
	complete(&evo_done);
	return 0;
}

/*
 * The markers and the count, on vCPU 0 with interrupts off: every counted
 * handler runs there in hard interrupt context, so the count holds
 * exactly the services the trace has between the markers.
 */
static void evo_begin_on_cpu0(void *data)
{
	trace_printk("evo begin %s\n", scenario);
	atomic_long_set(&evo_handled, 0);
}

static void evo_end_on_cpu0(void *data)
{
	evo_handled_at_end = atomic_long_read(&evo_handled);
	trace_printk("evo end %s\n", scenario);
}

static void evo_close(evtchn_port_t port)
{
	struct evtchn_close close = { .port = port };

	HYPERVISOR_event_channel_op(EVTCHNOP_close, &close);
}

static void evo_release(void)
{
	unsigned int i;

	for (i = 0; i < evo_nr; i++) {
		if (evo_ports[i].irq > 0)
			unbind_from_irqhandler(evo_ports[i].irq, &evo_ports[i]);
		else if (!evo_ports[i].closed)
			evo_close(evo_ports[i].port);
		kfree(evo_ports[i].name);
	}
	evo_nr = 0;
}

/* Loopback pairs (alloc_unbound, then bind_interdomain to it). */
static int evo_alloc(void)
{
	while (evo_nr + 2 <= EVO_MAX) {
		struct evtchn_alloc_unbound alloc = {
			.dom = DOMID_SELF, .remote_dom = DOMID_SELF,
		};
		struct evtchn_bind_interdomain bind = {
			.remote_dom = DOMID_SELF,
		};
		int rc;

		rc = HYPERVISOR_event_channel_op(EVTCHNOP_alloc_unbound, &alloc);
		if (rc)
			return rc;
		evo_ports[evo_nr].port = alloc.port;
		evo_ports[evo_nr].irq = -1;
		evo_nr++;
		bind.remote_port = alloc.port;
		rc = HYPERVISOR_event_channel_op(EVTCHNOP_bind_interdomain, &bind);
		if (rc)
			return rc;
		evo_ports[evo_nr].port = bind.local_port;
		evo_ports[evo_nr].irq = -1;
		evo_ports[evo_nr].peer = alloc.port;
		evo_ports[evo_nr - 1].peer = bind.local_port;
		evo_nr++;
		if (max(alloc.port, bind.local_port) >= EVO_SPAN)
			return 0;
	}
	return -ENOSPC;
}

/*
 * Give port @port the role @role; its peer becomes EVO_PEER if @peer_role
 * (bound to vCPU 1 and raising @port back), else stays unbound (raised by
 * evo_send() on it only) and reserved (irq 0).
 */
static int evo_assign(evtchn_port_t port, enum evo_role role, bool peer_role)
{
	struct evo_port *p = evo_find(port), *q;

	if (!p || p->role != EVO_NONE || p->irq == 0)
		return -EBUSY;
	q = evo_find(p->peer);
	if (!q || q->role != EVO_NONE || q->irq == 0)
		return -EBUSY;
	p->role = role;
	q->role = peer_role ? EVO_PEER : EVO_NONE;
	if (!peer_role)
		q->irq = 0;
	return 0;
}

static int evo_bind(struct evo_port *p, unsigned int cpu)
{
	int rc;

	p->name = kasprintf(GFP_KERNEL, "evo:%u:%s", p->port,
			    evo_role_name[p->role]);
	if (!p->name)
		return -ENOMEM;
	rc = bind_evtchn_to_irqhandler(p->port, evo_handler, 0, p->name, p);
	if (rc < 0) {
		/* It closed the port. */
		p->closed = true;
		return rc;
	}
	p->irq = rc;
	return irq_set_affinity(p->irq, cpumask_of(cpu));
}

/* The ports at bit @bit, @bit + @step, ... below @end of word @word. */
static int evo_assign_word(unsigned int word, unsigned int bit,
			   unsigned int step, unsigned int end,
			   enum evo_role role, bool peer_role)
{
	int n = 0;

	for (; bit < end; bit += step) {
		evtchn_port_t port = word * EVO_WORD_BITS + bit;

		/* A port whose peer is taken: the next one up. */
		if (evo_assign(port, role, peer_role) &&
		    evo_assign(port + 1, role, peer_role))
			continue;
		n++;
	}
	return n;
}

static int __init evo_init(void)
{
	bool flood = !strcmp(scenario, "flood");
	struct task_struct *raiser;
	unsigned int i, n = 0;
	int rc;

	if (!flood && strcmp(scenario, "burst"))
		return -EINVAL;
	if (!cpu_online(0) || !cpu_online(1)) {
		pr_err("evtchn_order: needs vCPUs 0 and 1 online\n");
		return -ENODEV;
	}
	rc = evo_alloc();
	if (rc) {
		pr_err("evtchn_order: allocating ports: %d\n", rc);
		goto out;
	}
	if (flood) {
		/* The flooding port: the top bit of word 3, above 6 others. */
		rc = evo_assign(4 * EVO_WORD_BITS - 1, EVO_FLOOD, false);
		if (rc) {
			pr_err("evtchn_order: port %zu is taken\n",
			       4 * EVO_WORD_BITS - 1);
			goto out;
		}
		evo_flood_peer = evo_find(4 * EVO_WORD_BITS - 1)->peer;
		for (i = 2; i <= 4; i++)
			n += evo_assign_word(i, 4, 8, 52, EVO_PP, true);
	} else {
		for (i = 2; i <= 3; i++)
			n += evo_assign_word(i, 2, 4, EVO_WORD_BITS, EVO_BURST,
					     false);
	}
	if (n < (flood ? 16 : 30)) {
		pr_err("evtchn_order: only %u ports placed\n", n);
		rc = -ENOSPC;
		goto out;
	}
	for (i = 0; i < evo_nr; i++) {
		struct evo_port *p = &evo_ports[i];

		if (p->role == EVO_NONE)
			continue;
		rc = evo_bind(p, p->role == EVO_PEER ? 1 : 0);
		if (rc) {
			pr_err("evtchn_order: binding port %u: %d\n", p->port, rc);
			goto out;
		}
		pr_info("evtchn_order: port %u irq %d role %s vcpu %d\n",
			p->port, p->irq, evo_role_name[p->role],
			p->role == EVO_PEER);
	}
	/* Let the bind-time events of the interdomain ends go past. */
	msleep(50);

	rc = smp_call_function_single(0, evo_begin_on_cpu0, NULL, 1);
	if (rc)
		goto out;
	evo_deadline = ktime_get_ns() + (u64)secs * NSEC_PER_SEC;
	WRITE_ONCE(evo_running, true);
	if (flood) {
		for (i = 0; i < evo_nr; i++) {
			if (evo_ports[i].role != EVO_PP)
				continue;
			trace_printk("evo raise %u\n", evo_ports[i].port);
			evo_send(evo_ports[i].peer);
		}
	}
	raiser = kthread_create(evo_raiser, (void *)(uintptr_t)flood,
				"evo-raiser");
	if (IS_ERR(raiser)) {
		rc = PTR_ERR(raiser);
		WRITE_ONCE(evo_running, false);
		goto out;
	}
	kthread_bind(raiser, 1);
	wake_up_process(raiser);
	wait_for_completion(&evo_done);
	/* The events in flight land before the end marker. */
	msleep(20);
	rc = smp_call_function_single(0, evo_end_on_cpu0, NULL, 1);
	if (rc)
		goto out;
	pr_info("evtchn_order: %s: handled %ld\n", scenario,
		evo_handled_at_end);
	return 0;
out:
	evo_release();
	return rc;
}

static void __exit evo_exit(void)
{
	evo_release();
}

module_init(evo_init);
module_exit(evo_exit);
MODULE_DESCRIPTION("make live-order's load: loopback event channels on vCPU 0");
MODULE_LICENSE("GPL");
