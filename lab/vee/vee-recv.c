// SPDX-License-Identifier: GPL-2.0-only
/*
 * vee-recv: the guests' receiver of the VEE 2008 / Xen bug 1115 experiment
 * (lab/vee/README.md).  Each PV guest runs one; it counts the bytes that
 * vee-send's TCP streams bring to it.  Built static for the guests'
 * busybox initramfs (no libc there):
 *
 *   gcc -O2 -static -o vee-recv vee-recv.c
 *
 *   vee-recv --guest N [--port 5001] [--secs 60] [--bind 0.0.0.0]
 *            [--wait 60]
 *
 * It listens on TCP ADDR:PORT (SO_REUSEADDR) and accepts any number of
 * connections, concurrent or successive, in one non-blocking poll() loop,
 * reading with 256 KiB reads.  Its window opens at the first byte received
 * and closes SECS seconds later (CLOCK_MONOTONIC); bytes read after that
 * are not counted.  It then prints one line on stdout,
 *
 *   vee: guest=N bytes=B secs=T mbps=M conns=C
 *
 * (T the window measured, M = B * 8 / T / 1e6, C the connections accepted)
 * and exits 0.  If no byte arrives within SECS + WAIT seconds of its start,
 * it prints that line with bytes=0 and exits 1.  A failing system call is
 * one line on stderr ("vee-recv: bind port 5001: Address already in use")
 * and exit 2; so are bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VR_BUF_SIZE	(256 * 1024)
#define VR_BACKLOG	128
#define VR_MAX_CONNS	1024	/* concurrent connections; more wait */
#define VR_READS_PER_FD	16	/* reads per ready socket per pass */

static char vr_buf[VR_BUF_SIZE];

static void vr_usage(const char *why)
{
	/* One line, in pieces that fit the source's 80 columns. */
	fprintf(stderr, "vee-recv: %s; usage: vee-recv --guest N", why);
	fputs(" [--port P] [--secs S] [--bind ADDR] [--wait W]\n", stderr);
	exit(2);
}

static void vr_fail(const char *what)
{
	fprintf(stderr, "vee-recv: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double vr_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		vr_fail("clock_gettime");
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A positive number of seconds, at most a day. */
static double vr_secs_arg(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400) {
		char why[128];

		snprintf(why, sizeof(why), "bad %s '%.40s'", opt, s);
		vr_usage(why);
	}
	return v;
}

static long vr_int_arg(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		char why[128];

		snprintf(why, sizeof(why), "bad %s '%.40s'", opt, s);
		vr_usage(why);
	}
	return v;
}

/* Milliseconds until @deadline for poll(), rounded up, at least 0. */
static int vr_timeout(double deadline)
{
	double ms = (deadline - vr_now()) * 1000;

	if (ms <= 0)
		return 0;
	if (ms > INT_MAX)
		return INT_MAX;
	return (int)ms + ((int)ms < ms);	/* ceil() without libm */
}

int main(int argc, char **argv)
{
	const char *bind_addr = "0.0.0.0";
	struct sockaddr_in sin;
	struct pollfd *pfd;
	double secs = 60, wait = 60, start, first = 0, end = 0, stop;
	unsigned long long bytes = 0;
	unsigned long conns = 0;
	long guest = -1, port = 5001;
	int nfds = 1, lfd, one = 1, accepting = 1, done = 0, i;
	char what[96];

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];

		if (i + 1 >= argc && strncmp(opt, "--", 2))
			vr_usage("unexpected argument");
		if (i + 1 >= argc)
			vr_usage("option needs a value");
		if (!strcmp(opt, "--port"))
			port = vr_int_arg(opt, argv[++i], 1, 65535);
		else if (!strcmp(opt, "--secs"))
			secs = vr_secs_arg(opt, argv[++i]);
		else if (!strcmp(opt, "--wait"))
			wait = vr_secs_arg(opt, argv[++i]);
		else if (!strcmp(opt, "--guest"))
			guest = vr_int_arg(opt, argv[++i], 0, 1000000);
		else if (!strcmp(opt, "--bind"))
			bind_addr = argv[++i];
		else
			vr_usage("unknown option");
	}
	if (guest < 0)
		vr_usage("--guest is required");

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, bind_addr, &sin.sin_addr) != 1)
		vr_usage("bad --bind (an IPv4 address)");
	if (!strcmp(bind_addr, "0.0.0.0"))
		snprintf(what, sizeof(what), "port %ld", port);
	else
		snprintf(what, sizeof(what), "%s port %ld", bind_addr, port);

	pfd = calloc(VR_MAX_CONNS + 1, sizeof(*pfd));
	if (!pfd)
		vr_fail("calloc");
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		vr_fail("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		vr_fail("setsockopt SO_REUSEADDR");
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, "vee-recv: bind %s: %s\n", what,
			strerror(errno));
		exit(2);
	}
	if (listen(lfd, VR_BACKLOG)) {
		fprintf(stderr, "vee-recv: listen %s: %s\n", what,
			strerror(errno));
		exit(2);
	}
	pfd[0].fd = lfd;
	pfd[0].events = POLLIN;

	start = vr_now();
	stop = start + secs + wait;
	while (!done) {
		int n;

		/* A full table stops polling the listener: no busy loop. */
		pfd[0].fd = accepting && nfds <= VR_MAX_CONNS ? lfd : -1;
		n = poll(pfd, nfds, vr_timeout(first ? end : stop));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			vr_fail("poll");
		}
		if (vr_now() >= (first ? end : stop))
			break;

		if (pfd[0].revents & POLLIN) {
			while (nfds <= VR_MAX_CONNS) {
				int fd = accept4(lfd, NULL, NULL,
						 SOCK_NONBLOCK | SOCK_CLOEXEC);

				if (fd >= 0) {
					pfd[nfds].fd = fd;
					pfd[nfds].events = POLLIN;
					pfd[nfds].revents = 0;
					nfds++;
					conns++;
					continue;
				}
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					break;
				if (errno == EINTR || errno == ECONNABORTED ||
				    errno == EPROTO)
					continue;
				if (errno == EMFILE || errno == ENFILE ||
				    errno == ENOBUFS || errno == ENOMEM) {
					/* Wait for a connection to close. */
					accepting = 0;
					break;
				}
				vr_fail("accept");
			}
		}

		for (i = 1; i < nfds && !done; i++) {
			int r, closed = 0;

			if (!pfd[i].revents)
				continue;
			for (r = 0; r < VR_READS_PER_FD; r++) {
				ssize_t got;
				double now = vr_now();

				if (first && now >= end) {
					done = 1;
					break;
				}
				got = read(pfd[i].fd, vr_buf, sizeof(vr_buf));
				if (got > 0) {
					if (!first) {
						first = now;
						end = first + secs;
					}
					bytes += got;
					continue;
				}
				if (got < 0 && (errno == EAGAIN ||
						errno == EWOULDBLOCK))
					break;
				if (got < 0 && errno == EINTR)
					continue;
				/* EOF, or a reset: that connection is over. */
				closed = 1;
				break;
			}
			if (closed) {
				close(pfd[i].fd);
				pfd[i] = pfd[--nfds];
				accepting = 1;
				/* The entry moved here is still to be seen. */
				i--;
			}
		}
	}

	/* No byte at all: bytes=0 secs=0.000 mbps=0.00, and exit 1. */
	stop = first ? vr_now() - first : 0;
	printf("vee: guest=%ld bytes=%llu secs=%.3f mbps=%.2f conns=%lu\n",
	       guest, bytes, stop, first ? bytes * 8 / stop / 1e6 : 0, conns);
	return first ? 0 : 1;
}
