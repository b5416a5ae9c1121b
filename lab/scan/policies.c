// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lab's evtchn-replay: the tool of ../xen-evtchn/ linked with this
 * file, which adds the "base" policy, the released scan (real_2l.c),
 * through the tool's evr_more_policies[].
 */
#include "lab_shim.h"
#include "evtchn_2l_replay.h"
#include "evtchn-replay.h"
#include "real_2l.h"

/* The released function, built for the script's word width. */
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

const struct evr_policy *const evr_more_policies[] = {
	&evr_policy_base,
	NULL,
};
