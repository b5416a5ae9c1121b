// SPDX-License-Identifier: GPL-2.0-only
/*
 * evtchn-bench: the cost per serviced port of a 2-level event channel
 * upcall, for the series' evtchn_2l_handle_events() ("rr") and the
 * released one ("base"), each its events_2l.c compiled unchanged
 * (real_2l.c built with EVR_LEAN), and the 2.6.18-era
 * lowest-port-first scan ("lowest"), on a set of pending-bit patterns.
 *
 *   evtchn-bench [--trials N]
 *
 * It prints one table: instructions per serviced port, counted by running
 * this program again under valgrind's callgrind (--count), and
 * nanoseconds per serviced port, timed here.  All three policies run on
 * the same kind of state with the same service and upcall loop
 * (bench.h), so they differ only in their scan.
 */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "lab_shim.h"
#include "bench.h"

#define EVB_COUNT_UPCALLS	4	/* upcalls per cell under callgrind */
#define EVB_TRIALS		101
#define EVB_BATCH_PORTS		200000	/* ports serviced per timed batch */

/**
 * struct evb_family - a pattern of active ports
 * @name: its row in the table.
 * @first: the active ports are @first + i * @stride, for i < @count.
 * @stride: see @first.
 * @count: see @first; 0 for an empty pass (selector 0).
 * @cursor: where the rr and base scans start.
 * @floods: times Xen sends port @first again when it is serviced.
 */
struct evb_family {
	const char *name;
	unsigned int first;
	unsigned int stride;
	unsigned int count;
	unsigned int cursor;
	unsigned int floods;
};

static const struct evb_family families[] = {
	{ "empty pass (selector 0)",	0,   1,    0,   0,  0 },
	{ "1 port",			0,   1,    1,   0,  0 },
	{ "8 sparse",			0, 512,    8,   0,  0 },
	{ "8 dense",			0,   1,    8,   0,  0 },
	{ "64 sparse",			0,  64,   64,   0,  0 },
	{ "64 dense",			0,   1,   64,   0,  0 },
	{ "512 sparse",			0,   8,  512,   0,  0 },
	{ "512 dense",			0,   1,  512,   0,  0 },
	{ "4096 (all)",			0,   1, 4096,   0,  0 },
	{ "1 port flooding itself",	0,   1,    1,   0, 63 },
	{ "512 dense, cursor 192 (word start)",	0,   1,  512, 192,  0 },
	{ "512 dense, cursor 224 (mid-word)",	0,   1,  512, 224,  0 },
	{ "512 dense, cursor 255 (word end)",	0,   1,  512, 255,  0 },
};

#define EVB_NR_FAMILIES ARRAY_SIZE(families)

/* A family's pending words and selector, and the services of an upcall. */
struct evb_pattern {
	xen_ulong_t words[EVB_WORD_BITS];
	xen_ulong_t sel;
	unsigned int services;
};

/* The state of the lowest policy (rr and base have their own). */
struct evb_store {
	xen_ulong_t pending[EVB_WORD_BITS];
	xen_ulong_t mask[EVB_WORD_BITS];
	xen_ulong_t bound[EVB_WORD_BITS];
	xen_ulong_t sel;
	u8 upcall_pending;
};

static struct evb_store evb_lowest_store;

static void evb_attach(struct evb_state *st, struct evb_store *s)
{
	memset(s->bound, 0xff, sizeof(s->bound));
	st->pending = s->pending;
	st->mask = s->mask;
	st->bound = s->bound;
	st->sel = &s->sel;
	st->upcall_pending = &s->upcall_pending;
}

static __always_inline xen_ulong_t evb_active(unsigned int word, void *data)
{
	struct evb_state *st = data;

	return st->pending[word] & st->bound[word] & ~st->mask[word];
}

static __always_inline xen_ulong_t evb_xchg_sel(struct evb_state *st)
{
	xen_ulong_t sel = *st->sel;

	*st->sel = 0;
	return sel;
}

/* lowest: each selector word in turn, re-read until it has no active port. */
static void evb_pass_lowest(struct evb_state *st)
{
	xen_ulong_t sel = evb_xchg_sel(st);

	while (sel) {
		unsigned int word = __ffs64(sel);
		xen_ulong_t bits;

		sel &= sel - 1;
		while ((bits = evb_active(word, st)))
			evb_service(st, word * EVB_WORD_BITS + __ffs64(bits));
	}
}

/* The functions callgrind collects in (--toggle-collect): one upcall each. */
noinline void evb_upcall_lowest(struct evb_state *st)
{
	evb_upcall(st, evb_pass_lowest);
}

/* The timing baseline: the same calls around no upcall. */
noinline void evb_upcall_none(struct evb_state *st)
{
	__asm__ volatile("" : : "r"(st) : "memory");
}

static void evb_rr_cursor(struct evb_state *st, unsigned int port)
{
	evb_rr_set_cursor(port);
}

static void evb_base_cursor(struct evb_state *st, unsigned int port)
{
	evb_base_set_cursor(port);
}

static void evb_lowest_attach(struct evb_state *st)
{
	evb_attach(st, &evb_lowest_store);
}

struct evb_policy {
	const char *name;
	void (*attach)(struct evb_state *st);
	void (*set_cursor)(struct evb_state *st, unsigned int port);
	void (*upcall)(struct evb_state *st);
};

static const struct evb_policy policies[] = {
	{ "rr", evb_rr_attach, evb_rr_cursor, evb_upcall_rr },
	{ "base", evb_base_attach, evb_base_cursor, evb_upcall_base },
	{ "lowest", evb_lowest_attach, NULL, evb_upcall_lowest },
};

#define EVB_NR_POLICIES ARRAY_SIZE(policies)
#define EVB_RR 0
#define EVB_BASE 1

static struct evb_state states[EVB_NR_POLICIES];
static struct evb_pattern patterns[EVB_NR_FAMILIES];

static __printf(1, 2) void evb_die(const char *fmt, ...)
{
	va_list ap;

	fputs("evtchn-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void evb_setup(void)
{
	unsigned int f, p, i;

	for (f = 0; f < EVB_NR_FAMILIES; f++) {
		const struct evb_family *fam = &families[f];
		struct evb_pattern *pat = &patterns[f];

		for (i = 0; i < fam->count; i++) {
			unsigned int port = fam->first + i * fam->stride;

			pat->words[port / EVB_WORD_BITS] |=
				evb_bit(port % EVB_WORD_BITS);
			pat->sel |= evb_bit(port / EVB_WORD_BITS);
		}
		pat->services = fam->count + fam->floods;
	}
	for (p = 0; p < EVB_NR_POLICIES; p++) {
		states[p].timer_port = EVR_NO_PORT;
		policies[p].attach(&states[p]);
	}
}

/* Before each upcall: the family's pending bits, selector and cursor. */
static __always_inline void evb_reset(struct evb_state *st,
				      const struct evb_policy *pol,
				      const struct evb_family *fam,
				      const struct evb_pattern *pat)
{
	xen_ulong_t sel = pat->sel;

	while (sel) {
		unsigned int word = __ffs64(sel);

		sel &= sel - 1;
		st->pending[word] = pat->words[word];
	}
	*st->sel = pat->sel;
	st->flood_port = fam->floods ? fam->first : EVR_NO_PORT;
	st->flood_left = fam->floods;
	if (pol->set_cursor)
		pol->set_cursor(st, fam->cursor);
}

/*
 * After @n upcalls: each serviced every port of the pattern and left
 * nothing pending.  Then count services from 0 again.
 */
static void evb_check(unsigned int f, unsigned int p, unsigned long n)
{
	struct evb_state *st = &states[p];
	unsigned int w;

	if (st->services != n * patterns[f].services)
		evb_die("%s, %s: %lu services in %lu upcalls, want %u each",
			policies[p].name, families[f].name, st->services, n,
			patterns[f].services);
	for (w = 0; w < EVB_WORD_BITS; w++)
		if (st->pending[w])
			evb_die("%s, %s: ports left pending", policies[p].name,
				families[f].name);
	if (*st->sel)
		evb_die("%s, %s: selector left set", policies[p].name,
			families[f].name);
	st->services = 0;
}

/* After baseline calls: the pattern's pending bits and selector, cleared. */
static void evb_clear(unsigned int p)
{
	memset(states[p].pending, 0, EVB_WORD_BITS * sizeof(xen_ulong_t));
	*states[p].sel = 0;
}

/* Reset and run @n upcalls (or baseline calls); the nanoseconds it took. */
static u64 evb_batch(unsigned int f, unsigned int p, unsigned long n,
		     void (*upcall)(struct evb_state *st))
{
	const struct evb_policy *pol = &policies[p];
	const struct evb_family *fam = &families[f];
	const struct evb_pattern *pat = &patterns[f];
	struct evb_state *st = &states[p];
	struct timespec t0, t1;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		evb_reset(st, pol, fam, pat);
		upcall(st);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec -
	       t0.tv_nsec;
}

/* --count, under callgrind: one dump of EVB_COUNT_UPCALLS upcalls a cell. */
static void evb_count(void)
{
	unsigned int f, p;
	char name[64];

	for (f = 0; f < EVB_NR_FAMILIES; f++) {
		for (p = 0; p < EVB_NR_POLICIES; p++) {
			evb_batch(f, p, EVB_COUNT_UPCALLS, policies[p].upcall);
			evb_check(f, p, EVB_COUNT_UPCALLS);
			snprintf(name, sizeof(name), "evb %u %u", f, p);
			CALLGRIND_DUMP_STATS_AT(name);
		}
	}
}

static int evb_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return (x > y) - (x < y);
}

/*
 * Nanoseconds per serviced port (per pass for the empty family) of each
 * policy on family @f: @trials times, for each policy in turn (the order
 * rotating), a batch of upcalls minus a batch of baseline calls, each
 * upcall preceded by its reset; the median over the trials.
 */
static void evb_time(unsigned int f, unsigned int trials, double *ns)
{
	unsigned int per_upcall = patterns[f].services ?: 1;
	unsigned long n = 1 + EVB_BATCH_PORTS / (per_upcall + 4);
	s64 *d = calloc(trials, sizeof(*d) * EVB_NR_POLICIES);
	unsigned int t, k, p;

	if (!d)
		evb_die("out of memory");
	for (t = 0; t < trials; t++) {
		for (k = 0; k < EVB_NR_POLICIES; k++) {
			p = (t + k) % EVB_NR_POLICIES;
			d[p * trials + t] = evb_batch(f, p, n,
						      policies[p].upcall);
			evb_check(f, p, n);
			d[p * trials + t] -= evb_batch(f, p, n,
						       evb_upcall_none);
			evb_clear(p);
		}
	}
	for (p = 0; p < EVB_NR_POLICIES; p++) {
		qsort(d + p * trials, trials, sizeof(*d), evb_cmp_s64);
		ns[p] = (double)d[p * trials + trials / 2] / n / per_upcall;
	}
	free(d);
}

/*
 * Run this program under callgrind with --count in a temporary directory
 * and read the instruction count of each cell into @instr.
 */
static void evb_run_callgrind(double instr[][EVB_NR_POLICIES])
{
	char dir[] = "/tmp/evtchn-bench.XXXXXX", exe[4096], out[128], log[128];
	char tog[EVB_NR_POLICIES][64], line[256];
	char *argv[16];
	unsigned int a = 0, p, f, seen = 0;
	int status;
	ssize_t len;
	pid_t pid;
	FILE *fp;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0 || !mkdtemp(dir))
		evb_die("cannot set up the callgrind run: %s", strerror(errno));
	exe[len] = '\0';
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/callgrind.out", dir);
	snprintf(log, sizeof(log), "--log-file=%s/valgrind.log", dir);
	argv[a++] = "valgrind";
	argv[a++] = "--tool=callgrind";
	argv[a++] = "--collect-atstart=no";
	argv[a++] = "--combine-dumps=yes";
	for (p = 0; p < EVB_NR_POLICIES; p++) {
		snprintf(tog[p], sizeof(tog[p]), "--toggle-collect=evb_upcall_%s",
			 policies[p].name);
		argv[a++] = tog[p];
	}
	argv[a++] = out;
	argv[a++] = log;
	argv[a++] = exe;
	argv[a++] = "--count";
	argv[a] = NULL;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		evb_die("fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		evb_die("the callgrind run failed; see %s/valgrind.log", dir);
	if (WEXITSTATUS(status) == 127)
		evb_die("cannot run valgrind (run 'make deps')");
	if (WEXITSTATUS(status))
		evb_die("the callgrind run failed; see %s/valgrind.log", dir);

	fp = fopen(out + strlen("--callgrind-out-file="), "r");
	if (!fp)
		evb_die("cannot read %s/callgrind.out", dir);
	f = ~0U;
	p = ~0U;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long n;

		if (sscanf(line, "desc: Trigger: Client Request: evb %u %u",
			   &f, &p) == 2)
			continue;
		if (sscanf(line, "totals: %llu", &n) == 1 &&
		    f < EVB_NR_FAMILIES && p < EVB_NR_POLICIES) {
			instr[f][p] = (double)n / EVB_COUNT_UPCALLS /
				      (patterns[f].services ?: 1);
			seen++;
			f = ~0U;
			p = ~0U;
		}
	}
	fclose(fp);
	if (seen != EVB_NR_FAMILIES * EVB_NR_POLICIES)
		evb_die("%s/callgrind.out holds %u counts, want %zu", dir, seen,
			EVB_NR_FAMILIES * EVB_NR_POLICIES);
	unlink(out + strlen("--callgrind-out-file="));
	unlink(log + strlen("--log-file="));
	rmdir(dir);
}

static void evb_cpu_model(char *buf, size_t size)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[256], *v;

	snprintf(buf, size, "unknown");
	while (fp && fgets(line, sizeof(line), fp)) {
		v = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, size, "%s", v);
		break;
	}
	if (fp)
		fclose(fp);
}

/* How the figures are made; printed above the table. */
static const char evb_method[] =
"policies: rr = the series' evtchn_2l_handle_events(), its events_2l.c\n"
"          compiled unchanged; base = the released one (the tree's base),\n"
"          compiled the same way;\n"
"          lowest = the 2.6.18-era scan (each selector word re-read until it\n"
"          is empty, lowest port first).\n"
"service:  the same for all three: clear the port's pending bit and count it\n"
"          (a no-op service would not do: lowest re-reads a word until it is\n"
"          empty).  In the flooding family Xen also sends the port again, 63\n"
"          times, so an upcall services it 64 times, in 1 to 64 passes.\n"
"          64-bit words, 4096 ports, all bound to CPU 0 and unmasked, no\n"
"          VIRQ_TIMER port.\n"
"upcall:   passes while the upcall flag is raised again, as\n"
"          xen_evtchn_do_upcall() does.  Before each upcall, outside what is\n"
"          measured, the family's pending bits, selector and cursor are set.\n"
"instr:    instructions executed in the policy's upcall function and its\n"
"          callees: this program runs again under valgrind --tool=callgrind\n"
"          --collect-atstart=no --toggle-collect=evb_upcall_<policy>, with a\n"
"          client-request dump after each cell's upcalls; divided by the\n"
"          ports serviced.  Exact and repeatable.\n"
"ns:       clock_gettime(CLOCK_MONOTONIC) around a batch of upcalls (each\n"
"          after its reset), minus the same batch with an empty function\n"
"          for the upcall, divided by the ports serviced; the median over\n"
"          the trials, the policies interleaved in each trial.  A marginal\n"
"          cost in a tight loop: the CPU overlaps an upcall with the next\n"
"          reset, so the empty pass and 1 port understate the latency of a\n"
"          lone upcall.  Other load on the machine disturbs these figures,\n"
"          not the instruction counts.\n"
"rr/base:  the ratio of the two policies' figures, from the same run.\n"
"families: sparse = evenly spread (one port per word up to 64 ports), dense\n"
"          = ports 0 to N-1; the cursor is port 0 unless said; the empty\n"
"          pass is counted per pass, not per port.\n";

static void evb_header(unsigned int trials)
{
	char cpu[128], load[64] = "?", date[32];
	FILE *fp = fopen("/proc/loadavg", "r");
	time_t now = time(NULL);

	if (fp) {
		if (fgets(load, sizeof(load), fp))
			load[strcspn(load, " ")] = '\0';
		fclose(fp);
	}
	evb_cpu_model(cpu, sizeof(cpu));
	strftime(date, sizeof(date), "%F %H:%M UTC", gmtime(&now));
	printf("evtchn-bench: cost per serviced port of a 2-level event channel upcall\n");
	printf("date:     %s\n", date);
	printf("machine:  %s, %ld CPUs online, load average %s at the start\n",
	       cpu, sysconf(_SC_NPROCESSORS_ONLN), load);
	printf("compiler: gcc %s, %s\n", __VERSION__, EVB_CFLAGS);
	printf("runs:     instr %d upcalls a cell; ns %u trials of batches of about %d ports\n",
	       EVB_COUNT_UPCALLS, trials, EVB_BATCH_PORTS);
	printf("%s\n", evb_method);
}

int main(int argc, char **argv)
{
	static double instr[EVB_NR_FAMILIES][EVB_NR_POLICIES];
	double ns[EVB_NR_POLICIES];
	unsigned int trials = EVB_TRIALS, f, p;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count")) {
			evb_setup();
			evb_count();
			return 0;
		} else if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
			trials = atoi(argv[++i]);
			if (!trials)
				evb_die("--trials needs a positive number");
		} else {
			fprintf(stderr, "usage: evtchn-bench [--trials N]\n");
			return 2;
		}
	}

	evb_setup();
	evb_header(trials);
	fflush(stdout);
	evb_run_callgrind(instr);

	printf("%-36s %5s | %-36s | %s\n", "", "ports",
	       "instructions per serviced port",
	       "ns per serviced port (median)");
	printf("%-36s %5s | %8s %8s %8s %7s | %7s %7s %7s %7s\n", "family",
	       "/upc.", "rr", "base", "lowest", "rr/base", "rr", "base",
	       "lowest", "rr/base");
	for (f = 0; f < EVB_NR_FAMILIES; f++) {
		evb_time(f, trials, ns);
		printf("%-36s %5u |", families[f].name, patterns[f].services);
		for (p = 0; p < EVB_NR_POLICIES; p++)
			printf(" %8.2f", instr[f][p]);
		printf(" %7.2f |", instr[f][EVB_RR] / instr[f][EVB_BASE]);
		for (p = 0; p < EVB_NR_POLICIES; p++)
			printf(" %7.2f", ns[p]);
		printf(" %7.2f\n", ns[EVB_RR] / ns[EVB_BASE]);
		fflush(stdout);
	}
	return 0;
}
