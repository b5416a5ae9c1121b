// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay engine for the Xen 2-level event channel scanner: the model of
 * shared_info and the vCPUs, the "rr" and "lowest" policies and the
 * script interpreter.  See evtchn_2l_replay.h.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "evtchn_2l_replay.h"

static u64 evr_bit(unsigned int bit)
{
	return (u64)1 << bit;
}

static unsigned int evr_word(const struct evr_sim *sim, unsigned int port)
{
	return port / sim->word_bits;
}

static u64 evr_port_bit(const struct evr_sim *sim, unsigned int port)
{
	return evr_bit(port % sim->word_bits);
}

int evr_sim_set_geometry(struct evr_sim *sim, unsigned int word_bits,
			 unsigned int nr_cpus)
{
	unsigned int c;

	if (word_bits != 32 && word_bits != 64)
		return -EINVAL;
	/* The core's words are xen_ulong_t: no wider geometry fits. */
	if (word_bits > sizeof(xen_ulong_t) * 8)
		return -EOPNOTSUPP;
	if (!nr_cpus || nr_cpus > EVR_MAX_CPUS)
		return -EINVAL;

	sim->word_bits = word_bits;
	sim->nr_ports = word_bits * word_bits;
	sim->nr_cpus = nr_cpus;
	memset(sim->pending, 0, sizeof(sim->pending));
	memset(sim->mask, 0, sizeof(sim->mask));
	memset(sim->port_cpu, 0, sizeof(sim->port_cpu));
	memset(sim->cpu, 0, sizeof(sim->cpu));
	for (c = 0; c < EVR_MAX_CPUS; c++)
		sim->cpu[c].timer_port = EVR_NO_PORT;
	/* Every port starts bound to CPU 0. */
	for (c = 0; c < word_bits; c++)
		sim->cpu[0].bound[c] = word_bits == 64 ? ~(u64)0 :
				       evr_bit(word_bits) - 1;
	return 0;
}

struct evr_sim *evr_sim_create(unsigned int word_bits, unsigned int nr_cpus)
{
	struct evr_sim *sim = kzalloc(sizeof(*sim), GFP_KERNEL);

	if (!sim)
		return NULL;
	sim->policy = &evr_policy_rr;
	sim->log_cap = 1024;
	sim->log = kvcalloc(sim->log_cap, sizeof(*sim->log), GFP_KERNEL);
	sim->rules = kvcalloc(EVR_MAX_RULES, sizeof(*sim->rules), GFP_KERNEL);
	sim->targets = kvcalloc(EVR_MAX_TARGETS, sizeof(*sim->targets),
				GFP_KERNEL);
	sim->stats = kvcalloc(EVR_MAX_PORTS, sizeof(*sim->stats), GFP_KERNEL);
	if (!sim->log || !sim->rules || !sim->targets || !sim->stats ||
	    evr_sim_set_geometry(sim, word_bits, nr_cpus)) {
		evr_sim_destroy(sim);
		return NULL;
	}
	return sim;
}

void evr_sim_destroy(struct evr_sim *sim)
{
	if (!sim)
		return;
	kvfree(sim->log);
	kvfree(sim->rules);
	kvfree(sim->targets);
	kvfree(sim->stats);
	kfree(sim);
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
	unsigned int w = evr_word(sim, port);

	if (sim->pending[w] & evr_port_bit(sim, port))
		return;
	sim->pending[w] |= evr_port_bit(sim, port);
	sim->stats[port].pend_stamp = sim->nr_services;
}

void evr_pend(struct evr_sim *sim, unsigned int port)
{
	unsigned int w = evr_word(sim, port);

	if (sim->pending[w] & evr_port_bit(sim, port))
		return;
	evr_raw_pend(sim, port);
	if (!(sim->mask[w] & evr_port_bit(sim, port)))
		evr_raise(sim, port);
}

void evr_mask(struct evr_sim *sim, unsigned int port)
{
	sim->mask[evr_word(sim, port)] |= evr_port_bit(sim, port);
}

void evr_unmask(struct evr_sim *sim, unsigned int port)
{
	unsigned int w = evr_word(sim, port);
	u64 bit = evr_port_bit(sim, port);

	if (!(sim->mask[w] & bit))
		return;
	sim->mask[w] &= ~bit;
	if (sim->pending[w] & bit)
		evr_raise(sim, port);
}

void evr_bind(struct evr_sim *sim, unsigned int port, unsigned int cpu)
{
	unsigned int w = evr_word(sim, port);
	u64 bit = evr_port_bit(sim, port);

	sim->cpu[sim->port_cpu[port]].bound[w] &= ~bit;
	sim->port_cpu[port] = cpu;
	sim->cpu[cpu].bound[w] |= bit;
}

static __printf(2, 3) void evr_error(struct evr_sim *sim, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (sim->err[0])
		return;
	n = scnprintf(sim->err, sizeof(sim->err), "%s:%u: ",
		      sim->name ? sim->name : "-", sim->line);
	va_start(ap, fmt);
	vscnprintf(sim->err + n, sizeof(sim->err) - n, fmt, ap);
	va_end(ap);
}

static bool evr_log(struct evr_sim *sim, unsigned int port)
{
	if (sim->log_len == sim->log_cap) {
		u32 cap = sim->log_cap * 2;
		u32 *log;

		if (cap > EVR_MAX_SERVICES) {
			evr_error(sim, "upcall did not end: more than %u services",
				  EVR_MAX_SERVICES);
			return false;
		}
		log = kvcalloc(cap, sizeof(*log), GFP_KERNEL);
		if (!log) {
			evr_error(sim, "out of memory");
			return false;
		}
		memcpy(log, sim->log, sim->log_len * sizeof(*log));
		kvfree(sim->log);
		sim->log = log;
		sim->log_cap = cap;
	}
	sim->log[sim->log_len++] = port;
	return true;
}

void evr_service(struct evr_sim *sim, unsigned int port)
{
	struct evr_port_stats *st = &sim->stats[port];
	u64 wait = sim->nr_services - st->pend_stamp;
	unsigned int r, t;

	/* Once the upcall has failed, the rest of it is not recorded. */
	if (sim->err[0] || !evr_log(sim, port))
		return;

	st->services++;
	st->wait_sum += wait;
	if (wait > st->max_wait)
		st->max_wait = min_t(u64, wait, U32_MAX);
	sim->nr_services++;

	/* The ack clears the pending bit before the handler runs. */
	sim->pending[evr_word(sim, port)] &= ~evr_port_bit(sim, port);

	for (r = 0; r < sim->nr_rules; r++) {
		struct evr_rule *rule = &sim->rules[r];

		if (rule->port != port || !rule->times_left)
			continue;
		rule->times_left--;
		for (t = 0; t < rule->count; t++)
			evr_pend(sim, sim->targets[rule->first + t]);
	}
	if (sim->on_service)
		sim->on_service(sim, port);
}

/* The "rr" policy: the series' core, behind a thin caller like the kernel's. */
struct evr_rr_ctx {
	struct evr_sim *sim;
	unsigned int cpu;
};

static xen_ulong_t evr_rr_active(unsigned int word, void *data)
{
	struct evr_rr_ctx *ctx = data;

	return evr_active_word(ctx->sim, ctx->cpu, word);
}

static void evr_rr_service(evtchn_port_t port, void *data)
{
	struct evr_rr_ctx *ctx = data;

	evr_service(ctx->sim, port);
}

static xen_ulong_t evr_rr_take(void *data)
{
	struct evr_rr_ctx *ctx = data;
	struct evr_cpu *c = &ctx->sim->cpu[ctx->cpu];
	u64 sel = c->sel;

	c->sel = 0;
	return sel;
}

/* The kernel's pass, evtchn_2l_pass(), on the model. */
static void evr_pass_rr(struct evr_sim *sim, unsigned int cpu)
{
	struct evr_rr_ctx ctx = { .sim = sim, .cpu = cpu };
	struct evr_cpu *c = &sim->cpu[cpu];

	evtchn_2l_pass(c->timer_port, sim->word_bits, &c->cursor, evr_rr_take,
		       evr_rr_active, evr_rr_service, evr_rr_service, &ctx);
}

const struct evr_policy evr_policy_rr = {
	.name = "rr",
	.pass = evr_pass_rr,
	.uses_cursor = true,
};

/*
 * The "lowest" policy: the 2.6.18-era scan.  Selector words in increasing
 * order; in each, re-read the word and take its lowest active port until
 * none is left.  No timer rule, no cursor.
 */
static void evr_pass_lowest(struct evr_sim *sim, unsigned int cpu)
{
	u64 sel = sim->cpu[cpu].sel;

	sim->cpu[cpu].sel = 0;
	while (sel && !sim->err[0]) {
		unsigned int w = __ffs64(sel);
		u64 bits;

		sel &= sel - 1;
		while (!sim->err[0] && (bits = evr_active_word(sim, cpu, w)))
			evr_service(sim, w * sim->word_bits + __ffs64(bits));
	}
}

const struct evr_policy evr_policy_lowest = {
	.name = "lowest",
	.pass = evr_pass_lowest,
	.uses_cursor = false,
};

int evr_upcall(struct evr_sim *sim, unsigned int cpu)
{
	struct evr_cpu *c = &sim->cpu[cpu];

	sim->log_len = 0;
	sim->passes = 0;
	sim->upcalls++;
	do {
		if (++sim->passes > EVR_MAX_PASSES) {
			evr_error(sim, "upcall on cpu %u did not end after %u passes",
				  cpu, EVR_MAX_PASSES);
			break;
		}
		c->upcall_pending = false;
		sim->policy->pass(sim, cpu);
	} while (c->upcall_pending && !sim->err[0]);

	return sim->err[0] ? -EINVAL : 0;
}

unsigned int evr_cursor(const struct evr_sim *sim, unsigned int cpu)
{
	return sim->policy->uses_cursor ? sim->cpu[cpu].cursor.port : 0;
}

/* ---- Script interpreter ---- */

#define EVR_MAX_LINE	4096
#define EVR_MAX_TOKENS	256

struct evr_line {
	char buf[EVR_MAX_LINE];
	char *tok[EVR_MAX_TOKENS];
	unsigned int nr;
};

static void evr_emit(struct evr_sim *sim, const char *text)
{
	if (sim->emit)
		sim->emit(sim->emit_ctx, text);
}

static __printf(2, 3) void evr_emitf(struct evr_sim *sim, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	evr_emit(sim, buf);
}

/* Parse a decimal number; the whole token must be digits. */
static bool evr_number(const char *s, unsigned int *val)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > 0xffffffffULL)
			return false;
	}
	*val = v;
	return true;
}

static bool evr_number_arg(struct evr_sim *sim, const char *s, const char *what,
			   unsigned int limit, unsigned int *val)
{
	if (!evr_number(s, val)) {
		evr_error(sim, "bad %s '%s'", what, s);
		return false;
	}
	if (*val >= limit) {
		evr_error(sim, "%s %u out of range (0-%u)", what, *val, limit - 1);
		return false;
	}
	return true;
}

static bool evr_cpu_arg(struct evr_sim *sim, const char *s, unsigned int *cpu)
{
	return evr_number_arg(sim, s, "cpu", sim->nr_cpus, cpu);
}

static bool evr_port_arg(struct evr_sim *sim, const char *s, unsigned int *port)
{
	return evr_number_arg(sim, s, "port", sim->nr_ports, port);
}

/*
 * Expand a list of tokens of the form N, N-M or comma lists of those,
 * each below @limit, calling @fn for each value in order.  With @fn NULL
 * only checks the syntax.
 */
static bool evr_list(struct evr_sim *sim, char **tok, unsigned int nr,
		     const char *what, unsigned int limit,
		     bool (*fn)(struct evr_sim *sim, unsigned int v, void *arg),
		     void *arg)
{
	char item[32];
	unsigned int i;

	if (!nr) {
		evr_error(sim, "missing %s list", what);
		return false;
	}
	for (i = 0; i < nr; i++) {
		const char *p = tok[i];

		while (*p) {
			const char *end = strchr(p, ',');
			size_t len = end ? end - p : strlen(p);
			unsigned int lo, hi, v;
			char *dash;

			if (!len || len >= sizeof(item)) {
				evr_error(sim, "bad %s list '%s'", what, tok[i]);
				return false;
			}
			memcpy(item, p, len);
			item[len] = '\0';
			dash = strchr(item, '-');
			if (dash)
				*dash = '\0';
			if (!evr_number_arg(sim, item, what, limit, &lo))
				return false;
			hi = lo;
			if (dash && !evr_number_arg(sim, dash + 1, what, limit, &hi))
				return false;
			if (hi < lo) {
				evr_error(sim, "bad %s range '%s-%s'", what, item,
					  dash + 1);
				return false;
			}
			for (v = lo; fn && v <= hi; v++)
				if (!fn(sim, v, arg))
					return false;
			p += len;
			if (*p == ',' && !*++p) {
				evr_error(sim, "bad %s list '%s'", what, tok[i]);
				return false;
			}
		}
	}
	return true;
}

static bool evr_do_pend(struct evr_sim *sim, unsigned int port, void *arg)
{
	evr_pend(sim, port);
	return true;
}

static bool evr_do_raw_pend(struct evr_sim *sim, unsigned int port, void *arg)
{
	evr_raw_pend(sim, port);
	return true;
}

static bool evr_do_mask(struct evr_sim *sim, unsigned int port, void *arg)
{
	evr_mask(sim, port);
	return true;
}

static bool evr_do_unmask(struct evr_sim *sim, unsigned int port, void *arg)
{
	evr_unmask(sim, port);
	return true;
}

static bool evr_do_bind(struct evr_sim *sim, unsigned int port, void *arg)
{
	evr_bind(sim, port, *(unsigned int *)arg);
	return true;
}

static bool evr_do_selector(struct evr_sim *sim, unsigned int word, void *arg)
{
	struct evr_cpu *c = arg;

	c->sel |= evr_bit(word);
	c->upcall_pending = true;
	return true;
}

static bool evr_do_target(struct evr_sim *sim, unsigned int port, void *arg)
{
	if (sim->nr_targets == EVR_MAX_TARGETS) {
		evr_error(sim, "too many 'on' targets (at most %u in all)",
			  EVR_MAX_TARGETS);
		return false;
	}
	sim->targets[sim->nr_targets++] = port;
	return true;
}

struct evr_expect {
	u32 pos;
	u32 diff;
	bool match;
};

static bool evr_do_expect(struct evr_sim *sim, unsigned int port, void *arg)
{
	struct evr_expect *e = arg;

	if (e->match && (e->pos >= sim->log_len || sim->log[e->pos] != port)) {
		e->match = false;
		e->diff = e->pos;
	}
	e->pos++;
	return true;
}

/* Print a port sequence as "P1,P2,..." or "-". */
static void evr_emit_ports(struct evr_sim *sim, const u32 *ports, u32 nr)
{
	u32 i;

	if (!nr)
		evr_emit(sim, "-");
	for (i = 0; i < nr; i++)
		evr_emitf(sim, i ? ",%u" : "%u", ports[i]);
}

static void evr_emit_pending(struct evr_sim *sim, const char *prefix)
{
	unsigned int port, n = 0;

	evr_emit(sim, prefix);
	for (port = 0; port < sim->nr_ports; port++)
		if (evr_port_pending(sim, port))
			evr_emitf(sim, n++ ? ",%u" : "%u", port);
	if (!n)
		evr_emit(sim, "-");
	evr_emit(sim, "\n");
}

static void evr_cmd_on(struct evr_sim *sim, struct evr_line *l)
{
	struct evr_rule *rule;
	unsigned int port, times = 1, nr = l->nr;

	if (nr < 4 || strcmp(l->tok[2], "pend")) {
		evr_error(sim, "usage: on PORT pend PORTS... [times N]");
		return;
	}
	if (nr >= 6 && !strcmp(l->tok[nr - 2], "times")) {
		if (!evr_number(l->tok[nr - 1], &times) || !times) {
			evr_error(sim, "bad count '%s'", l->tok[nr - 1]);
			return;
		}
		nr -= 2;
	}
	if (!evr_port_arg(sim, l->tok[1], &port))
		return;
	if (sim->nr_rules == EVR_MAX_RULES) {
		evr_error(sim, "too many 'on' rules (at most %u)", EVR_MAX_RULES);
		return;
	}
	rule = &sim->rules[sim->nr_rules];
	rule->port = port;
	rule->times_left = times;
	rule->first = sim->nr_targets;
	if (!evr_list(sim, &l->tok[3], nr - 3, "port", sim->nr_ports,
		      evr_do_target, NULL))
		return;
	rule->count = sim->nr_targets - rule->first;
	sim->nr_rules++;
}

static void evr_cmd_upcall(struct evr_sim *sim, struct evr_line *l)
{
	unsigned int cpu;

	if (l->nr != 2) {
		evr_error(sim, "usage: upcall CPU");
		return;
	}
	if (!evr_cpu_arg(sim, l->tok[1], &cpu) || evr_upcall(sim, cpu))
		return;
	sim->has_upcall = true;
	evr_emitf(sim, "upcall cpu=%u serviced=", cpu);
	evr_emit_ports(sim, sim->log, sim->log_len);
	evr_emitf(sim, " cursor=%u\n", evr_cursor(sim, cpu));
}

static void evr_cmd_expect(struct evr_sim *sim, struct evr_line *l)
{
	struct evr_expect e = { .match = true };

	if (!sim->has_upcall) {
		evr_error(sim, "expect before any upcall");
		return;
	}
	if (l->nr == 2 && !strcmp(l->tok[1], "-"))
		e.match = sim->log_len == 0;
	else if (!evr_list(sim, &l->tok[1], l->nr - 1, "port", sim->nr_ports,
			   evr_do_expect, &e))
		return;
	if (e.match && e.pos == sim->log_len) {
		sim->expects++;
		return;
	}
	if (e.match)
		e.diff = min(e.pos, sim->log_len);

	evr_error(sim, "expect failed: upcall serviced %u port%s, first difference at position %u",
		  sim->log_len, sim->log_len == 1 ? "" : "s", e.diff);
}

static void evr_cmd_expect_cursor(struct evr_sim *sim, struct evr_line *l)
{
	unsigned int cpu, port;

	if (l->nr != 3) {
		evr_error(sim, "usage: expect-cursor CPU PORT");
		return;
	}
	if (!evr_cpu_arg(sim, l->tok[1], &cpu) ||
	    !evr_port_arg(sim, l->tok[2], &port))
		return;
	if (evr_cursor(sim, cpu) != port)
		evr_error(sim, "expect-cursor failed: cpu %u cursor is %u, not %u",
			  cpu, evr_cursor(sim, cpu), port);
	else
		sim->expects++;
}

static bool evr_do_expect_pending(struct evr_sim *sim, unsigned int port,
				  void *arg)
{
	u64 *want = arg;

	want[port / 64] |= evr_bit(port % 64);
	return true;
}

static void evr_cmd_expect_pending(struct evr_sim *sim, struct evr_line *l)
{
	u64 want[EVR_MAX_PORTS / 64] = { 0 };
	unsigned int port;

	if (!(l->nr == 2 && !strcmp(l->tok[1], "-")) &&
	    !evr_list(sim, &l->tok[1], l->nr - 1, "port", sim->nr_ports,
		      evr_do_expect_pending, want))
		return;
	for (port = 0; port < sim->nr_ports; port++) {
		bool wanted = want[port / 64] & evr_bit(port % 64);

		if (wanted != evr_port_pending(sim, port)) {
			evr_error(sim, "expect-pending failed: port %u is %spending",
				  port, wanted ? "not " : "");
			return;
		}
	}
	sim->expects++;
}

static void evr_cmd_geometry(struct evr_sim *sim, struct evr_line *l)
{
	unsigned int v, word_bits = sim->word_bits, cpus = sim->nr_cpus;
	bool bits = !strcmp(l->tok[0], "word-bits");
	int ret;

	if (l->nr != 2 || !evr_number(l->tok[1], &v)) {
		evr_error(sim, "usage: %s", bits ? "word-bits 32|64" : "cpus N");
		return;
	}
	if (sim->started) {
		evr_error(sim, "'%s' must come before any other command",
			  l->tok[0]);
		return;
	}
	if (bits)
		word_bits = v;
	else
		cpus = v;
	ret = evr_sim_set_geometry(sim, word_bits, cpus);
	if (ret == -EOPNOTSUPP) {
		evr_error(sim, "word-bits %u is wider than xen_ulong_t here", v);
		sim->unsupported = true;
	} else if (ret && bits) {
		evr_error(sim, "word-bits must be 32 or 64, not %u", v);
	} else if (ret) {
		evr_error(sim, "cpus must be 1-%u, not %u", EVR_MAX_CPUS, v);
	}
}

static void evr_cmd_ports(struct evr_sim *sim, struct evr_line *l,
			  bool (*fn)(struct evr_sim *, unsigned int, void *))
{
	/* Check the whole list first: a bad line changes nothing. */
	if (evr_list(sim, &l->tok[1], l->nr - 1, "port", sim->nr_ports, NULL,
		     NULL))
		evr_list(sim, &l->tok[1], l->nr - 1, "port", sim->nr_ports, fn,
			 NULL);
}

static void evr_command(struct evr_sim *sim, struct evr_line *l)
{
	const char *cmd = l->tok[0];
	unsigned int cpu, port;

	if (!strcmp(cmd, "word-bits") || !strcmp(cmd, "cpus")) {
		evr_cmd_geometry(sim, l);
		return;
	}
	sim->started = true;

	if (!strcmp(cmd, "pend")) {
		evr_cmd_ports(sim, l, evr_do_pend);
	} else if (!strcmp(cmd, "raw-pend")) {
		evr_cmd_ports(sim, l, evr_do_raw_pend);
	} else if (!strcmp(cmd, "mask")) {
		evr_cmd_ports(sim, l, evr_do_mask);
	} else if (!strcmp(cmd, "unmask")) {
		evr_cmd_ports(sim, l, evr_do_unmask);
	} else if (!strcmp(cmd, "bind")) {
		if (l->nr < 3) {
			evr_error(sim, "usage: bind PORTS... CPU");
			return;
		}
		if (evr_cpu_arg(sim, l->tok[l->nr - 1], &cpu) &&
		    evr_list(sim, &l->tok[1], l->nr - 2, "port", sim->nr_ports,
			     NULL, NULL))
			evr_list(sim, &l->tok[1], l->nr - 2, "port",
				 sim->nr_ports, evr_do_bind, &cpu);
	} else if (!strcmp(cmd, "cursor") || !strcmp(cmd, "timer")) {
		if (l->nr != 3) {
			evr_error(sim, "usage: %s CPU PORT", cmd);
			return;
		}
		if (!evr_cpu_arg(sim, l->tok[1], &cpu) ||
		    !evr_port_arg(sim, l->tok[2], &port))
			return;
		if (cmd[0] == 'c')
			sim->cpu[cpu].cursor.port = port;
		else
			sim->cpu[cpu].timer_port = port;
	} else if (!strcmp(cmd, "selector")) {
		if (l->nr < 3) {
			evr_error(sim, "usage: selector CPU WORDS...");
			return;
		}
		if (evr_cpu_arg(sim, l->tok[1], &cpu) &&
		    evr_list(sim, &l->tok[2], l->nr - 2, "word", sim->word_bits,
			     NULL, NULL))
			evr_list(sim, &l->tok[2], l->nr - 2, "word",
				 sim->word_bits, evr_do_selector,
				 &sim->cpu[cpu]);
	} else if (!strcmp(cmd, "on")) {
		evr_cmd_on(sim, l);
	} else if (!strcmp(cmd, "upcall")) {
		evr_cmd_upcall(sim, l);
	} else if (!strcmp(cmd, "expect")) {
		evr_cmd_expect(sim, l);
	} else if (!strcmp(cmd, "expect-cursor")) {
		evr_cmd_expect_cursor(sim, l);
	} else if (!strcmp(cmd, "expect-pending")) {
		evr_cmd_expect_pending(sim, l);
	} else if (!strcmp(cmd, "show-pending")) {
		if (l->nr != 1)
			evr_error(sim, "usage: show-pending");
		else
			evr_emit_pending(sim, "pending ports=");
	} else {
		evr_error(sim, "unknown command '%s'", cmd);
	}
}

/* Split one line into tokens; '#' starts a comment. */
static bool evr_split(struct evr_sim *sim, struct evr_line *l, const char *s,
		      size_t len)
{
	char *p;

	if (len >= sizeof(l->buf)) {
		evr_error(sim, "line longer than %u characters", EVR_MAX_LINE - 1);
		return false;
	}
	memcpy(l->buf, s, len);
	l->buf[len] = '\0';
	p = strchr(l->buf, '#');
	if (p)
		*p = '\0';

	l->nr = 0;
	p = l->buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			return true;
		if (l->nr == EVR_MAX_TOKENS) {
			evr_error(sim, "more than %u words on a line",
				  EVR_MAX_TOKENS);
			return false;
		}
		l->tok[l->nr++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static void evr_emit_stats(struct evr_sim *sim)
{
	unsigned int port;

	for (port = 0; port < sim->nr_ports; port++) {
		struct evr_port_stats *st = &sim->stats[port];
		u64 mean100, mean;
		u32 frac;

		if (!st->services)
			continue;
		mean100 = div_u64(st->wait_sum * 100 + st->services / 2,
				  st->services);
		mean = div_u64_rem(mean100, 100, &frac);
		evr_emitf(sim, "port %u services=%u max_wait=%u mean_wait=%llu.%02u\n",
			  port, st->services, st->max_wait, mean, frac);
	}
}

int evr_run_script(struct evr_sim *sim, const char *name, const char *text,
		   size_t len, bool stats)
{
	struct evr_line *l = kmalloc(sizeof(*l), GFP_KERNEL);
	size_t pos = 0;

	sim->name = name;
	sim->line = 0;
	if (!l) {
		evr_error(sim, "out of memory");
		return -ENOMEM;
	}
	while (pos < len && !sim->err[0]) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? nl - (text + pos) : len - pos;

		sim->line++;
		if (memchr(text + pos, '\0', n))
			evr_error(sim, "NUL byte in script");
		else if (evr_split(sim, l, text + pos, n) && l->nr)
			evr_command(sim, l);
		pos += n + 1;
	}
	kfree(l);
	if (sim->err[0])
		return sim->unsupported ? -EOPNOTSUPP : -EINVAL;
	if (stats)
		evr_emit_stats(sim);
	return 0;
}
