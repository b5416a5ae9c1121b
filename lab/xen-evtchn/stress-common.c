// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-stress: what the modes share: fail_exit(), the clock,
 * /dev/xen/evtchn, latency figures, /proc/interrupts, and the
 * definitions of the shared globals (the options main() sets).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

bool tap_mode;

noreturn void fail_exit(const char *fmt, ...)
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

unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------ /dev/xen/evtchn */

int ec_open(void)
{
	int fd = open(DEV_EVTCHN, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		fail_exit("cannot open %s: %s", DEV_EVTCHN, strerror(errno));
	return fd;
}

/* An ioctl that must succeed, unless @may_fail: then -errno. */
int ec_ioctl(int fd, unsigned long req, const char *name, void *arg,
	     bool may_fail)
{
	int rc = ioctl(fd, req, arg);

	if (rc >= 0)
		return rc;
	if (may_fail)
		return -errno;
	fail_exit("%s: %s", name, strerror(errno));
}

int ec_bind_unbound(int fd, unsigned int remote, bool may_fail)
{
	struct ioctl_evtchn_bind_unbound_port b = { .remote_domain = remote };

	return EC_IOCTL(fd, IOCTL_EVTCHN_BIND_UNBOUND_PORT, &b, may_fail);
}

int ec_bind_interdomain(int fd, unsigned int remote,
			unsigned int rport, bool may_fail)
{
	struct ioctl_evtchn_bind_interdomain b = {
		.remote_domain = remote,
		.remote_port = rport,
	};

	return EC_IOCTL(fd, IOCTL_EVTCHN_BIND_INTERDOMAIN, &b, may_fail);
}

void ec_unbind(int fd, unsigned int port)
{
	struct ioctl_evtchn_unbind u = { .port = port };

	EC_IOCTL(fd, IOCTL_EVTCHN_UNBIND, &u, false);
}

/* Raise the other end of @port. */
void ec_notify(int fd, unsigned int port)
{
	struct ioctl_evtchn_notify n = { .port = port };

	EC_IOCTL(fd, IOCTL_EVTCHN_NOTIFY, &n, false);
}

/* Unmask delivered ports: write them back (at most a page a call). */
void ec_unmask(int fd, const unsigned int *ports, size_t n)
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
int ec_wait(int fd, unsigned int *buf, int timeout_ms)
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

void lat_add(struct lat *l, unsigned long long ns)
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
unsigned int lat_pct(struct lat *l, unsigned int pct)
{
	size_t i;

	if (!l->n)
		return 0;
	qsort(l->us, l->n, sizeof(*l->us), cmp_uint);
	i = l->n * pct / 100;
	return l->us[i < l->n ? i : l->n - 1];
}

unsigned int lat_median(struct lat *l)
{
	return lat_pct(l, 50);
}

void note_add(struct note *nt, unsigned int port)
{
	if (nt->n < NOTE_MAX)
		nt->port[nt->n] = port;
	nt->n++;
}

const char *note_str(const struct note *nt, char *buf, size_t size)
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

int cpu_cols;		/* online CPUs, as /proc/interrupts has them */
char irq_name[32];		/* "evtchn:<comm>" of the ports */

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
int read_irqs(const char *name, struct irq_count *out, int cap)
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

int move_irq(int irq, int cpu)
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

/* ------------------------------------------------- the modes' options */

struct lo_opts lo = {
	.ports = 1000,
	.sends = 100000,
	.timeout_ms = 2000,
	.lost_ms = 60000,
	.flood_secs = 5,
	.max_secs = 120,
	.self = XEN_DOMID_SELF,
};

struct ex_opts ex = {
	.timeout_ms = 5000,
	.lost_ms = 60000,
};

struct wi_opts wi = {
	.rounds = 20000,
	.timeout_ms = 3000,
	.lost_ms = 60000,
	.max_secs = 120,
};
