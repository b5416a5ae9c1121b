// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-stress: stress the Xen event-channel upcall of a running guest
 * (dom0 or a PV domU) from user space, through /dev/xen/evtchn.
 *
 *   loop   loopback pairs of ports inside this domain, TAP output: lost,
 *          duplicate and misplaced deliveries, with the ports' IRQs on
 *          vCPU 0 and 1, moved between them, and next to a flooding port
 *   serve  one side of an exchange with another domain: an unbound port
 *   peer   the other side: binds to it
 *   width  the 32-bit Arm selector bug: events on ports 2048-4095 lost
 *          when a word below 32 is pending in the same pass
 *
 * A port read from the device stays masked until it is written back.
 * See README.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

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

static bool tap_mode;

static noreturn void fail_exit(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (tap_mode) {
		printf("Bail out! %s\n", msg);
		fflush(stdout);
	}
	fprintf(stderr, PROG ": %s\n", msg);
	exit(1);
}

static noreturn void usage_error(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": %s (usage: " PROG " loop|serve|peer|width [options]; "
		PROG " --help)\n", msg);
	exit(2);
}

static const char usage_text[] =
"usage: " PROG " loop [--ports N|max] [--sends N] [--timeout-ms N] [--lost-ms N]\n"
"                     [--flood-secs N] [--max-secs N] [--self-domid D]\n"
"       " PROG " serve --domid D [--count N] [--timeout-ms N] [--lost-ms N]\n"
"                      [--wait-secs N] [--delay-at K --delay-ms N] [--drop-at K]\n"
"                      [--follow-restore]\n"
"       " PROG " peer --domid D --port P [--ctl-port C] [--count N]\n"
"                     [--timeout-ms N] [--lost-ms N] [--max-secs N]\n"
"                     [--progress FILE] [--hold FILE] [--reconnect FILE]\n"
"                     [--xen-marks]\n"
"       " PROG " width [--rounds N] [--max-lost N] [--timeout-ms N]\n"
"                      [--lost-ms N] [--max-secs N] [--self-domid D]\n"
"\n"
"Every mode: an event that misses --timeout-ms is late (named, with its\n"
"delay); one not delivered --lost-ms (60000) after its send is lost.\n"
"\n"
"loop   N ports (default 1000, even; max: until the domain has no free\n"
"       port) in loopback pairs; tests bind, pingpong (--sends, default\n"
"       100000), move (the same while a thread moves the IRQs between\n"
"       CPU 0 and 1), flood (--flood-secs, default 5); TAP output.\n"
"       --timeout-ms: 2000.  After --max-secs (120) each later test\n"
"       sends each port once.  Needs root; move needs 2 CPUs.\n"
"serve  an unbound port for domain D and a control port, printed as\n"
"       port=P ctl=C; waits up to --wait-secs (300) for the peer's first\n"
"       event, then --count (10000) round trips, or fewer if the peer\n"
"       raises the control port.  --timeout-ms: 5000.  Test-only faults:\n"
"       --delay-at K answers event K --delay-ms late; --drop-at K never\n"
"       answers it (the peer must report it lost).  --follow-restore:\n"
"       while it waits, serve checks its domid in xenstore each second;\n"
"       once the domain is restored (xl save/restore: a new domid, its\n"
"       ports gone) it unbinds them, binds new ones and prints\n"
"       \"restored: port=P ctl=C answered=N\" (N: events it answered).\n"
"peer   binds port P (and the control port C) of domain D and sends\n"
"       first; then as serve, and stops after --max-secs (0: no limit),\n"
"       raising C.  --progress FILE: \"N of COUNT\" rewritten each second.\n"
"       --hold FILE: go on past --count while FILE exists.  --reconnect\n"
"       FILE: while it waits, peer looks for FILE each second (and waits\n"
"       on while FILE.pending exists, however long); it reads\n"
"       \"DOMID P C N\" (serve's restored line, with the new domid),\n"
"       removes it and binds the new ports; the event in flight is sent\n"
"       again, or, if serve had answered it (N), counted as answered.\n"
"--xen-marks (peer): mark each event in Xen's trace (xentrace): a\n"
"       sched_op hypercall Xen refuses and traces, cmd 0x7eKNNNNN: K 1\n"
"       peer sends event N, 3 peer has the answer (lab/xen-evtchn/\n"
"       xtrace-stalls reads them).  Needs dom0's /dev/xen/privcmd.\n"
"width  one receiving port in each word 32-63 and a row of them in words\n"
"       1-31, on vCPU 0; from vCPU 1, --rounds (20000) rounds each raise\n"
"       a low and a high one together.  A high port not delivered is\n"
"       retired; lost if still missing --lost-ms after the last round.\n"
"       Stops after --max-lost (0: no limit) lost ports or --max-secs\n"
"       (120).  Prints one line: \"width: ... lost N ...\".  --timeout-ms:\n"
"       3000.  Needs root, 2 CPUs and the 2-level ABI's 4096 ports.\n";

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------ /dev/xen/evtchn */

static int ec_open(void)
{
	int fd = open(DEV_EVTCHN, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		fail_exit("cannot open %s: %s", DEV_EVTCHN, strerror(errno));
	return fd;
}

/* An ioctl that must succeed, unless @may_fail: then -errno. */
static int ec_ioctl(int fd, unsigned long req, const char *name, void *arg,
		    bool may_fail)
{
	int rc = ioctl(fd, req, arg);

	if (rc >= 0)
		return rc;
	if (may_fail)
		return -errno;
	fail_exit("%s: %s", name, strerror(errno));
}

#define EC_IOCTL(fd, req, arg, may_fail) \
	ec_ioctl(fd, req, #req, arg, may_fail)

static int ec_bind_unbound(int fd, unsigned int remote, bool may_fail)
{
	struct ioctl_evtchn_bind_unbound_port b = { .remote_domain = remote };

	return EC_IOCTL(fd, IOCTL_EVTCHN_BIND_UNBOUND_PORT, &b, may_fail);
}

static int ec_bind_interdomain(int fd, unsigned int remote,
			       unsigned int rport, bool may_fail)
{
	struct ioctl_evtchn_bind_interdomain b = {
		.remote_domain = remote,
		.remote_port = rport,
	};

	return EC_IOCTL(fd, IOCTL_EVTCHN_BIND_INTERDOMAIN, &b, may_fail);
}

static void ec_unbind(int fd, unsigned int port)
{
	struct ioctl_evtchn_unbind u = { .port = port };

	EC_IOCTL(fd, IOCTL_EVTCHN_UNBIND, &u, false);
}

/* Raise the other end of @port. */
static void ec_notify(int fd, unsigned int port)
{
	struct ioctl_evtchn_notify n = { .port = port };

	EC_IOCTL(fd, IOCTL_EVTCHN_NOTIFY, &n, false);
}

/* Unmask delivered ports: write them back (at most a page a call). */
static void ec_unmask(int fd, const unsigned int *ports, size_t n)
{
	while (n) {
		size_t chunk = n < RBUF ? n : RBUF;
		ssize_t w = write(fd, ports, chunk * sizeof(*ports));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			fail_exit("write %s: %s", DEV_EVTCHN, strerror(errno));
		if (w == 0 || w % sizeof(*ports))
			fail_exit("write %s: %zd bytes of %zu", DEV_EVTCHN, w,
				  chunk * sizeof(*ports));
		ports += w / sizeof(*ports);
		n -= w / sizeof(*ports);
	}
}

/*
 * Wait up to @timeout_ms for deliveries; returns how many ports were read
 * into @buf (RBUF entries), 0 if none came.
 */
static int ec_wait(int fd, unsigned int *buf, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;
	int rc;

	rc = poll(&pfd, 1, timeout_ms);
	if (rc < 0 && errno != EINTR)
		fail_exit("poll %s: %s", DEV_EVTCHN, strerror(errno));
	if (rc <= 0)
		return 0;
	if (pfd.revents & POLLERR)
		fail_exit("%s: event ring overflow", DEV_EVTCHN);
	r = read(fd, buf, RBUF * sizeof(*buf));
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		if (errno == EFBIG)
			fail_exit("%s: event ring overflow", DEV_EVTCHN);
		fail_exit("read %s: %s", DEV_EVTCHN, strerror(errno));
	}
	return r / sizeof(*buf);
}

/* ------------------------------------------------------------ figures */

struct lat {
	unsigned int *us;
	size_t n, cap;
	unsigned long long worst_ns;
};

static void lat_add(struct lat *l, unsigned long long ns)
{
	if (ns > l->worst_ns)
		l->worst_ns = ns;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 65536;
		unsigned int *us;

		if (cap > MAX_LAT)
			return;
		us = realloc(l->us, cap * sizeof(*us));
		if (!us)
			return;
		l->us = us;
		l->cap = cap;
	}
	l->us[l->n++] = ns / 1000;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The @pct-th percentile (0..100) of @l, in us (sorts @l). */
static unsigned int lat_pct(struct lat *l, unsigned int pct)
{
	size_t i;

	if (!l->n)
		return 0;
	qsort(l->us, l->n, sizeof(*l->us), cmp_uint);
	i = l->n * pct / 100;
	return l->us[i < l->n ? i : l->n - 1];
}

static unsigned int lat_median(struct lat *l)
{
	return lat_pct(l, 50);
}

/* Up to NOTE_MAX ports, for the message of a failure. */
struct note {
	unsigned int port[NOTE_MAX];
	unsigned long long n;
};

static void note_add(struct note *nt, unsigned int port)
{
	if (nt->n < NOTE_MAX)
		nt->port[nt->n] = port;
	nt->n++;
}

static const char *note_str(const struct note *nt, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < nt->n && i < NOTE_MAX && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%u", i ? "," : "",
				nt->port[i]);
	if (nt->n > NOTE_MAX && len < size)
		snprintf(buf + len, size - len, ",...");
	return buf;
}

/* ---------------------------------------------------- /proc/interrupts */

/* Counts per CPU column: CPU0, CPU1, all others. */
#define NCOL 3

struct irq_count {
	int irq;
	unsigned long long cnt[NCOL];
};

static int cpu_cols;		/* online CPUs, as /proc/interrupts has them */

static char *slurp(const char *path)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		fail_exit("cannot read %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				fail_exit("out of memory reading %s", path);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			fail_exit("cannot read %s: %s", path, strerror(errno));
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/*
 * The lines of /proc/interrupts whose only action is @name, in IRQ order:
 * up to @cap into @out; returns how many there are.
 */
static int read_irqs(const char *name, struct irq_count *out, int cap)
{
	char *text = slurp("/proc/interrupts");
	char *line, *next, *p, *end;
	int cols[64], ncols = 0, n = 0, c;

	next = strchr(text, '\n');
	if (!next)
		fail_exit("/proc/interrupts: no header line");
	*next++ = '\0';
	for (p = strstr(text, "CPU"); p && ncols < (int)ARRAY_SIZE(cols);
	     p = strstr(p, "CPU")) {
		p += 3;
		c = strtol(p, &end, 10);
		if (end == p)
			fail_exit("/proc/interrupts: bad header");
		cols[ncols++] = c;
	}
	if (!ncols)
		fail_exit("/proc/interrupts: no CPU in the header");
	cpu_cols = ncols;

	for (line = next; line && *line; line = next) {
		struct irq_count ic = { 0 };
		char *last;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ic.irq = strtol(line, &end, 10);
		if (end == line || *end != ':')
			continue;
		p = end + 1;
		for (c = 0; c < ncols; c++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			ic.cnt[cols[c] < NCOL - 1 ? cols[c] : NCOL - 1] += v;
			p = end;
		}
		if (c < ncols)
			continue;
		end = p + strlen(p);
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		last = strrchr(p, ' ');
		last = last ? last + 1 : p;
		if (strcmp(last, name))
			continue;
		if (n < cap)
			out[n] = ic;
		n++;
	}
	free(text);
	return n;
}

static int move_irq(int irq, int cpu)
{
	char path[64], val[16];
	int fd, len, rc = 0;
	ssize_t w;

	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(val, sizeof(val), "%d\n", cpu);
	w = write(fd, val, len);
	if (w < 0)
		rc = -errno;
	else if (w != len)
		rc = -EIO;
	close(fd);
	return rc;
}

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

static struct {
	unsigned int ports;
	bool ports_max;
	unsigned long long sends;
	int timeout_ms;			/* past it an event is late */
	int lost_ms;			/* past it, lost */
	unsigned int flood_secs;
	unsigned int max_secs;
	unsigned int self;
} lo = {
	.ports = 1000,
	.sends = 100000,
	.timeout_ms = 2000,
	.lost_ms = 60000,
	.flood_secs = 5,
	.max_secs = 120,
	.self = XEN_DOMID_SELF,
};

static struct slot *slots;
static unsigned int nslots;
static int *slot_of_port;		/* port -> slot, or -1 */
static unsigned int slot_of_port_len;
static int *slot_of_irq;		/* IRQ -> slot, or -1, once mapped */
static int slot_of_irq_len;
static char irq_name[32];		/* "evtchn:<comm>" of the ports */
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

static int run_loop(void)
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

/* ------------------------------------------------------ serve and peer */

static struct {
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
	bool marks;			/* --xen-marks */
} ex = {
	.timeout_ms = 5000,
	.lost_ms = 60000,
};

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

#define DEV_PRIVCMD	"/dev/xen/privcmd"
#define HC_SCHED_OP	29		/* __HYPERVISOR_sched_op */
#define XEN_MARK	0x7e000000U	/* no such sched_op: -ENOSYS */

/*
 * <xen/privcmd.h>'s, which the toolchain's copy cannot give: it includes
 * <xen/interface/xen.h>, which only the kernel has.
 */
struct privcmd_hypercall {
	uint64_t op;
	uint64_t arg[5];
};
#define IOCTL_PRIVCMD_HYPERCALL \
	_IOC(_IOC_NONE, 'P', 0, sizeof(struct privcmd_hypercall))

/* 2 is left for the guest's side, which xtrace-stalls finds otherwise. */
enum { MARK_SENT = 1, MARK_ANSWERED = 3 };

/*
 * --xen-marks: put event @k's moment @kind into Xen's trace: a sched_op
 * hypercall whose cmd (0x7e000000 | kind << 20 | k's low 20 bits) no
 * Xen knows: it returns -ENOSYS, and its trace record
 * (TRC_PV_HYPERCALL_V2, x86 PV) keeps the cmd, on Xen's clock.
 */
static void xen_mark(unsigned int kind, unsigned long long k)
{
	static int fd = -1;
	struct privcmd_hypercall h = {
		.op = HC_SCHED_OP,
		.arg = { XEN_MARK | kind << 20 | (k & 0xfffff) },
	};

	if (!ex.marks)
		return;
	if (fd < 0) {
		fd = open(DEV_PRIVCMD, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fail_exit("--xen-marks: cannot open %s: %s", DEV_PRIVCMD,
				  strerror(errno));
	}
	if (ioctl(fd, IOCTL_PRIVCMD_HYPERCALL, &h) >= 0 || errno != ENOSYS)
		fail_exit("--xen-marks: sched_op %#x did not fail with ENOSYS: %s",
			  (unsigned int)h.arg[0], strerror(errno));
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
static int run_exchange(bool serve, unsigned int domid, unsigned int rport,
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
			xen_mark(MARK_SENT, i + 1);
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
		if (!serve)
			xen_mark(MARK_ANSWERED, i + 1);
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

static struct {
	unsigned long long rounds;
	unsigned int max_lost;
	int timeout_ms;
	int lost_ms;
	unsigned int max_secs;
} wi = {
	.rounds = 20000,
	.timeout_ms = 3000,
	.lost_ms = 60000,
	.max_secs = 120,
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

static int run_width(void)
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

/* ---------------------------------------------------------------- main */

static unsigned long long num_arg(const char *opt, const char *s,
				  unsigned long long min,
				  unsigned long long max)
{
	const char *start = s;
	unsigned long long v;
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		start = s + 2;
		base = 16;
	}
	errno = 0;
	v = strtoull(start, &end, base);
	if (errno || end == start || *end || *start == '-' || *start == '+' ||
	    *start == ' ' || v < min || v > max)
		usage_error("bad value for --%s: '%s' (%llu..%llu)", opt, s,
			    min, max);
	return v;
}

static const char *file_arg(const char *opt, const char *s)
{
	if (!*s)
		usage_error("--%s needs a file name", opt);
	return s;
}

/* A mode's deadline and lost bound: the options given, checked. */
static void set_times(int *timeout, int *lost, int timeout_opt, int lost_opt)
{
	if (timeout_opt > 0)
		*timeout = timeout_opt;
	if (lost_opt > 0)
		*lost = lost_opt;
	if (*lost < *timeout)
		usage_error("--lost-ms (%d) is shorter than --timeout-ms (%d)",
			    *lost, *timeout);
}

enum { O_PORTS = 256, O_SENDS, O_TIMEOUT, O_FLOOD, O_MAXSECS, O_SELF,
	O_DOMID, O_PORT, O_COUNT, O_WAIT, O_ROUNDS, O_MAXLOST, O_LOST,
	O_CTL, O_PROGRESS, O_DELAY_AT, O_DELAY_MS, O_DROP_AT, O_HOLD,
	O_FOLLOW, O_RECONNECT, O_MARKS, O_HELP };

static const struct option options[] = {
	{ "ports", required_argument, NULL, O_PORTS },
	{ "sends", required_argument, NULL, O_SENDS },
	{ "timeout-ms", required_argument, NULL, O_TIMEOUT },
	{ "flood-secs", required_argument, NULL, O_FLOOD },
	{ "max-secs", required_argument, NULL, O_MAXSECS },
	{ "self-domid", required_argument, NULL, O_SELF },
	{ "domid", required_argument, NULL, O_DOMID },
	{ "port", required_argument, NULL, O_PORT },
	{ "count", required_argument, NULL, O_COUNT },
	{ "wait-secs", required_argument, NULL, O_WAIT },
	{ "rounds", required_argument, NULL, O_ROUNDS },
	{ "max-lost", required_argument, NULL, O_MAXLOST },
	{ "lost-ms", required_argument, NULL, O_LOST },
	{ "ctl-port", required_argument, NULL, O_CTL },
	{ "progress", required_argument, NULL, O_PROGRESS },
	{ "delay-at", required_argument, NULL, O_DELAY_AT },
	{ "delay-ms", required_argument, NULL, O_DELAY_MS },
	{ "drop-at", required_argument, NULL, O_DROP_AT },
	{ "hold", required_argument, NULL, O_HOLD },
	{ "follow-restore", no_argument, NULL, O_FOLLOW },
	{ "reconnect", required_argument, NULL, O_RECONNECT },
	{ "xen-marks", no_argument, NULL, O_MARKS },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 }
};

/* Which options each mode takes. */
static const char *const mode_opts[] = {
	"ports sends timeout-ms lost-ms flood-secs max-secs self-domid",
	"domid count timeout-ms lost-ms wait-secs delay-at delay-ms drop-at follow-restore",
	"domid port ctl-port count timeout-ms lost-ms max-secs progress hold reconnect xen-marks",
	"rounds max-lost timeout-ms lost-ms max-secs self-domid",
};

int main(int argc, char **argv)
{
	static const char *const modes[] = { "loop", "serve", "peer", "width" };
	unsigned long long count = 10000;
	unsigned int wait_secs = 300;
	long long domid = -1, port = -1, ctl = 0;
	int mode, o, timeout_ms = -1, lost_ms = -1;

	setvbuf(stderr, NULL, _IOLBF, 0);
	if (argc < 2)
		usage_error("no mode");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	for (mode = 0; mode < (int)ARRAY_SIZE(modes); mode++)
		if (!strcmp(argv[1], modes[mode]))
			break;
	if (mode == (int)ARRAY_SIZE(modes))
		usage_error("unknown mode '%s'", argv[1]);

	opterr = 0;
	optind = 2;
	while ((o = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		const char *name = NULL;
		const char *p;
		size_t len;

		if (o == '?' || o == ':')
			usage_error("bad option or missing value: '%s'",
				    argv[optind - 1]);
		if (o == 'h' || o == O_HELP) {
			fputs(usage_text, stdout);
			return 0;
		}
		name = options[o - O_PORTS].name;
		len = strlen(name);
		for (p = strstr(mode_opts[mode], name); p;
		     p = strstr(p + 1, name))
			if ((p == mode_opts[mode] || p[-1] == ' ') &&
			    (p[len] == ' ' || !p[len]))
				break;
		if (!p)
			usage_error("--%s is not an option of %s", name,
				    modes[mode]);
		switch (o) {
		case O_PORTS:
			if (!strcmp(optarg, "max")) {
				lo.ports_max = true;
				break;
			}
			lo.ports = num_arg(name, optarg, 2, MAX_PORTS);
			if (lo.ports % 2)
				usage_error("--ports must be even: %s", optarg);
			break;
		case O_SENDS:
			lo.sends = num_arg(name, optarg, 1, 1000000000);
			break;
		case O_TIMEOUT:
			timeout_ms = num_arg(name, optarg, 1, 3600000);
			break;
		case O_FLOOD:
			lo.flood_secs = num_arg(name, optarg, 1, 3600);
			break;
		case O_MAXSECS:
			lo.max_secs = num_arg(name, optarg, 1, 86400);
			wi.max_secs = lo.max_secs;
			ex.max_secs = lo.max_secs;
			break;
		case O_LOST:
			lost_ms = num_arg(name, optarg, 1, 3600000);
			break;
		case O_CTL:
			ctl = num_arg(name, optarg, 1, (1U << 17) - 1);
			break;
		case O_PROGRESS:
			ex.progress = file_arg(name, optarg);
			break;
		case O_DELAY_AT:
			ex.delay_at = num_arg(name, optarg, 1, 1000000000);
			break;
		case O_DELAY_MS:
			ex.delay_ms = num_arg(name, optarg, 1, 3600000);
			break;
		case O_HOLD:
			ex.hold = file_arg(name, optarg);
			break;
		case O_FOLLOW:
			ex.follow = true;
			break;
		case O_RECONNECT:
			ex.reconnect = file_arg(name, optarg);
			break;
		case O_MARKS:
			ex.marks = true;
			break;
		case O_DROP_AT:
			ex.drop_at = num_arg(name, optarg, 1, 1000000000);
			break;
		case O_SELF:
			lo.self = num_arg(name, optarg, 0, XEN_DOMID_SELF);
			break;
		case O_DOMID:
			domid = num_arg(name, optarg, 0, XEN_DOMID_SELF - 1);
			break;
		case O_PORT:
			port = num_arg(name, optarg, 1, (1U << 17) - 1);
			break;
		case O_COUNT:
			count = num_arg(name, optarg, 0, 1000000000);
			break;
		case O_WAIT:
			wait_secs = num_arg(name, optarg, 1, 86400);
			break;
		case O_ROUNDS:
			wi.rounds = num_arg(name, optarg, 1, 1000000000);
			break;
		case O_MAXLOST:
			wi.max_lost = num_arg(name, optarg, 0, 32);
			break;
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!ex.delay_at != !ex.delay_ms)
		usage_error("--delay-at and --delay-ms go together");

	switch (mode) {
	case 0:
		set_times(&lo.timeout_ms, &lo.lost_ms, timeout_ms, lost_ms);
		return run_loop();
	case 3:
		set_times(&wi.timeout_ms, &wi.lost_ms, timeout_ms, lost_ms);
		return run_width();
	}
	set_times(&ex.timeout_ms, &ex.lost_ms, timeout_ms, lost_ms);
	if (domid < 0)
		usage_error("%s needs --domid", modes[mode]);
	if (mode == 1)
		return run_exchange(true, domid, 0, 0, count, wait_secs);
	if (port < 0)
		usage_error("peer needs --port");
	return run_exchange(false, domid, port, ctl, count, wait_secs);
}
