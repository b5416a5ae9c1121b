/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Replay engine for the Xen 2-level event channel scanner: a model of
 * what the scanner sees (the pending and mask bitmaps of shared_info,
 * each vCPU's selector word and upcall flag, port bindings, the
 * VIRQ_TIMER port and the per-CPU cursor) and the executor of script
 * steps (evtchn_2l_script.h) against it, for evtchn-replay and the
 * fuzzers of ../fuzz.  Its passes rr and base are the kernel's own
 * evtchn_2l_handle_events(), compiled by ../scan/real_2l.c.
 */
#ifndef __EVTCHN_2L_REPLAY_H__
#define __EVTCHN_2L_REPLAY_H__

#include <linux/types.h>

#include "evr_geometry.h"
#include "evtchn_2l_script.h"

#define EVR_MAX_WORD_BITS	64
#define EVR_MAX_PORTS		(EVR_MAX_WORD_BITS * EVR_MAX_WORD_BITS)
#define EVR_MAX_PASSES		100000
#define EVR_MAX_SERVICES	4000000U
#define EVR_MAX_RULES		1024
#define EVR_NO_PORT		EVTCHN_2L_NO_PORT

struct evr_cpu {
	u64 sel;
	bool upcall_pending;
	struct evtchn_2l_cursor cursor;
	unsigned int timer_port;
	u64 bound[EVR_MAX_WORD_BITS];
};

/* "on PORT pend PORTS times N": @ports[@nr] is the script's list. */
struct evr_rule {
	u32 port;
	u32 times_left;
	const unsigned int *ports;
	u32 nr;
};

/**
 * struct evr_sim - replay state
 * @word_bits: bits per event word (32 or 64); port = word * word_bits + bit.
 * @nr_ports: word_bits * word_bits.
 * @nr_cpus: number of vCPUs.
 * @pending: shared_info->evtchn_pending[], word_bits bits a word.
 * @mask: shared_info->evtchn_mask[].
 * @port_cpu: the vCPU each port is bound to.
 * @cpu: per-vCPU state.
 * @pass: the scan pass evr_upcall() runs: evr_pass_rr() unless set.
 * @log: the ports serviced by the last upcall, in order.
 * @log_len: entries in @log.
 * @log_cap: room in @log.
 * @upcalls: upcalls run so far.
 * @expects: expect steps that held.
 * @rules: the "on" rules.
 * @nr_rules: entries in @rules.
 * @on_pend: if set, called when a port becomes pending.
 * @on_service: if set, called when a port is serviced, before its rules.
 * @name: the name of the script evr_run() runs, for messages.
 * @line: the line of its step being run.
 * @after_step: if set, evr_run() calls it after each step that held.
 * @err: the first error, as "NAME:LINE: message"; empty if none.
 */
struct evr_sim {
	unsigned int word_bits;
	unsigned int nr_ports;
	unsigned int nr_cpus;
	u64 pending[EVR_MAX_WORD_BITS];
	u64 mask[EVR_MAX_WORD_BITS];
	u8 port_cpu[EVR_MAX_PORTS];
	struct evr_cpu cpu[EVR_MAX_CPUS];
	void (*pass)(struct evr_sim *sim, unsigned int cpu);
	u32 *log;
	u32 log_len;
	u32 log_cap;
	u32 upcalls;
	u32 expects;
	struct evr_rule rules[EVR_MAX_RULES];
	u32 nr_rules;
	void (*on_pend)(struct evr_sim *sim, unsigned int port);
	void (*on_service)(struct evr_sim *sim, unsigned int port);
	const char *name;
	unsigned int line;
	void (*after_step)(struct evr_sim *sim, const struct evr_step *step);
	char err[512];
};

struct evr_sim *evr_sim_create(unsigned int word_bits, unsigned int nr_cpus);
void evr_sim_destroy(struct evr_sim *sim);
int evr_sim_reset(struct evr_sim *sim, unsigned int word_bits,
		  unsigned int nr_cpus);

/* What Xen does on a send: set pending; if unmasked, raise the selector. */
void evr_pend(struct evr_sim *sim, unsigned int port);
/* Set the pending bit only. */
void evr_raw_pend(struct evr_sim *sim, unsigned int port);
void evr_mask(struct evr_sim *sim, unsigned int port);
/* What Xen does on EVTCHNOP_unmask. */
void evr_unmask(struct evr_sim *sim, unsigned int port);
void evr_bind(struct evr_sim *sim, unsigned int port, unsigned int cpu);

bool evr_port_pending(const struct evr_sim *sim, unsigned int port);
bool evr_port_active(const struct evr_sim *sim, unsigned int cpu,
		     unsigned int port);
u64 evr_active_word(const struct evr_sim *sim, unsigned int cpu,
		    unsigned int word);

/* Service a port as handle_irq_for_port() does: ack, then the rules. */
void evr_service(struct evr_sim *sim, unsigned int port);
/*
 * One pass of evtchn_2l_handle_events() on the model, at its word width
 * (../scan/real_2l.c): the series' (rr, the default of evr_sim_create())
 * and the released one (base).
 */
void evr_pass_rr(struct evr_sim *sim, unsigned int cpu);
void evr_pass_base(struct evr_sim *sim, unsigned int cpu);
/* One upcall on @cpu: passes while the upcall flag is raised again. */
int evr_upcall(struct evr_sim *sim, unsigned int cpu);

/**
 * evr_run() - run a parsed script
 * @sim: state from evr_sim_create(), with the default geometry.
 * @script: the steps, every number in range for the geometry (the
 *          parser checks them).
 *
 * The first error stops the script and leaves "NAME:LINE: message" in
 * @sim->err.
 *
 * Return: 0; -EOPNOTSUPP if the script asks for words wider than
 * xen_ulong_t; -EINVAL on any other error (a failed expect, an upcall
 * that does not end, no memory for an upcall's log).
 */
int evr_run(struct evr_sim *sim, const struct evr_script *script);

#endif /* __EVTCHN_2L_REPLAY_H__ */
