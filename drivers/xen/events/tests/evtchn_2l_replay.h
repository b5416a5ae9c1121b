/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Replay engine for the Xen 2-level event channel scanner.
 *
 * It models what the scanner sees: the pending and mask bitmaps of
 * shared_info, each vCPU's selector word and upcall-pending flag, port
 * bindings, the VIRQ_TIMER port and the per-CPU cursor, and it runs
 * scripts of pending-bit patterns against a scan policy.  The KUnit
 * suite (evtchn_2l_kunit.c) and the userspace tool
 * (tools/testing/xen-evtchn/) both build it, so a script means the same
 * thing in both.  The script format is described in
 * Documentation/virt/xen/event-channels-2l.rst.
 *
 * The state uses fixed-width types only, so that code built with
 * another xen_ulong_t (the userspace adapter for the Linux 6.12
 * function) can share it.
 */
#ifndef __EVTCHN_2L_REPLAY_H__
#define __EVTCHN_2L_REPLAY_H__

#include <linux/types.h>

#include "../events_2l_scan.h"

#define EVR_MAX_WORD_BITS	64
#define EVR_MAX_PORTS		(EVR_MAX_WORD_BITS * EVR_MAX_WORD_BITS)
#define EVR_MAX_CPUS		8
#define EVR_MAX_PASSES		100000
#define EVR_MAX_SERVICES	4000000
#define EVR_MAX_RULES		1024
#define EVR_MAX_TARGETS		65536
#define EVR_NO_PORT		EVTCHN_2L_NO_PORT

struct evr_sim;

/**
 * typedef evr_pass_fn - one pass of a scan policy on one CPU
 * @sim: the state; the pass services ports with evr_service().
 * @cpu: the CPU whose events are scanned.
 */
typedef void (*evr_pass_fn)(struct evr_sim *sim, unsigned int cpu);

/**
 * struct evr_policy - a scan policy
 * @name: name on the command line ("rr", "base", "lowest").
 * @pass: runs one pass.
 * @uses_cursor: false if the policy always starts at port 0; the
 *               reported cursor is then 0.
 */
struct evr_policy {
	const char *name;
	evr_pass_fn pass;
	bool uses_cursor;
};

extern const struct evr_policy evr_policy_rr;
extern const struct evr_policy evr_policy_lowest;

struct evr_cpu {
	u64 sel;
	bool upcall_pending;
	struct evtchn_2l_cursor cursor;
	unsigned int timer_port;
	u64 bound[EVR_MAX_WORD_BITS];
};

struct evr_rule {
	u32 port;
	u32 times_left;
	u32 first;
	u32 count;
};

struct evr_port_stats {
	u64 pend_stamp;
	u64 wait_sum;
	u32 services;
	u32 max_wait;
};

/**
 * struct evr_sim - replay state
 * @word_bits: bits per event word (32 or 64); ports are
 *             word * word_bits + bit.
 * @nr_ports: word_bits * word_bits.
 * @nr_cpus: number of vCPUs.
 * @pending: shared_info->evtchn_pending[], word_bits bits a word.
 * @mask: shared_info->evtchn_mask[].
 * @port_cpu: the vCPU each port is bound to.
 * @cpu: per-vCPU state.
 * @policy: the scan policy run by evr_upcall().
 * @on_service: optional hook called after each service (tests).
 * @hook_data: context for @on_service.
 * @log: ports serviced by the last upcall, in order.
 * @log_len: entries in @log.
 * @nr_services: services since the start, all ports.
 * @passes: passes of the last upcall.
 * @upcalls: upcalls run so far.
 * @expects: expect checks that passed.
 * @log_cap: room in @log.
 * @rules: the "on PORT pend ..." rules.
 * @nr_rules: entries in @rules.
 * @targets: the ports the rules pend, @rules[i].count from .first.
 * @nr_targets: entries in @targets.
 * @stats: per-port service statistics.
 * @name: the script's name, for error messages.
 * @line: the line being run.
 * @started: a command other than word-bits or cpus has run.
 * @has_upcall: an upcall has run (expect needs one).
 * @unsupported: the script needs a geometry this build lacks.
 * @emit: where output goes (may be NULL).
 * @emit_ctx: context for @emit.
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
	const struct evr_policy *policy;
	void (*on_service)(struct evr_sim *sim, unsigned int port);
	void *hook_data;

	u32 *log;
	u32 log_len;
	u32 log_cap;
	u64 nr_services;
	u32 passes;
	u32 upcalls;
	u32 expects;

	struct evr_rule *rules;
	u32 nr_rules;
	u32 *targets;
	u32 nr_targets;
	struct evr_port_stats *stats;

	/* Script state. */
	const char *name;
	unsigned int line;
	bool started;
	bool has_upcall;
	bool unsupported;
	void (*emit)(void *ctx, const char *text);
	void *emit_ctx;
	char err[256];
};

struct evr_sim *evr_sim_create(unsigned int word_bits, unsigned int nr_cpus);
void evr_sim_destroy(struct evr_sim *sim);
int evr_sim_set_geometry(struct evr_sim *sim, unsigned int word_bits,
			 unsigned int nr_cpus);

/* What Xen does: set pending; raise selector and upcall flag if unmasked. */
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

/* Service a port as handle_irq_for_port() would: ack, then the rules. */
void evr_service(struct evr_sim *sim, unsigned int port);

/* Run one upcall on @cpu: passes while the upcall flag is set again. */
int evr_upcall(struct evr_sim *sim, unsigned int cpu);
unsigned int evr_cursor(const struct evr_sim *sim, unsigned int cpu);

/**
 * evr_run_script() - run a replay script
 * @sim: fresh state from evr_sim_create().
 * @name: file name used in error messages.
 * @text: the script; need not be NUL-terminated.
 * @len: its length.
 * @stats: print per-port statistics at the end.
 *
 * Output goes to @sim->emit.  On the first error the script stops and
 * @sim->err holds "NAME:LINE: message".
 *
 * Return: 0; -EOPNOTSUPP if the script asks for words wider than
 * xen_ulong_t; -EINVAL on any other error.
 */
int evr_run_script(struct evr_sim *sim, const char *name, const char *text,
		   size_t len, bool stats);

#endif /* __EVTCHN_2L_REPLAY_H__ */
