// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff-long [PASSES [SEED]]: the differential of diff.c without
 * libFuzzer, on seeded random scenarios, until PASSES passes (default
 * 10^7) have been compared.  Prints passes, services and divergences;
 * exits 1 if there was any.
 */
#include <stdio.h>
#include <stdlib.h>

#include "diff.h"

static unsigned long long rng_state;

static unsigned int rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 2685821657736338717ULL) >> 32;
}

int main(int argc, char **argv)
{
	unsigned long long target = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000ULL;
	unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20261201ULL;
	struct evr_diff_stats st = { 0 };
	unsigned long long scenarios = 0;
	uint8_t buf[512];

	rng_state = seed | 1;
	while (st.passes < target) {
		size_t len = 16 + rng() % (sizeof(buf) - 16), i;
		unsigned int bias = rng() % 4;

		for (i = 0; i < len; i++)
			buf[i] = rng();
		/* Favour passes and sends, so that scenarios do work. */
		for (i = 1; bias && i < len; i += 3 + rng() % 5)
			buf[i] = rng() % 4 ? 0 : 7;
		evr_diff_run(buf, len, &st);
		scenarios++;
		if (st.divergences > 10)
			break;
	}
	printf("diff-long: seed %llu, %llu scenarios, %llu passes, %llu services, %llu divergences\n",
	       seed, scenarios, st.passes, st.services, st.divergences);
	return st.divergences ? 1 : 0;
}
