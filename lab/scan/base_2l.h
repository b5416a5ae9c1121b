/* SPDX-License-Identifier: GPL-2.0-only */
/* The "base" policy: Linux 6.12's scan, one build per word width. */
#ifndef __EVR_BASE_2L_H__
#define __EVR_BASE_2L_H__

struct evr_sim;

void evr_base_pass_w32(struct evr_sim *sim, unsigned int cpu);
void evr_base_pass_w64(struct evr_sim *sim, unsigned int cpu);

#endif /* __EVR_BASE_2L_H__ */
