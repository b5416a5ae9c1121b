/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A replay script as data: the steps that evtchn_2l_replay.c runs, as
 * the parser (parse.c) makes them out of a script's text.  The script
 * format is described in README.
 *
 * Plain C types only.
 */
#ifndef __EVTCHN_2L_SCRIPT_H__
#define __EVTCHN_2L_SCRIPT_H__

#define EVR_MAX_CPUS	8

/* The commands, and what of struct evr_step each of them uses. */
enum evr_op {
	EVR_WORD_BITS,		/* word-bits: .arg */
	EVR_CPUS,		/* cpus: .arg */
	EVR_PEND,		/* pend: the list (ports) */
	EVR_RAW_PEND,		/* raw-pend: the list */
	EVR_MASK,		/* mask: the list */
	EVR_UNMASK,		/* unmask: the list */
	EVR_BIND,		/* bind: the list, .cpu */
	EVR_CURSOR,		/* cursor: .cpu, .arg (a port) */
	EVR_TIMER,		/* timer: .cpu, .arg */
	EVR_SELECTOR,		/* selector: .cpu, the list (words) */
	EVR_ON,			/* on: .arg (a port), .times, the list */
	EVR_UPCALL,		/* upcall: .cpu */
	EVR_EXPECT,		/* expect: the list, none for "-" */
	EVR_EXPECT_CURSOR,	/* expect-cursor: .cpu, .arg */
	EVR_EXPECT_PENDING,	/* expect-pending: the list, none for "-" */
	EVR_SHOW_PENDING,	/* show-pending */
	EVR_NR_OPS
};

/**
 * struct evr_step - one command of a script
 * @line: its line in the script.
 * @op: the command.
 * @cpu: its vCPU argument.
 * @arg: its port or number argument.
 * @times: the count of "on ... times N".
 * @first: its list: the values from @first in the script's values.
 * @nr: the number of those values.
 */
struct evr_step {
	unsigned int line;
	enum evr_op op;
	unsigned int cpu;
	unsigned int arg;
	unsigned int times;
	unsigned int first;
	unsigned int nr;
};

/**
 * struct evr_script - a parsed script
 * @name: its name, for messages.
 * @steps: its commands, in order.
 * @nr_steps: the number of @steps.
 * @values: the lists of all its steps, ranges written out.
 */
struct evr_script {
	const char *name;
	const struct evr_step *steps;
	unsigned int nr_steps;
	const unsigned int *values;
};

#endif /* __EVTCHN_2L_SCRIPT_H__ */
