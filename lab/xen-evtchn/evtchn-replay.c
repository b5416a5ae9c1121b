// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-replay: run a pending-bit script against a 2-level event
 * channel scan policy and print what each upcall serviced.
 *
 *   evtchn-replay [--policy rr|base|lowest] [--word-bits 32|64] [--stats] FILE|-
 *
 * rr and base are the kernel's evtchn_2l_handle_events(), the series'
 * and the released one, each its events_2l.c compiled unchanged
 * (../scan/real_2l.c); lowest is the 2.6.18-era scan, below.
 *
 * The script format is in README.  Errors are "FILE:LINE: message" on
 * stderr and exit status 2.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evr_shim.h"
#include "evtchn_2l_replay.h"
#include "evtchn-replay.h"
#include "parse.h"

/*
 * The "lowest" policy: the 2.6.18-era scan.  Selector words in increasing
 * order; in each, re-read the word and take its lowest active port until
 * none is left.  No timer rule, no cursor.
 */
static void evr_pass_lowest(struct evr_sim *sim, unsigned int cpu)
{
	u64 sel = sim->cpu[cpu].sel, bits;
	unsigned int w;

	sim->cpu[cpu].sel = 0;
	for (; sel && !sim->err[0]; sel &= sel - 1) {
		w = __ffs64(sel);
		while (!sim->err[0] && (bits = evr_active_word(sim, cpu, w)))
			evr_service(sim, w * sim->word_bits + __ffs64(bits));
	}
}

/* --policy NAME; the first is the default. */
static const struct evr_policy policies[] = {
	{ .name = "rr", .pass = evr_pass_rr, .uses_cursor = true },
	{ .name = "base", .pass = evr_pass_base, .uses_cursor = true },
	{ .name = "lowest", .pass = evr_pass_lowest, .uses_cursor = false },
};

static const struct evr_policy *policy = &policies[0];

static const struct evr_policy *find_policy(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(policies); i++)
		if (!strcmp(name, policies[i].name))
			return &policies[i];
	return NULL;
}

static void print_usage(void)
{
	fputs("usage: evtchn-replay [--policy NAME] [--word-bits 32|64] [--stats] FILE|-\n",
	      stderr);
	exit(2);
}

static __noreturn __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("evtchn-replay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* Read all of FILE (or standard input for "-"). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 32768, n = 0;
	char *buf = NULL;

	if (!f)
		fail("%s: %s", path, strerror(errno));
	do {
		buf = realloc(buf, cap *= 2);
		if (!buf)
			fail("%s: out of memory", path);
		n += fread(buf + n, 1, cap - n, f);
	} while (n == cap);
	if (ferror(f))
		fail("%s: read error", path);
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

static void print_ports(const u32 *ports, u32 nr)
{
	u32 i;

	if (!nr)
		putchar('-');
	for (i = 0; i < nr; i++)
		printf(i ? ",%u" : "%u", ports[i]);
}

/* What a script prints: each upcall's services, and show-pending. */
static void after_step(struct evr_sim *sim, const struct evr_step *step)
{
	unsigned int port, n = 0;

	if (step->op == EVR_UPCALL) {
		printf("upcall cpu=%u serviced=", step->cpu);
		print_ports(sim->log, sim->log_len);
		printf(" cursor=%u\n", policy->uses_cursor ?
		       sim->cpu[step->cpu].cursor.port : 0);
	} else if (step->op == EVR_SHOW_PENDING) {
		printf("pending ports=");
		for (port = 0; port < sim->nr_ports; port++)
			if (evr_port_pending(sim, port))
				printf(n++ ? ",%u" : "%u", port);
		printf(n ? "\n" : "-\n");
	}
}

/*
 * --stats: per port, its services and their waits, a wait counting the
 * services of any port between the port becoming pending and its service.
 */
static struct {
	u64 pend_stamp;
	u64 wait_sum;
	u32 services;
	u32 max_wait;
} port_stats[EVR_MAX_PORTS];
static u64 nr_services;

static void on_pend(struct evr_sim *sim, unsigned int port)
{
	port_stats[port].pend_stamp = nr_services;
}

static void on_service(struct evr_sim *sim, unsigned int port)
{
	u64 wait = nr_services++ - port_stats[port].pend_stamp;

	port_stats[port].services++;
	port_stats[port].wait_sum += wait;
	if (wait > port_stats[port].max_wait)
		port_stats[port].max_wait = wait > U32_MAX ? U32_MAX : wait;
}

static void print_stats(const struct evr_sim *sim)
{
	unsigned int port;

	for (port = 0; port < sim->nr_ports; port++) {
		const typeof(port_stats[0]) *st = &port_stats[port];
		u64 mean100;

		if (!st->services)
			continue;
		mean100 = (st->wait_sum * 100 + st->services / 2) / st->services;
		printf("port %u services=%u max_wait=%u mean_wait=%llu.%02llu\n",
		       port, st->services, st->max_wait, mean100 / 100,
		       mean100 % 100);
	}
}

int main(int argc, char **argv)
{
	unsigned int word_bits = min(BITS_PER_EVTCHN_WORD, 64);
	const char *path = NULL, *name;
	struct evr_script *script;
	struct evr_sim *sim;
	bool stats = false;
	char err[512];
	size_t len;
	char *text;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--policy") && i + 1 < argc) {
			policy = find_policy(argv[++i]);
			if (!policy)
				fail("unknown policy '%s'", argv[i]);
		} else if (!strcmp(a, "--word-bits") && i + 1 < argc) {
			if (strcmp(argv[++i], "32") && strcmp(argv[i], "64"))
				fail("--word-bits must be 32 or 64, not '%s'",
				     argv[i]);
			word_bits = atoi(argv[i]);
		} else if (!strcmp(a, "--stats")) {
			stats = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_usage();
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "evtchn-replay: unknown option '%s'\n", a);
			print_usage();
		} else if (path) {
			print_usage();
		} else {
			path = a;
		}
	}
	if (!path)
		print_usage();

	text = slurp(path, &len);
	name = strcmp(path, "-") ? path : "<stdin>";
	script = evr_parse(name, text, len, word_bits, err, sizeof(err));
	if (!script) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	sim = evr_sim_create(word_bits, 1);
	if (!sim)
		fail("out of memory");
	sim->pass = policy->pass;
	sim->after_step = after_step;
	sim->on_pend = on_pend;
	sim->on_service = on_service;

	ret = evr_run(sim, script);
	if (!ret && stats)
		print_stats(sim);
	fflush(stdout);
	if (ret)
		fprintf(stderr, "%s\n", sim->err);
	evr_sim_destroy(sim);
	evr_script_free(script);
	free(text);
	return ret ? 2 : 0;
}
