// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-stress serve and peer: an exchange of events with another
 * domain, strictly alternating, across a save/restore of the guest
 * too.  See README.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stress.h"

/* ------------------------------------------------------ serve and peer */

#define LATE_NAMED	20		/* late events named one by one */
#define STALL_MS	100		/* a wait this long is a stall */
#define STALL_NAMED_MS	500		/* stalls this long are named */
#define MAX_CPUS	8		/* steal kept for this many vCPUs */

/*
 * Steal time of each vCPU in ms, from /proc/stat: on Xen the time the
 * hypervisor had the vCPU runnable (or offline) and not running
 * (its runstate); returns how many vCPUs were read.
 */
static int read_steal(unsigned long long *ms)
{
	static long hz;
	char line[512];
	int n = 0;
	FILE *f;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	f = fopen("/proc/stat", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8];
		int cpu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) != 9 || cpu < 0 || cpu >= MAX_CPUS)
			continue;
		ms[cpu] = v[7] * 1000 / hz;
		if (cpu + 1 > n)
			n = cpu + 1;
	}
	fclose(f);
	return n;
}

#define GOT_PORT	1U
#define GOT_CTL		2U

/*
 * Wait up to @ms for an event on @port or, if @ctl is not 0, on @ctl;
 * returns which came (GOT_PORT, GOT_CTL), 0 if none did.  Any other port
 * ends the run.
 */
static unsigned int wait_ports(int fd, unsigned int port, unsigned int ctl,
			       long long ms)
{
	unsigned long long end = now_ns() + ms * 1000000ULL;
	unsigned int buf[RBUF], got = 0;
	int i, n;

	for (;;) {
		unsigned long long now = now_ns();
		long long left = now < end ? (end - now) / 1000000 : 0;

		n = ec_wait(fd, buf, left > SLICE_MS ? SLICE_MS : left + 1);
		for (i = 0; i < n; i++) {
			if (buf[i] != port && (!ctl || buf[i] != ctl))
				fail_exit("unexpected event on port %u (ours: %u%s)",
					  buf[i], port, ctl ? " and the control port" : "");
			got |= buf[i] == port ? GOT_PORT : GOT_CTL;
		}
		if (n)
			ec_unmask(fd, buf, n);
		if (got)
			return got;
		if (now_ns() >= end)
			return 0;
	}
}

/* "N ms" of @ns, rounded down. */
static unsigned long long ms_of(unsigned long long ns)
{
	return ns / 1000000;
}

/*
 * --progress: "N of COUNT" at most once a second, "N of COUNT done" at
 * the end (@how 1), "N of COUNT, event N+1 late" at once when it misses
 * its deadline (@how 2).
 */
static void progress(unsigned long long done, unsigned long long count,
		     int how)
{
	static unsigned long long last;
	unsigned long long now = now_ns();
	char tmp[256];
	FILE *f;

	if (!ex.progress || (!how && now - last < NSEC))
		return;
	last = now;
	snprintf(tmp, sizeof(tmp), "%s.tmp", ex.progress);
	f = fopen(tmp, "w");
	if (!f)
		return;
	if (how == 2)
		fprintf(f, "%llu of %llu, event %llu late\n", done, count,
			done + 1);
	else
		fprintf(f, "%llu of %llu%s\n", done, count, how ? " done" : "");
	if (fclose(f) == 0)
		rename(tmp, ex.progress);
}

/* ---------------------------------------------- across a save/restore */

#define DEV_XENBUS	"/dev/xen/xenbus"
#define XS_READ		2		/* <xen/io/xs_wire.h> */
#define REBIND_MS	1000		/* a restore is looked for this often */
#define GOT_REBOUND	4U

/* The exchange's channel: what a restore changes. */
static struct {
	int fd;
	unsigned int domid;		/* the other end's */
	unsigned int port, ctl;		/* ours */
	long self;			/* serve: our domid (-1: not followed) */
	unsigned long long answered;	/* peer: serve's answers, at a restore */
} ch;

/*
 * This domain's domid, read from xenstore ("domid", relative to its home
 * /local/domain/D) through /dev/xen/xenbus; -1 if that fails.
 */
static long xs_domid(void)
{
	static const char path[] = "domid";
	struct { uint32_t type, req_id, tx_id, len; } m = {
		.type = XS_READ, .len = sizeof(path),
	};
	char req[sizeof(m) + sizeof(path)], val[32];
	long v = -1;
	int fd = open(DEV_XENBUS, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memcpy(req, &m, sizeof(m));
	memcpy(req + sizeof(m), path, sizeof(path));
	if (write(fd, req, sizeof(req)) == (ssize_t)sizeof(req) &&
	    read(fd, &m, sizeof(m)) == (ssize_t)sizeof(m) &&
	    m.type == XS_READ && m.len < sizeof(val) &&
	    read(fd, val, m.len) == (ssize_t)m.len) {
		val[m.len] = 0;
		v = strtol(val, NULL, 10);
	}
	close(fd);
	return v;
}

/*
 * peer: bind port @rport of domain @domid and the control port @rctl (if
 * not 0), then take the events Xen raised on our ends at their binds:
 * they are not the other's.
 */
static void peer_bind(unsigned int domid, unsigned int rport,
		      unsigned int rctl)
{
	unsigned int want, got = 0;
	unsigned long long t0;

	ch.domid = domid;
	ch.port = ec_bind_interdomain(ch.fd, domid, rport, false);
	ch.ctl = rctl ? ec_bind_interdomain(ch.fd, domid, rctl, false) : 0;
	printf("bound port %u of domain %u: local port %u", rport, domid,
	       ch.port);
	if (ch.ctl)
		printf("; control port %u: local port %u", rctl, ch.ctl);
	printf("\n");
	want = ch.ctl ? GOT_PORT | GOT_CTL : GOT_PORT;
	t0 = now_ns();
	while (got != want && now_ns() - t0 < ex.timeout_ms * 1000000ULL)
		got |= wait_ports(ch.fd, ch.port, ch.ctl, SLICE_MS);
	if (got != want)
		printf("note: no bind-time event on local port %u\n",
		       got & GOT_PORT ? ch.ctl : ch.port);
}

/*
 * serve, --follow-restore: whether the domain was restored (its domid
 * changed); then new ports are bound and printed for the peer, with how
 * many events were answered (@answered), and the old ones, which Xen
 * closed, unbound.  The new ones are bound first, as a process that
 * knows nothing of the restore would: Xen may give a new port an old
 * one's number, and the bind then fails with EEXIST; the old ports must
 * still be there to unbind (a kernel without series (c)'s patch 0006 has emptied
 * the file's tree of ports by then: their unbind fails with ENOTCONN).
 */
static bool serve_restored(unsigned long long answered)
{
	unsigned int old[2] = { ch.port, ch.ctl };
	long d = xs_domid();
	int p, c = 0, i, rc;

	if (d < 0 || d == ch.self)
		return false;
	printf("restore: this domain was %ld and is %ld: ports %u and %u are gone\n",
	       ch.self, d, ch.port, ch.ctl);
	ch.self = d;
	p = ec_bind_unbound(ch.fd, ch.domid, true);
	if (p >= 0)
		c = ec_bind_unbound(ch.fd, ch.domid, true);
	if (p == -EEXIST || c == -EEXIST)
		printf("restore: a new port has an old one's number: bind: %s\n",
		       strerror(EEXIST));
	else if (p < 0 || c < 0)
		fail_exit("restore: binding a new port: %s",
			  strerror(p < 0 ? -p : -c));
	for (i = 0; i < 2; i++) {
		struct ioctl_evtchn_unbind u = { .port = old[i] };

		rc = EC_IOCTL(ch.fd, IOCTL_EVTCHN_UNBIND, &u, true);
		if (rc == -ENOTCONN)
			fail_exit("restore: unbinding old port %u: %s: the kernel lost this file's ports at the failed bind (drivers/xen/evtchn.c, add_evtchn()'s EEXIST path; fixed by patches/0006-xen-evtchn-*)",
				  old[i], strerror(ENOTCONN));
		if (rc < 0)
			fail_exit("restore: unbinding old port %u: %s", old[i],
				  strerror(-rc));
	}
	if (p < 0)
		p = ec_bind_unbound(ch.fd, ch.domid, false);
	if (c <= 0)
		c = ec_bind_unbound(ch.fd, ch.domid, false);
	ch.port = p;
	ch.ctl = c;
	printf("restored: port=%u ctl=%u answered=%llu\n", ch.port, ch.ctl,
	       answered);
	fflush(stdout);
	return true;
}

/*
 * peer, --reconnect FILE: whether FILE has come, "DOMID P C N": the
 * guest restored as DOMID, its new ports and the events it answered;
 * then FILE is removed and the new ports bound (ch.answered = N).
 */
static bool peer_reconnected(void)
{
	unsigned int d, p, c;
	FILE *f;
	int n;

	if (!ex.reconnect)
		return false;
	f = fopen(ex.reconnect, "r");
	if (!f)
		return false;
	n = fscanf(f, "%u %u %u %llu", &d, &p, &c, &ch.answered);
	fclose(f);
	unlink(ex.reconnect);
	if (n != 4)
		fail_exit("%s: not \"DOMID PORT CTL ANSWERED\"", ex.reconnect);
	printf("restore: domain %u is now domain %u, its ports %u and %u; it answered %llu events\n",
	       ch.domid, d, p, c, ch.answered);
	ec_unbind(ch.fd, ch.port);
	if (ch.ctl)
		ec_unbind(ch.fd, ch.ctl);
	peer_bind(d, p, c);
	return true;
}

/* peer: FILE.pending (--reconnect FILE) exists: a save is under way. */
static bool reconnect_pending(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s.pending", ex.reconnect);
	return !access(path, F_OK);
}

/*
 * wait_ports() on the exchange's channel, for @ms; following a restore
 * (serve's --follow-restore, peer's --reconnect) it waits a second at a
 * time and looks for one in between, also once @ms are over (a guest
 * resumes with its deadlines long past): GOT_REBOUND once the channel is
 * rebound.  The peer's wait does not end while its --reconnect FILE's
 * FILE.pending exists: the guest is being saved and restored, however
 * long that takes on a busy host, and its event is not lost meanwhile.
 */
static unsigned int wait_ex(bool serve, long long ms)
{
	unsigned long long end = now_ns() + ms * 1000000ULL;
	unsigned int ctl = serve ? ch.ctl : 0, got;

	if (serve ? ch.self < 0 : !ex.reconnect)
		return wait_ports(ch.fd, ch.port, ctl, ms);
	for (;;) {
		unsigned long long now = now_ns();
		long long left = now < end ? (long long)(end - now) / 1000000 : 0;

		got = wait_ports(ch.fd, ch.port, ctl,
				 left < REBIND_MS ? left : REBIND_MS);
		if (got)
			return got;
		if (serve ? serve_restored(ch.answered) : peer_reconnected())
			return GOT_REBOUND;
		if (now_ns() >= end && (serve || !reconnect_pending()))
			return 0;
	}
}

/*
 * serve: port = an unbound port for @domid, and a control port beside
 * it; wait for the peer's first event.  peer: port = bound to (@domid,
 * @rport), and to @rctl if given; the bind-time events first, then it
 * sends first.  Then strictly alternating: one event in flight, each side
 * sends only after reading (and unmasking) the other's, so nothing
 * coalesces; @count round trips, or fewer when the peer's --max-secs runs
 * out: it then raises the control port, and serve ends there too.
 *
 * Each side times its round trip: from its own send to the other's event.
 * One that misses --timeout-ms is late, reported with its delay; one that
 * has not come --lost-ms after the send is lost, and ends the run.
 */
int run_exchange(bool serve, unsigned int domid, unsigned int rport,
		 unsigned int rctl, unsigned long long count,
		 unsigned int wait_secs)
{
	unsigned long long sent = 0, received = 0, i, t0 = 0, t_start;
	unsigned long long late = 0, worst_late_ns = 0, ns, tmo;
	unsigned long long st_a[MAX_CPUS], st_b[MAX_CPUS], st_sum[MAX_CPUS] = { 0 };
	unsigned long long stalls = 0, stall_ns = 0, named = 0, ta = 0, tn;
	unsigned long long restores = 0;
	unsigned int got;
	bool stopped = false, by_peer = false, held = false, rebound;
	int ncpu = 0, c;
	struct lat rtt = { 0 };

	ch.fd = ec_open();
	ch.self = -1;
	tmo = ex.timeout_ms * 1000000ULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (serve) {
		ch.domid = domid;
		ch.port = ec_bind_unbound(ch.fd, domid, false);
		ch.ctl = ec_bind_unbound(ch.fd, domid, false);
		if (ex.follow) {
			ch.self = xs_domid();
			if (ch.self < 0)
				printf("note: no domid from %s: a restore cannot be followed\n",
				       DEV_XENBUS);
		}
		printf("port=%u ctl=%u\n", ch.port, ch.ctl);
		fflush(stdout);
	} else {
		peer_bind(domid, rport, rctl);
	}
	t_start = now_ns();
	for (i = 0;; i++) {
		long long w = ex.lost_ms, w0;

		if (count && i >= count) {
			if (serve || !ex.hold || access(ex.hold, F_OK))
				break;
			if (!held)
				printf("exchange: going on past %llu while %s exists (--hold)\n",
				       count, ex.hold);
			held = true;
		}

		if (!serve) {
			if (ex.max_secs && now_ns() - t_start >= ex.max_secs * NSEC) {
				stopped = true;
				break;
			}
			t0 = now_ns();
			ec_notify(ch.fd, ch.port);
			sent++;
		} else if (i == 0) {
			w = wait_secs * 1000LL;
		}
		rebound = false;
again:
		/*
		 * A wait past STALL_MS is a stall: the vCPUs' steal time is
		 * read then and when the event comes, to tell whether Xen
		 * held this domain's vCPUs runnable meanwhile.
		 */
		w0 = w < ex.timeout_ms ? w : ex.timeout_ms;
		got = wait_ex(serve, w0 < STALL_MS ? w0 : STALL_MS);
		ta = 0;
		if (!got && w0 > STALL_MS && (!serve || i) && !rebound) {
			ta = now_ns();
			ncpu = read_steal(st_a);
			got = wait_ex(serve, w0 - STALL_MS);
		} else if (!got && w0 > STALL_MS) {
			got = wait_ex(serve, w0 - STALL_MS);
		}
		if (!got && w > ex.timeout_ms) {
			progress(received, count, 2);
			got = wait_ex(serve, w - ex.timeout_ms);
		}
		/*
		 * Restored (xl save/restore): the channel is new.  serve waits
		 * for the same event again; peer sends it again, unless serve
		 * had answered it (its answer went with the old channel).  The
		 * gap is not a round trip: nothing of it is timed.
		 */
		if (got == GOT_REBOUND) {
			rebound = true;
			restores++;
			ta = 0;		/* the gap is no stall either */
			if (serve) {
				t0 = now_ns();
				goto again;
			}
			if (ch.answered == received) {
				printf("restore: event %llu sent again\n", i + 1);
				t0 = now_ns();
				ec_notify(ch.fd, ch.port);
				goto again;
			}
			if (ch.answered != received + 1)
				fail_exit("restore: the guest answered %llu events, %llu came here: not this one or the one before",
					  ch.answered, received);
			printf("restore: event %llu was answered before it\n",
			       i + 1);
			got = GOT_PORT;
		}
		/* The control port says "done": the data port goes first. */
		if (got == GOT_CTL) {
			by_peer = true;
			break;
		}
		if (!got) {
			printf("exchange: %llu events sent, %llu received, 1 lost\n",
			       sent, received);
			fflush(stdout);
			fprintf(stderr, PROG ": lost: no event %llu of %llu from domain %u (local port %u) in %lld ms%s\n",
				i + 1, count, ch.domid, ch.port, w,
				serve && i ? " after our answer" : "");
			return 1;
		}
		tn = now_ns();
		ns = tn - t0;
		received++;
		if (ta && got == GOT_PORT && ncpu && read_steal(st_b) == ncpu) {
			unsigned long long d = tn - ta;

			stalls++;
			stall_ns += d;
			for (c = 0; c < ncpu; c++)
				st_sum[c] += st_b[c] - st_a[c];
			if (d >= STALL_NAMED_MS * 1000000ULL && named++ < LATE_NAMED) {
				printf("stall: event %llu: round trip %llu ms; over its last %llu ms, steal",
				       i + 1, ms_of(ns), ms_of(d));
				for (c = 0; c < ncpu; c++)
					printf(" cpu%d +%llu ms", c, st_b[c] - st_a[c]);
				printf("\n");
			}
		}
		progress(received, count, 0);
		if (serve && i + 1 == ex.drop_at) {
			printf("exchange: event %llu read and not answered (--drop-at)\n",
			       i + 1);
			fflush(stdout);
			return 3;
		}
		if (serve && i + 1 == ex.delay_at) {
			printf("exchange: answering event %llu %u ms late (--delay-at)\n",
			       i + 1, ex.delay_ms);
			sleep_ms(ex.delay_ms);
		}
		/* serve's first wait is for the peer to start: not timed. */
		if ((!serve || i) && !rebound) {
			lat_add(&rtt, ns);
			if (ns > tmo) {
				late++;
				if (ns - tmo > worst_late_ns)
					worst_late_ns = ns - tmo;
				if (late <= LATE_NAMED)
					printf("late: event %llu of %llu: round trip %llu ms, past the %d ms deadline by %llu ms\n",
					       i + 1, count, ms_of(ns),
					       ex.timeout_ms, ms_of(ns - tmo));
			}
		}
		if (serve) {
			t0 = now_ns();
			ec_notify(ch.fd, ch.port);
			ch.answered = ++sent;
		}
	}
	if (stopped) {
		printf("exchange: stopped by --max-secs %u after %llu of %llu round trips\n",
		       ex.max_secs, received, count);
		ec_notify(ch.fd, ch.ctl);
	} else if (!serve && ch.ctl) {
		ec_notify(ch.fd, ch.ctl);
	}
	if (by_peer)
		printf("exchange: the peer ended after %llu of %llu round trips\n",
		       received, count);
	progress(received, count, 1);
	if (late > LATE_NAMED)
		printf("late: %llu more not named\n", late - LATE_NAMED);
	printf("stalls: %llu waits past %d ms, %llu ms in all; steal meanwhile:",
	       stalls, STALL_MS, ms_of(stall_ns));
	for (c = 0; c < ncpu; c++)
		printf(" cpu%d %llu ms", c, st_sum[c]);
	printf("%s\n", ncpu ? "" : " none read");
	printf("round trip: median %u us, p99 %u us, worst %llu us; late %llu (past %d ms, lost after %d ms), worst by %llu ms\n",
	       lat_pct(&rtt, 50), lat_pct(&rtt, 99), rtt.worst_ns / 1000,
	       late, ex.timeout_ms, ex.lost_ms, ms_of(worst_late_ns));
	if (restores)
		printf("exchange: across %llu restore(s) of the guest\n", restores);
	printf("exchange: %llu events sent, %llu received, 0 lost\n", sent,
	       received);
	free(rtt.us);
	close(ch.fd);
	return 0;
}
