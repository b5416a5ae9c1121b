// SPDX-License-Identifier: GPL-2.0-only
/*
 * vee-send: the host's sender of the VEE 2008 / Xen bug 1115 experiment
 * (lab/vee/README.md).  It opens TCP streams to 127.0.0.1:BASE+i, which
 * QEMU forwards to guest i's vee-recv, for i = 1..GUESTS, all at once.
 * Built normally:
 *
 *   gcc -O2 -o vee-send vee-send.c
 *
 *   vee-send --secs S --mode bulk|small|short [--base-port 15000]
 *            [--guests 7] [--host 127.0.0.1] [--wait 30] [--out FILE]
 *
 * Modes: bulk, one connection per guest writing 64 KiB chunks as fast as
 * it can; small, one connection per guest with TCP_NODELAY writing 64-byte
 * chunks; short, connections that each send 16 KiB and close, a new one
 * opened at once.
 *
 * First every guest gets a connection: a refused one (or, through QEMU's
 * hostfwd, which accepts on the host before the guest does, one the peer
 * closes within --settle, 500 ms) is retried every 100 ms for up to WAIT
 * seconds; if a guest never accepts, one line on stderr and exit 1.  Then
 * all guests are sent to for S seconds; a connection lost meanwhile is
 * reopened.  It prints, on stdout or in FILE, one line per guest,
 *
 *   send: guest=N bytes=B conns=C
 *
 * (B the bytes write() took, C the connections established).  Bad
 * arguments or a failing system call: one line on stderr, exit 2.
 * SIGPIPE is ignored.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VS_MAX_GUESTS	64
#define VS_BULK_CHUNK	(64 * 1024)
#define VS_SMALL_CHUNK	64
#define VS_SHORT_BYTES	(16 * 1024)
#define VS_WRITES	256	/* writes per ready socket per pass */
#define VS_RETRY	0.1	/* seconds between refused connects (start) */
#define VS_BACKOFF	0.02	/* seconds between failed reconnects (run) */

enum vs_mode { VS_BULK, VS_SMALL, VS_SHORT };

enum vs_state {
	VS_IDLE,	/* no socket; connect at @retry_at */
	VS_CONNECTING,	/* non-blocking connect in progress */
	VS_READY,	/* connected, waiting for the start (settling) */
	VS_SENDING,
};

/**
 * struct vs_guest - one guest's stream
 * @fd: its socket, or -1.
 * @state: see enum vs_state.
 * @retry_at: when an idle guest connects again.
 * @since: when @fd got connected (settling before the start).
 * @left: short mode, bytes the connection still has to send.
 * @bytes: bytes write() took for this guest.
 * @conns: connections established.
 * @err: the last connection error, for the report if it never connects.
 */
struct vs_guest {
	int fd;
	enum vs_state state;
	double retry_at;
	double since;
	size_t left;
	unsigned long long bytes;
	unsigned long conns;
	int err;
};

static struct vs_guest vs_guests[VS_MAX_GUESTS + 1];
static char vs_chunk[VS_BULK_CHUNK];
static struct sockaddr_in vs_addr;
static enum vs_mode vs_mode;
static int vs_base = 15000;

static void vs_usage(const char *why)
{
	/* One line, in pieces that fit the source's 80 columns. */
	fprintf(stderr, "vee-send: %s; usage: vee-send --secs S", why);
	fputs(" --mode bulk|small|short [--base-port P] [--guests N]", stderr);
	fputs(" [--host ADDR] [--wait W] [--settle MS] [--out FILE]\n",
	      stderr);
	exit(2);
}

static void vs_fail(const char *what)
{
	fprintf(stderr, "vee-send: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double vs_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		vs_fail("clock_gettime");
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double vs_num_arg(const char *opt, const char *s, double lo,
			 double hi, int integer)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo) || !(v <= hi) ||
	    (integer && v != (long)v)) {
		char why[128];

		snprintf(why, sizeof(why), "bad %s '%.40s'", opt, s);
		vs_usage(why);
	}
	return v;
}

/* Start a non-blocking connect for guest @i. */
static void vs_connect(int i, double now)
{
	struct vs_guest *g = &vs_guests[i];
	struct sockaddr_in sin = vs_addr;
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		vs_fail("socket");
	if (vs_mode == VS_SMALL &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		vs_fail("setsockopt TCP_NODELAY");
	sin.sin_port = htons(vs_base + i);
	g->fd = fd;
	if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		g->state = VS_READY;
		g->since = now;
		return;
	}
	if (errno == EINPROGRESS) {
		g->state = VS_CONNECTING;
		return;
	}
	g->err = errno;
	close(fd);
	g->fd = -1;
	g->state = VS_IDLE;
	g->retry_at = now + VS_RETRY;
}

/* Drop guest @i's connection; it connects again after @delay. */
static void vs_drop(int i, int err, double now, double delay)
{
	struct vs_guest *g = &vs_guests[i];

	if (err)
		g->err = err;
	close(g->fd);
	g->fd = -1;
	g->state = VS_IDLE;
	g->retry_at = now + delay;
}

/* The connection became established (or the peer took it). */
static void vs_established(int i, int running, double now)
{
	struct vs_guest *g = &vs_guests[i];

	g->since = now;
	if (running) {
		g->state = VS_SENDING;
		g->conns++;
		g->left = VS_SHORT_BYTES;
	} else {
		g->state = VS_READY;
	}
}

/* Write to guest @i until its socket is full or VS_WRITES writes. */
static void vs_send(int i, double now)
{
	struct vs_guest *g = &vs_guests[i];
	int w;

	for (w = 0; w < VS_WRITES; w++) {
		size_t len = vs_mode == VS_SMALL ? VS_SMALL_CHUNK :
			     VS_BULK_CHUNK;
		ssize_t put;

		if (vs_mode == VS_SHORT && len > g->left)
			len = g->left;
		put = write(g->fd, vs_chunk, len);
		if (put < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			/* The peer went away: reconnect, with a backoff. */
			vs_drop(i, errno, now, VS_BACKOFF);
			return;
		}
		g->bytes += put;
		if (vs_mode != VS_SHORT)
			continue;
		g->left -= put;
		if (!g->left) {
			close(g->fd);
			g->fd = -1;
			vs_connect(i, now);
			if (g->state == VS_READY)
				vs_established(i, 1, now);
			return;
		}
	}
}

/* Guests not connected yet (settling or not). */
static int vs_unready(int guests)
{
	int i, n = 0;

	for (i = 1; i <= guests; i++)
		n += vs_guests[i].state != VS_READY;
	return n;
}

int main(int argc, char **argv)
{
	struct pollfd pfd[VS_MAX_GUESTS];
	int map[VS_MAX_GUESTS];
	const char *out = NULL, *host = "127.0.0.1";
	double secs = -1, wait = 30, settle = 0.5, start, end = 0, now;
	int guests = 7, running = 0, mode_set = 0, i;
	FILE *f = stdout;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i], *val;

		if (i + 1 >= argc && strncmp(opt, "--", 2))
			vs_usage("unexpected argument");
		if (i + 1 >= argc)
			vs_usage("option needs a value");
		val = argv[++i];
		if (!strcmp(opt, "--secs")) {
			secs = vs_num_arg(opt, val, 0.001, 86400, 0);
		} else if (!strcmp(opt, "--mode")) {
			mode_set = 1;
			if (!strcmp(val, "bulk"))
				vs_mode = VS_BULK;
			else if (!strcmp(val, "small"))
				vs_mode = VS_SMALL;
			else if (!strcmp(val, "short"))
				vs_mode = VS_SHORT;
			else
				vs_usage("bad --mode");
		} else if (!strcmp(opt, "--base-port")) {
			vs_base = vs_num_arg(opt, val, 0, 65535, 1);
		} else if (!strcmp(opt, "--guests")) {
			guests = vs_num_arg(opt, val, 1, VS_MAX_GUESTS, 1);
		} else if (!strcmp(opt, "--host")) {
			host = val;
		} else if (!strcmp(opt, "--wait")) {
			wait = vs_num_arg(opt, val, 0, 3600, 0);
		} else if (!strcmp(opt, "--settle")) {
			settle = vs_num_arg(opt, val, 0, 60000, 1) / 1000;
		} else if (!strcmp(opt, "--out")) {
			out = val;
		} else {
			vs_usage("unknown option");
		}
	}
	if (secs < 0 || !mode_set)
		vs_usage("--secs and --mode are required");
	if (vs_base + guests > 65535)
		vs_usage("--base-port + --guests is over 65535");
	vs_addr.sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &vs_addr.sin_addr) != 1)
		vs_usage("bad --host (an IPv4 address)");
	if (out) {
		/* Open it now: a bad path fails before the run, not after. */
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "vee-send: %s: %s\n", out,
				strerror(errno));
			exit(2);
		}
	}
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		vs_fail("signal SIGPIPE");
	memset(vs_chunk, 'v', sizeof(vs_chunk));

	start = vs_now();
	for (i = 1; i <= guests; i++) {
		vs_guests[i].fd = -1;
		vs_guests[i].err = ECONNREFUSED;
		vs_connect(i, start);
	}

	for (;;) {
		double next;
		int n, ready = 0, timeout;

		now = vs_now();
		if (running && now >= end)
			break;
		next = running ? end : start + wait;
		if (!running && now >= next && vs_unready(guests)) {
			fprintf(stderr, "vee-send: no connection within %g s:",
				wait);
			for (i = 1; i <= guests; i++)
				if (vs_guests[i].state != VS_READY)
					fprintf(stderr, " guest %d %s:%d (%s)",
						i, host, vs_base + i,
						strerror(vs_guests[i].err));
			fputc('\n', stderr);
			exit(1);
		}
		if (next < now)
			next = now + 1;	/* all connected; settling */

		/* Idle guests whose time has come connect again. */
		for (i = 1; i <= guests; i++) {
			struct vs_guest *g = &vs_guests[i];

			if (g->state == VS_IDLE && now >= g->retry_at) {
				vs_connect(i, now);
				if (g->state == VS_READY)
					vs_established(i, running, now);
			}
			if (g->state == VS_IDLE && g->retry_at < next)
				next = g->retry_at;
			if (g->state == VS_READY) {
				ready++;
				if (now < g->since + settle)
					ready--;
				if (g->since + settle < next &&
				    now < g->since + settle)
					next = g->since + settle;
			}
		}
		if (!running && ready == guests) {
			/* Everyone is connected and settled: go. */
			running = 1;
			end = now + secs;
			for (i = 1; i <= guests; i++) {
				vs_guests[i].state = VS_SENDING;
				vs_guests[i].conns = 1;
				vs_guests[i].left = VS_SHORT_BYTES;
			}
			continue;
		}

		n = 0;
		for (i = 1; i <= guests; i++) {
			struct vs_guest *g = &vs_guests[i];

			if (g->fd < 0)
				continue;
			pfd[n].fd = g->fd;
			/* Ready sockets watch for the peer closing them. */
			pfd[n].events = g->state == VS_READY ?
					POLLIN | POLLRDHUP : POLLOUT;
			pfd[n].revents = 0;
			map[n++] = i;
		}
		/* Milliseconds to @next, rounded up (no libm). */
		timeout = next - now > 3600 ? 3600000 : next <= now ? 0 :
			  (int)((next - now) * 1000) + 1;
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			vs_fail("poll");
		}
		now = vs_now();
		if (running && now >= end)
			break;

		for (n--; n >= 0; n--) {
			struct vs_guest *g = &vs_guests[map[n]];
			int err = 0;
			socklen_t len = sizeof(err);

			i = map[n];
			if (!pfd[n].revents)
				continue;
			switch (g->state) {
			case VS_CONNECTING:
				if (getsockopt(g->fd, SOL_SOCKET, SO_ERROR,
					       &err, &len))
					vs_fail("getsockopt SO_ERROR");
				if (err)
					vs_drop(i, err, now, running ?
						VS_BACKOFF : VS_RETRY);
				else
					vs_established(i, running, now);
				break;
			case VS_READY:
				/* Closed (or reset) by the far side. */
				if (getsockopt(g->fd, SOL_SOCKET, SO_ERROR,
					       &err, &len))
					vs_fail("getsockopt SO_ERROR");
				vs_drop(i, err ? err : ECONNRESET, now,
					VS_RETRY);
				break;
			case VS_SENDING:
				vs_send(i, now);
				break;
			case VS_IDLE:
				break;
			}
		}
	}

	for (i = 1; i <= guests; i++) {
		if (vs_guests[i].fd >= 0)
			close(vs_guests[i].fd);
		fprintf(f, "send: guest=%d bytes=%llu conns=%lu\n", i,
			vs_guests[i].bytes, vs_guests[i].conns);
	}
	if (fflush(f) || (out && fclose(f))) {
		fprintf(stderr, "vee-send: %s: %s\n", out ? out : "stdout",
			strerror(errno));
		exit(2);
	}
	return 0;
}
