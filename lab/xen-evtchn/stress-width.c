// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-stress width: the bug of 32-bit Arm that patch 1 fixes, events
 * of ports 2048-4095 lost.  See README.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "stress.h"

/* ---------------------------------------------------------- width mode */

/*
 * On 32-bit Arm xen_ulong_t is 64 bits and unsigned long 32: an upcall
 * that clears a selector bit below 32 with an unsigned long mask also
 * clears bits 32-63 of its copy of the selector, and the events of the
 * words 32-63 (ports 2048-4095) pending in that pass are lost: their
 * selector bit is not set again until another port of the same word
 * becomes pending.
 *
 * One receiving port in each word 32..63 (nothing else in those words is
 * ever raised) and two in each word 1..31, all moved to vCPU 0 (through
 * their IRQs' affinity, checked in /proc/interrupts afterwards); this
 * process runs on vCPU 1 and each round raises one low and one high
 * receiver back to back, so that vCPU 0's next pass finds both words in
 * its selector, and waits for both.  The low receivers go up a word from
 * round to round (all those at bit 16, then all at bit 48); the high one
 * stays until it is missing, then steps down a word.  So the cursor the
 * round before left is in a word below the low receiver's, or above the
 * high one: a pass that sees both words starts outside the low word and
 * scans it before the high one, clearing the low word's selector bit
 * first.  A missing high receiver is retired (never raised again); it
 * counts as lost if it has still not come --timeout-ms after the last
 * round.  A low receiver missing for --timeout-ms ends the run: the bug
 * never loses those.
 */
#define WIDTH_LOW_MAX	62	/* low receivers: 2 in each word 1..31 */
#define WIDTH_ROUND_MS	250	/* wait for a round's high event */

struct wport {
	unsigned int port;	/* receives */
	unsigned int raiser;	/* the loopback end that raises it */
	bool arrived;		/* delivered since it was last raised */
	bool missing;		/* retired (high ports) */
	bool late;		/* came after it was retired */
};

static struct wport *width_find(struct wport *w, unsigned int n,
				unsigned int port, bool raiser)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((raiser ? w[i].raiser : w[i].port) == port)
			return &w[i];
	return NULL;
}

/* Low receivers by bit, then word: consecutive ones in different words. */
static int cmp_wport(const void *a, const void *b)
{
	unsigned int x = ((const struct wport *)a)->port;
	unsigned int y = ((const struct wport *)b)->port;
	unsigned int kx = (x % 64) * 64 + x / 64, ky = (y % 64) * 64 + y / 64;

	return kx < ky ? -1 : kx > ky;
}

/*
 * Read deliveries for up to @ms, until @want (a receiver, or NULL) has
 * arrived; returns whether it has.  Raisers' bind-time events are
 * dropped; a retired high receiver that comes is late; an event on a
 * port not ours ends the run.
 */
static bool width_read(int fd, struct wport *hi, struct wport *low,
		       unsigned int nlo, const struct wport *want, int ms,
		       unsigned long long *deliveries)
{
	unsigned long long end = now_ns() + ms * 1000000ULL;
	unsigned int buf[RBUF];
	int n, k;

	while (!(want && want->arrived)) {
		unsigned long long now = now_ns();
		long long left = now < end ? (end - now) / 1000000 : 0;

		n = ec_wait(fd, buf, left > SLICE_MS ? SLICE_MS : left);
		for (k = 0; k < n; k++) {
			struct wport *w = width_find(hi, 32, buf[k], false);

			if (!w)
				w = width_find(low, nlo, buf[k], false);
			if (!w) {
				if (width_find(hi, 32, buf[k], true) ||
				    width_find(low, nlo, buf[k], true))
					continue;
				fail_exit("event on port %u, not one of ours",
					  buf[k]);
			}
			++*deliveries;
			w->arrived = true;
			if (w->missing)
				w->late = true;
		}
		ec_unmask(fd, buf, n);
		if (now_ns() >= end)
			break;
	}
	return want && want->arrived;
}

int run_width(void)
{
	struct wport hi[32] = { 0 }, low[WIDTH_LOW_MAX] = { 0 };
	unsigned long long sends = 0, deliveries = 0, rounds = 0, t0, end;
	unsigned long long on_cpu[NCOL] = { 0 }, t_rounds;
	struct irq_count before[2 * (32 + WIDTH_LOW_MAX)];
	struct irq_count after[ARRAY_SIZE(before)];
	unsigned int *all, nall = 0, nlo = 0, i, k;
	unsigned int lost = 0, late = 0, missing = 0;
	unsigned int first_lost = ~0U, last_lost = 0;
	int hi_i = 31, lo_i = 0, fd, nb, na, j;
	char list[32 * 6] = "", *lp = list, comm[16];
	long cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cpus;

	if (cpus_online < 2)
		fail_exit("width needs 2 online CPUs, this system has %ld",
			  cpus_online);
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		fail_exit("sched_setaffinity to CPU 1: %s", strerror(errno));
	/* The IRQs are named "evtchn:<comm>": ours are known by name. */
	snprintf(comm, sizeof(comm), "evwidth%d", (int)getpid());
	prctl(PR_SET_NAME, comm);
	snprintf(irq_name, sizeof(irq_name), "evtchn:%s", comm);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = ec_open();

	/* Every free port, then keep the receivers and free the rest. */
	all = malloc((MAX_PORTS + 1) * sizeof(*all));
	if (!all)
		fail_exit("out of memory");
	while (nall <= MAX_PORTS) {
		int p = ec_bind_unbound(fd, lo.self, true);

		if (p == -ENOSPC)
			break;
		if (p < 0)
			fail_exit("IOCTL_EVTCHN_BIND_UNBOUND_PORT: %s",
				  strerror(-p));
		all[nall++] = p;
	}
	if (nall > MAX_PORTS - 1)
		fail_exit("more than %u free ports: not the 2-level ABI (xen.fifo_events=0)",
			  MAX_PORTS - 1);
	for (k = 0; k < nall; k++) {
		unsigned int p = all[k], w = p / 64, b = p % 64;

		if (w >= 32 && w < 64 && !hi[w - 32].port)
			hi[w - 32].port = p;
		else if (w >= 1 && w < 32 && (b == 16 || b == 48) &&
			 nlo < WIDTH_LOW_MAX)
			low[nlo++].port = p;
		else
			ec_unbind(fd, p);
	}
	free(all);
	for (i = 0; i < 32; i++)
		if (!hi[i].port)
			fail_exit("no free port in word %u (ports of this domain: %u): "
				  "width needs the 2-level ABI's 4096 (xen.fifo_events=0, "
				  "max_event_channels)", i + 32, nall);
	if (nlo < 8)
		fail_exit("only %u free ports at bits 16 and 48 of words 1-31", nlo);
	qsort(low, nlo, sizeof(*low), cmp_wport);
	for (i = 0; i < 32; i++)
		hi[i].raiser = ec_bind_interdomain(fd, lo.self, hi[i].port,
						   false);
	for (i = 0; i < nlo; i++)
		low[i].raiser = ec_bind_interdomain(fd, lo.self, low[i].port,
						    false);
	for (i = 0; i < 32; i++)
		if (hi[i].raiser / 64 >= 32)
			fail_exit("raising port %u is in word %u: not below 32",
				  hi[i].raiser, hi[i].raiser / 64);

	/* Every IRQ of ours to CPU 0 (the raisers' too: harmless). */
	nb = read_irqs(irq_name, before, ARRAY_SIZE(before));
	if (nb != (int)(2 * (32 + nlo)))
		fail_exit("%d lines named %s in /proc/interrupts, want %u",
			  nb, irq_name, 2 * (32 + nlo));
	for (j = 0; j < nb; j++) {
		int rc = move_irq(before[j].irq, 0);

		if (rc)
			fail_exit("moving IRQ %d to CPU 0: %s", before[j].irq,
				  strerror(-rc));
	}
	/* Xen raised each raiser at its bind: width_read drops those. */
	width_read(fd, hi, low, nlo, NULL, 500, &deliveries);
	deliveries = 0;
	nb = read_irqs(irq_name, before, ARRAY_SIZE(before));

	t0 = now_ns();
	while (rounds < wi.rounds && hi_i >= 0 &&
	       (!wi.max_lost || missing < wi.max_lost) &&
	       now_ns() - t0 < wi.max_secs * NSEC) {
		struct wport *l = &low[lo_i], *h = &hi[hi_i];
		bool got_h;

		l->arrived = false;
		h->arrived = false;
		ec_notify(fd, l->raiser);
		ec_notify(fd, h->raiser);
		sends += 2;
		rounds++;
		/*
		 * The bug never loses a low event: one missing --timeout-ms
		 * is late (said, and waited for), --lost-ms lost.
		 */
		if (!width_read(fd, hi, low, nlo, l, wi.timeout_ms, &deliveries)) {
			unsigned long long tl = now_ns();

			if (!width_read(fd, hi, low, nlo, l,
					wi.lost_ms - wi.timeout_ms, &deliveries))
				fail_exit("round %llu: low port %u (word %u) lost: not delivered in %d ms",
					  rounds, l->port, l->port / 64, wi.lost_ms);
			printf("# round %llu: low port %u late: delivered %llu ms after its send (deadline %d ms)\n",
			       rounds, l->port,
			       wi.timeout_ms + (now_ns() - tl) / 1000000,
			       wi.timeout_ms);
		}
		got_h = width_read(fd, hi, low, nlo, h, WIDTH_ROUND_MS,
				   &deliveries);
		if (!got_h) {
			h->missing = true;
			missing++;
			hi_i--;
		}
		lo_i = (lo_i + 1) % nlo;
	}
	t_rounds = now_ns() - t0;
	/* The stragglers' last chance: --lost-ms. */
	end = now_ns() + wi.lost_ms * 1000000ULL;
	while (missing && now_ns() < end)
		width_read(fd, hi, low, nlo, NULL, SLICE_MS, &deliveries);
	na = read_irqs(irq_name, after, ARRAY_SIZE(after));
	if (na != nb)
		fail_exit("%s: %d lines in /proc/interrupts, %d before", irq_name,
			  na, nb);
	for (j = 0; j < na; j++)
		for (k = 0; k < NCOL; k++)
			on_cpu[k] += after[j].cnt[k] - before[j].cnt[k];

	for (i = 32; i-- > 0;) {
		if (!hi[i].missing)
			continue;
		if (hi[i].late) {
			late++;
			continue;
		}
		lost++;
		if (hi[i].port < first_lost)
			first_lost = hi[i].port;
		if (hi[i].port > last_lost)
			last_lost = hi[i].port;
		lp += snprintf(lp, list + sizeof(list) - lp, "%s%u",
			       lp == list ? "" : " ", hi[i].port);
	}
	printf("width: rounds %llu, sends %llu, deliveries %llu, lost %u",
	       rounds, sends, deliveries, lost);
	if (lost)
		printf(" (ports %u..%u: %s)", first_lost, last_lost, list);
	printf(", late %u, %.1f s of rounds (%.1f s with the last wait); on CPU0 %llu, CPU1 %llu; receivers: ports %u..%u in words 32-63, %u ports %u..%u in words 1-31\n",
	       late, t_rounds / 1e9, (now_ns() - t0) / 1e9, on_cpu[0],
	       on_cpu[1] + on_cpu[2],
	       hi[0].port, hi[31].port, nlo, low[0].port, low[nlo - 1].port);
	if (on_cpu[1] + on_cpu[2])
		fail_exit("%llu deliveries on other CPUs than CPU0: the receivers must all be on vCPU 0",
			  on_cpu[1] + on_cpu[2]);
	close(fd);
	return 0;
}
