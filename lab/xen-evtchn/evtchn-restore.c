// SPDX-License-Identifier: GPL-2.0
/* evtchn-restore.c [PAIRS]: user ports kept across a save/restore */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xenevtchn.h>
#include <xengnttab.h>
#include <xenstore.h>

static long domid(struct xs_handle *xs)
{
	unsigned int len;
	char *s = xs_read(xs, XBT_NULL, "domid", &len);
	long d = s ? atol(s) : -1;

	free(s);
	return d;
}

/* 1 if @port cannot be unbound; the first three such ports are named. */
static int unbind(xenevtchn_handle *xce, int port)
{
	static int failed;

	if (xenevtchn_unbind(xce, port) == 0)
		return 0;
	if (failed++ < 3)
		printf("unbind of old port %d: %s\n", port, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, i, p, bad = 0;
	struct xs_handle *xs = xs_open(0);
	xenevtchn_handle *xce = xenevtchn_open(NULL, 0);
	xengntshr_handle *xgs = xengntshr_open(NULL, 0);
	int *old = calloc(2 * n, sizeof(*old));
	long self, now;
	uint32_t ref;
	void *page;

	if (!xs || !xce || !xgs || !old || n < 1)
		return perror("evtchn-restore"), 2;
	self = domid(xs);
	for (i = 0; i < 2 * n; i += 2) {	/* n loopback pairs */
		old[i] = xenevtchn_bind_unbound_port(xce, self);
		old[i + 1] = xenevtchn_bind_interdomain(xce, self, old[i]);
		if (old[i] < 0 || old[i + 1] < 0)
			return perror("bind"), 2;
	}
	/* A granted page whose unmap signals the first port (gntalloc). */
	page = xengntshr_share_page_notify(xgs, self, &ref, 1, -1, old[0]);
	if (!page)
		return perror("share"), 2;
	printf("domain %ld, ports %d..%d: save and restore it\n",
	       self, old[0], old[2 * n - 1]);
	fflush(stdout);
	while ((now = domid(xs)) == self || now < 0)
		usleep(100000);
	/* First the last old port: a number nobody has taken again. */
	bad += unbind(xce, old[2 * n - 1]);
	p = xenevtchn_bind_unbound_port(xce, now);	/* a new port */
	printf("restored as domain %ld; a new port: %d%s%s\n", now, p,
	       p < 0 ? ", " : "", p < 0 ? strerror(errno) : "");
	xengntshr_unshare(xgs, page, 1);
	for (i = 0; i < 2 * n - 1; i++)
		bad += unbind(xce, old[i]);
	if (p < 0)	/* EEXIST: an old port's number, free now */
		p = xenevtchn_bind_unbound_port(xce, now);
	if (p < 0) {
		printf("a new port, again: %s\n", strerror(errno));
		bad++;
	}
	if (bad)
		printf("evtchn-restore: FAILED, %d failures\n", bad);
	else
		printf("evtchn-restore: ok\n");
	return bad != 0;
}
