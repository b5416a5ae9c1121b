/* SPDX-License-Identifier: GPL-2.0-only */
/* The "base" policy: the released evtchn_2l_handle_events() (real_2l.c);
 * "rr", the series' one, is declared in evtchn_2l_replay.h. */
#ifndef __EVR_REAL_2L_H__
#define __EVR_REAL_2L_H__

struct evr_sim;

void evr_base_pass_w32(struct evr_sim *sim, unsigned int cpu);
void evr_base_pass_w64(struct evr_sim *sim, unsigned int cpu);

#endif /* __EVR_REAL_2L_H__ */
