// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the Xen 2-level event channel scanner
 * (drivers/xen/events/events_2l_scan.h).
 *
 * The corpus cases replay the pending-bit scripts of
 * drivers/xen/events/tests/corpus/, the same files the userspace
 * evtchn-replay tool reads.  The random cases compare the scanner with
 * a naive port-by-port sweep and check its properties on random states;
 * their seed is logged and can be fixed with the "seed" parameter.
 */

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/string.h>

#include "evtchn_2l_replay.h"

struct evr_corpus_script {
	const char *name;
	const char *text;
};

#include "evtchn_2l_corpus.h"

static unsigned int seed = 20260;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "Seed of the random cases (0: a random one, logged)");

/* The widest geometry this kernel's xen_ulong_t holds. */
#define EVTCHN_2L_WORD_BITS	min_t(unsigned int, BITS_PER_EVTCHN_WORD, 64)

KUNIT_DEFINE_ACTION_WRAPPER(evr_sim_destroy_action, evr_sim_destroy,
			    struct evr_sim *);

static struct evr_sim *evtchn_2l_new_sim(struct kunit *test,
					 unsigned int word_bits,
					 unsigned int nr_cpus)
{
	struct evr_sim *sim = evr_sim_create(word_bits, nr_cpus);

	KUNIT_ASSERT_NOT_NULL(test, sim);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, evr_sim_destroy_action,
						  sim));
	return sim;
}

/* ---- The corpus ---- */

static void evtchn_2l_corpus_desc(const struct evr_corpus_script *script,
				  char *desc)
{
	strscpy(desc, script->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(evtchn_2l_corpus, evr_corpus, evtchn_2l_corpus_desc);

static void evtchn_2l_test_corpus(struct kunit *test)
{
	const struct evr_corpus_script *script = test->param_value;
	struct evr_sim *sim = evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 1);
	int ret;

	ret = evr_run_script(sim, script->name, script->text,
			     strlen(script->text), false);
	if (ret == -EOPNOTSUPP)
		kunit_skip(test, "%s", sim->err);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", sim->err);
	/* A script that runs no upcall or checks nothing tests nothing. */
	KUNIT_EXPECT_GT(test, sim->upcalls, 0);
	KUNIT_EXPECT_GT(test, sim->expects, 0);
}

/* ---- Random states ---- */

static unsigned int evtchn_2l_seed(struct kunit *test)
{
	unsigned int s = seed ? seed : get_random_u32() | 1;

	kunit_info(test, "seed=%u (reproduce with xen_evtchn_2l_kunit.seed=%u)\n",
		   s, s);
	return s;
}

static u32 evtchn_2l_rand(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/*
 * Fill @sims (identical copies) with one random state: geometry, binding,
 * masks, timer ports, cursors, "on service" rules and pending ports.
 * @flood adds a rule to every port that makes it re-raise itself.
 */
static void evtchn_2l_random_state(struct evr_sim **sims, unsigned int nr,
				   struct rnd_state *rnd, unsigned int nr_cpus,
				   bool flood)
{
	unsigned int word_bits = evtchn_2l_rand(rnd, 4) ? 64 : 32;
	unsigned int ports, density, mask_density, i, s, c;

	if (word_bits > EVTCHN_2L_WORD_BITS)
		word_bits = EVTCHN_2L_WORD_BITS;
	ports = word_bits * word_bits;
	/* Sparse, medium or dense, out of 4096. */
	density = 1 << evtchn_2l_rand(rnd, 13);
	mask_density = evtchn_2l_rand(rnd, 3) ? 0 : 1 << evtchn_2l_rand(rnd, 12);

	for (s = 0; s < nr; s++) {
		evr_sim_set_geometry(sims[s], word_bits, nr_cpus);
		sims[s]->nr_rules = 0;
		sims[s]->nr_targets = 0;
	}

	/* Bind a random share of the ports elsewhere. */
	for (i = 0; nr_cpus > 1 && i < ports; i++) {
		c = evtchn_2l_rand(rnd, nr_cpus);
		for (s = 0; s < nr; s++)
			evr_bind(sims[s], i, c);
	}
	for (c = 0; c < nr_cpus; c++) {
		unsigned int cursor = evtchn_2l_rand(rnd, ports);
		unsigned int timer = evtchn_2l_rand(rnd, 2) ?
				     evtchn_2l_rand(rnd, ports) : EVR_NO_PORT;

		for (s = 0; s < nr; s++) {
			sims[s]->cpu[c].cursor.port = cursor;
			sims[s]->cpu[c].timer_port = timer;
		}
	}
	for (i = 0; i < ports; i++) {
		bool masked = mask_density &&
			      evtchn_2l_rand(rnd, 4096) < mask_density;
		bool pend = evtchn_2l_rand(rnd, 4096) < density;
		bool raw = evtchn_2l_rand(rnd, 64) == 0;
		bool rule = sims[0]->nr_rules < EVR_MAX_RULES &&
			    (flood || evtchn_2l_rand(rnd, 16) == 0);
		unsigned int other = evtchn_2l_rand(rnd, ports);
		unsigned int times = 1 + evtchn_2l_rand(rnd, 3);

		for (s = 0; s < nr; s++) {
			struct evr_sim *sim = sims[s];

			if (masked)
				evr_mask(sim, i);
			if (pend && raw)
				evr_raw_pend(sim, i);
			else if (pend)
				evr_pend(sim, i);
			if (!rule)
				continue;
			/* On service, re-raise itself (a flood) or another port. */
			sim->rules[sim->nr_rules] = (struct evr_rule) {
				.port = i,
				.times_left = flood ? 1000 : times,
				.first = sim->nr_targets,
				.count = 1,
			};
			sim->targets[sim->nr_targets++] = flood ? i : other;
			sim->nr_rules++;
		}
	}
	/* A few spurious selector bits. */
	for (c = 0; c < nr_cpus; c++) {
		unsigned int w = evtchn_2l_rand(rnd, word_bits);
		bool spurious = evtchn_2l_rand(rnd, 4) == 0;

		for (s = 0; spurious && s < nr; s++)
			sims[s]->cpu[c].sel |= BIT_ULL(w);
	}
}

/* One pass of the scanner under test, with the upcall log cleared. */
static void evtchn_2l_rr_pass(struct evr_sim *sim, unsigned int cpu)
{
	sim->log_len = 0;
	evr_policy_rr.pass(sim, cpu);
}

/*
 * The specification, written as plainly as possible: a timer check, then
 * the visits of the selector snapshot's words from the cursor, each read
 * port by port at the start of its visit.
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
		unsigned int w = (w0 + i) % wb, lo = 0, hi = wb;

		if (i == 0)
			lo = b0;
		if (i == wb) {
			if (!b0)
				break;
			hi = b0;
		}
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

static void evtchn_2l_expect_same(struct kunit *test, struct evr_sim *a,
				  struct evr_sim *b, unsigned int iter)
{
	unsigned int i, c;

	KUNIT_ASSERT_EQ_MSG(test, a->log_len, b->log_len, "pass %u", iter);
	for (i = 0; i < a->log_len; i++)
		KUNIT_ASSERT_EQ_MSG(test, a->log[i], b->log[i],
				    "pass %u, service %u", iter, i);
	for (i = 0; i < a->word_bits; i++)
		KUNIT_ASSERT_EQ_MSG(test, a->pending[i], b->pending[i],
				    "pass %u, word %u", iter, i);
	for (c = 0; c < a->nr_cpus; c++) {
		KUNIT_ASSERT_EQ_MSG(test, a->cpu[c].cursor.port,
				    b->cpu[c].cursor.port, "pass %u, cpu %u",
				    iter, c);
		KUNIT_ASSERT_EQ_MSG(test, a->cpu[c].sel, b->cpu[c].sel,
				    "pass %u, cpu %u", iter, c);
		KUNIT_ASSERT_EQ_MSG(test, a->cpu[c].upcall_pending,
				    b->cpu[c].upcall_pending, "pass %u, cpu %u",
				    iter, c);
	}
}

#define EVTCHN_2L_DIFF_PASSES	4000
#define EVTCHN_2L_DIFF_STATES	100

static void evtchn_2l_test_matches_reference(struct kunit *test)
{
	struct evr_sim *sims[2] = {
		evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 1),
		evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 1),
	};
	struct rnd_state rnd;
	unsigned int iter, nr_cpus = 1, services = 0;

	prandom_seed_state(&rnd, evtchn_2l_seed(test));
	for (iter = 0; iter < EVTCHN_2L_DIFF_PASSES; iter++) {
		unsigned int cpu, extra, i;

		if (iter % (EVTCHN_2L_DIFF_PASSES / EVTCHN_2L_DIFF_STATES) == 0) {
			nr_cpus = 1 + evtchn_2l_rand(&rnd, 3);
			evtchn_2l_random_state(sims, 2, &rnd, nr_cpus, false);
		}
		/* New arrivals between passes. */
		extra = evtchn_2l_rand(&rnd, 8);
		for (i = 0; i < extra; i++) {
			unsigned int port = evtchn_2l_rand(&rnd, sims[0]->nr_ports);

			evr_pend(sims[0], port);
			evr_pend(sims[1], port);
		}
		cpu = evtchn_2l_rand(&rnd, nr_cpus);
		evtchn_2l_rr_pass(sims[0], cpu);
		evtchn_2l_reference_pass(sims[1], cpu);
		evtchn_2l_expect_same(test, sims[0], sims[1], iter);
		services += sims[0]->log_len;
	}
	kunit_info(test, "%u passes, %u services\n", iter, services);
	/* The comparison must have covered real work. */
	KUNIT_EXPECT_GT(test, services, EVTCHN_2L_DIFF_PASSES);
}

/* ---- Properties on random states ---- */

#define EVTCHN_2L_PROP_STATES	300

struct evtchn_2l_snapshot {
	bool active[EVR_MAX_PORTS];
	bool pending[EVR_MAX_PORTS];
	bool timer_active;
};

static void evtchn_2l_snapshot(struct evr_sim *sim, unsigned int cpu,
			       struct evtchn_2l_snapshot *snap)
{
	unsigned int port, timer = sim->cpu[cpu].timer_port;

	for (port = 0; port < sim->nr_ports; port++) {
		snap->active[port] = evr_port_active(sim, cpu, port);
		snap->pending[port] = evr_port_pending(sim, port);
	}
	snap->timer_active = timer != EVR_NO_PORT && snap->active[timer];
}

static struct evtchn_2l_snapshot *evtchn_2l_new_snapshot(struct kunit *test)
{
	struct evtchn_2l_snapshot *snap = kunit_kzalloc(test, sizeof(*snap),
							GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, snap);
	return snap;
}

/* Each port is serviced at most once per pass, even when it floods. */
static void evtchn_2l_test_once_per_pass(struct kunit *test)
{
	struct evr_sim *sim = evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 1);
	struct evtchn_2l_snapshot *snap = evtchn_2l_new_snapshot(test);
	u8 *count = kunit_kzalloc(test, EVR_MAX_PORTS, GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int iter, i, repeated = 0;

	KUNIT_ASSERT_NOT_NULL(test, count);
	prandom_seed_state(&rnd, evtchn_2l_seed(test));
	for (iter = 0; iter < EVTCHN_2L_PROP_STATES; iter++) {
		evtchn_2l_random_state(&sim, 1, &rnd, 1, true);
		evtchn_2l_snapshot(sim, 0, snap);
		evtchn_2l_rr_pass(sim, 0);

		memset(count, 0, EVR_MAX_PORTS);
		/* The timer's own service before the scan does not count. */
		for (i = snap->timer_active ? 1 : 0; i < sim->log_len; i++) {
			count[sim->log[i]]++;
			KUNIT_ASSERT_LE_MSG(test, count[sim->log[i]], 1,
					    "state %u: port %u serviced twice",
					    iter, sim->log[i]);
		}
		/* Serviced ports with a rule re-raised themselves. */
		if (sim->log_len)
			repeated += sim->cpu[0].upcall_pending;
	}
	KUNIT_EXPECT_GT(test, repeated, 0);
}

/*
 * Without arrivals during the pass, a pass services exactly the ports
 * that were active on this CPU, each once, and leaves none active.
 */
static void evtchn_2l_test_services_every_active_port(struct kunit *test)
{
	struct evr_sim *sim = evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 3);
	struct evtchn_2l_snapshot *snap = evtchn_2l_new_snapshot(test);
	struct rnd_state rnd;
	unsigned int iter, i, port, expected;

	prandom_seed_state(&rnd, evtchn_2l_seed(test));
	for (iter = 0; iter < EVTCHN_2L_PROP_STATES; iter++) {
		evtchn_2l_random_state(&sim, 1, &rnd, 1 + iter % 3, false);
		sim->nr_rules = 0;
		/* Xen's invariant: a word with active ports has its selector bit. */
		for (i = 0; i < sim->word_bits; i++)
			if (evr_active_word(sim, 0, i))
				sim->cpu[0].sel |= BIT_ULL(i);
		evtchn_2l_snapshot(sim, 0, snap);
		evtchn_2l_rr_pass(sim, 0);

		/* The timer, if active, is one of them, and first. */
		expected = 0;
		for (port = 0; port < sim->nr_ports; port++)
			expected += snap->active[port];
		KUNIT_ASSERT_EQ_MSG(test, sim->log_len, expected, "state %u",
				    iter);
		if (snap->timer_active)
			KUNIT_ASSERT_EQ_MSG(test, sim->log[0],
					    sim->cpu[0].timer_port, "state %u",
					    iter);
		for (i = 0; i < sim->log_len; i++)
			KUNIT_ASSERT_TRUE_MSG(test, snap->active[sim->log[i]],
					      "state %u: port %u was not active",
					      iter, sim->log[i]);
		for (port = 0; port < sim->nr_ports; port++)
			KUNIT_ASSERT_FALSE_MSG(test,
					       evr_port_active(sim, 0, port),
					       "state %u: port %u left active",
					       iter, port);
	}
}

/* After a pass the cursor is the port after the last one the scan serviced. */
static void evtchn_2l_test_cursor_follows_last_service(struct kunit *test)
{
	struct evr_sim *sim = evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 1);
	struct evtchn_2l_snapshot *snap = evtchn_2l_new_snapshot(test);
	struct rnd_state rnd;
	unsigned int iter, before, moved = 0;

	prandom_seed_state(&rnd, evtchn_2l_seed(test));
	for (iter = 0; iter < EVTCHN_2L_PROP_STATES; iter++) {
		evtchn_2l_random_state(&sim, 1, &rnd, 1, false);
		evtchn_2l_snapshot(sim, 0, snap);
		before = sim->cpu[0].cursor.port;
		evtchn_2l_rr_pass(sim, 0);

		if (sim->log_len > snap->timer_active) {
			unsigned int last = sim->log[sim->log_len - 1];

			KUNIT_ASSERT_EQ_MSG(test, sim->cpu[0].cursor.port,
					    (last + 1) % sim->nr_ports,
					    "state %u", iter);
			moved++;
		} else {
			/* Nothing or only the timer: the cursor stays. */
			KUNIT_ASSERT_EQ_MSG(test, sim->cpu[0].cursor.port, before,
					    "state %u", iter);
		}
	}
	KUNIT_EXPECT_GT(test, moved, 0);
}

/* Ports bound to another CPU and masked ports are never serviced. */
static void evtchn_2l_test_leaves_other_ports(struct kunit *test)
{
	struct evr_sim *sim = evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 3);
	struct evtchn_2l_snapshot *snap = evtchn_2l_new_snapshot(test);
	struct rnd_state rnd;
	unsigned int iter, i, port, cpu, left = 0;

	prandom_seed_state(&rnd, evtchn_2l_seed(test));
	for (iter = 0; iter < EVTCHN_2L_PROP_STATES; iter++) {
		evtchn_2l_random_state(&sim, 1, &rnd, 3, false);
		sim->nr_rules = 0;
		cpu = evtchn_2l_rand(&rnd, 3);
		/* Raise every word's selector bit: scan everything. */
		sim->cpu[cpu].sel = sim->word_bits == 64 ? ~0ULL :
				    BIT_ULL(sim->word_bits) - 1;
		evtchn_2l_snapshot(sim, cpu, snap);
		evtchn_2l_rr_pass(sim, cpu);

		for (i = 0; i < sim->log_len; i++) {
			port = sim->log[i];
			KUNIT_ASSERT_EQ_MSG(test, sim->port_cpu[port], cpu,
					    "state %u: port %u of cpu %u serviced on cpu %u",
					    iter, port, sim->port_cpu[port], cpu);
			KUNIT_ASSERT_TRUE_MSG(test, snap->active[port],
					      "state %u: masked port %u serviced",
					      iter, port);
		}
		for (port = 0; port < sim->nr_ports; port++) {
			if (!snap->pending[port] || snap->active[port])
				continue;
			KUNIT_ASSERT_TRUE_MSG(test, evr_port_pending(sim, port),
					      "state %u: port %u cleared", iter,
					      port);
			left++;
		}
	}
	KUNIT_EXPECT_GT(test, left, 0);
}

/* Each CPU's cursor moves only with that CPU's passes. */
static void evtchn_2l_test_cursors_per_cpu(struct kunit *test)
{
	struct evr_sim *sim = evtchn_2l_new_sim(test, EVTCHN_2L_WORD_BITS, 3);
	unsigned int before[EVR_MAX_CPUS];
	struct rnd_state rnd;
	unsigned int iter, c, cpu, moved = 0;

	prandom_seed_state(&rnd, evtchn_2l_seed(test));
	for (iter = 0; iter < EVTCHN_2L_PROP_STATES; iter++) {
		if (iter % 10 == 0)
			evtchn_2l_random_state(&sim, 1, &rnd, 3, false);
		for (c = 0; c < 3; c++)
			before[c] = sim->cpu[c].cursor.port;
		cpu = evtchn_2l_rand(&rnd, 3);
		evtchn_2l_rr_pass(sim, cpu);

		for (c = 0; c < 3; c++) {
			if (c == cpu) {
				moved += sim->cpu[c].cursor.port != before[c];
				continue;
			}
			KUNIT_ASSERT_EQ_MSG(test, sim->cpu[c].cursor.port,
					    before[c],
					    "pass %u on cpu %u moved cpu %u's cursor",
					    iter, cpu, c);
		}
	}
	KUNIT_EXPECT_GT(test, moved, 0);
}

/* ---- Cost ---- */

struct evtchn_2l_cost {
	xen_ulong_t active[EVR_MAX_WORD_BITS];
	unsigned long serviced;
};

static xen_ulong_t evtchn_2l_cost_active(unsigned int word, void *data)
{
	struct evtchn_2l_cost *cost = data;

	return cost->active[word];
}

static void evtchn_2l_cost_service(evtchn_port_t port, void *data)
{
	struct evtchn_2l_cost *cost = data;

	cost->serviced++;
}

#define EVTCHN_2L_COST_PASSES	2000

/*
 * Time passes over every port active with a handler that does nothing,
 * and empty passes.  The figures are printed, never asserted on; what is
 * asserted is that each pass serviced every port.
 */
static void evtchn_2l_test_scan_cost(struct kunit *test)
{
	struct evtchn_2l_cost *cost = kunit_kzalloc(test, sizeof(*cost),
						    GFP_KERNEL);
	struct evtchn_2l_cursor cursor = { .port = 0 };
	unsigned int wb = EVTCHN_2L_WORD_BITS, nr_ports = wb * wb, i;
	u64 t0, full_ns, empty_ns;

	KUNIT_ASSERT_NOT_NULL(test, cost);
	for (i = 0; i < wb; i++)
		cost->active[i] = ~(xen_ulong_t)0;

	t0 = ktime_get_ns();
	for (i = 0; i < EVTCHN_2L_COST_PASSES; i++)
		evtchn_2l_scan(~(xen_ulong_t)0, wb, &cursor,
			       evtchn_2l_cost_active, evtchn_2l_cost_service,
			       cost);
	full_ns = ktime_get_ns() - t0;
	KUNIT_ASSERT_EQ(test, cost->serviced,
			(unsigned long)EVTCHN_2L_COST_PASSES * nr_ports);

	t0 = ktime_get_ns();
	for (i = 0; i < EVTCHN_2L_COST_PASSES; i++) {
		xen_ulong_t none = 0;

		/* An empty selector the compiler cannot see through. */
		OPTIMIZER_HIDE_VAR(none);
		evtchn_2l_scan(none, wb, &cursor, evtchn_2l_cost_active,
			       evtchn_2l_cost_service, cost);
	}
	empty_ns = ktime_get_ns() - t0;
	KUNIT_EXPECT_EQ(test, cost->serviced,
			(unsigned long)EVTCHN_2L_COST_PASSES * nr_ports);

	kunit_info(test, "%u ports active: %llu ns per pass, %llu ps per serviced port\n",
		   nr_ports, div_u64(full_ns, EVTCHN_2L_COST_PASSES),
		   div_u64(full_ns * 1000, EVTCHN_2L_COST_PASSES * nr_ports));
	kunit_info(test, "empty pass: %llu ps\n",
		   div_u64(empty_ns * 1000, EVTCHN_2L_COST_PASSES));
}

static struct kunit_case evtchn_2l_test_cases[] = {
	KUNIT_CASE_PARAM(evtchn_2l_test_corpus, evtchn_2l_corpus_gen_params),
	KUNIT_CASE(evtchn_2l_test_matches_reference),
	KUNIT_CASE(evtchn_2l_test_once_per_pass),
	KUNIT_CASE(evtchn_2l_test_services_every_active_port),
	KUNIT_CASE(evtchn_2l_test_cursor_follows_last_service),
	KUNIT_CASE(evtchn_2l_test_leaves_other_ports),
	KUNIT_CASE(evtchn_2l_test_cursors_per_cpu),
	KUNIT_CASE_SLOW(evtchn_2l_test_scan_cost),
	{}
};

static struct kunit_suite evtchn_2l_test_suite = {
	.name = "xen_evtchn_2l",
	.test_cases = evtchn_2l_test_cases,
};

kunit_test_suite(evtchn_2l_test_suite);

MODULE_DESCRIPTION("KUnit tests for the Xen 2-level event channel scanner");
MODULE_LICENSE("GPL");
