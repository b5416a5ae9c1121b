// SPDX-License-Identifier: GPL-2.0
/* gcc -o evtchn-restore evtchn-restore.c -lxenevtchn -lxenstore */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xenevtchn.h>
#include <xenstore.h>

static long domid(struct xs_handle *xs)
{
	unsigned int len;
	char *s = xs_read(xs, XBT_NULL, "domid", &len);
	long d = s ? atol(s) : -1;

	free(s);
	return d;
}

int main(void)
{
	struct xs_handle *xs = xs_open(0);
	xenevtchn_handle *xce = xenevtchn_open(NULL, 0);
	int old[8], i, p, bad = 0;
	long self, now;

	if (!xs || !xce)
		return perror("xs_open or xenevtchn_open"), 2;
	self = domid(xs);
	for (i = 0; i < 8; i += 2) {	/* four loopback pairs */
		old[i] = xenevtchn_bind_unbound_port(xce, self);
		old[i + 1] = xenevtchn_bind_interdomain(xce, self, old[i]);
		if (old[i] < 0 || old[i + 1] < 0)
			return perror("bind"), 2;
	}
	printf("domain %ld, ports %d..%d: save and restore it\n",
	       self, old[0], old[7]);
	fflush(stdout);
	while ((now = domid(xs)) == self || now < 0)
		usleep(100000);
	p = xenevtchn_bind_unbound_port(xce, now);	/* a new port */
	printf("restored as domain %ld; a new port: %d%s%s\n", now, p,
	       p < 0 ? ", " : "", p < 0 ? strerror(errno) : "");
	for (i = 0; i < 8; i++)
		if (xenevtchn_unbind(xce, old[i]) < 0) {
			printf("unbind of old port %d: %s\n", old[i], strerror(errno));
			bad++;
		}
	printf("evtchn-restore: %s\n", bad ? "FAILED" : "ok");
	return bad != 0;
}
