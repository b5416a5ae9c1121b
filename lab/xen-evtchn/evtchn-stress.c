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
 *
 * main() and the options are here; what the modes share is in stress.h
 * and stress-common.c, the modes in stress-loop.c, stress-exchange.c
 * (serve and peer) and stress-width.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

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
"width  one receiving port in each word 32-63 and a row of them in words\n"
"       1-31, on vCPU 0; from vCPU 1, --rounds (20000) rounds each raise\n"
"       a low and a high one together.  A high port not delivered is\n"
"       retired; lost if still missing --lost-ms after the last round.\n"
"       Stops after --max-lost (0: no limit) lost ports or --max-secs\n"
"       (120).  Prints one line: \"width: ... lost N ...\".  --timeout-ms:\n"
"       3000.  Needs root, 2 CPUs and the 2-level ABI's 4096 ports.\n";

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
	O_FOLLOW, O_RECONNECT, O_HELP };

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
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 }
};

/* Which options each mode takes. */
static const char *const mode_opts[] = {
	"ports sends timeout-ms lost-ms flood-secs max-secs self-domid",
	"domid count timeout-ms lost-ms wait-secs delay-at delay-ms drop-at follow-restore",
	"domid port ctl-port count timeout-ms lost-ms max-secs progress hold reconnect",
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
