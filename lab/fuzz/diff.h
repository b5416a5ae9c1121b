/* SPDX-License-Identifier: GPL-2.0-only */
/* The differential of the series' pass against a plain reference (diff.c). */
#ifndef __EVR_DIFF_H__
#define __EVR_DIFF_H__

#include <stddef.h>
#include <stdint.h>

struct evr_diff_stats {
	unsigned long long passes;
	unsigned long long services;
	unsigned long long divergences;
};

/*
 * Decode @data as a scenario and run it through the series'
 * evtchn_2l_handle_events() (the replay engine's rr policy) and through
 * the reference, comparing them after every pass.  Returns the number of
 * divergences (the first one of the run is described on stderr).
 */
unsigned int evr_diff_run(const uint8_t *data, size_t size,
			  struct evr_diff_stats *st);

#endif /* __EVR_DIFF_H__ */
