// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-replay: run a pending-bit script against a 2-level event
 * channel scan policy and print what each upcall serviced.
 *
 *   evtchn-replay [--policy rr|base|lowest] [--word-bits 32|64] [--stats]
 *                 FILE|-
 *
 * The script format is in Documentation/virt/xen/event-channels-2l.rst.
 * Errors are "FILE:LINE: message" on stderr and exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evr_shim.h"
#include "evtchn_2l_replay.h"
#include "base_2l.h"

#ifndef EVR_NO_BASE
/* Linux 6.12's function, built for the script's word width. */
static void evr_pass_base(struct evr_sim *sim, unsigned int cpu)
{
	if (sim->word_bits == 32)
		evr_base_pass_w32(sim, cpu);
	else
		evr_base_pass_w64(sim, cpu);
}

static const struct evr_policy evr_policy_base = {
	.name = "base",
	.pass = evr_pass_base,
	.uses_cursor = true,
};
#endif

static const struct evr_policy *const policies[] = {
	&evr_policy_rr, &evr_policy_lowest,
#ifndef EVR_NO_BASE
	&evr_policy_base,
#endif
};

static const char usage_text[] =
	"usage: evtchn-replay [--policy rr|base|lowest] [--word-bits 32|64]\n"
	"                     [--stats] FILE|-\n";

static void usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

static void emit(void *ctx, const char *text)
{
	fputs(text, stdout);
}

/* Read all of FILE (or standard input for "-"); exits on error. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 65536, n = 0;
	char *buf;

	if (!f) {
		fprintf(stderr, "evtchn-replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	buf = malloc(cap);
	for (;;) {
		size_t got;

		if (!buf) {
			fprintf(stderr, "evtchn-replay: %s: out of memory\n", path);
			exit(2);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	if (ferror(f)) {
		fprintf(stderr, "evtchn-replay: %s: read error\n", path);
		exit(2);
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	const struct evr_policy *policy = &evr_policy_rr;
	unsigned int word_bits = 64, i;
	const char *path = NULL;
	struct evr_sim *sim;
	bool stats = false;
	size_t len;
	char *text;
	int ret;

	for (i = 1; i < (unsigned int)argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--policy") && i + 1 < (unsigned int)argc) {
			const char *name = argv[++i];
			unsigned int p;

			policy = NULL;
			for (p = 0; p < ARRAY_SIZE(policies); p++)
				if (!strcmp(name, policies[p]->name))
					policy = policies[p];
			if (!policy && !strcmp(name, "base")) {
				fprintf(stderr,
					"evtchn-replay: policy 'base' not built in (build with BASE_SRC=)\n");
				exit(2);
			}
			if (!policy) {
				fprintf(stderr,
					"evtchn-replay: unknown policy '%s' (rr, base or lowest)\n",
					name);
				exit(2);
			}
		} else if (!strcmp(a, "--word-bits") && i + 1 < (unsigned int)argc) {
			const char *w = argv[++i];

			if (strcmp(w, "32") && strcmp(w, "64")) {
				fprintf(stderr,
					"evtchn-replay: --word-bits must be 32 or 64, not '%s'\n",
					w);
				exit(2);
			}
			word_bits = atoi(w);
		} else if (!strcmp(a, "--stats")) {
			stats = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "evtchn-replay: unknown option '%s'\n", a);
			usage();
		} else if (path) {
			usage();
		} else {
			path = a;
		}
	}
	if (!path)
		usage();

	text = slurp(path, &len);
	sim = evr_sim_create(word_bits, 1);
	if (!sim) {
		fprintf(stderr, "evtchn-replay: out of memory\n");
		exit(2);
	}
	sim->policy = policy;
	sim->emit = emit;

	ret = evr_run_script(sim, strcmp(path, "-") ? path : "<stdin>", text,
			     len, stats);
	fflush(stdout);
	if (ret)
		fprintf(stderr, "%s\n", sim->err);
	evr_sim_destroy(sim);
	free(text);
	return ret ? 2 : 0;
}
