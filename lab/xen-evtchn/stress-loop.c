// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-stress loop: loopback pairs of ports inside this domain, four
 * TAP tests (bind, pingpong, move, flood).  See README.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "stress.h"

/* ---------------------------------------------------------- loop mode */

enum { S_IDLE, S_SENT, S_LOST };

struct slot {
	unsigned int port;
	unsigned int peer;		/* the slot whose port raises this one */
	int irq;
	int cpu;			/* CPU its IRQ was moved to, or -1 */
	bool off;			/* unbound (given to the flood) */
	int state;
	unsigned long long t_send;
	unsigned long long delivered;	/* this phase */
	unsigned long long base[NCOL], cnt[NCOL];
};

static struct slot *slots;
static unsigned int nslots;
static int *slot_of_port;		/* port -> slot, or -1 */
static unsigned int slot_of_port_len;
static int *slot_of_irq;		/* IRQ -> slot, or -1, once mapped */
static int slot_of_irq_len;
static unsigned long long deadline_ns;	/* --max-secs */
static bool timed_out;
static bool mapped;			/* every slot has its IRQ */

/* Totals for the closing line. */
static unsigned long long all_sends, all_deliveries, all_lost, all_moves;
static unsigned long long all_late, all_worst_late_ns;
static long long flood_worst_us = -1;

static int slot_lookup(unsigned int port)
{
	return port < slot_of_port_len ? slot_of_port[port] : -1;
}

struct traffic {
	/* what to do */
	const unsigned char *sel;	/* slots to use, NULL: all bound */
	bool no_send;			/* only expect one event on each */
	unsigned long long max_sends;	/* stop sending after this many */
	unsigned long long floor;	/* sends made even past --max-secs */
	unsigned long long until_ns;	/* stop sending then (0: never) */
	const atomic_uint *passes;	/* if set, send until it reaches 2 */
	bool record;			/* latencies, per CPU of the slot */
	/* what happened */
	unsigned long long sends, deliveries, lost, unexpected;
	unsigned long long late, worst_ns;
	struct note lost_ports, unexpected_ports, late_ports;
	struct lat lat[2];
};

static bool may_send(const struct traffic *t, unsigned long long now)
{
	if (t->no_send)
		return false;
	if (timed_out)
		return t->sends < t->floor;
	if (t->passes && atomic_load(t->passes) < 2)
		return true;
	if (t->sends >= t->max_sends)
		return false;
	return !t->until_ns || now < t->until_ns;
}

static void send_slot(int fd, struct traffic *t, unsigned int k)
{
	struct slot *s = &slots[k];

	s->state = S_SENT;
	s->t_send = now_ns();
	ec_notify(fd, slots[s->peer].port);
	t->sends++;
}

/*
 * Events on the slots of @t: each slot sent (its peer notified), and sent
 * again only once its delivery has been read, until @t says stop; then
 * wait for what is in flight.  Half of the re-sends happen before the
 * port is unmasked (the event then waits for the unmask), half after.
 * An event read later than --timeout-ms after its send is late (named
 * and timed), one not read within --lost-ms is lost; a port read that
 * was not sent is unexpected.  Once --max-secs is spent, only
 * @t->floor sends are made.
 */
static void run_traffic(int fd, struct traffic *t)
{
	unsigned int buf[RBUF], unmask[RBUF], early[RBUF], late[RBUF];
	unsigned long long now = now_ns(), last_scan = now;
	unsigned long long tmo = lo.timeout_ms * 1000000ULL;
	unsigned long long lost_tmo = lo.lost_ms * 1000000ULL;
	unsigned int k, inflight = 0, flip = 0;

	for (k = 0; k < nslots; k++) {
		struct slot *s = &slots[k];

		if (s->off || (t->sel && !t->sel[k]))
			continue;
		if (t->no_send) {
			s->state = S_SENT;
			s->t_send = now;
		} else if (may_send(t, now_ns())) {
			send_slot(fd, t, k);
		} else {
			continue;
		}
		inflight++;
	}

	while (inflight) {
		int i, n, ne = 0, nl = 0, nu = 0;

		if (!timed_out && now_ns() >= deadline_ns) {
			timed_out = true;
			printf("# --max-secs %u spent: from now on each test sends each port once\n",
			       lo.max_secs);
		}
		n = ec_wait(fd, buf, SLICE_MS);
		now = now_ns();
		for (i = 0; i < n; i++) {
			int j = slot_lookup(buf[i]);
			struct slot *s = j < 0 ? NULL : &slots[j];
			unsigned long long ns;

			unmask[nu++] = buf[i];
			if (!s || s->state != S_SENT) {
				t->unexpected++;
				note_add(&t->unexpected_ports, buf[i]);
				continue;
			}
			s->state = S_IDLE;
			s->delivered++;
			t->deliveries++;
			inflight--;
			ns = now - s->t_send;
			if (ns > t->worst_ns)
				t->worst_ns = ns;
			if (ns > tmo) {
				t->late++;
				note_add(&t->late_ports, s->port);
				if (t->late <= NOTE_MAX)
					printf("# port %u (IRQ %d): late: delivered %llu ms after its send (deadline %d ms)\n",
					       s->port, s->irq, ns / 1000000,
					       lo.timeout_ms);
			}
			if (t->record)
				lat_add(&t->lat[s->cpu == 1], ns);
			if (!may_send(t, now))
				continue;
			if (flip++ & 1)
				early[ne++] = j;
			else
				late[nl++] = j;
		}
		for (i = 0; i < ne; i++, inflight++)
			send_slot(fd, t, early[i]);
		ec_unmask(fd, unmask, nu);
		for (i = 0; i < nl; i++, inflight++)
			send_slot(fd, t, late[i]);

		if (n && now - last_scan < SCAN_NS)
			continue;
		last_scan = now_ns();
		for (k = 0; k < nslots; k++) {
			struct slot *s = &slots[k];

			if (s->off || s->state != S_SENT ||
			    s->t_send > last_scan ||
			    last_scan - s->t_send <= lost_tmo)
				continue;
			s->state = S_LOST;
			t->lost++;
			note_add(&t->lost_ports, s->port);
			inflight--;
			if (t->lost <= NOTE_MAX)
				printf("# port %u (IRQ %d): lost: no delivery %llu ms after its send\n",
				       s->port, s->irq,
				       (last_scan - s->t_send) / 1000000);
		}
	}
}

static void add_totals(const struct traffic *t)
{
	all_sends += t->sends;
	all_deliveries += t->deliveries;
	all_lost += t->lost;
	all_late += t->late;
	if (t->late && t->worst_ns > all_worst_late_ns)
		all_worst_late_ns = t->worst_ns;
}

static void print_traffic(const char *what, const struct traffic *t)
{
	char b1[128], b2[128];

	printf("# %s: sends %llu, deliveries %llu, lost %llu, ", what,
	       t->sends, t->deliveries, t->lost);
	printf("unexpected %llu, late %llu, worst latency %llu us\n",
	       t->unexpected, t->late, t->worst_ns / 1000);
	if (t->late)
		printf("# late events (past %d ms, delivered) on ports %s\n",
		       lo.timeout_ms, note_str(&t->late_ports, b1, sizeof(b1)));
	if (t->lost)
		printf("# lost events on ports %s\n",
		       note_str(&t->lost_ports, b1, sizeof(b1)));
	if (t->unexpected)
		printf("# unexpected deliveries on ports %s\n",
		       note_str(&t->unexpected_ports, b2, sizeof(b2)));
}

/* Why a test failed; the first reason is kept. */
static char why[256];

static void failed(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static void traffic_verdict(const struct traffic *t)
{
	char b[128];

	if (t->lost)
		failed("%llu events lost, ports %s", t->lost,
		       note_str(&t->lost_ports, b, sizeof(b)));
	else if (t->unexpected)
		failed("%llu unexpected deliveries, ports %s", t->unexpected,
		       note_str(&t->unexpected_ports, b, sizeof(b)));
}

static int test_no;
static bool all_ok = true;

static void tap_result(const char *name)
{
	test_no++;
	if (why[0]) {
		printf("not ok %d - %s # %s\n", test_no, name, why);
		all_ok = false;
	} else {
		printf("ok %d - %s\n", test_no, name);
	}
	why[0] = '\0';
	fflush(stdout);
}

/* Read the slots' IRQ counts into base (@begin) or cnt. */
static void snapshot(bool begin)
{
	struct irq_count *ic = calloc(nslots + 1, sizeof(*ic));
	int i, n;

	if (!ic)
		fail_exit("out of memory");
	n = read_irqs(irq_name, ic, nslots + 1);
	for (i = 0; i < n && i <= (int)nslots; i++) {
		struct slot *s;

		if (ic[i].irq < 0 || ic[i].irq >= slot_of_irq_len ||
		    slot_of_irq[ic[i].irq] < 0)
			continue;
		s = &slots[slot_of_irq[ic[i].irq]];
		if (!s->off)
			memcpy(begin ? s->base : s->cnt, ic[i].cnt,
			       sizeof(ic[i].cnt));
	}
	free(ic);
}

/* "<what> in /proc/interrupts: CPU0 n, CPU1 n, others n" and a newline */
static void print_cols(const char *what, const unsigned long long *d)
{
	printf("%s in /proc/interrupts: CPU0 %llu, CPU1 %llu, others %llu\n",
	       what, d[0], d[1], d[2]);
}

/*
 * Every delivery of the phase is one in its IRQ's line of
 * /proc/interrupts; with @placed, on the CPU the IRQ was moved to.
 */
static void check_counts(bool placed, unsigned long long on_cpu[NCOL])
{
	unsigned int k, c, bad = 0;

	memset(on_cpu, 0, NCOL * sizeof(*on_cpu));
	for (k = 0; k < nslots; k++) {
		struct slot *s = &slots[k];
		unsigned long long d[NCOL], sum = 0;

		if (s->off)
			continue;
		for (c = 0; c < NCOL; c++) {
			d[c] = s->cnt[c] - s->base[c];
			sum += d[c];
			on_cpu[c] += d[c];
		}
		if (sum == s->delivered &&
		    (!placed || s->cpu < 0 || d[s->cpu] == sum))
			continue;
		if (bad++ < 4) {
			printf("# port %u (IRQ %d, moved to CPU%d): %llu deliveries, ",
			       s->port, s->irq, s->cpu, s->delivered);
			print_cols("counted", d);
		}
		if (placed && sum == s->delivered)
			failed("port %u (IRQ %d) delivered off CPU%d",
			       s->port, s->irq, s->cpu);
		else
			failed("port %u (IRQ %d): %llu deliveries, IRQ count %llu",
			       s->port, s->irq, s->delivered, sum);
	}
	if (bad)
		printf("# %u ports with wrong IRQ counts\n", bad);
}

static void reset_delivered(void)
{
	unsigned int k;

	for (k = 0; k < nslots; k++)
		slots[k].delivered = 0;
}

/* Even slots to CPU0, odd ones to CPU1; false (and why) on error. */
static bool place_half(void)
{
	unsigned int k;

	for (k = 0; k < nslots; k++) {
		struct slot *s = &slots[k];
		int rc;

		if (s->off)
			continue;
		rc = move_irq(s->irq, k & 1);
		if (rc) {
			failed("cannot move IRQ %d (port %u) to CPU%u: %s",
			       s->irq, s->port, k & 1, strerror(-rc));
			return false;
		}
		s->cpu = k & 1;
	}
	return true;
}

/* Test 1: bind the pairs, drain the bind-time events, map ports to IRQs. */
static void test_bind(int fd)
{
	struct traffic t = { 0 };
	unsigned char *sel;
	unsigned int want = lo.ports_max ? MAX_PORTS : lo.ports;
	unsigned int k, b, rounds, pmin = ~0U, pmax = 0, max_port = 0;
	unsigned int placed[NCOL + 1] = { 0 };
	struct irq_count *before, *after;
	unsigned int *code, *grew;
	bool ordered = true, rounds_ok = true;
	char list[128];
	int n;

	slots = calloc(want, sizeof(*slots));
	if (!slots)
		fail_exit("out of memory");
	while (nslots + 2 <= want) {
		int a, p;

		a = ec_bind_unbound(fd, lo.self, lo.ports_max);
		if (a == -ENOSPC)
			break;
		if (a < 0)
			fail_exit("IOCTL_EVTCHN_BIND_UNBOUND_PORT: %s",
				  strerror(-a));
		p = ec_bind_interdomain(fd, lo.self, a, lo.ports_max);
		if (p == -ENOSPC) {
			ec_unbind(fd, a);
			break;
		}
		if (p < 0)
			fail_exit("IOCTL_EVTCHN_BIND_INTERDOMAIN: %s",
				  strerror(-p));
		/* a notify on one end raises the other */
		slots[nslots] = (struct slot){ .port = a, .peer = nslots + 1,
					       .irq = -1, .cpu = -1 };
		slots[nslots + 1] = (struct slot){ .port = p, .peer = nslots,
						   .irq = -1, .cpu = -1 };
		nslots += 2;
	}
	if (nslots < 2)
		fail_exit("IOCTL_EVTCHN_BIND_UNBOUND_PORT: %s", strerror(ENOSPC));
	for (k = 0; k < nslots; k++) {
		if (slots[k].port < pmin)
			pmin = slots[k].port;
		if (slots[k].port > pmax)
			pmax = slots[k].port;
	}
	max_port = pmax;
	slot_of_port_len = max_port + 1;
	slot_of_port = malloc(slot_of_port_len * sizeof(*slot_of_port));
	if (!slot_of_port)
		fail_exit("out of memory");
	memset(slot_of_port, 0xff, slot_of_port_len * sizeof(*slot_of_port));
	for (k = 0; k < nslots; k++)
		slot_of_port[slots[k].port] = k;
	printf("# bound %u ports (%u loopback pairs%s): ports %u..%u, IRQs named %s\n",
	       nslots, nslots / 2, nslots < want ? ", then ENOSPC" : "",
	       pmin, pmax, irq_name);
	if (pmax >= MAX_PORTS)
		printf("# port %u > %u: not the 2-level ABI (xen.fifo_events=0)?\n",
		       pmax, MAX_PORTS - 1);

	/* Xen raised each interdomain-bound end once, at its bind. */
	sel = calloc(nslots, 1);
	code = calloc(nslots, sizeof(*code));
	grew = calloc(nslots, sizeof(*grew));
	before = calloc(nslots + 1, sizeof(*before));
	after = calloc(nslots + 1, sizeof(*after));
	if (!sel || !code || !grew || !before || !after)
		fail_exit("out of memory");
	for (k = 1; k < nslots; k += 2)
		sel[k] = 1;
	t.sel = sel;
	t.no_send = true;
	run_traffic(fd, &t);
	printf("# bind-time events: %llu of %u\n", t.deliveries, nslots / 2);
	if (t.lost)
		failed("no bind-time event on ports %s",
		       note_str(&t.lost_ports, list, sizeof(list)));
	traffic_verdict(&t);
	for (k = 0; k < nslots; k++)
		slots[k].state = S_IDLE;

	/*
	 * Which IRQ is which port: in round b, slot k is sent iff bit b of
	 * k + 1 is set, so the rounds in which an IRQ's count grows spell
	 * the slot (+ 1) it belongs to.
	 */
	for (rounds = 0; (nslots >> rounds) != 0; rounds++)
		;
	for (b = 0; b < rounds; b++) {
		struct traffic r = { 0 };
		int i;

		for (k = 0; k < nslots; k++) {
			sel[k] = ((k + 1) >> b) & 1;
			r.max_sends += sel[k];	/* once each */
		}
		r.floor = r.max_sends;
		r.sel = sel;
		n = read_irqs(irq_name, before, nslots + 1);
		if (n != (int)nslots) {
			failed("%d IRQs named %s in /proc/interrupts, not %u",
			       n, irq_name, nslots);
			rounds_ok = false;
			break;
		}
		run_traffic(fd, &r);
		add_totals(&r);
		if (r.lost || r.unexpected) {
			print_traffic("mapping round", &r);
			traffic_verdict(&r);
			rounds_ok = false;
		}
		if (read_irqs(irq_name, after, nslots + 1) != n) {
			failed("IRQs named %s came or went", irq_name);
			rounds_ok = false;
			break;
		}
		for (i = 0; i < n; i++) {
			unsigned int c, d = 0;

			if (after[i].irq != before[i].irq) {
				failed("IRQs named %s came or went", irq_name);
				rounds_ok = false;
				break;
			}
			for (c = 0; c < NCOL; c++) {
				if (after[i].cnt[c] == before[i].cnt[c])
					continue;
				d = 1;
				grew[i] |= 1U << c;
			}
			code[i] |= d << b;
		}
	}
	if (rounds_ok) {
		int i;

		for (i = 0; i < (int)nslots; i++) {
			struct slot *s;

			if (code[i] < 1 || code[i] > nslots ||
			    slots[code[i] - 1].irq >= 0) {
				failed("IRQ %d matches no port (code %u): cannot map IRQs to ports",
				       after[i].irq, code[i]);
				break;
			}
			s = &slots[code[i] - 1];
			s->irq = after[i].irq;
			if (code[i] != (unsigned int)i + 1)
				ordered = false;
			switch (grew[i]) {
			case 1:		/* CPU0 only */
				placed[0]++;
				break;
			case 2:		/* CPU1 only */
				placed[1]++;
				break;
			case 4:		/* some other CPU only */
				placed[2]++;
				break;
			default:
				placed[3]++;
			}
		}
		mapped = i == (int)nslots;
	}
	if (mapped) {
		slot_of_irq_len = after[nslots - 1].irq + 1;
		slot_of_irq = malloc(slot_of_irq_len * sizeof(*slot_of_irq));
		if (!slot_of_irq)
			fail_exit("out of memory");
		memset(slot_of_irq, 0xff,
		       slot_of_irq_len * sizeof(*slot_of_irq));
		for (k = 0; k < nslots; k++)
			slot_of_irq[slots[k].irq] = k;
	}
	if (mapped) {
		printf("# IRQs %d..%d mapped to the ports in %u rounds",
		       after[0].irq, after[nslots - 1].irq, rounds);
		printf(" (IRQ order is bind order: %s)\n",
		       ordered ? "yes" : "no");
		printf("# vCPU of the ports after bind: CPU0 %u, CPU1 %u, ",
		       placed[0], placed[1]);
		printf("other %u, moved meanwhile %u\n", placed[2], placed[3]);
	}
	free(sel);
	free(code);
	free(grew);
	free(before);
	free(after);
	tap_result("bind");
}

/* Test 2: ping-pong, half of the IRQs on CPU1. */
static void test_pingpong(int fd)
{
	struct traffic t = { .max_sends = lo.sends, .floor = nslots };
	unsigned long long on_cpu[NCOL];
	bool placed = false;

	if (t.max_sends < nslots)
		t.max_sends = nslots;
	if (!mapped)
		failed("no port->IRQ mapping (test 1): IRQs not moved");
	else if (cpu_cols < 2)
		printf("# one CPU online: IRQs not moved\n");
	else
		placed = place_half();
	if (placed)
		printf("# IRQs of %u ports on CPU0, %u on CPU1\n",
		       (nslots + 1) / 2, nslots / 2);
	reset_delivered();
	if (mapped)
		snapshot(true);
	run_traffic(fd, &t);
	add_totals(&t);
	print_traffic("pingpong", &t);
	traffic_verdict(&t);
	if (mapped) {
		snapshot(false);
		check_counts(placed, on_cpu);
		print_cols("# deliveries counted", on_cpu);
	}
	tap_result("pingpong");
}

struct mover {
	pthread_t th;
	atomic_bool stop;
	atomic_uint passes;		/* over all the IRQs; ~0U on error */
	unsigned long long moves;
	int err, err_irq, err_cpu;
	unsigned int err_port;
};

/* Flip each IRQ between CPU0 and CPU1, round and round, until stopped. */
static void *mover_main(void *arg)
{
	struct mover *m = arg;
	unsigned int k;

	while (!atomic_load(&m->stop)) {
		for (k = 0; k < nslots && !atomic_load(&m->stop); k++) {
			struct slot *s = &slots[k];
			int cpu = s->cpu == 1 ? 0 : 1;
			int rc;

			if (s->off)
				continue;
			rc = move_irq(s->irq, cpu);
			if (rc) {
				m->err = -rc;
				m->err_irq = s->irq;
				m->err_cpu = cpu;
				m->err_port = s->port;
				atomic_store(&m->passes, ~0U);
				return NULL;
			}
			s->cpu = cpu;
			m->moves++;
		}
		if (k == nslots)
			atomic_fetch_add(&m->passes, 1);
	}
	return NULL;
}

/*
 * Test 3: ping-pong while a thread moves the IRQs: --sends, and at least
 * until each IRQ has been moved twice.
 */
static void test_move(int fd)
{
	struct traffic t = { .max_sends = lo.sends, .floor = nslots };
	struct mover m = { .stop = false, .passes = 0 };
	unsigned long long on_cpu[NCOL];
	int rc;

	if (!mapped) {
		failed("no port->IRQ mapping (test 1)");
		tap_result("move");
		return;
	}
	if (cpu_cols < 2) {
		test_no++;
		printf("ok %d - move # SKIP one CPU online\n", test_no);
		return;
	}
	if (t.max_sends < nslots)
		t.max_sends = nslots;
	t.passes = &m.passes;
	reset_delivered();
	snapshot(true);
	rc = pthread_create(&m.th, NULL, mover_main, &m);
	if (rc)
		fail_exit("pthread_create: %s", strerror(rc));
	run_traffic(fd, &t);
	add_totals(&t);
	atomic_store(&m.stop, true);
	pthread_join(m.th, NULL);
	all_moves += m.moves;
	snapshot(false);
	print_traffic("move", &t);
	printf("# moves: %llu (%u passes over the IRQs)\n", m.moves,
	       atomic_load(&m.passes));
	if (m.err)
		failed("cannot move IRQ %d (port %u) to CPU%d: %s", m.err_irq,
		       m.err_port, m.err_cpu, strerror(m.err));
	traffic_verdict(&t);
	check_counts(false, on_cpu);
	print_cols("# deliveries counted", on_cpu);
	tap_result("move");
}

struct flood {
	pthread_t th;
	atomic_int phase;		/* 0 start, 1 ready, 2 go, -1 failed */
	atomic_bool stop;
	char comm[16], name[32];
	int fd;				/* closed by the main thread */
	unsigned int a, b;		/* a notify on a raises b */
	unsigned long long sends, deliveries, lost, unexpected;
	unsigned long long late, worst_late_ns;
	bool bind_event;
	char err[128];
};

/*
 * Its own fd and pair (a thread of its own comm, so IRQs of their own
 * name): raise b, and on each delivery raise it again before unmasking
 * it, so that it is pending again the moment it is unmasked.
 */
static void *flood_main(void *arg)
{
	struct flood *f = arg;
	unsigned long long tmo = lo.timeout_ms * 1000000ULL, t_send = 0;
	unsigned long long lost_tmo = lo.lost_ms * 1000000ULL;
	unsigned int buf[RBUF];
	bool inflight = false;
	int fd, a, b, n, i;

	prctl(PR_SET_NAME, f->comm);
	fd = ec_open();
	f->fd = fd;
	a = ec_bind_unbound(fd, lo.self, true);
	if (a < 0) {
		snprintf(f->err, sizeof(f->err),
			 "IOCTL_EVTCHN_BIND_UNBOUND_PORT: %s", strerror(-a));
		goto fail;
	}
	b = ec_bind_interdomain(fd, lo.self, a, true);
	if (b < 0) {
		snprintf(f->err, sizeof(f->err),
			 "IOCTL_EVTCHN_BIND_INTERDOMAIN: %s", strerror(-b));
		goto fail;
	}
	f->a = a;
	f->b = b;
	n = ec_wait(fd, buf, lo.timeout_ms);
	for (i = 0; i < n; i++) {
		if (buf[i] == f->b)
			f->bind_event = true;
		else
			f->unexpected++;
	}
	ec_unmask(fd, buf, n);
	atomic_store(&f->phase, 1);
	while (atomic_load(&f->phase) == 1 && !atomic_load(&f->stop))
		sleep_ms(1);

	for (;;) {
		bool got = false;
		unsigned long long now = now_ns();

		if (!inflight) {
			if (atomic_load(&f->stop))
				break;
			ec_notify(fd, f->a);
			f->sends++;
			inflight = true;
			t_send = now;
		}
		n = ec_wait(fd, buf, SLICE_MS);
		for (i = 0; i < n; i++) {
			if (buf[i] == f->b && inflight && !got)
				got = true;
			else
				f->unexpected++;
		}
		if (got) {
			f->deliveries++;
			if (now_ns() - t_send > tmo) {
				f->late++;
				if (now_ns() - t_send > f->worst_late_ns)
					f->worst_late_ns = now_ns() - t_send;
			}
			inflight = false;
			if (!atomic_load(&f->stop)) {
				ec_notify(fd, f->a);
				f->sends++;
				inflight = true;
				t_send = now_ns();
			}
		}
		ec_unmask(fd, buf, n);
		if (inflight && now_ns() - t_send > lost_tmo) {
			f->lost++;
			break;
		}
	}
	return NULL;
fail:
	atomic_store(&f->phase, -1);
	return NULL;
}

/* Test 4: ping-pong on the others while one port floods. */
static void test_flood(int fd)
{
	struct traffic t = { .max_sends = ~0ULL, .floor = nslots,
			     .record = true };
	struct flood f = { .phase = 0, .stop = false, .fd = -1 };
	struct irq_count fb[4], fa[4];
	unsigned long long on_cpu[NCOL], t0;
	unsigned int k, others = 0, med0, med1, med;
	struct lat both = { 0 };
	int i, nf, rc;

	/* The last pair makes room for the flood's. */
	for (k = nslots - 2; k < nslots; k++) {
		ec_unbind(fd, slots[k].port);
		slots[k].off = true;
	}
	for (k = 0; k < nslots; k++)
		others += !slots[k].off;
	if (mapped && cpu_cols >= 2)
		place_half();

	snprintf(f.comm, sizeof(f.comm), "evflood%d", (int)getpid());
	snprintf(f.name, sizeof(f.name), "evtchn:%s", f.comm);
	rc = pthread_create(&f.th, NULL, flood_main, &f);
	if (rc)
		fail_exit("pthread_create: %s", strerror(rc));
	t0 = now_ns();
	while (atomic_load(&f.phase) == 0 &&
	       now_ns() - t0 < 2ULL * lo.timeout_ms * 1000000ULL + NSEC)
		sleep_ms(1);
	if (atomic_load(&f.phase) != 1) {
		atomic_store(&f.stop, true);
		pthread_join(f.th, NULL);
		if (f.fd >= 0)
			close(f.fd);
		failed("flood port: %s", f.err[0] ? f.err : "no start");
		tap_result("flood");
		return;
	}
	nf = read_irqs(f.name, fb, ARRAY_SIZE(fb));
	for (i = 0; i < nf && i < (int)ARRAY_SIZE(fb) && cpu_cols >= 2; i++) {
		rc = move_irq(fb[i].irq, 0);
		if (rc)
			failed("cannot move flood IRQ %d to CPU0: %s",
			       fb[i].irq, strerror(-rc));
	}
	nf = read_irqs(f.name, fb, ARRAY_SIZE(fb));
	printf("# flood: port %u (raised by %u, IRQs named %s, on CPU0), %u other ports\n",
	       f.b, f.a, f.name, others);

	reset_delivered();
	if (mapped)
		snapshot(true);
	atomic_store(&f.phase, 2);
	t.until_ns = now_ns() + lo.flood_secs * NSEC;
	if (others)
		run_traffic(fd, &t);
	else
		sleep_ms(lo.flood_secs * 1000);
	add_totals(&t);
	atomic_store(&f.stop, true);
	pthread_join(f.th, NULL);
	if (mapped)
		snapshot(false);

	all_sends += f.sends;
	all_deliveries += f.deliveries;
	all_lost += f.lost;
	all_late += f.late;
	if (f.worst_late_ns > all_worst_late_ns)
		all_worst_late_ns = f.worst_late_ns;
	printf("# flood port %u: sends %llu, deliveries %llu, lost %llu, late %llu, unexpected %llu%s\n",
	       f.b, f.sends, f.deliveries, f.lost, f.late, f.unexpected,
	       f.bind_event ? "" : ", no bind-time event");
	if (read_irqs(f.name, fa, ARRAY_SIZE(fa)) == nf && nf >= 1 &&
	    nf <= (int)ARRAY_SIZE(fa)) {
		unsigned long long d[NCOL] = { 0 };
		int c;

		for (i = 0; i < nf; i++)
			for (c = 0; c < NCOL; c++)
				d[c] += fa[i].cnt[c] - fb[i].cnt[c];
		print_cols("# flood deliveries counted", d);
	}
	close(f.fd);
	print_traffic("others", &t);
	med0 = lat_median(&t.lat[0]);
	med1 = lat_median(&t.lat[1]);
	both.us = malloc((t.lat[0].n + t.lat[1].n + 1) * sizeof(*both.us));
	if (both.us) {
		if (t.lat[0].n)
			memcpy(both.us, t.lat[0].us,
			       t.lat[0].n * sizeof(*both.us));
		if (t.lat[1].n)
			memcpy(both.us + t.lat[0].n, t.lat[1].us,
			       t.lat[1].n * sizeof(*both.us));
		both.n = t.lat[0].n + t.lat[1].n;
	}
	med = lat_median(&both);
	if (both.n)
		printf("# latency of the others under flood: median %u us, worst %llu us\n",
		       med, t.worst_ns / 1000);
	if (both.n && mapped && cpu_cols >= 2) {
		printf("# CPU0 ports: median %u us, worst %llu us; ", med0,
		       t.lat[0].worst_ns / 1000);
		printf("CPU1 ports: median %u us, worst %llu us\n", med1,
		       t.lat[1].worst_ns / 1000);
	}
	free(both.us);
	free(t.lat[0].us);
	free(t.lat[1].us);

	if (f.lost)
		failed("flood port %u: event lost", f.b);
	else if (f.unexpected)
		failed("flood fd: %llu unexpected deliveries", f.unexpected);
	else if (!f.bind_event)
		failed("flood port %u: no bind-time event", f.b);
	traffic_verdict(&t);
	if (mapped) {
		check_counts(mapped && cpu_cols >= 2, on_cpu);
		print_cols("# others' deliveries counted", on_cpu);
	}
	flood_worst_us = t.worst_ns / 1000;
	tap_result("flood");
}

static void on_alarm(int sig)
{
	static const char msg[] = PROG ": hung: past --max-secs and every wait for a late event\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

int run_loop(void)
{
	char comm[16];
	unsigned int k, pmin = ~0U, pmax = 0;
	int fd;

	/*
	 * The driver names the IRQs "evtchn:<comm>" after the opener: a
	 * comm of our own makes them ours in /proc/interrupts.
	 */
	snprintf(comm, sizeof(comm), "evstress%d", (int)getpid());
	prctl(PR_SET_NAME, comm);
	snprintf(irq_name, sizeof(irq_name), "evtchn:%s", comm);
	fd = ec_open();

	tap_mode = true;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..4\n");
	deadline_ns = now_ns() + lo.max_secs * NSEC;
	/* The budget, then each test's wait for its late events: a hang. */
	signal(SIGALRM, on_alarm);
	alarm(lo.max_secs + 5 * (lo.lost_ms / 1000) + 120);

	test_bind(fd);
	test_pingpong(fd);
	test_move(fd);
	test_flood(fd);

	for (k = 0; k < nslots; k++) {
		if (slots[k].port < pmin)
			pmin = slots[k].port;
		if (slots[k].port > pmax)
			pmax = slots[k].port;
	}
	printf(PROG ": ports %u..%u, sends %llu, deliveries %llu, ", pmin,
	       pmax, all_sends, all_deliveries);
	printf("lost %llu, late %llu (worst %llu ms), moves %llu, worst latency under flood ",
	       all_lost, all_late, all_worst_late_ns / 1000000, all_moves);
	if (flood_worst_us >= 0)
		printf("%lld us\n", flood_worst_us);
	else
		printf("n/a\n");
	close(fd);
	return all_ok ? 0 : 1;
}
