// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay engine for the Xen 2-level event channel scanner: the model of
 * shared_info and the vCPUs, and the step executor.  See
 * evtchn_2l_replay.h.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "evtchn_2l_replay.h"

#define evr_bit(bit)	((u64)1 << (bit))
#define evr_word(sim, port)	((port) / (sim)->word_bits)
#define evr_port_bit(sim, port)	evr_bit((port) % (sim)->word_bits)

int evr_sim_reset(struct evr_sim *sim, unsigned int word_bits,
		  unsigned int nr_cpus)
{
	unsigned int i;

	if ((word_bits != 32 && word_bits != 64) || !nr_cpus ||
	    nr_cpus > EVR_MAX_CPUS)
		return -EINVAL;
	/* The core's words are xen_ulong_t: no wider geometry fits. */
	if (word_bits > BITS_PER_EVTCHN_WORD)
		return -EOPNOTSUPP;

	sim->word_bits = word_bits;
	sim->nr_ports = word_bits * word_bits;
	sim->nr_cpus = nr_cpus;
	sim->nr_rules = 0;
	memset(sim->pending, 0, sizeof(sim->pending));
	memset(sim->mask, 0, sizeof(sim->mask));
	memset(sim->port_cpu, 0, sizeof(sim->port_cpu));
	memset(sim->cpu, 0, sizeof(sim->cpu));
	for (i = 0; i < EVR_MAX_CPUS; i++)
		sim->cpu[i].timer_port = EVR_NO_PORT;
	/* Every port starts bound to CPU 0. */
	for (i = 0; i < word_bits; i++)
		sim->cpu[0].bound[i] = word_bits == 64 ? ~0ULL :
				       evr_bit(word_bits) - 1;
	return 0;
}

struct evr_sim *evr_sim_create(unsigned int word_bits, unsigned int nr_cpus)
{
	struct evr_sim *sim = kvzalloc(sizeof(*sim), GFP_KERNEL);

	if (sim && evr_sim_reset(sim, word_bits, nr_cpus)) {
		kvfree(sim);
		return NULL;
	}
	if (sim)
		sim->pass = evr_pass_rr;
	return sim;
}

void evr_sim_destroy(struct evr_sim *sim)
{
	if (sim)
		kvfree(sim->log);
	kvfree(sim);
}

bool evr_port_pending(const struct evr_sim *sim, unsigned int port)
{
	return sim->pending[evr_word(sim, port)] & evr_port_bit(sim, port);
}

u64 evr_active_word(const struct evr_sim *sim, unsigned int cpu,
		    unsigned int word)
{
	return sim->pending[word] & ~sim->mask[word] & sim->cpu[cpu].bound[word];
}

bool evr_port_active(const struct evr_sim *sim, unsigned int cpu,
		     unsigned int port)
{
	return evr_active_word(sim, cpu, evr_word(sim, port)) &
	       evr_port_bit(sim, port);
}

/* Xen's "mark the selector word": raise the upcall flag on a 0->1 edge. */
static void evr_raise(struct evr_sim *sim, unsigned int port)
{
	struct evr_cpu *cpu = &sim->cpu[sim->port_cpu[port]];
	u64 bit = evr_bit(evr_word(sim, port));

	if (!(cpu->sel & bit)) {
		cpu->sel |= bit;
		cpu->upcall_pending = true;
	}
}

void evr_raw_pend(struct evr_sim *sim, unsigned int port)
{
	if (evr_port_pending(sim, port))
		return;
	sim->pending[evr_word(sim, port)] |= evr_port_bit(sim, port);
	if (sim->on_pend)
		sim->on_pend(sim, port);
}

void evr_pend(struct evr_sim *sim, unsigned int port)
{
	if (evr_port_pending(sim, port))
		return;
	evr_raw_pend(sim, port);
	if (!(sim->mask[evr_word(sim, port)] & evr_port_bit(sim, port)))
		evr_raise(sim, port);
}

void evr_mask(struct evr_sim *sim, unsigned int port)
{
	sim->mask[evr_word(sim, port)] |= evr_port_bit(sim, port);
}

void evr_unmask(struct evr_sim *sim, unsigned int port)
{
	u64 *mask = &sim->mask[evr_word(sim, port)];

	if (!(*mask & evr_port_bit(sim, port)))
		return;
	*mask &= ~evr_port_bit(sim, port);
	if (evr_port_pending(sim, port))
		evr_raise(sim, port);
}

void evr_bind(struct evr_sim *sim, unsigned int port, unsigned int cpu)
{
	unsigned int w = evr_word(sim, port);

	sim->cpu[sim->port_cpu[port]].bound[w] &= ~evr_port_bit(sim, port);
	sim->port_cpu[port] = cpu;
	sim->cpu[cpu].bound[w] |= evr_port_bit(sim, port);
}

/* Keep the first error, as "NAME:LINE: message". */
static __printf(2, 3) int evr_error(struct evr_sim *sim, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (sim->err[0])
		return -EINVAL;
	n = scnprintf(sim->err, sizeof(sim->err), "%s:%u: ",
		      sim->name ? sim->name : "-", sim->line);
	va_start(ap, fmt);
	vscnprintf(sim->err + n, sizeof(sim->err) - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int evr_log(struct evr_sim *sim, unsigned int port)
{
	u32 *log;

	if (sim->log_len == sim->log_cap) {
		u32 cap = clamp(2 * sim->log_cap, 1024U, EVR_MAX_SERVICES);

		if (sim->log_cap == EVR_MAX_SERVICES)
			return evr_error(sim, "upcall did not end: more than %u services",
					 EVR_MAX_SERVICES);
		log = kvrealloc(sim->log, cap * sizeof(*log), GFP_KERNEL);
		if (!log)
			return evr_error(sim, "out of memory");
		sim->log = log;
		sim->log_cap = cap;
	}
	sim->log[sim->log_len++] = port;
	return 0;
}

void evr_service(struct evr_sim *sim, unsigned int port)
{
	unsigned int r, t;

	/* Once the upcall has failed, the rest of it is not recorded. */
	if (sim->err[0] || evr_log(sim, port))
		return;

	/* The ack clears the pending bit before the handler runs. */
	sim->pending[evr_word(sim, port)] &= ~evr_port_bit(sim, port);
	if (sim->on_service)
		sim->on_service(sim, port);

	for (r = 0; r < sim->nr_rules; r++) {
		struct evr_rule *rule = &sim->rules[r];

		if (rule->port != port || !rule->times_left)
			continue;
		rule->times_left--;
		for (t = 0; t < rule->nr; t++)
			evr_pend(sim, rule->ports[t]);
	}
}

int evr_upcall(struct evr_sim *sim, unsigned int cpu)
{
	struct evr_cpu *c = &sim->cpu[cpu];
	unsigned int passes = 0;

	sim->log_len = 0;
	sim->upcalls++;
	do {
		if (++passes > EVR_MAX_PASSES)
			return evr_error(sim, "upcall on cpu %u did not end after %u passes",
					 cpu, EVR_MAX_PASSES);
		c->upcall_pending = false;
		sim->pass(sim, cpu);
	} while (c->upcall_pending && !sim->err[0]);

	return sim->err[0] ? -EINVAL : 0;
}

/* ---- The step executor ---- */

/* "a,b,c" from @ports[@nr] around position @at, then the count. */
static void evr_seq(char *buf, size_t size, const unsigned int *ports, u32 nr,
		    u32 at)
{
	u32 from = at > 4 ? at - 4 : 0, to = min(nr, from + 12), i;
	size_t n = 0;

	if (from)
		n += scnprintf(buf + n, size - n, "...,");
	for (i = from; i < to; i++)
		n += scnprintf(buf + n, size - n, i > from ? ",%u" : "%u",
			       ports[i]);
	scnprintf(buf + n, size - n, "%s%s (%u port%s)", to < nr ? ",..." : "",
		  nr ? "" : "-", nr, nr == 1 ? "" : "s");
}

/* The last upcall serviced exactly @want[@nr]. */
static int evr_expect(struct evr_sim *sim, const unsigned int *want, u32 nr)
{
	char want_s[128], got_s[128];
	u32 at;

	for (at = 0; at < nr && at < sim->log_len; at++)
		if (want[at] != sim->log[at])
			break;
	if (at == nr && nr == sim->log_len)
		return 0;
	evr_seq(want_s, sizeof(want_s), want, nr, at);
	evr_seq(got_s, sizeof(got_s), sim->log, sim->log_len, at);
	return evr_error(sim, "expect failed at position %u: expected %s, serviced %s",
			 at, want_s, got_s);
}

/* Exactly the ports @want[@nr] are pending. */
static int evr_expect_pending(struct evr_sim *sim, const unsigned int *want,
			      u32 nr)
{
	u64 wanted[EVR_MAX_PORTS / 64] = { 0 };
	unsigned int port, i;

	for (i = 0; i < nr; i++)
		wanted[want[i] / 64] |= evr_bit(want[i] % 64);
	for (port = 0; port < sim->nr_ports; port++) {
		bool w = wanted[port / 64] & evr_bit(port % 64);

		if (w != evr_port_pending(sim, port))
			return evr_error(sim, "expect-pending failed: port %u is %spending",
					 port, w ? "not " : "");
	}
	return 0;
}

static void (*const evr_port_ops[])(struct evr_sim *sim, unsigned int port) = {
	[EVR_PEND] = evr_pend,
	[EVR_RAW_PEND] = evr_raw_pend,
	[EVR_MASK] = evr_mask,
	[EVR_UNMASK] = evr_unmask,
};

static int evr_step(struct evr_sim *sim, const struct evr_step *s,
		    const unsigned int *list)
{
	struct evr_cpu *c = &sim->cpu[s->cpu];
	unsigned int i;
	int ret;

	switch (s->op) {
	case EVR_WORD_BITS:
	case EVR_CPUS:
		ret = evr_sim_reset(sim, s->op == EVR_CPUS ? sim->word_bits : s->arg,
				    s->op == EVR_CPUS ? s->arg : sim->nr_cpus);
		if (ret == -EOPNOTSUPP)
			evr_error(sim, "word-bits %u is wider than xen_ulong_t here",
				  s->arg);
		else if (ret)
			evr_error(sim, "bad geometry");
		return ret;
	case EVR_PEND:
	case EVR_RAW_PEND:
	case EVR_MASK:
	case EVR_UNMASK:
		for (i = 0; i < s->nr; i++)
			evr_port_ops[s->op](sim, list[i]);
		return 0;
	case EVR_BIND:
		for (i = 0; i < s->nr; i++)
			evr_bind(sim, list[i], s->cpu);
		return 0;
	case EVR_CURSOR:
		c->cursor.port = s->arg;
		return 0;
	case EVR_TIMER:
		c->timer_port = s->arg;
		return 0;
	case EVR_SELECTOR:
		for (i = 0; i < s->nr; i++)
			c->sel |= evr_bit(list[i]);
		c->upcall_pending = true;
		return 0;
	case EVR_ON:
		if (sim->nr_rules == EVR_MAX_RULES)
			return evr_error(sim, "too many 'on' rules (at most %u)",
					 EVR_MAX_RULES);
		sim->rules[sim->nr_rules++] = (struct evr_rule) {
			.port = s->arg, .times_left = s->times,
			.ports = list, .nr = s->nr,
		};
		return 0;
	case EVR_UPCALL:
		return evr_upcall(sim, s->cpu);
	case EVR_EXPECT:
		return evr_expect(sim, list, s->nr);
	case EVR_EXPECT_CURSOR:
		if (c->cursor.port != s->arg)
			return evr_error(sim, "expect-cursor failed: cpu %u cursor is %u, not %u",
					 s->cpu, c->cursor.port, s->arg);
		return 0;
	case EVR_EXPECT_PENDING:
		return evr_expect_pending(sim, list, s->nr);
	case EVR_SHOW_PENDING:
		return 0;
	default:
		return evr_error(sim, "unknown step %u", s->op);
	}
}

int evr_run(struct evr_sim *sim, const struct evr_script *script)
{
	const struct evr_step *s;
	unsigned int i;
	int ret = 0;

	sim->name = script->name;
	/* Indexes, not pointers: an empty script has no steps array. */
	for (i = 0; !ret && i < script->nr_steps; i++) {
		s = &script->steps[i];
		sim->line = s->line;
		ret = evr_step(sim, s, script->values ?
			       &script->values[s->first] : NULL);
		if (!ret && (s->op == EVR_EXPECT || s->op == EVR_EXPECT_CURSOR ||
			     s->op == EVR_EXPECT_PENDING))
			sim->expects++;
		if (!ret && sim->after_step)
			sim->after_step(sim, s);
	}
	return ret;
}
