// SPDX-License-Identifier: GPL-2.0-only
/*
 * vee-flood: the noisy neighbour of make vee-lab's "noisy" variant.  One
 * guest runs it beside its vee-recv: it sends 1024-byte UDP datagrams to
 * ADDR:PORT (dom0's bridge address, port 9, discard) as fast as it can,
 * so that the guest's netback channels in dom0 are raised without pause.
 * Built static, like vee-recv:
 *
 *   gcc -O2 -static -o vee-flood vee-flood.c
 *
 *   vee-flood ADDR PORT
 *
 * It runs until killed; on SIGTERM or SIGINT it prints one line,
 *
 *   vee: flood datagrams=N errors=E
 *
 * (E: sends that failed, e.g. ENOBUFS) and exits 0.  Bad arguments or a
 * failing socket(): one line on stderr, exit 2.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t vf_stop;

static void vf_on_signal(int sig)
{
	vf_stop = 1;
}

int main(int argc, char **argv)
{
	static char buf[1024];
	unsigned long long sent = 0, errors = 0;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char *end;
	long port;
	int fd;

	if (argc != 3) {
		fputs("vee-flood: usage: vee-flood ADDR PORT\n", stderr);
		return 2;
	}
	port = strtol(argv[2], &end, 10);
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1 || *end ||
	    port < 1 || port > 65535) {
		fprintf(stderr, "vee-flood: bad address %s:%s\n", argv[1],
			argv[2]);
		return 2;
	}
	sin.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		fprintf(stderr, "vee-flood: socket: %s\n", strerror(errno));
		return 2;
	}
	signal(SIGTERM, vf_on_signal);
	signal(SIGINT, vf_on_signal);
	while (!vf_stop) {
		if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sin,
			   sizeof(sin)) < 0)
			errors++;
		else
			sent++;
	}
	printf("vee: flood datagrams=%llu errors=%llu\n", sent, errors);
	return 0;
}
