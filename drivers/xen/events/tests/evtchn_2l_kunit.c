// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the Xen 2-level event channel scanner
 * (drivers/xen/events/events_2l_scan.h).
 *
 * The corpus cases run the scripts of drivers/xen/events/tests/corpus/,
 * turned into tables of steps at build time by gen-corpus (with
 * evtchn-replay's parser, tools/testing/xen-evtchn/).  The random cases
 * compare the scanner with a naive port-by-port sweep and check its
 * properties on random states; their seed is logged and can be fixed
 * with the "seed" parameter.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/string.h>

#include "evtchn_2l_replay.h"
#include "evtchn_2l_corpus.h"

static unsigned int seed = 20260;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "Seed of the random cases (0: a random one, logged)");

/* The widest geometry this kernel's xen_ulong_t holds. */
#define EVTCHN_2L_WORD_BITS	min_t(unsigned int, BITS_PER_EVTCHN_WORD, 64)

KUNIT_DEFINE_ACTION_WRAPPER(evr_sim_destroy_action, evr_sim_destroy,
			    struct evr_sim *);

static struct evr_sim *evtchn_2l_new_sim(struct kunit *test)
{
	struct evr_sim *sim = evr_sim_create(EVTCHN_2L_WORD_BITS, 1);

	KUNIT_ASSERT_NOT_NULL(test, sim);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, evr_sim_destroy_action,
						  sim));
	return sim;
}

/* ---- The corpus ---- */

static void evtchn_2l_corpus_desc(const struct evr_script *script, char *desc)
{
	strscpy(desc, script->name, KUNIT_PARAM_DESC_SIZE);
	strreplace(desc, '.', '\0');
}

KUNIT_ARRAY_PARAM(evtchn_2l_corpus, evr_corpus, evtchn_2l_corpus_desc);

static void evtchn_2l_test_corpus(struct kunit *test)
{
	const struct evr_script *script = test->param_value;
	struct evr_sim *sim = evtchn_2l_new_sim(test);
	int ret = evr_run(sim, script);

	if (ret == -EOPNOTSUPP)
		kunit_skip(test, "%s", sim->err);
	/* "NAME:LINE: expect failed at position P: expected ..., serviced ..." */
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s", sim->err);
	/* A script that runs no upcall or checks nothing tests nothing. */
	KUNIT_EXPECT_GT(test, sim->upcalls, 0);
	KUNIT_EXPECT_GT(test, sim->expects, 0);
}

/* ---- Random states ---- */

static struct rnd_state *evtchn_2l_rnd(struct kunit *test)
{
	struct rnd_state *rnd = kunit_kzalloc(test, sizeof(*rnd), GFP_KERNEL);
	unsigned int s = seed ? seed : get_random_u32() | 1;

	KUNIT_ASSERT_NOT_NULL(test, rnd);
	kunit_info(test, "seed=%u (reproduce with xen_evtchn_2l_kunit.seed=%u)\n",
		   s, s);
	prandom_seed_state(rnd, s);
	return rnd;
}

static u32 evtchn_2l_rand(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/*
 * Give @sim a random state: geometry, binding, masks, timer ports,
 * cursors, pending ports, spurious selector bits and "on service" rules
 * (their targets in @targets, one per port): a rule pends another port,
 * or with @flood the port itself again, up to 1000 times; @flood puts a
 * rule on every port while there is room for one.
 */
static void evtchn_2l_random_state(struct evr_sim *sim, unsigned int *targets,
				   struct rnd_state *rnd, unsigned int nr_cpus,
				   bool flood)
{
	unsigned int word_bits = evtchn_2l_rand(rnd, 4) ? 64 : 32;
	unsigned int ports, density, mask_density, i, c;

	word_bits = min(word_bits, EVTCHN_2L_WORD_BITS);
	ports = word_bits * word_bits;
	/* Sparse, medium or dense, out of 4096. */
	density = 1 << evtchn_2l_rand(rnd, 13);
	mask_density = evtchn_2l_rand(rnd, 3) ? 0 : 1 << evtchn_2l_rand(rnd, 12);
	evr_sim_reset(sim, word_bits, nr_cpus);

	for (i = 0; i < ports; i++) {
		unsigned int other = flood ? i : evtchn_2l_rand(rnd, ports);
		unsigned int times = flood ? 1000 : 1 + evtchn_2l_rand(rnd, 3);

		evr_bind(sim, i, evtchn_2l_rand(rnd, nr_cpus));
		if (evtchn_2l_rand(rnd, 4096) < mask_density)
			evr_mask(sim, i);
		if (evtchn_2l_rand(rnd, 4096) < density) {
			if (evtchn_2l_rand(rnd, 64))
				evr_pend(sim, i);
			else
				evr_raw_pend(sim, i);
		}
		targets[i] = other;
		if (sim->nr_rules < EVR_MAX_RULES &&
		    (flood || evtchn_2l_rand(rnd, 16) == 0))
			sim->rules[sim->nr_rules++] = (struct evr_rule){
				.port = i, .times_left = times,
				.ports = &targets[i], .nr = 1,
			};
	}
	for (c = 0; c < nr_cpus; c++) {
		struct evr_cpu *cpu = &sim->cpu[c];

		cpu->cursor.port = evtchn_2l_rand(rnd, ports);
		if (evtchn_2l_rand(rnd, 2))
			cpu->timer_port = evtchn_2l_rand(rnd, ports);
		if (!evtchn_2l_rand(rnd, 4))
			cpu->sel |= BIT_ULL(evtchn_2l_rand(rnd, word_bits));
	}
}

/*
 * The specification, written as plainly as possible: a timer check, then
 * the visits of the selector snapshot's words from the cursor, each read
 * port by port at the start of its visit; the cursor's word is visited a
 * second time for its ports below the cursor.
 */
static void evtchn_2l_reference_pass(struct evr_sim *sim, unsigned int cpu)
{
	struct evr_cpu *c = &sim->cpu[cpu];
	unsigned int wb = sim->word_bits, w0, b0, i, b;
	bool active[EVR_MAX_WORD_BITS];
	u64 sel;

	sim->log_len = 0;
	if (c->timer_port != EVR_NO_PORT &&
	    evr_port_active(sim, cpu, c->timer_port))
		evr_service(sim, c->timer_port);

	sel = c->sel;
	c->sel = 0;
	w0 = c->cursor.port / wb;
	b0 = c->cursor.port % wb;
	for (i = 0; i <= wb; i++) {
		unsigned int w = (w0 + i) % wb;
		unsigned int lo = i ? 0 : b0, hi = i == wb ? b0 : wb;

		if (!(sel & BIT_ULL(w)))
			continue;
		for (b = 0; b < wb; b++)
			active[b] = evr_port_active(sim, cpu, w * wb + b);
		for (b = lo; b < hi; b++) {
			if (!active[b])
				continue;
			evr_service(sim, w * wb + b);
			c->cursor.port = (w * wb + b + 1) % sim->nr_ports;
		}
	}
}

#define EVTCHN_2L_DIFF_PASSES	4000
#define EVTCHN_2L_DIFF_STATES	100

static void evtchn_2l_test_matches_reference(struct kunit *test)
{
	struct evr_sim *a = evtchn_2l_new_sim(test), *b = evtchn_2l_new_sim(test);
	unsigned int *targets = kunit_kcalloc(test, EVR_MAX_PORTS,
					      sizeof(*targets), GFP_KERNEL);
	struct rnd_state *rnd = evtchn_2l_rnd(test);
	unsigned int iter, i, c, nr_cpus = 1, services = 0;

	KUNIT_ASSERT_NOT_NULL(test, targets);
	for (iter = 0; iter < EVTCHN_2L_DIFF_PASSES; iter++) {
		unsigned int cpu, extra = evtchn_2l_rand(rnd, 8);

		if (iter % (EVTCHN_2L_DIFF_PASSES / EVTCHN_2L_DIFF_STATES) == 0) {
			struct rnd_state copy;

			/* Two identical states, from the same random stream. */
			nr_cpus = 1 + evtchn_2l_rand(rnd, 3);
			copy = *rnd;
			evtchn_2l_random_state(a, targets, rnd, nr_cpus, false);
			evtchn_2l_random_state(b, targets, &copy, nr_cpus, false);
		}
		/* New arrivals between passes. */
		for (i = 0; i < extra; i++) {
			unsigned int port = evtchn_2l_rand(rnd, a->nr_ports);

			evr_pend(a, port);
			evr_pend(b, port);
		}
		/* As xen_evtchn_do_upcall() does before each pass. */
		cpu = evtchn_2l_rand(rnd, nr_cpus);
		a->cpu[cpu].upcall_pending = false;
		b->cpu[cpu].upcall_pending = false;
		a->log_len = 0;
		evr_pass_rr(a, cpu);
		evtchn_2l_reference_pass(b, cpu);

		KUNIT_ASSERT_EQ_MSG(test, a->log_len, b->log_len, "pass %u", iter);
		for (i = 0; i < a->log_len; i++)
			KUNIT_ASSERT_EQ_MSG(test, a->log[i], b->log[i],
					    "pass %u, service %u", iter, i);
		KUNIT_ASSERT_MEMEQ_MSG(test, a->pending, b->pending,
				       sizeof(a->pending), "pass %u", iter);
		for (c = 0; c < nr_cpus; c++) {
			struct evr_cpu *ca = &a->cpu[c], *cb = &b->cpu[c];

			KUNIT_ASSERT_TRUE_MSG(test, ca->cursor.port == cb->cursor.port &&
					      ca->sel == cb->sel &&
					      ca->upcall_pending == cb->upcall_pending,
					      "pass %u, cpu %u: cursor %u, selector %llx, upcall %d; reference %u, %llx, %d",
					      iter, c, ca->cursor.port, ca->sel,
					      ca->upcall_pending, cb->cursor.port,
					      cb->sel, cb->upcall_pending);
		}
		services += a->log_len;
	}
	kunit_info(test, "%u passes, %u services\n", iter, services);
	/* The comparison must have covered real work. */
	KUNIT_EXPECT_GT(test, services, EVTCHN_2L_DIFF_PASSES);
}

/* ---- Properties on random states ---- */

#define EVTCHN_2L_PROP_STATES	300

/* One pass on one random state: @sim after it, the rest from before it. */
struct evtchn_2l_prop {
	struct evr_sim *sim;
	unsigned int cpu;		/* the CPU of the pass */
	bool active[EVR_MAX_PORTS];	/* the ports active on @cpu */
	bool pending[EVR_MAX_PORTS];
	bool seen[EVR_MAX_PORTS];	/* for the check's own use */
	bool timer_active;		/* @cpu's VIRQ_TIMER port was active */
	unsigned int cursor;		/* @cpu's cursor */
	unsigned int state;		/* the number of the state */
	unsigned int count;		/* what the check counted */
};

enum { EVTCHN_2L_NO_RULES, EVTCHN_2L_RULES, EVTCHN_2L_FLOOD };

/*
 * Run @check after one pass on each of EVTCHN_2L_PROP_STATES random
 * states with @nr_cpus CPUs (the pass on a random one), with @rules
 * (none, random ones, or a flood on every port); with @all_words every
 * selector bit of the CPU is raised and the pass scans every word.  Then
 * expect @check to have counted something.
 */
static void evtchn_2l_check_passes(struct kunit *test, unsigned int nr_cpus,
				   int rules, bool all_words,
				   void (*check)(struct kunit *test,
						 struct evtchn_2l_prop *p))
{
	struct evtchn_2l_prop *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int *targets = kunit_kcalloc(test, EVR_MAX_PORTS,
					      sizeof(*targets), GFP_KERNEL);
	struct rnd_state *rnd = evtchn_2l_rnd(test);
	unsigned int port;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, targets);
	p->sim = evtchn_2l_new_sim(test);
	for (p->state = 0; p->state < EVTCHN_2L_PROP_STATES; p->state++) {
		struct evr_sim *sim = p->sim;
		struct evr_cpu *c;

		evtchn_2l_random_state(sim, targets, rnd, nr_cpus,
				       rules == EVTCHN_2L_FLOOD);
		p->cpu = evtchn_2l_rand(rnd, nr_cpus);
		c = &sim->cpu[p->cpu];
		if (rules == EVTCHN_2L_NO_RULES)
			sim->nr_rules = 0;
		/* Xen's invariant: a word with active ports has its bit. */
		for (port = 0; port < sim->word_bits; port++)
			if (all_words || evr_active_word(sim, p->cpu, port))
				c->sel |= BIT_ULL(port);
		for (port = 0; port < sim->nr_ports; port++) {
			p->active[port] = evr_port_active(sim, p->cpu, port);
			p->pending[port] = evr_port_pending(sim, port);
		}
		p->timer_active = c->timer_port != EVR_NO_PORT &&
				  p->active[c->timer_port];
		p->cursor = c->cursor.port;
		/* As xen_evtchn_do_upcall() does before each pass. */
		c->upcall_pending = false;
		sim->log_len = 0;
		evr_pass_rr(sim, p->cpu);
		check(test, p);
	}
	KUNIT_EXPECT_GT(test, p->count, 0);
}

/* Each port is serviced at most once per pass, even when it floods. */
static void evtchn_2l_check_once(struct kunit *test, struct evtchn_2l_prop *p)
{
	struct evr_sim *sim = p->sim;
	u32 i;

	memset(p->seen, 0, sizeof(p->seen));
	/* The timer's own service before the scan does not count. */
	for (i = p->timer_active; i < sim->log_len; i++) {
		KUNIT_ASSERT_FALSE_MSG(test, p->seen[sim->log[i]],
				       "state %u: port %u serviced twice",
				       p->state, sim->log[i]);
		p->seen[sim->log[i]] = true;
	}
	/* Count the passes whose serviced ports re-raised themselves. */
	p->count += sim->log_len && sim->cpu[p->cpu].upcall_pending;
}

static void evtchn_2l_test_once_per_pass(struct kunit *test)
{
	evtchn_2l_check_passes(test, 1, EVTCHN_2L_FLOOD, false,
			       evtchn_2l_check_once);
}

/*
 * Without arrivals during the pass, a pass services exactly the ports
 * that were active on its CPU, each once, the timer's first, and leaves
 * none active.
 */
static void evtchn_2l_check_every_active(struct kunit *test,
					 struct evtchn_2l_prop *p)
{
	struct evr_sim *sim = p->sim;
	unsigned int port, expected = 0;

	for (port = 0; port < sim->nr_ports; port++) {
		expected += p->active[port];
		KUNIT_ASSERT_FALSE_MSG(test, evr_port_active(sim, p->cpu, port),
				       "state %u: port %u left active",
				       p->state, port);
	}
	KUNIT_ASSERT_EQ_MSG(test, sim->log_len, expected, "state %u", p->state);
	for (port = 0; port < sim->log_len; port++)
		KUNIT_ASSERT_TRUE_MSG(test, p->active[sim->log[port]],
				      "state %u: port %u was not active",
				      p->state, sim->log[port]);
	if (p->timer_active)
		KUNIT_ASSERT_EQ_MSG(test, sim->log[0],
				    sim->cpu[p->cpu].timer_port, "state %u",
				    p->state);
	p->count += sim->log_len;
}

static void evtchn_2l_test_services_every_active_port(struct kunit *test)
{
	evtchn_2l_check_passes(test, 3, EVTCHN_2L_NO_RULES, false,
			       evtchn_2l_check_every_active);
}

/* After a pass the cursor is the port after the last one the scan serviced. */
static void evtchn_2l_check_cursor(struct kunit *test, struct evtchn_2l_prop *p)
{
	struct evr_sim *sim = p->sim;
	unsigned int cursor = sim->cpu[p->cpu].cursor.port;

	if (sim->log_len > p->timer_active) {
		KUNIT_ASSERT_EQ_MSG(test, cursor,
				    (sim->log[sim->log_len - 1] + 1) % sim->nr_ports,
				    "state %u", p->state);
		p->count++;
	} else {
		/* Nothing or only the timer: the cursor stays. */
		KUNIT_ASSERT_EQ_MSG(test, cursor, p->cursor, "state %u",
				    p->state);
	}
}

static void evtchn_2l_test_cursor_follows_last_service(struct kunit *test)
{
	evtchn_2l_check_passes(test, 1, EVTCHN_2L_RULES, false,
			       evtchn_2l_check_cursor);
}

/*
 * With every selector bit raised, ports bound to another CPU and masked
 * ports are still never serviced, nor their pending bits cleared.
 */
static void evtchn_2l_check_others(struct kunit *test, struct evtchn_2l_prop *p)
{
	struct evr_sim *sim = p->sim;
	unsigned int i, port;

	for (i = 0; i < sim->log_len; i++) {
		port = sim->log[i];
		KUNIT_ASSERT_EQ_MSG(test, sim->port_cpu[port], p->cpu,
				    "state %u: port %u of cpu %u serviced on cpu %u",
				    p->state, port, sim->port_cpu[port], p->cpu);
		KUNIT_ASSERT_TRUE_MSG(test, p->active[port],
				      "state %u: masked port %u serviced",
				      p->state, port);
	}
	for (port = 0; port < sim->nr_ports; port++) {
		if (!p->pending[port] || p->active[port])
			continue;
		KUNIT_ASSERT_TRUE_MSG(test, evr_port_pending(sim, port),
				      "state %u: port %u cleared", p->state, port);
		p->count++;
	}
}

static void evtchn_2l_test_leaves_other_ports(struct kunit *test)
{
	evtchn_2l_check_passes(test, 3, EVTCHN_2L_NO_RULES, true,
			       evtchn_2l_check_others);
}

static struct kunit_case evtchn_2l_test_cases[] = {
	KUNIT_CASE_PARAM(evtchn_2l_test_corpus, evtchn_2l_corpus_gen_params),
	KUNIT_CASE(evtchn_2l_test_matches_reference),
	KUNIT_CASE(evtchn_2l_test_once_per_pass),
	KUNIT_CASE(evtchn_2l_test_services_every_active_port),
	KUNIT_CASE(evtchn_2l_test_cursor_follows_last_service),
	KUNIT_CASE(evtchn_2l_test_leaves_other_ports),
	{}
};

static struct kunit_suite evtchn_2l_test_suite = {
	.name = "xen_evtchn_2l",
	.test_cases = evtchn_2l_test_cases,
};

kunit_test_suite(evtchn_2l_test_suite);

MODULE_DESCRIPTION("KUnit tests for the Xen 2-level event channel scanner");
MODULE_LICENSE("GPL");
