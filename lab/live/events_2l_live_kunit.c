// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live KUnit cases for the Xen 2-level event channel upcall: an
 * out-of-tree module of the test rig, never mailed (lab/live/README).
 *
 * The cases of events_2l_kunit.c run the upcall on a fake shared_info.
 * These run it on Xen's: they allocate loopback event
 * channel pairs from Xen, bind them to handlers that log the order in
 * which the upcall services them, raise a chosen set of ports with
 * interrupts disabled and let the real upcall run when interrupts are
 * enabled again.  The order is predicted from the CPU's scan cursor,
 * read on that CPU through evtchn_2l_kunit_this_cpu_state(), with the
 * rule of the 2-level scan: each active port once, in port order starting
 * at the cursor and wrapping.
 *
 * Each case is skipped unless the kernel runs on Xen with the 2-level ABI
 * (xen.fifo_events=0, or a hypervisor without FIFO events).  The suite
 * allocates every free event channel of the domain in one case and keeps
 * interrupts disabled for up to 200 ms: it is for test domains only.
 */

/* Bits per word of the 2-level bitmaps, as events_2l.c has it. */
#define BITS_PER_EVTCHN_WORD (sizeof(xen_ulong_t) * 8)

/* Where a CPU's next scan starts. */
struct evtchn_2l_cursor {
	unsigned int port;
};

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqflags.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/version.h>

#include <asm/xen/hypercall.h>
#include <asm/xen/hypervisor.h>

#include <xen/events.h>
#include <xen/interface/event_channel.h>
#include <xen/xen.h>

/* drivers/xen/events/, on the include path (Kbuild) */
#include "events_internal.h"
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
/* The KUnit interfaces 6.1 lacks, from the series' 6.1 backport */
#include "tests/events_2l_kunit_6_1.h"
#endif

/* Services logged by one case, at most. */
#define LIVE_LOG_MAX		4096
/* Sends a flooding port's handler makes to re-raise its own port. */
#define LIVE_REARM		100

struct live_ctx;

/* One end of a loopback pair: raised by a send on @peer. */
struct live_port {
	evtchn_port_t port;
	evtchn_port_t peer;
	int irq;
	unsigned int rearm;
	/* Raised once by this port's handler, then cleared. */
	struct live_port *also;
	struct live_ctx *ctx;
};

struct live_service {
	evtchn_port_t port;
	unsigned int cpu;
	/* IRQs handled on @cpu so far, this one included. */
	unsigned long irqs;
};

struct live_ctx {
	struct kunit *test;
	struct live_port *ports;
	unsigned int nr_ports;
	/* Written by the handlers, only while @recording. */
	bool recording;
	unsigned int log_len;
	struct live_service log[LIVE_LOG_MAX];
	/*
	 * The VIRQ_TIMER case: its IRQ's count on this CPU when it became
	 * pending; had it not grown by the first service?  (Not "is it
	 * pending": its handler may set the next timer in the past on a
	 * slow host, and Xen raises it again at once.)
	 */
	evtchn_port_t timer_port;
	int timer_irq;
	unsigned int timer_count;
	bool timer_unserviced_at_first;
};

static unsigned int live_nr_ports(void)
{
	return EVTCHN_2L_NR_CHANNELS;
}

/*
 * IRQs of @irq handled on @cpu: kstat_irqs_cpu(), which is not exported,
 * nor is irq_to_desc().
 */
static unsigned int live_irqs_cpu(unsigned int irq, unsigned int cpu)
{
	struct irq_data *data = irq_get_irq_data(irq);

	return data ? irq_desc_kstat_cpu(irq_data_to_desc(data), cpu) : 0;
}

static irqreturn_t live_handler(int irq, void *dev_id)
{
	struct live_port *lp = dev_id;
	struct live_ctx *ctx = lp->ctx;
	unsigned int cpu = smp_processor_id();

	if (!READ_ONCE(ctx->recording))
		return IRQ_HANDLED;
	if (ctx->log_len == 0 && ctx->timer_port)
		ctx->timer_unserviced_at_first =
			live_irqs_cpu(ctx->timer_irq, cpu) == ctx->timer_count;
	if (ctx->log_len < LIVE_LOG_MAX) {
		ctx->log[ctx->log_len].port = lp->port;
		ctx->log[ctx->log_len].cpu = cpu;
		ctx->log[ctx->log_len].irqs = kstat_cpu_irqs_sum(cpu);
		WRITE_ONCE(ctx->log_len, ctx->log_len + 1);
	}
	if (lp->also) {
		notify_remote_via_evtchn(lp->also->peer);
		lp->also = NULL;
	}
	if (lp->rearm) {
		lp->rearm--;
		notify_remote_via_evtchn(lp->peer);
	}
	return IRQ_HANDLED;
}

static void live_close(evtchn_port_t port)
{
	struct evtchn_close close = { .port = port };

	HYPERVISOR_event_channel_op(EVTCHNOP_close, &close);
}

static void live_release(void *data)
{
	struct live_ctx *ctx = data;
	unsigned int i;

	WRITE_ONCE(ctx->recording, false);
	for (i = 0; i < ctx->nr_ports; i++) {
		if (ctx->ports[i].irq > 0)
			unbind_from_irqhandler(ctx->ports[i].irq,
					       &ctx->ports[i]);
		else
			live_close(ctx->ports[i].port);
	}
	ctx->nr_ports = 0;
}

/*
 * Skip unless on Xen with the 2-level ABI; run the rest of the case on
 * @cpu (the ports it raises are bound to @cpu, so it must run there).
 * Each case runs in a kthread of its own, which the pinning ends with.
 */
static void live_begin(struct kunit *test, unsigned int cpu)
{
	unsigned int cursor;
	evtchn_port_t timer;
	unsigned long flags;
	int rc;

	if (!xen_domain())
		kunit_skip(test, "not running on Xen");
	local_irq_save(flags);
	rc = evtchn_2l_kunit_this_cpu_state(&cursor, &timer);
	local_irq_restore(flags);
	if (rc)
		kunit_skip(test, "the 2-level event channel ABI is not in use");
	if (!cpu_online(cpu))
		kunit_skip(test, "needs vCPU %u online", cpu);

	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(cpu)));
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
}

/* Bind @lp's IRQ to @cpu.  Without SMP every port is on vCPU 0 already. */
static void live_set_cpu(struct kunit *test, struct live_port *lp,
			 unsigned int cpu)
{
	if (!IS_ENABLED(CONFIG_SMP)) {
		KUNIT_ASSERT_EQ(test, cpu, 0);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, 0, irq_set_affinity(lp->irq, cpumask_of(cpu)),
			    "moving port %u to vCPU %u", lp->port, cpu);
}

static int live_cmp_port(const void *a, const void *b)
{
	const struct live_port *x = a, *y = b;

	return x->port < y->port ? -1 : x->port > y->port;
}

/*
 * Allocate loopback pairs (EVTCHNOP_alloc_unbound, then
 * EVTCHNOP_bind_interdomain to it, both in this domain) until they span
 * @span ports or Xen has no free port left, and bind every end to
 * live_handler() on vCPU 0 (the kernel spreads new event channel IRQs
 * over the online CPUs).
 */
static struct live_ctx *live_setup(struct kunit *test, unsigned int span)
{
	unsigned int nr = live_nr_ports();
	struct live_ctx *ctx;
	unsigned int i;
	int rc;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->test = test;
	ctx->ports = kunit_kcalloc(test, nr, sizeof(*ctx->ports), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->ports);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, live_release, ctx));

	while (ctx->nr_ports + 2 <= nr) {
		struct evtchn_alloc_unbound alloc = {
			.dom = DOMID_SELF,
			.remote_dom = DOMID_SELF,
		};
		struct evtchn_bind_interdomain bind = {
			.remote_dom = DOMID_SELF,
		};
		struct live_port *a = &ctx->ports[ctx->nr_ports];

		rc = HYPERVISOR_event_channel_op(EVTCHNOP_alloc_unbound,
						 &alloc);
		if (rc == -ENOSPC)
			break;
		KUNIT_ASSERT_EQ_MSG(test, rc, 0, "EVTCHNOP_alloc_unbound");
		a[0].port = alloc.port;
		a[0].irq = -1;
		ctx->nr_ports++;

		bind.remote_port = alloc.port;
		rc = HYPERVISOR_event_channel_op(EVTCHNOP_bind_interdomain,
						 &bind);
		if (rc == -ENOSPC && ctx->nr_ports >= 3) {
			/*
			 * An odd number of free ports: the last one would
			 * stay unpaired.  Give up the first pair and pair the
			 * last port with the lower port of it instead.
			 */
			live_close(ctx->ports[0].port);
			live_close(ctx->ports[1].port);
			/* Closed: out of the set live_release() closes. */
			ctx->nr_ports -= 2;
			memmove(ctx->ports, ctx->ports + 2,
				ctx->nr_ports * sizeof(*ctx->ports));
			rc = HYPERVISOR_event_channel_op(EVTCHNOP_bind_interdomain,
							 &bind);
			KUNIT_ASSERT_EQ_MSG(test, rc, 0,
					    "EVTCHNOP_bind_interdomain to %u",
					    alloc.port);
			a = &ctx->ports[ctx->nr_ports - 1];
			a[1].port = bind.local_port;
			a[1].irq = -1;
			a[1].peer = alloc.port;
			a[0].peer = bind.local_port;
			ctx->nr_ports++;
			break;
		}
		if (rc == -ENOSPC)
			break;
		KUNIT_ASSERT_EQ_MSG(test, rc, 0, "EVTCHNOP_bind_interdomain");
		a[1].port = bind.local_port;
		a[1].irq = -1;
		ctx->nr_ports++;
		a[0].peer = a[1].port;
		a[1].peer = a[0].port;

		if (max(a[0].port, a[1].port) >= ctx->ports[0].port + span)
			break;
	}
	/* The unpaired end of a pair cut short by -ENOSPC. */
	if (ctx->nr_ports % 2) {
		ctx->nr_ports--;
		live_close(ctx->ports[ctx->nr_ports].port);
	}
	KUNIT_ASSERT_GE_MSG(test, ctx->nr_ports, 2U, "no free port pair");

	/* In port order; the handlers get pointers into the array. */
	sort(ctx->ports, ctx->nr_ports, sizeof(*ctx->ports), live_cmp_port,
	     NULL);
	for (i = 0; i < ctx->nr_ports; i++) {
		struct live_port *lp = &ctx->ports[i];

		lp->ctx = ctx;
		rc = bind_evtchn_to_irqhandler(lp->port, live_handler, 0,
					       "evtchn-2l-live", lp);
		KUNIT_ASSERT_GT_MSG(test, rc, 0, "binding port %u", lp->port);
		lp->irq = rc;
		live_set_cpu(test, lp, 0);
	}
	/* Let the bind-time event of each interdomain end go past. */
	msleep(20);
	return ctx;
}

static void live_bind_cpu(struct kunit *test, struct live_port **set,
			  unsigned int n, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		live_set_cpu(test, set[i], cpu);
}

/*
 * Raise @set with interrupts disabled on this CPU, read its cursor, then
 * enable interrupts and wait for @expect services.  With @timer, first
 * wait (interrupts still disabled) until this CPU's VIRQ_TIMER port is
 * pending too.  Returns the cursor the upcall started from.
 */
static struct evtchn_2l_cursor live_raise(struct kunit *test,
					  struct live_ctx *ctx,
					  struct live_port **set,
					  unsigned int n, unsigned int expect,
					  bool timer, bool *timer_pending)
{
	struct evtchn_2l_cursor cursor;
	evtchn_port_t timer_port;
	unsigned long flags;
	ktime_t end;
	unsigned int i;

	local_irq_save(flags);
	ctx->log_len = 0;
	ctx->timer_port = 0;
	ctx->timer_unserviced_at_first = false;
	for (i = 0; i < n; i++)
		notify_remote_via_evtchn(set[i]->peer);
	evtchn_2l_kunit_this_cpu_state(&cursor.port, &timer_port);
	if (timer) {
		end = ktime_add_ms(ktime_get(), 200);
		while (timer_port && !evtchn_2l_kunit_port_pending(timer_port) &&
		       ktime_before(ktime_get(), end))
			cpu_relax();
		*timer_pending = timer_port &&
				 evtchn_2l_kunit_port_pending(timer_port);
		if (timer_port) {
			ctx->timer_irq = irq_from_evtchn(timer_port);
			ctx->timer_count = live_irqs_cpu(ctx->timer_irq,
							  smp_processor_id());
		}
		ctx->timer_port = timer_port;
	}
	WRITE_ONCE(ctx->recording, true);
	local_irq_restore(flags);

	end = ktime_add_ms(ktime_get(), 2000);
	while (READ_ONCE(ctx->log_len) < expect &&
	       ktime_before(ktime_get(), end))
		usleep_range(1000, 2000);
	/* Anything more than expected would be logged by now. */
	usleep_range(5000, 10000);
	WRITE_ONCE(ctx->recording, false);
	return cursor;
}

/* A port's place in a pass that starts at @cursor. */
static unsigned int live_rank(evtchn_port_t port,
			      const struct evtchn_2l_cursor *cursor)
{
	return (port + live_nr_ports() - cursor->port) % live_nr_ports();
}

static void live_order(struct live_port **set, unsigned int n,
		       const struct evtchn_2l_cursor *cursor,
		       evtchn_port_t *order)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		evtchn_port_t p = set[i]->port;

		for (j = i; j > 0 && live_rank(order[j - 1], cursor) >
					     live_rank(p, cursor); j--)
			order[j] = order[j - 1];
		order[j] = p;
	}
}

static const char *live_fmt(struct kunit *test, const evtchn_port_t *ports,
			    unsigned int n)
{
	size_t size = n * 6 + 2;
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);
	size_t len = 0;
	unsigned int i;

	if (!buf)
		return "(no memory)";
	for (i = 0; i < n; i++)
		len += scnprintf(buf + len, size - len, "%s%u", i ? "," : "",
				 ports[i]);
	return n ? buf : "-";
}

static const char *live_fmt_log(struct live_ctx *ctx)
{
	evtchn_port_t *ports;
	unsigned int i;

	ports = kunit_kcalloc(ctx->test, ctx->log_len + 1, sizeof(*ports),
			      GFP_KERNEL);
	if (!ports)
		return "(no memory)";
	for (i = 0; i < ctx->log_len; i++)
		ports[i] = ctx->log[i].port;
	return live_fmt(ctx->test, ports, ctx->log_len);
}

/*
 * How many other IRQs @cpu handled between the logged services @i and
 * @i + 1, both on @cpu: the flow handlers count every IRQ dispatched from
 * the upcall in the CPU's irqs_sum, the logged services included.
 */
static unsigned long live_irqs_between(const struct live_ctx *ctx,
				       unsigned int i, unsigned int cpu)
{
	if (ctx->log[i].cpu != cpu || ctx->log[i + 1].cpu != cpu)
		return 0;
	return ctx->log[i + 1].irqs - ctx->log[i].irqs - 1;
}

/*
 * Check that the services logged are the @len ports of @want, in that
 * order, all on @cpu; @want_s is @want formatted.  Stops at the first
 * port out of order: the rest would only repeat it.
 */
static void live_expect_log(struct kunit *test, struct live_ctx *ctx,
			    unsigned int cpu,
			    const struct evtchn_2l_cursor *cursor,
			    const evtchn_port_t *want, unsigned int len,
			    const char *want_s)
{
	unsigned int i;

	KUNIT_EXPECT_EQ_MSG(test, ctx->log_len, len,
			    "cursor %u: expected %s, serviced %s",
			    cursor->port, want_s, live_fmt_log(ctx));
	for (i = 0; i < min(len, ctx->log_len); i++) {
		KUNIT_EXPECT_EQ_MSG(test, ctx->log[i].port, want[i],
				    "service %u: cursor %u: expected %s, serviced %s",
				    i, cursor->port, want_s, live_fmt_log(ctx));
		KUNIT_EXPECT_EQ_MSG(test, ctx->log[i].cpu, cpu,
				    "port %u serviced on the wrong vCPU",
				    ctx->log[i].port);
		if (ctx->log[i].port != want[i])
			break;
	}
}

/*
 * Check that the services logged are @set's ports once each, on @cpu, in
 * the round-robin order from @cursor, then (with @rearm) @rearm services
 * of @flood.  Return how many of @set were below @cursor.
 */
static unsigned int live_check_order(struct kunit *test, struct live_ctx *ctx,
				     struct live_port **set, unsigned int n,
				     unsigned int cpu,
				     const struct evtchn_2l_cursor *cursor,
				     struct live_port *flood,
				     unsigned int rearm)
{
	unsigned int len = n + rearm, i, below = 0;
	evtchn_port_t *want;
	const char *want_s;

	want = kunit_kcalloc(test, len, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	live_order(set, n, cursor, want);
	for (i = n; i < len; i++)
		want[i] = flood->port;
	for (i = 0; i < n; i++)
		below += set[i]->port < cursor->port;
	want_s = live_fmt(test, want, len);
	kunit_info(test, "vCPU %u, cursor %u, %u of %u port(s) below it: %s\n",
		   cpu, cursor->port, below, n, want_s);

	live_expect_log(test, ctx, cpu, cursor, want, len, want_s);
	return below;
}

/*
 * Tries to get the cursor where a case needs it: another port serviced on
 * the CPU (an IPI, a timer) between moving the cursor and raising the
 * ports moves it away.  On a loaded host that happened five times in a
 * row.
 */
#define LIVE_TRIES	20U

/*
 * Service @at alone: the next pass on this CPU starts right after it.
 * The wait for it spins: a sleep's timer interrupt, whose port Xen may
 * raise again during the pass that handles it (the next expiry already
 * past on a slow host), would move the cursor before the caller raises
 * its ports.  In one guest that happened on all of LIVE_TRIES tries.
 */
static void live_move_cursor(struct kunit *test, struct live_ctx *ctx,
			     struct live_port *at)
{
	unsigned long flags;
	ktime_t end;

	local_irq_save(flags);
	ctx->log_len = 0;
	ctx->timer_port = 0;
	notify_remote_via_evtchn(at->peer);
	WRITE_ONCE(ctx->recording, true);
	local_irq_restore(flags);

	end = ktime_add_ms(ktime_get(), 2000);
	while (!READ_ONCE(ctx->log_len) && ktime_before(ktime_get(), end))
		cpu_relax();
	KUNIT_ASSERT_EQ_MSG(test, READ_ONCE(ctx->log_len), 1U,
			    "moving the cursor: port %u serviced %u times",
			    at->port, READ_ONCE(ctx->log_len));
}

/*
 * Put the cursor after @mid, raise @set (@flood re-raising itself
 * @rearm times) and check the order.  Another port serviced on this CPU
 * meanwhile (an IPI) can move the cursor away from @mid: the order is
 * still checked, from the cursor the upcall started with, and the case
 * is tried again until the set was raised on both sides of the cursor,
 * which is what it is for.
 */
static void live_round(struct kunit *test, struct live_ctx *ctx,
		       struct live_port **set, unsigned int n,
		       struct live_port *mid, unsigned int cpu,
		       struct live_port *flood, unsigned int rearm)
{
	struct evtchn_2l_cursor cursor;
	unsigned int try, below = 0;

	for (try = 0; try < LIVE_TRIES; try++) {
		live_move_cursor(test, ctx, mid);
		if (flood)
			flood->rearm = rearm;
		cursor = live_raise(test, ctx, set, n, n + rearm, false, NULL);
		below = live_check_order(test, ctx, set, n, cpu, &cursor,
					 flood, rearm);
		if (below && below < n)
			return;
	}
	KUNIT_FAIL(test, "cursor never between the raised ports (%u of %u below it)",
		   below, n);
}

/*
 * Pick @n ports spread evenly over the context's ports, and the port to
 * put the cursor after: between the middle two, right above the lower
 * one, so that the set is on both sides of the cursor and (unless the
 * cursor falls at the start of a word) in the cursor's own word too.
 */
static struct live_port *live_pick(struct kunit *test, struct live_ctx *ctx,
				   struct live_port **set, unsigned int n)
{
	unsigned int stride = ctx->nr_ports / n, i;

	KUNIT_ASSERT_GE_MSG(test, stride, 2U, "%u ports for %u picks",
			    ctx->nr_ports, n);
	for (i = 0; i < n; i++)
		set[i] = &ctx->ports[i * stride];
	set[n / 2 - 1] = &ctx->ports[(n / 2) * stride - 2];
	return &ctx->ports[(n / 2) * stride - 1];
}

/* Ports in four words at least: the set spans words and the cursor. */
static struct live_ctx *live_setup_words(struct kunit *test)
{
	return live_setup(test, 4 * BITS_PER_EVTCHN_WORD);
}

#define LIVE_SET	16

/*
 * Raise LIVE_SET ports on @cpu, with the one at LIVE_SET / 2 re-raising
 * itself @rearm times.
 */
static void live_case(struct kunit *test, unsigned int cpu,
		      unsigned int rearm)
{
	struct live_port *set[LIVE_SET], *mid;
	struct live_ctx *ctx;

	live_begin(test, cpu);
	ctx = live_setup_words(test);
	mid = live_pick(test, ctx, set, LIVE_SET);
	live_bind_cpu(test, set, LIVE_SET, cpu);
	live_bind_cpu(test, &mid, 1, cpu);
	live_round(test, ctx, set, LIVE_SET, mid, cpu,
		   rearm ? set[LIVE_SET / 2] : NULL, rearm);
}

/*
 * The upcall on vCPU 0 services ports raised in several words, below and
 * above the cursor, once each in round-robin order from the cursor.
 */
static void evtchn_2l_live_test_round_robin(struct kunit *test)
{
	live_case(test, 0, 0);
}

/* The same on vCPU 1, with ports bound to it and its own cursor. */
static void evtchn_2l_live_test_second_vcpu(struct kunit *test)
{
	live_case(test, 1, 0);
}

/*
 * A handler that re-raises its own port LIVE_REARM times delays the
 * other raised ports by no more than one pass: the first pass services
 * every raised port once, in round-robin order, and the flooding port's
 * other services all come after it; no event is lost.
 */
static void evtchn_2l_live_test_flood_waits_a_pass(struct kunit *test)
{
	live_case(test, 0, LIVE_REARM);
}

/*
 * A port above the cursor in the cursor's word, whose handler raises it
 * again and a port of another word: the pass ends without handling the
 * first port a second time, and the next one handles the other port
 * before it, as it would any port raised during a pass.  (Scanning the
 * cursor's word from its start at the end of the pass would handle the
 * first port twice before the other.)
 */
static void evtchn_2l_live_test_start_word_split(struct kunit *test)
{
	unsigned int bits = BITS_PER_EVTCHN_WORD, i, try;
	unsigned int moved = 0, interleaved = 0;
	struct live_port *mid = NULL, *p = NULL, *x;
	unsigned long others;
	struct evtchn_2l_cursor cursor;
	evtchn_port_t want[3];
	struct live_ctx *ctx;
	const char *want_s;

	live_begin(test, 0);
	ctx = live_setup_words(test);
	/* Two ports in one word, the cursor to go right after the lower. */
	for (i = 0; i + 1 < ctx->nr_ports && !p; i++) {
		if (ctx->ports[i].port / bits == ctx->ports[i + 1].port / bits) {
			mid = &ctx->ports[i];
			p = &ctx->ports[i + 1];
		}
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "no two of %u ports in one word",
				  ctx->nr_ports);
	x = &ctx->ports[ctx->nr_ports - 1];
	KUNIT_ASSERT_NE_MSG(test, x->port / bits, p->port / bits,
			    "ports %u and %u in one word", p->port, x->port);
	want[0] = p->port;
	want[1] = x->port;
	want[2] = p->port;
	want_s = live_fmt(test, want, 3);

	for (try = 0; try < LIVE_TRIES; try++) {
		live_move_cursor(test, ctx, mid);
		p->rearm = 1;
		p->also = x;
		cursor = live_raise(test, ctx, &p, 1, 3, false, NULL);
		/* Another port serviced meanwhile (an IPI) moved the cursor. */
		if (cursor.port / bits != p->port / bits || cursor.port > p->port) {
			moved++;
			continue;
		}
		/*
		 * The second pass starts after the last port serviced in the
		 * first.  Another port of vCPU 0 serviced after p in the first
		 * pass (an IPI below p at the end of the pass, or one above x)
		 * can move that start so that the second pass rightly services
		 * p before x.  The whole-word rescan gives the same log, so
		 * such a try tells nothing: only p, p, x with another IRQ
		 * between the first two services is tried again.
		 */
		others = 0;
		if (ctx->log_len == 3 && ctx->log[0].port == p->port &&
		    ctx->log[1].port == p->port && ctx->log[2].port == x->port)
			others = live_irqs_between(ctx, 0, 0);
		if (others) {
			kunit_info(test, "cursor %u: serviced %s, %lu other IRQ(s) between the first two: trying again\n",
				   cursor.port, live_fmt_log(ctx), others);
			interleaved++;
			continue;
		}
		kunit_info(test, "cursor %u: expected %s, serviced %s\n",
			   cursor.port, want_s, live_fmt_log(ctx));
		live_expect_log(test, ctx, 0, &cursor, want, 3, want_s);
		return;
	}
	KUNIT_FAIL(test,
		   "%u tries: cursor off port %u's word or above it %u times, another IRQ between the services %u times",
		   LIVE_TRIES, p->port, moved, interleaved);
}

/*
 * Ports up to the last one the 2-level ABI has (4095 with 64-bit event
 * words, 1023 with 32-bit ones): every port Xen has left is allocated
 * (but one, when their number is odd), and a set with a port in each
 * word from the case's first to the last (with 64-bit words selector bits
 * 32-63 included) and the last port is serviced in round-robin order
 * from a cursor in word 40 (20 of 32), where the set's port is below the
 * cursor and so comes last.  Skipped when the domain cannot have the
 * last port.
 */
static void evtchn_2l_live_test_whole_range(struct kunit *test)
{
	unsigned int bits = BITS_PER_EVTCHN_WORD, i, n = 0;
	unsigned int mid_port = bits * 5 / 8 * bits + 30;
	struct live_port **set, *mid = NULL;
	struct live_ctx *ctx;

	live_begin(test, 0);
	ctx = live_setup(test, live_nr_ports());
	if (ctx->ports[ctx->nr_ports - 1].port != live_nr_ports() - 1)
		kunit_skip(test, "the last free port is %u, not %u (max_event_channels below %u?)",
			   ctx->ports[ctx->nr_ports - 1].port,
			   live_nr_ports() - 1, live_nr_ports());
	set = kunit_kcalloc(test, bits + 1, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);

	/* In each word, the port at bit (7 * word) % bits; the last port. */
	for (i = 0; i < ctx->nr_ports; i++) {
		evtchn_port_t port = ctx->ports[i].port;

		if (port % bits == 7 * (port / bits) % bits ||
		    i + 1 == ctx->nr_ports)
			set[n++] = &ctx->ports[i];
		if (port == mid_port)
			mid = &ctx->ports[i];
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, mid, "port %u is not ours", mid_port);
	KUNIT_ASSERT_GE(test, n, bits / 2);

	live_round(test, ctx, set, n, mid, 0, NULL, 0);
}

#ifdef CONFIG_X86
/*
 * The VIRQ_TIMER port is serviced before the others when it is pending,
 * wherever the cursor is.  The case puts the cursor after its first port,
 * raises others above it with interrupts disabled and waits for the
 * timer's next tick to make its port pending (so time keeping is left
 * alone).  The timer's port is below the cursor, so a plain round robin
 * would service the raised ports first: the first of them must find the
 * timer's port no longer pending, serviced before it.  Only on x86: Xen
 * on Arm has no VIRQ_TIMER port (the guest's timer is the arch timer's
 * PPI), so the pre-check never finds one there.
 */
static void evtchn_2l_live_test_timer_first(struct kunit *test)
{
	const unsigned int n = 8;
	struct evtchn_2l_cursor cursor;
	struct live_port *set[8];
	struct live_ctx *ctx;
	evtchn_port_t timer;
	bool pending = false;
	unsigned int i, try;
	unsigned long flags;
	int rc;

	live_begin(test, 0);
	ctx = live_setup_words(test);
	local_irq_save(flags);
	rc = evtchn_2l_kunit_this_cpu_state(&cursor.port, &timer);
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, 0, rc);
	KUNIT_ASSERT_NE_MSG(test, timer, 0, "vCPU 0 has no VIRQ_TIMER port");
	KUNIT_ASSERT_LT(test, timer, ctx->ports[0].port);
	for (i = 0; i < n; i++)
		set[i] = &ctx->ports[1 + i * (ctx->nr_ports - 1) / n];

	/* As in live_round(): an IPI may move the cursor meanwhile. */
	for (try = 0; try < LIVE_TRIES; try++) {
		live_move_cursor(test, ctx, &ctx->ports[0]);
		cursor = live_raise(test, ctx, set, n, n, true, &pending);
		KUNIT_ASSERT_TRUE_MSG(test, pending,
				      "VIRQ_TIMER port %u not pending within 200 ms",
				      timer);
		KUNIT_EXPECT_EQ_MSG(test, ctx->log_len, n, "serviced %s",
				    live_fmt_log(ctx));
		if (live_rank(set[0]->port, &cursor) < live_rank(timer, &cursor))
			break;
	}
	KUNIT_ASSERT_LT_MSG(test, try, LIVE_TRIES,
			    "cursor %u: the timer's port %u comes first anyway",
			    cursor.port, timer);
	kunit_info(test, "vCPU 0, cursor %u, VIRQ_TIMER port %u pending, serviced %s\n",
		   cursor.port, timer, live_fmt_log(ctx));
	KUNIT_EXPECT_FALSE_MSG(test, ctx->timer_unserviced_at_first,
			       "cursor %u: port %u serviced before VIRQ_TIMER port %u",
			       cursor.port, ctx->log[0].port, timer);
}
#endif

static struct kunit_case evtchn_2l_live_test_cases[] = {
	KUNIT_CASE(evtchn_2l_live_test_round_robin),
	KUNIT_CASE(evtchn_2l_live_test_second_vcpu),
	KUNIT_CASE(evtchn_2l_live_test_flood_waits_a_pass),
	KUNIT_CASE(evtchn_2l_live_test_start_word_split),
	KUNIT_CASE_SLOW(evtchn_2l_live_test_whole_range),
#ifdef CONFIG_X86
	KUNIT_CASE(evtchn_2l_live_test_timer_first),
#endif
	{}
};

static struct kunit_suite evtchn_2l_live_test_suite = {
	.name = "xen_evtchn_2l_live",
	.test_cases = evtchn_2l_live_test_cases,
};

kunit_test_suite(evtchn_2l_live_test_suite);

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#else
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
#endif
MODULE_DESCRIPTION("Live KUnit tests of the Xen 2-level event channel upcall");
MODULE_LICENSE("GPL");
