// SPDX-License-Identifier: GPL-2.0
/*
 * order-reduce: the order of service in a kernel trace, reduced to the
 * figures of make live-order (mk/live-order.sh).  Runs in dom0 on the
 * trace file of tracefs, and on the host on a saved trace (its self-test).
 *
 *   order-reduce [--cpu N] [--word-bits 64] [FILE]   (or standard input)
 *
 * The trace is ftrace's text format with trace_clock=global, of:
 *   - the function tracer on evtchn_2l_handle_events: one line a pass
 *     ("evtchn_2l_handle_events <-...");
 *   - irq:irq_handler_entry: one line a service ("irq=N name=NAME");
 *     the load module (lab/order/evtchn_order.c) names its ports
 *     "evo:PORT:ROLE";
 *   - trace_printk lines of the module: "evo begin S", "evo end S",
 *     "evo raise PORT".
 * Only the lines between "evo begin" and "evo end", and only the passes
 * and services of vCPU N (0), count.  With --all (a trace without the
 * module), the whole trace counts and every
 * IRQ serviced is a service; a pass may also be a kprobe event named
 * evo_pass on evtchn_2l_handle_events ("evo_pass: (evtchn_2l_handle_events
 * ...").  Printed, one "key value..." line
 * each:
 *   passes, services (of the module's ports, in those passes),
 *   services_all (the same, also in a pass begun before the window:
 *   what the module's own count must equal), flood_services,
 *   flood_above_cursor (passes that began with vCPU N's last service a
 *   module port below the flooding one in its word: the start word, the
 *   flooding port above the cursor; --word-bits, 64, is the word's size;
 *   an estimate from below: a pass after another IRQ's service, which may
 *   be the VIRQ_TIMER's pre-check that leaves the cursor where it is, or
 *   before the flooding port's first service, is not counted),
 *   double_passes (passes in which an IRQ other than the VIRQ_TIMER's,
 *   named timerN, is serviced twice), double_evo and double_other (of
 *   them, those with a module port twice, and those with another IRQ
 *   twice: a pass may be both),
 *   first_double (pass index and the IRQ's name), wait_max_us and
 *   wait_max_passes (the longest wait of a raised port other than the
 *   flooding one: from its first raise to its service, in microseconds and
 *   in whole passes of vCPU N begun and ended between), wait_us (those
 *   waits' median and 99th percentile in microseconds, and how many there
 *   were), per_pass
 *   (min p50 p90 max of the module's ports serviced in a pass),
 *   per_pass_hist (COUNT:PASSES), flood_share_hist (the flooding port's
 *   share of a pass's services, in tenths, for passes with a service:
 *   TENTHS:PASSES).
 * Errors (no begin or end, no pass, a malformed line) end it with a
 * one-line message naming the line and exit status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PORTS	4096
#define MAX_IRQS	65536
#define MAX_PER_PASS	512

static const char *prog = "order-reduce";
static const char *input = "-";
static int word_bits = 64;	/* of an event word, xen_ulong_t */
static int all;			/* --all: every IRQ, the whole trace */
static unsigned long lineno;

static void die(const char *msg)
{
	fprintf(stderr, "%s: %s:%lu: %s\n", prog, input, lineno, msg);
	exit(1);
}

struct irq_info {
	long last_pass;		/* the pass it was last serviced in */
	int port;		/* a module port, or -1 */
	int flood;
	int role_counted;	/* a module port, not a peer */
	char name[32];
};

static struct irq_info irqs[MAX_IRQS];
static double raise_ts[MAX_PORTS];
static long raise_pass[MAX_PORTS];	/* -2: not pending */
static unsigned long per_pass_hist[MAX_PER_PASS + 1];
static unsigned long share_hist[11];

static long pass = -1;		/* index of vCPU N's current pass */
static int pass_in_window;	/* it began inside the window */
static unsigned int pass_services, pass_flood;
static int pass_double_evo, pass_double_other;
static unsigned long passes, services, services_all, flood_services;
static unsigned long double_passes, double_evo, double_other;
static long first_double_pass = -1;
static int flood_port = -1;	/* once seen */
static int last_port = -1;	/* vCPU N's last service, if a module port */
static unsigned long flood_above;
static char first_double_name[32];
static double wait_max_us;
static long wait_max_passes;
static int wait_max_us_port = -1, wait_max_passes_port = -1;
static double *waits;		/* every wait, in microseconds */
static size_t nr_waits, cap_waits;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile @pct of the waits (sorted). */
static double wait_pct(unsigned int pct)
{
	size_t rank;

	if (!nr_waits)
		return 0;
	rank = (nr_waits * pct + 99) / 100;
	return waits[rank ? rank - 1 : 0];
}

static void end_pass(void)
{
	if (pass < 0 || !pass_in_window)
		return;
	passes++;
	per_pass_hist[pass_services > MAX_PER_PASS ? MAX_PER_PASS : pass_services]++;
	if (pass_services)
		share_hist[pass_flood * 10 / pass_services]++;
	if (pass_double_evo || pass_double_other)
		double_passes++;
	double_evo += pass_double_evo;
	double_other += pass_double_other;
}

/* A line of the trace: CPU, timestamp and the event after them. */
static int parse_line(char *line, int *cpu, double *ts, char **event)
{
	char *p = line, *end;

	if (*line == '#' || *line == '\n' || !*line)
		return 0;
	/* The task name may hold anything: find " [NNN] ". */
	for (;; p += 2) {
		p = strstr(p, " [");
		if (!p)
			return -1;
		if (p[2] < '0' || p[2] > '9')
			continue;
		errno = 0;
		*cpu = strtol(p + 2, &end, 10);
		if (!errno && end[0] == ']' && end[1] == ' ')
			break;
	}
	p = end + 1;
	while (*p == ' ')
		p++;
	/* The flags column (e.g. "d.h1."), then the timestamp. */
	while (*p && *p != ' ')
		p++;
	while (*p == ' ')
		p++;
	*ts = strtod(p, &end);
	if (end == p || *end != ':' || end[1] != ' ')
		return -1;
	*event = end + 2;
	return 1;
}

int main(int argc, char **argv)
{
	int cpu_wanted = 0, in_window = 0, seen_begin = 0, seen_end = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = stdin;
	unsigned long i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--cpu") && a + 1 < argc) {
			cpu_wanted = atoi(argv[++a]);
		} else if (!strcmp(argv[a], "--all")) {
			all = 1;
			in_window = 1;
		} else if (!strcmp(argv[a], "--word-bits") && a + 1 < argc) {
			word_bits = atoi(argv[++a]);
			if (word_bits != 32 && word_bits != 64) {
				fprintf(stderr, "%s: --word-bits: 32 or 64\n", prog);
				return 2;
			}
		} else if (argv[a][0] == '-' && argv[a][1]) {
			fprintf(stderr, "usage: %s [--cpu N] [--word-bits 64|32] [--all] [FILE]\n",
				prog);
			return 2;
		} else {
			input = argv[a];
		}
	}
	if (strcmp(input, "-")) {
		f = fopen(input, "r");
		if (!f) {
			fprintf(stderr, "%s: %s: %s\n", prog, input, strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < MAX_IRQS; i++) {
		irqs[i].last_pass = -1;
		irqs[i].port = -1;
	}
	for (i = 0; i < MAX_PORTS; i++)
		raise_pass[i] = -2;

	while (getline(&line, &cap, f) > 0) {
		int cpu, rc, irq, port;
		double ts;
		char *ev, *s;

		lineno++;
		rc = parse_line(line, &cpu, &ts, &ev);
		if (!rc)
			continue;
		if (rc < 0)
			die("not a line of ftrace's text format");
		ev[strcspn(ev, "\n")] = 0;

		/* A pass: the function tracer's line, or a kprobe's named evo_pass. */
		if (!strncmp(ev, "evtchn_2l_handle_events <-", 26) ||
		    !strncmp(ev, "evo_pass: (evtchn_2l_handle_events", 34)) {
			if (cpu != cpu_wanted)
				continue;
			end_pass();
			pass++;
			pass_in_window = in_window;
			/* The pass starts in the flooding port's word, below it. */
			if (in_window && flood_port >= 0 && last_port >= 0 &&
			    last_port / word_bits == flood_port / word_bits &&
			    last_port < flood_port)
				flood_above++;
			pass_services = pass_flood = 0;
			pass_double_evo = pass_double_other = 0;
			continue;
		}
		if (!strncmp(ev, "irq_handler_entry: irq=", 23)) {
			struct irq_info *ii;
			int evo, counted;

			if (cpu != cpu_wanted || !in_window)
				continue;
			irq = strtol(ev + 23, &s, 10);
			if (irq < 0 || irq >= MAX_IRQS || strncmp(s, " name=", 6))
				die("irq_handler_entry without irq= and name=");
			s += 6;
			ii = &irqs[irq];
			if (!ii->name[0])
				snprintf(ii->name, sizeof(ii->name), "%s", s);
			evo = !strncmp(s, "evo:", 4);
			if (evo && ii->port < 0) {
				port = strtol(s + 4, &s, 10);
				if (port < 0 || port >= MAX_PORTS || *s != ':')
					die("a module IRQ name that is not evo:PORT:ROLE");
				ii->port = port;
				ii->flood = !strcmp(s + 1, "flood");
				if (ii->flood)
					flood_port = port;
				ii->role_counted = strcmp(s + 1, "peer") != 0;
			}
			counted = all || (evo && ii->role_counted);
			if (counted)
				services_all++;
			if (pass < 0)
				continue;	/* before the first pass */
			if (counted && pass_in_window) {
				services++;
				pass_services++;
				if (ii->flood) {
					flood_services++;
					pass_flood++;
				}
			}
			/* The VIRQ_TIMER port may be serviced twice. */
			if (ii->last_pass == pass && strncmp(ii->name, "timer", 5) &&
			    pass_in_window) {
				if (evo)
					pass_double_evo = 1;
				else
					pass_double_other = 1;
				if (first_double_pass < 0) {
					first_double_pass = passes;
					snprintf(first_double_name,
						 sizeof(first_double_name),
						 "%s", ii->name);
				}
			}
			ii->last_pass = pass;
			port = ii->port;
			/* The cursor is right after it (if it is a module port). */
			last_port = port;
			if (evo && !ii->flood && raise_pass[port] != -2) {
				double us = (ts - raise_ts[port]) * 1e6;
				long w = pass - raise_pass[port] - 1;

				if (w < 0)
					w = 0;
				if (nr_waits == cap_waits) {
					cap_waits = cap_waits ? 2 * cap_waits : 4096;
					waits = realloc(waits, cap_waits * sizeof(*waits));
					if (!waits)
						die("out of memory");
				}
				waits[nr_waits++] = us;
				if (us > wait_max_us) {
					wait_max_us = us;
					wait_max_us_port = port;
				}
				if (w > wait_max_passes) {
					wait_max_passes = w;
					wait_max_passes_port = port;
				}
				raise_pass[port] = -2;
			}
			continue;
		}
		s = strstr(ev, ": evo ");
		if (!s)
			continue;
		s += 6;
		if (all) {
			/* The whole trace counts: the module's markers do not. */
		} else if (!strncmp(s, "begin", 5)) {
			if (seen_begin)
				die("a second \"evo begin\"");
			seen_begin = in_window = 1;
		} else if (!strncmp(s, "end", 3)) {
			if (!in_window)
				die("\"evo end\" without \"evo begin\"");
			seen_end = 1;
			in_window = 0;
			end_pass();
			pass_in_window = 0;
		} else if (!strncmp(s, "raise ", 6)) {
			port = strtol(s + 6, NULL, 10);
			if (port < 0 || port >= MAX_PORTS)
				die("\"evo raise\" of a port out of range");
			if (in_window && raise_pass[port] == -2) {
				raise_ts[port] = ts;
				raise_pass[port] = pass;
			}
		}
	}
	if (ferror(f))
		die(strerror(errno));
	if (!seen_begin && !all)
		die("no \"evo begin\" line: not a trace of the evtchn_order module");
	if (!seen_end && !all)
		die("no \"evo end\" line: the trace stops before the run's end");
	if (all)
		end_pass();
	if (!passes)
		die("no pass of evtchn_2l_handle_events on that vCPU: is it traced?");

	printf("passes %lu\n", passes);
	printf("services %lu\n", services);
	printf("services_all %lu\n", services_all);
	printf("flood_services %lu\n", flood_services);
	printf("flood_above_cursor %lu\n", flood_above);
	printf("double_passes %lu\n", double_passes);
	printf("double_evo %lu\n", double_evo);
	printf("double_other %lu\n", double_other);
	if (first_double_pass >= 0)
		printf("first_double %ld %s\n", first_double_pass, first_double_name);
	else
		printf("first_double none\n");
	printf("wait_max_us %.1f %d\n", wait_max_us, wait_max_us_port);
	printf("wait_max_passes %ld %d\n", wait_max_passes, wait_max_passes_port);
	qsort(waits, nr_waits, sizeof(*waits), cmp_double);
	printf("wait_us %.1f %.1f %zu\n", wait_pct(50), wait_pct(99), nr_waits);
	{
		unsigned long seen = 0, p50 = 0, p90 = 0, min = 0, max = 0;
		int have50 = 0, have90 = 0, havemin = 0;

		for (i = 0; i <= MAX_PER_PASS; i++) {
			if (!per_pass_hist[i])
				continue;
			if (!havemin) {
				min = i;
				havemin = 1;
			}
			max = i;
			seen += per_pass_hist[i];
			if (!have50 && seen * 2 >= passes) {
				p50 = i;
				have50 = 1;
			}
			if (!have90 && seen * 10 >= passes * 9) {
				p90 = i;
				have90 = 1;
			}
		}
		printf("per_pass %lu %lu %lu %lu\n", min, p50, p90, max);
	}
	printf("per_pass_hist");
	for (i = 0; i <= MAX_PER_PASS; i++)
		if (per_pass_hist[i])
			printf(" %lu:%lu", i, per_pass_hist[i]);
	printf("\n");
	printf("flood_share_hist");
	for (i = 0; i <= 10; i++) {
		printf(" %lu:%lu", i, share_hist[i]);
	}
	printf("\n");
	return 0;
}
