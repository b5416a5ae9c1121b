/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evtchn-stress: what its files share.  evtchn-stress.c has main() and
 * the options, stress-common.c the helpers declared here and the shared
 * globals' definitions; stress-loop.c, stress-exchange.c (serve and
 * peer) and stress-width.c one mode each.
 */
#ifndef EVTCHN_STRESS_H
#define EVTCHN_STRESS_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <sys/ioctl.h>

/* <xen/evtchn.h> leaves domid_t to its includer, as Xen's tools do. */
#define domid_t unsigned short
#include <xen/evtchn.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PROG		"evtchn-stress"
#define DEV_EVTCHN	"/dev/xen/evtchn"
#define XEN_DOMID_SELF	0x7ff0U		/* also DOMID_FIRST_RESERVED */
#define MAX_PORTS	4096U		/* ports of the 2-level ABI */
#define RBUF		1024		/* ports per read() and write() */
#define SLICE_MS	50		/* poll() slice: guards are checked */
#define SCAN_NS		100000000ULL	/* look for lost ports this often */
#define NSEC		1000000000ULL
#define MAX_LAT		(1024U * 1024)	/* latencies kept per CPU */
#define NOTE_MAX	8		/* ports named in a failure */

static_assert(sizeof(unsigned int) == 4, "ports are 32-bit");

/* loop: fail_exit() bails out in TAP too */
extern bool tap_mode;

noreturn void fail_exit(const char *fmt, ...);
unsigned long long now_ns(void);
void sleep_ms(unsigned int ms);

/* ------------------------------------------------------ /dev/xen/evtchn */

int ec_open(void);
int ec_ioctl(int fd, unsigned long req, const char *name, void *arg,
	     bool may_fail);

#define EC_IOCTL(fd, req, arg, may_fail) \
	ec_ioctl(fd, req, #req, arg, may_fail)

int ec_bind_unbound(int fd, unsigned int remote, bool may_fail);
int ec_bind_interdomain(int fd, unsigned int remote,
			unsigned int rport, bool may_fail);
void ec_unbind(int fd, unsigned int port);
void ec_notify(int fd, unsigned int port);
void ec_unmask(int fd, const unsigned int *ports, size_t n);
int ec_wait(int fd, unsigned int *buf, int timeout_ms);

/* ------------------------------------------------------------ figures */

struct lat {
	unsigned int *us;
	size_t n, cap;
	unsigned long long worst_ns;
};

void lat_add(struct lat *l, unsigned long long ns);
unsigned int lat_pct(struct lat *l, unsigned int pct);
unsigned int lat_median(struct lat *l);

/* Up to NOTE_MAX ports, for the message of a failure. */
struct note {
	unsigned int port[NOTE_MAX];
	unsigned long long n;
};

void note_add(struct note *nt, unsigned int port);
const char *note_str(const struct note *nt, char *buf, size_t size);

/* ---------------------------------------------------- /proc/interrupts */

/* Counts per CPU column: CPU0, CPU1, all others. */
#define NCOL 3

struct irq_count {
	int irq;
	unsigned long long cnt[NCOL];
};

extern int cpu_cols;		/* online CPUs, as /proc/interrupts has them */
extern char irq_name[32];	/* loop, width: "evtchn:<comm>" of the ports */

int read_irqs(const char *name, struct irq_count *out, int cap);
int move_irq(int irq, int cpu);

/* ------------------------------------------------- the modes' options */

/* loop (and width: --self-domid) */
struct lo_opts {
	unsigned int ports;
	bool ports_max;
	unsigned long long sends;
	int timeout_ms;			/* past it an event is late */
	int lost_ms;			/* past it, lost */
	unsigned int flood_secs;
	unsigned int max_secs;
	unsigned int self;
};
extern struct lo_opts lo;

/* serve and peer */
struct ex_opts {
	int timeout_ms;			/* past it an event is late */
	int lost_ms;			/* past it, lost */
	unsigned int max_secs;		/* peer: stop after (0: never) */
	unsigned long long delay_at;	/* serve: answer this one late */
	unsigned int delay_ms;
	unsigned long long drop_at;	/* serve: never answer this one */
	const char *progress;		/* peer: a file for the watcher */
	const char *hold;		/* peer: go on past --count while it exists */
	bool follow;			/* serve: --follow-restore */
	const char *reconnect;		/* peer: --reconnect FILE */
};
extern struct ex_opts ex;

/* width */
struct wi_opts {
	unsigned long long rounds;
	unsigned int max_lost;
	int timeout_ms;
	int lost_ms;
	unsigned int max_secs;
};
extern struct wi_opts wi;

/* ---------------------------------------------------------- the modes */

int run_loop(void);
int run_exchange(bool serve, unsigned int domid, unsigned int rport,
		 unsigned int rctl, unsigned long long count,
		 unsigned int wait_secs);
int run_width(void);

#endif
