// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: arbitrary bytes as a replay script, through the
 * parser and the engine of evtchn-replay, in every policy the lab's
 * build of the tool has (rr, lowest, base), at both word widths.
 *
 * A finding is a crash, a sanitizer report, a time-out, or an error
 * message that does not start with "fuzz:LINE: ".
 */
#include "lab_shim.h"

/* The tool itself, for its policies; its main() is not ours. */
#define main evtchn_replay_main
#include "../xen-evtchn/evtchn-replay.c"
#undef main

static void check_message(const char *msg, const char *what)
{
	const char *p = msg;

	if (strncmp(p, "fuzz:", 5))
		goto bad;
	for (p += 5; *p >= '0' && *p <= '9'; p++)
		;
	if (p > msg + 5 && p[0] == ':' && p[1] == ' ' && p[2])
		return;
bad:
	fprintf(stderr, "%s error without FILE:LINE: '%s'\n", what, msg);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "rr", "lowest", "base" };
	static const unsigned int widths[] = { 64, 32 };
	char err[512];
	unsigned int n, w;

	for (w = 0; w < ARRAY_SIZE(widths); w++) {
		struct evr_script *script;

		script = evr_parse("fuzz", (const char *)data, size, widths[w],
				   err, sizeof(err));
		if (!script) {
			check_message(err, "parse");
			continue;
		}
		for (n = 0; n < ARRAY_SIZE(names); n++) {
			const struct evr_policy *p = find_policy(names[n]);
			struct evr_sim *sim = evr_sim_create(widths[w], 1);

			if (!p || !sim)
				abort();
			sim->pass = p->pass;
			if (evr_run(sim, script))
				check_message(sim->err, names[n]);
			evr_sim_destroy(sim);
		}
		evr_script_free(script);
	}
	return 0;
}
