/* SPDX-License-Identifier: GPL-2.0-only */
/* evtchn-replay: the scan policies of --policy. */
#ifndef __EVTCHN_REPLAY_H__
#define __EVTCHN_REPLAY_H__

#include <stdbool.h>

struct evr_sim;

/**
 * struct evr_policy - a scan policy
 * @name: its name for --policy.
 * @pass: runs one pass on a CPU; services ports with evr_service().
 * @uses_cursor: false if the policy has no cursor: 0 is printed.
 */
struct evr_policy {
	const char *name;
	void (*pass)(struct evr_sim *sim, unsigned int cpu);
	bool uses_cursor;
};

#endif /* __EVTCHN_REPLAY_H__ */
