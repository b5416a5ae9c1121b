// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the 2-level event channel upcall.
 *
 * This file is included at the end of events_2l.c, so that the tests run
 * the real evtchn_2l_handle_events() on the file's own static state.  For
 * the time of one upcall, with interrupts disabled, the test swaps in a
 * fake shared_info, vcpu_info, per-CPU channel mask and scan cursor, and
 * takes the services through KUnit static stubs of handle_irq_for_port()
 * and irq_evtchn_from_virq() (the VIRQ_TIMER port is a real IRQ descriptor
 * of the test's, handled by generic_handle_irq()).  shared_info is global,
 * so the swap is only safe while no other CPU handles events: the cases
 * are skipped when the kernel runs on Xen; the live suite
 * (CONFIG_XEN_EVTCHN_2L_LIVE_KUNIT_TEST) tests the upcall there.
 *
 * A case is a table of rounds.  Each round sets up the pending, mask and
 * selector bits as Xen would, runs one upcall (passes while Xen set the
 * upcall flag again, as xen_evtchn_do_upcall() does) on vCPU 0 or 1 and
 * checks the order of the services, the cursor and the pending bits.
 * Port lists are written as for bitmap_parselist() ("1,5-7"); an order of
 * services is the list in the given order.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/irq.h>
#include <linux/prandom.h>

#define EVTCHN_2L_TEST_VCPUS	2
#define EVTCHN_2L_TEST_ONS	2
#define EVTCHN_2L_TEST_PASSES	1000
#define EVTCHN_2L_TEST_MAX	(2U * (unsigned int)EVTCHN_2L_NR_CHANNELS)

/* A port, or cursor position, that a round sets or checks (0: none). */
#define AT(port)		((port) + 1)

/*
 * Each time @port is handled (after its pending bit is cleared, as the
 * ack does), send to the ports of @raise, at most @times times (1 if 0).
 */
struct evtchn_2l_test_on {
	evtchn_port_t port;
	const char *raise;
	unsigned int times;
};

struct evtchn_2l_test_round {
	unsigned int vcpu;		/* whose upcall runs */
	const char *bind1;		/* ports bound to vCPU 1 from now on */
	unsigned int timer[EVTCHN_2L_TEST_VCPUS]; /* AT(VIRQ_TIMER port) */
	unsigned int cursor;		/* AT(where vcpu's scan starts) */
	const char *mask;		/* set mask bits */
	const char *unmask;		/* as Xen: may set selector and flag */
	const char *pend;		/* as Xen on a send */
	const char *raw_pend;		/* pending bits only */
	const char *selector;		/* vcpu's selector words, and the flag */
	struct evtchn_2l_test_on on[EVTCHN_2L_TEST_ONS];
	const char *expect;		/* the services, in order ("" none) */
	unsigned int expect_cursor[EVTCHN_2L_TEST_VCPUS]; /* AT(port) */
	const char *expect_pending;	/* NULL: not checked; "" none */
};

struct evtchn_2l_test_case {
	const char *name;
	unsigned int word_bits;		/* 0: any */
	const struct evtchn_2l_test_round *rounds; /* ended by { } */
};

/*
 * What the kernel's evtchn_2l_handle_events() reads, and the test's model
 * of Xen around it.
 */
struct evtchn_2l_test_state {
	struct kunit *test;
	struct shared_info *shared;
	struct vcpu_info vcpu[EVTCHN_2L_TEST_VCPUS];
	u8 owner[EVTCHN_2L_NR_CHANNELS];
	unsigned int word_idx[EVTCHN_2L_TEST_VCPUS];
	unsigned int bit_idx[EVTCHN_2L_TEST_VCPUS];
	evtchn_port_t timer[EVTCHN_2L_TEST_VCPUS];
	bool has_timer[EVTCHN_2L_TEST_VCPUS];
	int timer_irq;
	unsigned int cur;
	const struct evtchn_2l_test_round *round;
	unsigned int on_left[EVTCHN_2L_TEST_ONS];
	u16 *serviced;
	u16 *pass_of;
	unsigned int nr_serviced;
	unsigned int pass;
	bool overflow;
	unsigned long *list;		/* scratch bitmap */
	u16 *expect;			/* the expected services */
	char *want, *got;		/* expected and serviced, as text */
};

static bool evtchn_2l_test_pending(struct evtchn_2l_test_state *st,
				   evtchn_port_t port)
{
	return sync_test_bit(port, BM(st->shared->evtchn_pending));
}

/* As Xen does on a send to @port (evtchn_2l_set_pending() in Xen). */
static void evtchn_2l_test_send(struct evtchn_2l_test_state *st,
				evtchn_port_t port)
{
	struct vcpu_info *v = &st->vcpu[st->owner[port]];

	if (sync_test_and_set_bit(port, BM(st->shared->evtchn_pending)))
		return;
	if (sync_test_bit(port, BM(st->shared->evtchn_mask)))
		return;
	if (!sync_test_and_set_bit(port / BITS_PER_EVTCHN_WORD,
				   BM(&v->evtchn_pending_sel)))
		v->evtchn_upcall_pending = 1;
}

/* As Xen does on EVTCHNOP_unmask. */
static void evtchn_2l_test_unmask(struct evtchn_2l_test_state *st,
				  evtchn_port_t port)
{
	struct vcpu_info *v = &st->vcpu[st->owner[port]];

	if (!sync_test_and_clear_bit(port, BM(st->shared->evtchn_mask)))
		return;
	if (!evtchn_2l_test_pending(st, port))
		return;
	if (!sync_test_and_set_bit(port / BITS_PER_EVTCHN_WORD,
				   BM(&v->evtchn_pending_sel)))
		v->evtchn_upcall_pending = 1;
}

/* @list as a bitmap in st->list; fails the test on a malformed list. */
static unsigned long *evtchn_2l_test_set(struct evtchn_2l_test_state *st,
					 const char *list)
{
	bitmap_zero(st->list, EVTCHN_2L_NR_CHANNELS);
	if (list && *list)
		KUNIT_ASSERT_EQ_MSG(st->test, 0,
				    bitmap_parselist(list, st->list,
						     EVTCHN_2L_NR_CHANNELS),
				    "bad port list \"%s\"", list);
	return st->list;
}

/* The ports of @list in its order into @out (at most @max). */
static unsigned int evtchn_2l_test_order(struct kunit *test, const char *list,
					 u16 *out, unsigned int max)
{
	unsigned int n = 0, a, b;
	const char *p = list;

	while (*p) {
		int len = 0, got;

		got = sscanf(p, "%u-%u%n", &a, &b, &len);
		if (got == 2 && len) {
			KUNIT_ASSERT_LE(test, a, b);
		} else {
			got = sscanf(p, "%u%n", &a, &len);
			KUNIT_ASSERT_EQ_MSG(test, got, 1,
					    "bad port list \"%s\"", list);
			b = a;
		}
		p += len;
		for (; a <= b; a++) {
			KUNIT_ASSERT_LT(test, n, max);
			out[n++] = a;
		}
		if (*p == ',')
			p++;
		else
			KUNIT_ASSERT_EQ_MSG(test, *p, '\0',
					    "bad port list \"%s\"", list);
	}
	return n;
}

/* @ports as "1,5-7" (runs of consecutive ports as ranges) into @buf. */
static char *evtchn_2l_test_fmt(char *buf, size_t size, const u16 *ports,
				unsigned int n)
{
	unsigned int i, j;
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j + 1 < n && ports[j + 1] == ports[j] + 1; j++)
			;
		len += scnprintf(buf + len, size - len, "%s%u", i ? "," : "",
				 ports[i]);
		if (j > i)
			len += scnprintf(buf + len, size - len, "-%u", ports[j]);
	}
	if (!n)
		strscpy(buf, "-", size);
	return buf;
}

/* The service of @port by this vCPU's upcall. */
static void evtchn_2l_test_service(struct evtchn_2l_test_state *st,
				   evtchn_port_t port)
{
	const struct evtchn_2l_test_round *r = st->round;
	unsigned int i;

	if (st->nr_serviced < EVTCHN_2L_TEST_MAX) {
		st->pass_of[st->nr_serviced] = st->pass;
		st->serviced[st->nr_serviced++] = port;
	} else {
		st->overflow = true;
	}
	sync_clear_bit(port, BM(st->shared->evtchn_pending));
	for (i = 0; r && i < EVTCHN_2L_TEST_ONS; i++) {
		const char *q;
		unsigned int p;
		int len;

		if (!r->on[i].raise || r->on[i].port != port || !st->on_left[i])
			continue;
		st->on_left[i]--;
		/* No allocation with interrupts off: walk the list itself. */
		for (q = r->on[i].raise; sscanf(q, "%u%n", &p, &len) == 1;
		     q += len + (q[len] == ','))
			evtchn_2l_test_send(st, p);
	}
}

static struct evtchn_2l_test_state *evtchn_2l_test_current(void)
{
	return kunit_get_current_test()->priv;
}

static void evtchn_2l_test_handle_irq_for_port(evtchn_port_t port,
					       struct evtchn_loop_ctrl *ctrl)
{
	evtchn_2l_test_service(evtchn_2l_test_current(), port);
}

static int evtchn_2l_test_irq_evtchn_from_virq(unsigned int cpu,
					       unsigned int virq,
					       evtchn_port_t *evtchn)
{
	struct evtchn_2l_test_state *st = evtchn_2l_test_current();

	if (virq != VIRQ_TIMER || !st->has_timer[st->cur])
		return -1;
	*evtchn = st->timer[st->cur];
	return st->timer_irq;
}

/* The flow handler of the test's VIRQ_TIMER IRQ. */
static void evtchn_2l_test_timer_flow(struct irq_desc *desc)
{
	struct evtchn_2l_test_state *st = evtchn_2l_test_current();

	evtchn_2l_test_service(st, st->timer[st->cur]);
}

static void evtchn_2l_test_free_irq(void *irq)
{
	irq_free_desc((unsigned long)irq);
}

static int evtchn_2l_test_init(struct kunit *test)
{
	struct evtchn_2l_test_state *st;
	int irq;

	if (xen_domain())
		kunit_skip(test, "on Xen: other vCPUs would scan the fake shared_info");

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	st->test = test;
	st->shared = kunit_kzalloc(test, sizeof(*st->shared), GFP_KERNEL);
	st->serviced = kunit_kcalloc(test, EVTCHN_2L_TEST_MAX,
				     sizeof(*st->serviced), GFP_KERNEL);
	st->pass_of = kunit_kcalloc(test, EVTCHN_2L_TEST_MAX,
				    sizeof(*st->pass_of), GFP_KERNEL);
	st->list = kunit_kcalloc(test, BITS_TO_LONGS(EVTCHN_2L_NR_CHANNELS),
				 sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st->shared);
	KUNIT_ASSERT_NOT_NULL(test, st->serviced);
	KUNIT_ASSERT_NOT_NULL(test, st->pass_of);
	KUNIT_ASSERT_NOT_NULL(test, st->list);
	st->expect = kunit_kcalloc(test, EVTCHN_2L_TEST_MAX, sizeof(*st->expect),
				   GFP_KERNEL);
	st->want = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	st->got = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st->expect);
	KUNIT_ASSERT_NOT_NULL(test, st->want);
	KUNIT_ASSERT_NOT_NULL(test, st->got);

	irq = irq_alloc_desc(NUMA_NO_NODE);
	KUNIT_ASSERT_GE(test, irq, 0);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, evtchn_2l_test_free_irq,
						  (void *)(unsigned long)irq));
	irq_set_chip_and_handler(irq, &dummy_irq_chip,
				 evtchn_2l_test_timer_flow);
	st->timer_irq = irq;
	test->priv = st;

	kunit_activate_static_stub(test, handle_irq_for_port,
				   evtchn_2l_test_handle_irq_for_port);
	kunit_activate_static_stub(test, irq_evtchn_from_virq,
				   evtchn_2l_test_irq_evtchn_from_virq);
	return 0;
}

/*
 * Run vCPU @vcpu's upcall on this CPU: swap the fake state in, make passes
 * while the upcall flag was set again (at most @max_passes), swap back.
 * Return the number of passes.
 */
static unsigned int evtchn_2l_test_upcall(struct evtchn_2l_test_state *st,
					  unsigned int vcpu,
					  unsigned int max_passes)
{
	static xen_ulong_t saved_mask[EVTCHN_MASK_SIZE];
	struct shared_info *saved_shared;
	struct vcpu_info *saved_vcpu;
	unsigned int saved_word, saved_bit, cpu, port;
	xen_ulong_t *mask;
	unsigned long flags;

	local_irq_save(flags);
	cpu = smp_processor_id();
	mask = per_cpu(cpu_evtchn_mask, cpu);
	saved_shared = HYPERVISOR_shared_info;
	saved_vcpu = __this_cpu_read(xen_vcpu);
	saved_word = __this_cpu_read(current_word_idx);
	saved_bit = __this_cpu_read(current_bit_idx);
	memcpy(saved_mask, mask, sizeof(saved_mask));

	memset(mask, 0, sizeof(saved_mask));
	for (port = 0; port < EVTCHN_2L_NR_CHANNELS; port++)
		if (st->owner[port] == vcpu)
			__set_bit(port, BM(mask));
	HYPERVISOR_shared_info = st->shared;
	__this_cpu_write(xen_vcpu, &st->vcpu[vcpu]);
	__this_cpu_write(current_word_idx, st->word_idx[vcpu]);
	__this_cpu_write(current_bit_idx, st->bit_idx[vcpu]);
	st->cur = vcpu;

	for (st->pass = 0; st->pass < max_passes;) {
		st->vcpu[vcpu].evtchn_upcall_pending = 0;
		evtchn_2l_handle_events(cpu, NULL);
		st->pass++;
		if (!st->vcpu[vcpu].evtchn_upcall_pending)
			break;
	}

	st->word_idx[vcpu] = __this_cpu_read(current_word_idx);
	st->bit_idx[vcpu] = __this_cpu_read(current_bit_idx);
	memcpy(mask, saved_mask, sizeof(saved_mask));
	__this_cpu_write(current_bit_idx, saved_bit);
	__this_cpu_write(current_word_idx, saved_word);
	__this_cpu_write(xen_vcpu, saved_vcpu);
	HYPERVISOR_shared_info = saved_shared;
	local_irq_restore(flags);
	return st->pass;
}

static unsigned int evtchn_2l_test_cursor(struct evtchn_2l_test_state *st,
					  unsigned int vcpu)
{
	return st->word_idx[vcpu] * BITS_PER_EVTCHN_WORD + st->bit_idx[vcpu];
}

static void evtchn_2l_test_set_cursor(struct evtchn_2l_test_state *st,
				      unsigned int vcpu, unsigned int port)
{
	st->word_idx[vcpu] = port / BITS_PER_EVTCHN_WORD;
	st->bit_idx[vcpu] = port % BITS_PER_EVTCHN_WORD;
}

static void evtchn_2l_test_setup(struct evtchn_2l_test_state *st,
				 const struct evtchn_2l_test_round *r)
{
	struct shared_info *s = st->shared;
	struct vcpu_info *v = &st->vcpu[r->vcpu];
	unsigned long *set;
	unsigned int i, port;

	set = evtchn_2l_test_set(st, r->bind1);
	for_each_set_bit(port, set, EVTCHN_2L_NR_CHANNELS)
		st->owner[port] = 1;
	for (i = 0; i < EVTCHN_2L_TEST_VCPUS; i++) {
		if (r->timer[i]) {
			st->has_timer[i] = true;
			st->timer[i] = r->timer[i] - 1;
		}
	}
	if (r->cursor)
		evtchn_2l_test_set_cursor(st, r->vcpu, r->cursor - 1);
	set = evtchn_2l_test_set(st, r->mask);
	bitmap_or(BM(s->evtchn_mask), BM(s->evtchn_mask), set,
		  EVTCHN_2L_NR_CHANNELS);
	set = evtchn_2l_test_set(st, r->unmask);
	for_each_set_bit(port, set, EVTCHN_2L_NR_CHANNELS)
		evtchn_2l_test_unmask(st, port);
	set = evtchn_2l_test_set(st, r->pend);
	for_each_set_bit(port, set, EVTCHN_2L_NR_CHANNELS)
		evtchn_2l_test_send(st, port);
	set = evtchn_2l_test_set(st, r->raw_pend);
	bitmap_or(BM(s->evtchn_pending), BM(s->evtchn_pending), set,
		  EVTCHN_2L_NR_CHANNELS);
	if (r->selector) {
		KUNIT_ASSERT_EQ(st->test, 0,
				bitmap_parselist(r->selector, st->list,
						 BITS_PER_EVTCHN_WORD));
		v->evtchn_pending_sel |= *(xen_ulong_t *)st->list;
		v->evtchn_upcall_pending = 1;
	}
	for (i = 0; i < EVTCHN_2L_TEST_ONS; i++)
		st->on_left[i] = r->on[i].times ?: 1;
}

/* Whether the upcall serviced exactly st->expect[0..@n - 1], in order. */
static bool evtchn_2l_test_as_expected(struct evtchn_2l_test_state *st,
				       unsigned int n)
{
	return n == st->nr_serviced &&
	       !memcmp(st->expect, st->serviced, n * sizeof(*st->expect));
}

static void evtchn_2l_test_run_round(struct kunit *test,
				     const struct evtchn_2l_test_case *c,
				     unsigned int n)
{
	const struct evtchn_2l_test_round *r = &c->rounds[n];
	struct evtchn_2l_test_state *st = test->priv;
	unsigned int nr_expect, i, passes, port;
	char *want = st->want, *got = st->got;
	u16 *expect = st->expect;

	nr_expect = evtchn_2l_test_order(test, r->expect, expect,
					 EVTCHN_2L_TEST_MAX);

	st->round = r;
	evtchn_2l_test_setup(st, r);
	st->nr_serviced = 0;
	passes = evtchn_2l_test_upcall(st, r->vcpu, EVTCHN_2L_TEST_PASSES);
	st->round = NULL;

	KUNIT_ASSERT_FALSE_MSG(test, st->overflow, "%s round %u: more than %u services",
			       c->name, n + 1, EVTCHN_2L_TEST_MAX);
	KUNIT_EXPECT_LT_MSG(test, passes, EVTCHN_2L_TEST_PASSES,
			    "%s round %u: the upcall did not end", c->name,
			    n + 1);
	KUNIT_EXPECT_TRUE_MSG(test, evtchn_2l_test_as_expected(st, nr_expect),
			      "%s round %u (vCPU %u): expected %s, serviced %s",
			      c->name, n + 1, r->vcpu,
			      evtchn_2l_test_fmt(want, PAGE_SIZE, expect,
						 nr_expect),
			      evtchn_2l_test_fmt(got, PAGE_SIZE, st->serviced,
						 st->nr_serviced));

	for (i = 0; i < EVTCHN_2L_TEST_VCPUS; i++)
		if (r->expect_cursor[i])
			KUNIT_EXPECT_EQ_MSG(test, evtchn_2l_test_cursor(st, i),
					    r->expect_cursor[i] - 1,
					    "%s round %u: vCPU %u's cursor",
					    c->name, n + 1, i);

	if (r->expect_pending) {
		nr_expect = 0;
		for (port = 0; port < EVTCHN_2L_NR_CHANNELS; port++)
			if (evtchn_2l_test_pending(st, port))
				expect[nr_expect++] = port;
		evtchn_2l_test_fmt(got, PAGE_SIZE, expect, nr_expect);
		evtchn_2l_test_set(st, r->expect_pending);
		i = bitmap_weight(st->list, EVTCHN_2L_NR_CHANNELS);
		KUNIT_EXPECT_TRUE_MSG(test, i == nr_expect &&
				      bitmap_equal(st->list,
						   BM(st->shared->evtchn_pending),
						   EVTCHN_2L_NR_CHANNELS),
				      "%s round %u: expected pending %s, pending %s",
				      c->name, n + 1,
				      *r->expect_pending ? r->expect_pending : "-",
				      got);
	}
}

#include "events_2l_kunit_cases.h"

static void evtchn_2l_test_case_desc(const struct evtchn_2l_test_case *c,
				     char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(evtchn_2l_table, evtchn_2l_cases, evtchn_2l_test_case_desc);

static void evtchn_2l_test_table(struct kunit *test)
{
	const struct evtchn_2l_test_case *c = test->param_value;
	unsigned int n;

	if (c->word_bits && c->word_bits != BITS_PER_EVTCHN_WORD)
		kunit_skip(test, "written for %u-bit event words, this kernel's are %zu",
			   c->word_bits, BITS_PER_EVTCHN_WORD);
	for (n = 0; c->rounds[n].expect; n++)
		evtchn_2l_test_run_round(test, c, n);
}

/* ---- Random states against a reference written from the rules ---- */

#define EVTCHN_2L_TEST_SEED	20260
#define EVTCHN_2L_TEST_STATES	200

static bool evtchn_2l_test_active(struct evtchn_2l_test_state *st,
				  evtchn_port_t port)
{
	return evtchn_2l_test_pending(st, port) &&
	       !sync_test_bit(port, BM(st->shared->evtchn_mask)) &&
	       st->owner[port] == 0;
}

/*
 * A random state of vCPU 0: a few busy words, ports masked or bound to
 * vCPU 1 among them, a cursor and perhaps a timer port.
 */
static void evtchn_2l_test_random(struct evtchn_2l_test_state *st,
				  struct rnd_state *rnd)
{
	unsigned int words = EVTCHN_MASK_SIZE, w, n, port;

	memset(st->shared->evtchn_pending, 0, sizeof(st->shared->evtchn_pending));
	memset(st->shared->evtchn_mask, 0, sizeof(st->shared->evtchn_mask));
	memset(st->owner, 0, sizeof(st->owner));
	memset(st->vcpu, 0, sizeof(st->vcpu));
	for (n = prandom_u32_state(rnd) % 6 + 1; n; n--) {
		w = prandom_u32_state(rnd) % words;
		st->shared->evtchn_pending[w] |=
			(xen_ulong_t)((u64)prandom_u32_state(rnd) << 32 |
				      prandom_u32_state(rnd));
		st->shared->evtchn_mask[w] |= (xen_ulong_t)1 <<
			(prandom_u32_state(rnd) % BITS_PER_EVTCHN_WORD);
		st->vcpu[0].evtchn_pending_sel |= (xen_ulong_t)1 << w;
	}
	/* Selector bits of empty words, as Xen can leave them. */
	st->vcpu[0].evtchn_pending_sel |= (xen_ulong_t)1 <<
		(prandom_u32_state(rnd) % words);
	st->vcpu[0].evtchn_upcall_pending = 1;
	for (n = prandom_u32_state(rnd) % 8; n; n--)
		st->owner[prandom_u32_state(rnd) % EVTCHN_2L_NR_CHANNELS] = 1;
	evtchn_2l_test_set_cursor(st, 0, prandom_u32_state(rnd) %
				  EVTCHN_2L_NR_CHANNELS);
	st->has_timer[0] = prandom_u32_state(rnd) % 2;
	port = prandom_u32_state(rnd) % EVTCHN_2L_NR_CHANNELS;
	st->timer[0] = port;
}

/*
 * The order of one pass, from the rules of
 * Documentation/virt/xen/event-channels-2l.rst: the VIRQ_TIMER port first
 * if it is active; then, of the words whose selector bit is set, the start
 * word from the cursor up, every other word in increasing order from
 * there (wrapping), and the start word below the cursor; in each word its
 * active ports in increasing order.  Each active port once.
 */
static unsigned int evtchn_2l_test_reference(struct evtchn_2l_test_state *st,
					     u16 *out)
{
	unsigned int start = evtchn_2l_test_cursor(st, 0), n = 0, i, port;
	xen_ulong_t sel = st->vcpu[0].evtchn_pending_sel;
	bool timer = st->has_timer[0] &&
		     evtchn_2l_test_active(st, st->timer[0]);

	if (timer)
		out[n++] = st->timer[0];
	for (i = 0; i < EVTCHN_2L_NR_CHANNELS; i++) {
		port = (start + i) % EVTCHN_2L_NR_CHANNELS;
		if (timer && port == st->timer[0])
			continue;
		if (!(sel & ((xen_ulong_t)1 << (port / BITS_PER_EVTCHN_WORD))))
			continue;
		if (evtchn_2l_test_active(st, port))
			out[n++] = port;
	}
	return n;
}

static void evtchn_2l_test_matches_reference(struct kunit *test)
{
	struct evtchn_2l_test_state *st = test->priv;
	struct rnd_state rnd;
	unsigned int i, n, cursor;
	char *want = st->want, *got = st->got;
	u16 *expect = st->expect;

	kunit_info(test, "seed=%u", EVTCHN_2L_TEST_SEED);
	prandom_seed_state(&rnd, EVTCHN_2L_TEST_SEED);
	for (i = 0; i < EVTCHN_2L_TEST_STATES; i++) {
		evtchn_2l_test_random(st, &rnd);
		cursor = evtchn_2l_test_cursor(st, 0);
		n = evtchn_2l_test_reference(st, expect);
		st->nr_serviced = 0;
		evtchn_2l_test_upcall(st, 0, 1);

		KUNIT_ASSERT_TRUE_MSG(test, evtchn_2l_test_as_expected(st, n),
				      "state %u (cursor %u, timer %d): expected %s, serviced %s",
				      i, cursor,
				      st->has_timer[0] ? st->timer[0] : -1,
				      evtchn_2l_test_fmt(want, PAGE_SIZE,
							 expect, n),
				      evtchn_2l_test_fmt(got, PAGE_SIZE,
							 st->serviced,
							 st->nr_serviced));
		/*
		 * The next pass starts right after the last port the scan
		 * serviced (the timer port does not move it).
		 */
		if (n && !(n == 1 && st->has_timer[0] &&
			   expect[0] == st->timer[0]))
			KUNIT_ASSERT_EQ_MSG(test, evtchn_2l_test_cursor(st, 0),
					    (expect[n - 1] + 1u) %
					    EVTCHN_2L_NR_CHANNELS,
					    "state %u: cursor", i);
		else
			KUNIT_ASSERT_EQ_MSG(test, evtchn_2l_test_cursor(st, 0),
					    cursor, "state %u: cursor moved", i);
	}
}

/*
 * Two active ports, the first in the word the pass starts in, at or above
 * the cursor, re-raise themselves and a random other port when serviced:
 * in no pass is a port other than the VIRQ_TIMER port serviced twice.
 */
static void evtchn_2l_test_once_per_pass(struct kunit *test)
{
	struct evtchn_2l_test_state *st = test->priv;
	unsigned long *seen;
	struct rnd_state rnd;
	unsigned int i, j, pass, passes;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(EVTCHN_2L_NR_CHANNELS),
			     sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	prandom_seed_state(&rnd, EVTCHN_2L_TEST_SEED);
	for (i = 0; i < EVTCHN_2L_TEST_STATES / 4; i++) {
		struct evtchn_2l_test_round r = { };
		char raise[2][32];
		unsigned int port;

		evtchn_2l_test_random(st, &rnd);
		for (j = 0; j < EVTCHN_2L_TEST_ONS; j++) {
			unsigned int k;

			/* The first active port from a random one. */
			port = prandom_u32_state(&rnd);
			for (k = 0; k < EVTCHN_2L_NR_CHANNELS; k++, port++) {
				port %= EVTCHN_2L_NR_CHANNELS;
				if (evtchn_2l_test_active(st, port))
					break;
			}
			KUNIT_ASSERT_LT(test, k, EVTCHN_2L_NR_CHANNELS);
			/*
			 * The first one where the pass starts, so that it
			 * is raised again while its word is being scanned.
			 */
			if (!j)
				evtchn_2l_test_set_cursor(st, 0, port -
					prandom_u32_state(&rnd) %
					(port % BITS_PER_EVTCHN_WORD + 1));
			snprintf(raise[j], sizeof(raise[j]), "%u,%u", port,
				 (unsigned int)(prandom_u32_state(&rnd) %
						EVTCHN_2L_NR_CHANNELS));
			r.on[j].port = port;
			r.on[j].raise = raise[j];
			st->on_left[j] = 3;
		}
		st->round = &r;
		st->nr_serviced = 0;
		passes = evtchn_2l_test_upcall(st, 0, 20);
		st->round = NULL;
		KUNIT_ASSERT_GT(test, passes, 1);

		for (pass = 0, j = 0; pass < passes; pass++) {
			bitmap_zero(seen, EVTCHN_2L_NR_CHANNELS);
			for (; j < st->nr_serviced && st->pass_of[j] == pass; j++) {
				port = st->serviced[j];
				if (st->has_timer[0] && port == st->timer[0])
					continue;
				KUNIT_ASSERT_FALSE_MSG(test, __test_and_set_bit(port, seen),
						       "state %u: port %u serviced twice in pass %u",
						       i, port, pass + 1);
			}
		}
	}
}

static struct kunit_case evtchn_2l_test_cases[] = {
	KUNIT_CASE_PARAM(evtchn_2l_test_table, evtchn_2l_table_gen_params),
	KUNIT_CASE(evtchn_2l_test_matches_reference),
	KUNIT_CASE(evtchn_2l_test_once_per_pass),
	{}
};

static struct kunit_suite evtchn_2l_test_suite = {
	.name = "xen_evtchn_2l",
	.init = evtchn_2l_test_init,
	.test_cases = evtchn_2l_test_cases,
};

kunit_test_suite(evtchn_2l_test_suite);
