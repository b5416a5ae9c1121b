// SPDX-License-Identifier: GPL-2.0-only
/*
 * The differential: a scenario decoded from bytes runs through the
 * series' evtchn_2l_handle_events(), its events_2l.c compiled unchanged
 * (../scan/real_2l.c), as the replay engine drives it, and through a
 * reference written from the rules of
 * Documentation/virt/xen/event-channels-2l.rst alone, one port at a time
 * on state of its own (arrays of booleans, no bit words, no cursor
 * split).  After every pass the serviced sequence, every CPU's cursor,
 * selector and upcall flag and every pending bit must be the same, and
 * the engine's pass must keep the invariants: each port at most once
 * (the timer's pre-check aside), only active ports of the pass's CPU,
 * and every port active at the start of the pass in a word of the
 * selector serviced.
 *
 * Scenario bytes: byte 0, bit 0: 32-bit words (else 64); bits 1-2: CPUs
 * - 1.  Then commands of an opcode byte and its arguments, a port being
 * two bytes (modulo the number of ports):
 *   0 send PORT      1 mask PORT      2 unmask PORT     3 bind PORT CPU
 *   4 cursor CPU PORT  5 timer CPU PORT|none  6 on PORT send PORT TIMES
 *   7 pass CPU       8 selector CPU WORD (a spurious bit)
 * At the end every CPU runs passes until its upcall flag stays clear.
 */
#include "lab_shim.h"
#include "evtchn_2l_replay.h"
#include "diff.h"

#define MAX_RULES	64
#define MAX_CPUS	4

struct ref_rule {
	unsigned int port, target, times_left;
};

/* The reference's state: one entry per port, per word, per CPU. */
struct ref {
	unsigned int wb, nports, ncpus;
	bool pending[EVR_MAX_PORTS];
	bool masked[EVR_MAX_PORTS];
	unsigned int cpu_of[EVR_MAX_PORTS];
	bool sel[MAX_CPUS][EVR_MAX_WORD_BITS];
	bool upcall[MAX_CPUS];
	unsigned int cursor[MAX_CPUS];
	int timer[MAX_CPUS];
	struct ref_rule rules[MAX_RULES];
	unsigned int nrules;
	unsigned int log[8 * EVR_MAX_PORTS];
	unsigned int nlog;
};

/* Xen: raise the selector bit and, on its 0 -> 1 edge, the upcall flag. */
static void ref_raise(struct ref *r, unsigned int port)
{
	unsigned int c = r->cpu_of[port], w = port / r->wb;

	if (!r->sel[c][w]) {
		r->sel[c][w] = true;
		r->upcall[c] = true;
	}
}

static void ref_send(struct ref *r, unsigned int port)
{
	if (r->pending[port])
		return;
	r->pending[port] = true;
	if (!r->masked[port])
		ref_raise(r, port);
}

static void ref_unmask(struct ref *r, unsigned int port)
{
	if (!r->masked[port])
		return;
	r->masked[port] = false;
	if (r->pending[port])
		ref_raise(r, port);
}

static bool ref_active(const struct ref *r, unsigned int cpu, unsigned int port)
{
	return r->pending[port] && !r->masked[port] && r->cpu_of[port] == cpu;
}

/* The ack clears the pending bit, then the handler's sends. */
static void ref_service(struct ref *r, unsigned int port)
{
	unsigned int i;

	if (r->nlog < ARRAY_SIZE(r->log))
		r->log[r->nlog] = port;
	r->nlog++;
	r->pending[port] = false;
	for (i = 0; i < r->nrules; i++) {
		if (r->rules[i].port != port || !r->rules[i].times_left)
			continue;
		r->rules[i].times_left--;
		ref_send(r, r->rules[i].target);
	}
}

/* One pass, as the documentation's steps 1 to 5 say. */
static void ref_pass(struct ref *r, unsigned int cpu)
{
	bool snap[EVR_MAX_WORD_BITS], active[EVR_MAX_WORD_BITS];
	unsigned int w0, b0, v, w, b, lo, hi;

	r->nlog = 0;
	/* 1. The VIRQ_TIMER port first; the cursor stays. */
	if (r->timer[cpu] >= 0 && ref_active(r, cpu, r->timer[cpu]))
		ref_service(r, r->timer[cpu]);
	/* 2. The selector exchanged with 0. */
	for (w = 0; w < r->wb; w++) {
		snap[w] = r->sel[cpu][w];
		r->sel[cpu][w] = false;
	}
	/* 3. From the cursor's word and bit, each snapshot word in turn. */
	w0 = r->cursor[cpu] / r->wb;
	b0 = r->cursor[cpu] % r->wb;
	for (v = 0; v <= r->wb; v++) {
		w = (w0 + v) % r->wb;
		lo = v == 0 ? b0 : 0;
		hi = v == r->wb ? b0 : r->wb;
		if (!snap[w] || lo >= hi)
			continue;
		/* 4. The word's active bits, read once at the visit. */
		for (b = 0; b < r->wb; b++)
			active[b] = ref_active(r, cpu, w * r->wb + b);
		for (b = lo; b < hi; b++) {
			if (!active[b])
				continue;
			ref_service(r, w * r->wb + b);
			/* 5. The cursor: the next port, wrapping. */
			r->cursor[cpu] = (w * r->wb + b + 1) % r->nports;
		}
	}
}

struct diff {
	struct evr_sim *sim;
	struct ref ref;
	unsigned int targets[MAX_RULES];
	struct evr_diff_stats *st;
	unsigned int found;
};

static bool report(struct diff *d, unsigned int cpu, const char *fmt, ...)
{
	va_list ap;

	if (!d->found++) {
		fprintf(stderr, "divergence on cpu %u after %llu passes: ", cpu,
			d->st->passes);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	return false;
}

/* One pass on both, then compare them; false on a divergence. */
static bool pass(struct diff *d, unsigned int cpu)
{
	struct evr_sim *sim = d->sim;
	struct ref *r = &d->ref;
	bool was_active[EVR_MAX_PORTS], seen[EVR_MAX_PORTS] = { false };
	bool timer_first;
	unsigned int p, c, w, i;

	for (p = 0; p < r->nports; p++)
		was_active[p] = ref_active(r, cpu, p) && r->sel[cpu][p / r->wb];
	timer_first = r->timer[cpu] >= 0 && ref_active(r, cpu, r->timer[cpu]);

	sim->cpu[cpu].upcall_pending = false;
	r->upcall[cpu] = false;
	sim->log_len = 0;
	evr_pass_rr(sim, cpu);
	ref_pass(r, cpu);
	d->st->passes++;
	d->st->services += sim->log_len;

	if (sim->err[0])
		return report(d, cpu, "engine error: %s", sim->err);
	if (sim->log_len != r->nlog)
		return report(d, cpu, "%u services, reference %u", sim->log_len,
			      r->nlog);
	for (i = 0; i < sim->log_len; i++) {
		p = sim->log[i];
		if (p != r->log[i])
			return report(d, cpu, "service %u: port %u, reference %u",
				      i, p, r->log[i]);
		if (r->cpu_of[p] != cpu || r->masked[p])
			return report(d, cpu, "port %u (cpu %u%s) serviced", p,
				      r->cpu_of[p], r->masked[p] ? ", masked" : "");
		if (i == 0 && timer_first)
			continue;
		if (seen[p])
			return report(d, cpu, "port %u serviced twice", p);
		seen[p] = true;
	}
	for (p = 0; p < r->nports; p++) {
		if (was_active[p] && !seen[p] && !(timer_first && p == sim->log[0]))
			return report(d, cpu, "port %u was active, not serviced", p);
		if (evr_port_pending(sim, p) != r->pending[p])
			return report(d, cpu, "port %u pending %d, reference %d", p,
				      evr_port_pending(sim, p), r->pending[p]);
	}
	for (c = 0; c < r->ncpus; c++) {
		if (sim->cpu[c].cursor.port != r->cursor[c])
			return report(d, c, "cursor %u, reference %u",
				      sim->cpu[c].cursor.port, r->cursor[c]);
		if (sim->cpu[c].upcall_pending != r->upcall[c])
			return report(d, c, "upcall flag %d, reference %d",
				      sim->cpu[c].upcall_pending, r->upcall[c]);
		for (w = 0; w < r->wb; w++)
			if (!!(sim->cpu[c].sel & (1ULL << w)) != r->sel[c][w])
				return report(d, c, "selector bit %u %d, reference %d",
					      w, !(r->sel[c][w]), r->sel[c][w]);
	}
	return true;
}

static unsigned int next_byte(const uint8_t **data, const uint8_t *end)
{
	return *data < end ? *(*data)++ : 0;
}

static unsigned int next_port(const uint8_t **data, const uint8_t *end,
			      unsigned int nports)
{
	unsigned int hi = next_byte(data, end);

	return ((hi << 8) | next_byte(data, end)) % nports;
}

unsigned int evr_diff_run(const uint8_t *data, size_t size,
			  struct evr_diff_stats *st)
{
	static struct diff d;
	const uint8_t *end = data + size;
	unsigned int c, n, wb;
	struct ref *r = &d.ref;

	if (!size)
		return 0;
	wb = data[0] & 1 ? 32 : 64;
	memset(&d, 0, sizeof(d));
	d.st = st;
	d.sim = evr_sim_create(wb, 1 + (data[0] >> 1) % MAX_CPUS);
	if (!d.sim)
		abort();
	r->wb = wb;
	r->nports = wb * wb;
	r->ncpus = d.sim->nr_cpus;
	for (c = 0; c < MAX_CPUS; c++)
		r->timer[c] = -1;
	data++;

#define BYTE()	next_byte(&data, end)
#define PORT()	next_port(&data, end, r->nports)
#define CPU()	(BYTE() % r->ncpus)
	while (data < end && !d.found) {
		unsigned int op = BYTE() % 9, p, q;

		switch (op) {
		case 0:
			p = PORT();
			evr_pend(d.sim, p);
			ref_send(r, p);
			break;
		case 1:
			p = PORT();
			evr_mask(d.sim, p);
			r->masked[p] = true;
			break;
		case 2:
			p = PORT();
			evr_unmask(d.sim, p);
			ref_unmask(r, p);
			break;
		case 3:
			p = PORT();
			c = CPU();
			evr_bind(d.sim, p, c);
			r->cpu_of[p] = c;
			break;
		case 4:
			c = CPU();
			p = PORT();
			d.sim->cpu[c].cursor.port = p;
			r->cursor[c] = p;
			break;
		case 5:
			c = CPU();
			q = BYTE();
			p = PORT();
			d.sim->cpu[c].timer_port = q & 1 ? EVR_NO_PORT : p;
			r->timer[c] = q & 1 ? -1 : (int)p;
			break;
		case 6:
			p = PORT();
			q = PORT();
			n = 1 + BYTE() % 8;
			if (r->nrules == MAX_RULES)
				break;
			d.targets[r->nrules] = q;
			d.sim->rules[d.sim->nr_rules++] = (struct evr_rule){
				.port = p, .times_left = n,
				.ports = &d.targets[r->nrules], .nr = 1,
			};
			r->rules[r->nrules++] = (struct ref_rule){ p, q, n };
			break;
		case 7:
			pass(&d, CPU());
			break;
		case 8:
			c = CPU();
			p = BYTE() % wb;
			d.sim->cpu[c].sel |= 1ULL << p;
			d.sim->cpu[c].upcall_pending = true;
			r->sel[c][p] = true;
			r->upcall[c] = true;
			break;
		}
	}
	/* Then each CPU's upcall, to the end. */
	for (c = 0; c < r->ncpus && !d.found; c++)
		for (n = 0; r->upcall[c] && n < 1000 && !d.found; n++)
			pass(&d, c);
	evr_sim_destroy(d.sim);
	st->divergences += d.found;
	return d.found;
}
