// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the 2-level event channel upcall, included at the end of
 * events_2l.c as fs/exec.c includes its tests: they run the real
 * evtchn_2l_handle_events() on the file's per-CPU state, with static stubs
 * of handle_irq_for_port() and irq_evtchn_from_virq().  Ports are written
 * PORT(word, bit) so that every case runs with every size of event word.
 * Xen never binds port 0: 0 ends a list.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/irq.h>
#include <linux/prandom.h>

#define PORT(w, b)	((w) * BITS_PER_EVTCHN_WORD + (b))
#define LAST		(BITS_PER_EVTCHN_WORD - 1)
#define PASS		(-1)	/* the end of a pass, in a list of services */
#define MAX_HANDLED	(EVTCHN_2L_NR_CHANNELS + 8)

struct evtchn_2l_test {
	struct shared_info shared;
	struct vcpu_info vcpu;
	xen_ulong_t bound[EVTCHN_MASK_SIZE];	/* this CPU's ports */
	unsigned int cursor;	/* the port the next pass starts at */
	int timer;		/* VIRQ_TIMER's port, 0 if none */
	int reraise;		/* sent again when first handled, 0: none */
	bool reraise_all;	/* every port but the timer's, each time */
	int timer_irq;
	unsigned int nr;
	int handled[MAX_HANDLED];
	int expect[MAX_HANDLED];
};

struct evtchn_2l_test_case {
	unsigned int cursor, next;	/* the cursor before and after */
	int timer, reraise;
	int pending[8];
	int expect[12];
};

static bool evtchn_2l_test_active(struct evtchn_2l_test *t, int port)
{
	return test_bit(port, BM(t->shared.evtchn_pending)) &&
	       !test_bit(port, BM(t->shared.evtchn_mask)) &&
	       test_bit(port, BM(t->bound));
}

/* As Xen does on a send to @port (evtchn_2l_set_pending() in Xen). */
static void evtchn_2l_test_send(struct evtchn_2l_test *t, int port)
{
	if (sync_test_and_set_bit(port, BM(t->shared.evtchn_pending)) ||
	    !evtchn_2l_test_active(t, port))
		return;
	if (!sync_test_and_set_bit(port / BITS_PER_EVTCHN_WORD,
				   BM(&t->vcpu.evtchn_pending_sel)))
		t->vcpu.evtchn_upcall_pending = 1;
}

static void evtchn_2l_test_handle(evtchn_port_t port,
				  struct evtchn_loop_ctrl *ctrl)
{
	struct evtchn_2l_test *t = kunit_get_current_test()->priv;

	if (t->nr < MAX_HANDLED)
		t->handled[t->nr++] = port;
	sync_clear_bit(port, BM(t->shared.evtchn_pending));
	if (t->reraise_all ? port != t->timer : t->reraise && port == t->reraise) {
		t->reraise = 0;
		evtchn_2l_test_send(t, port);
	}
}

static int evtchn_2l_test_from_virq(unsigned int cpu, unsigned int virq,
				    evtchn_port_t *evtchn)
{
	struct evtchn_2l_test *t = kunit_get_current_test()->priv;

	if (virq != VIRQ_TIMER || !t->timer)
		return -1;
	*evtchn = t->timer;
	return t->timer_irq;
}

/*
 * The flow handler of the test's VIRQ_TIMER IRQ, which the upcall calls
 * from the test's task: handle_irq_desc() refuses that only for IRQs with
 * IRQD_HANDLE_ENFORCE_IRQCTX, and this handler takes no lock.
 */
static void evtchn_2l_test_timer_flow(struct irq_desc *desc)
{
	struct evtchn_2l_test *t = kunit_get_current_test()->priv;

	evtchn_2l_test_handle(t->timer, NULL);
}

static void evtchn_2l_test_free_irq(void *irq)
{
	irq_free_desc((unsigned long)irq);
}

static int evtchn_2l_test_init(struct kunit *test)
{
	struct evtchn_2l_test *t;
	int irq;

	if (xen_domain())
		kunit_skip(test, "on Xen: other CPUs would scan the fake shared_info");
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	memset(t->bound, 0xff, sizeof(t->bound));

	irq = irq_alloc_desc(NUMA_NO_NODE);
	KUNIT_ASSERT_GE(test, irq, 0);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, evtchn_2l_test_free_irq,
						  (void *)(unsigned long)irq));
	irq_set_status_flags(irq, IRQ_NOREQUEST | IRQ_NOPROBE);
	irq_set_chip_and_handler(irq, &dummy_irq_chip,
				 evtchn_2l_test_timer_flow);
	t->timer_irq = irq;
	test->priv = t;

	kunit_activate_static_stub(test, handle_irq_for_port,
				   evtchn_2l_test_handle);
	kunit_activate_static_stub(test, irq_evtchn_from_virq,
				   evtchn_2l_test_from_virq);
	return 0;
}

/*
 * One pass of the upcall on the fake state, then a PASS mark.  The fake
 * shared_info, vcpu_info, channel mask and cursor are swapped in with
 * migration disabled, not interrupts: the stubs' lookup takes a spinlock_t.
 * Off Xen nothing else reads them (the suite skips itself on Xen).
 * Nothing between the swaps may assert.
 */
static void evtchn_2l_test_pass(struct evtchn_2l_test *t)
{
	xen_ulong_t saved[EVTCHN_MASK_SIZE];
	struct shared_info *shared;
	struct vcpu_info *vcpu;
	unsigned int cpu, word, bit;
	xen_ulong_t *mask;

	migrate_disable();
	cpu = smp_processor_id();
	mask = per_cpu(cpu_evtchn_mask, cpu);
	shared = HYPERVISOR_shared_info;
	vcpu = __this_cpu_read(xen_vcpu);
	word = __this_cpu_read(current_word_idx);
	bit = __this_cpu_read(current_bit_idx);

	memcpy(saved, mask, sizeof(saved));
	memcpy(mask, t->bound, sizeof(t->bound));	/* the stubs read bound */
	HYPERVISOR_shared_info = &t->shared;
	__this_cpu_write(xen_vcpu, &t->vcpu);
	__this_cpu_write(current_word_idx, t->cursor / BITS_PER_EVTCHN_WORD);
	__this_cpu_write(current_bit_idx, t->cursor % BITS_PER_EVTCHN_WORD);

	evtchn_2l_handle_events(cpu, NULL);

	t->cursor = __this_cpu_read(current_word_idx) * BITS_PER_EVTCHN_WORD +
		    __this_cpu_read(current_bit_idx);
	__this_cpu_write(current_bit_idx, bit);
	__this_cpu_write(current_word_idx, word);
	__this_cpu_write(xen_vcpu, vcpu);
	HYPERVISOR_shared_info = shared;
	memcpy(mask, saved, sizeof(saved));
	migrate_enable();

	if (t->nr < MAX_HANDLED)
		t->handled[t->nr++] = PASS;
}

/* Entries @k to @n - 1 of @p, 12 at most, as text; "|" ends a pass. */
static char *evtchn_2l_test_text(char *buf, const int *p, unsigned int k,
				 unsigned int n)
{
	size_t len = scnprintf(buf, 128, "%s", k ? " ..." : "");

	for (n = min(n, k + 12); k < n; k++)
		len += p[k] == PASS ? scnprintf(buf + len, 128 - len, " |") :
		       scnprintf(buf + len, 128 - len, " %d", p[k]);
	return buf;
}

/* Whether the services were t->expect[0..@n - 1], in this order. */
static bool evtchn_2l_test_expect(struct kunit *test, unsigned int n)
{
	struct evtchn_2l_test *t = test->priv;
	bool ok = t->nr == n && !memcmp(t->handled, t->expect, n * sizeof(int));
	unsigned int k = 0;
	char text[2][128];

	while (k < n && k < t->nr && t->handled[k] == t->expect[k])
		k++;
	k = k > 8 ? k - 4 : 0;	/* from just before the first difference */
	KUNIT_EXPECT_TRUE_MSG(test, ok, "%s: expected%s, handled%s", test->name,
			      evtchn_2l_test_text(text[0], t->expect, k, n),
			      evtchn_2l_test_text(text[1], t->handled, k, t->nr));
	return ok;
}

/* @c set up as Xen would, then passes while the upcall flag is set. */
static void evtchn_2l_test_run(struct kunit *test,
			       const struct evtchn_2l_test_case *c)
{
	struct evtchn_2l_test *t = test->priv;
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(c->pending) && c->pending[i]; i++)
		evtchn_2l_test_send(t, c->pending[i]);
	t->cursor = c->cursor;
	t->timer = c->timer;
	t->reraise = c->reraise;
	for (i = 0; i < 8 && t->vcpu.evtchn_upcall_pending; i++) {
		t->vcpu.evtchn_upcall_pending = 0;
		evtchn_2l_test_pass(t);
	}
	for (n = 0; n < ARRAY_SIZE(c->expect) && c->expect[n]; n++)
		t->expect[n] = c->expect[n];
	evtchn_2l_test_expect(test, n);
	KUNIT_EXPECT_EQ_MSG(test, t->cursor, c->next, "%s: the next start",
			    test->name);
}

/*
 * The scan resumes at the cursor, here the last port, and wraps to word 0;
 * a masked port and another CPU's port wait.
 */
static void evtchn_2l_test_resume(struct kunit *test)
{
	static const struct evtchn_2l_test_case c = {
		.cursor = PORT(LAST, LAST), .next = PORT(1, 3),
		.pending = { PORT(0, 1), PORT(0, 2), PORT(0, 3), PORT(1, 2),
			     PORT(LAST, LAST) },
		.expect = { PORT(LAST, LAST), PORT(0, 1), PORT(1, 2), PASS },
	};
	struct evtchn_2l_test *t = test->priv;

	__set_bit(PORT(0, 2), BM(t->shared.evtchn_mask));
	__clear_bit(PORT(0, 3), BM(t->bound));
	evtchn_2l_test_run(test, &c);
}

/* Retiring a word keeps the selector bits 32-63 (on 32-bit Arm). */
static void evtchn_2l_test_high_words(struct kunit *test)
{
	static const struct evtchn_2l_test_case c = {
		.pending = { PORT(1, 0), PORT(BITS_PER_EVTCHN_WORD / 2, 1), PORT(LAST, LAST) },
		.expect = { PORT(1, 0), PORT(BITS_PER_EVTCHN_WORD / 2, 1), PORT(LAST, LAST), PASS },
	};

	evtchn_2l_test_run(test, &c);
}

/* An active VIRQ_TIMER port in the upper words goes first. */
static void evtchn_2l_test_timer_first(struct kunit *test)
{
	static const struct evtchn_2l_test_case c = {
		.timer = PORT(LAST - 1, 5), .next = PORT(LAST - 1, 10),
		.pending = { PORT(0, 1), PORT(LAST - 1, 5), PORT(LAST - 1, 9) },
		.expect = { PORT(LAST - 1, 5), PORT(0, 1), PORT(LAST - 1, 9), PASS },
	};

	evtchn_2l_test_run(test, &c);
}

/*
 * The start word is scanned from the cursor up, then, after the other
 * words, below the cursor: a port above the cursor raised again when
 * handled waits for the next pass.
 */
static void evtchn_2l_test_split_start_word(struct kunit *test)
{
	static const struct evtchn_2l_test_case c = {
		.cursor = PORT(2, 5), .next = PORT(2, 8), .reraise = PORT(2, 7),
		.pending = { PORT(2, 1), PORT(2, 7), PORT(4, 0) },
		.expect = { PORT(2, 7), PORT(4, 0), PORT(2, 1), PASS, PORT(2, 7), PASS },
	};

	evtchn_2l_test_run(test, &c);
}

/*
 * Random states, in half of them every handled port raised again, against
 * the rules of one pass: the VIRQ_TIMER port first if it is active; then,
 * in the words whose selector bit is set, each active port once, from the
 * cursor on, wrapping; the next pass starts after the last one scanned.
 */
static void evtchn_2l_test_reference(struct kunit *test)
{
	struct evtchn_2l_test *t = test->priv;
	struct shared_info *s = &t->shared;
	unsigned int state, i, n, start;
	struct rnd_state rnd;
	int port, timer;

	prandom_seed_state(&rnd, 20261203);
	for (state = 0; state < 200; state++) {
		prandom_bytes_state(&rnd, s->evtchn_pending,
				    sizeof(s->evtchn_pending));
		prandom_bytes_state(&rnd, s->evtchn_mask, sizeof(s->evtchn_mask));
		prandom_bytes_state(&rnd, t->bound, sizeof(t->bound));
		prandom_bytes_state(&rnd, &t->vcpu.evtchn_pending_sel,
				    sizeof(t->vcpu.evtchn_pending_sel));
		/* A word with its selector bit set and nothing pending. */
		i = prandom_u32_state(&rnd) % BITS_PER_EVTCHN_WORD;
		s->evtchn_pending[i] = 0;
		t->vcpu.evtchn_pending_sel |= (xen_ulong_t)1 << i;
		t->cursor = prandom_u32_state(&rnd) % EVTCHN_2L_NR_CHANNELS;
		t->timer = prandom_u32_state(&rnd) % EVTCHN_2L_NR_CHANNELS;
		t->timer = state % 4 ? t->timer : 0;
		for (i = 0; state % 4 == 1 && i < EVTCHN_2L_NR_CHANNELS &&
		     !evtchn_2l_test_active(t, t->timer); i++)	/* an active one */
			t->timer = (t->timer + 1) % EVTCHN_2L_NR_CHANNELS;
		t->reraise_all = state % 2;

		start = t->cursor;
		timer = t->timer && evtchn_2l_test_active(t, t->timer);
		n = 0;
		if (timer)
			t->expect[n++] = t->timer;
		for (i = 0; i < EVTCHN_2L_NR_CHANNELS; i++) {
			port = (start + i) % EVTCHN_2L_NR_CHANNELS;
			if (test_bit(port / BITS_PER_EVTCHN_WORD,
				     BM(&t->vcpu.evtchn_pending_sel)) &&
			    evtchn_2l_test_active(t, port) &&
			    !(timer && port == t->timer))
				t->expect[n++] = port;
		}
		t->expect[n++] = PASS;

		t->nr = 0;
		evtchn_2l_test_pass(t);
		if (!evtchn_2l_test_expect(test, n) ||
		    t->cursor != (n > 1 + timer ? (t->expect[n - 2] + 1) %
				  EVTCHN_2L_NR_CHANNELS : start)) {
			KUNIT_FAIL(test, "state %u: cursor %u, next %u, timer %d, raised again %d",
				   state, start, t->cursor, t->timer,
				   t->reraise_all);
			return;
		}
	}
}

static struct kunit_case evtchn_2l_test_cases[] = {
	KUNIT_CASE(evtchn_2l_test_resume),
	KUNIT_CASE(evtchn_2l_test_high_words),
	KUNIT_CASE(evtchn_2l_test_timer_first),
	KUNIT_CASE(evtchn_2l_test_split_start_word),
	KUNIT_CASE(evtchn_2l_test_reference),
	{}
};

static struct kunit_suite evtchn_2l_test_suite = {
	.name = "xen_evtchn_2l",
	.init = evtchn_2l_test_init,
	.test_cases = evtchn_2l_test_cases,
};

kunit_test_suite(evtchn_2l_test_suite);
