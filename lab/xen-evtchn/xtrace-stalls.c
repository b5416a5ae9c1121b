// SPDX-License-Identifier: GPL-2.0-only
/*
 * xtrace-stalls: where the exchange's slow round trips went, from Xen's
 * own trace (xentrace), on Xen's one clock for both domains.
 *
 *   xtrace-stalls --tsc-mhz F [--min-ms N] [--named N] [--ftrace FILE] TRACE
 *
 * TRACE is what "xentrace -e 0x00229000" wrote while evtchn-stress peer
 * ran in dom0 with --xen-marks: it marks its moments with a sched_op
 * hypercall that Xen refuses (-ENOSYS) and traces (TRC_PV_HYPERCALL_V2
 * keeps sched_op's cmd): before it sends event K (kind 1), and when the
 * answer to K reached it (kind 3).  The guest cannot mark (its privcmd
 * is restricted: EPERM), so its side is its last event_channel_op
 * hypercall before dom0's handler of the answer ran (--ftrace) or before
 * peer has the answer: its answer (EVTCHNOP_send; the IPIs and unmasks
 * of its way there come before it; a mark of kind 2, if a guest could
 * make one, is taken first).  The trace says which domain's vCPU each pCPU
 * was running.  The same
 * trace has every vCPU's runstate changes (TRC_SCHED_RUNSTATE_CHANGE:
 * Xen's view of the vCPU: running, runnable, blocked, offline) and
 * wakes.
 *
 * For each round trip of at least --min-ms (500) it splits the time into
 * its legs, dom0 -> guest and guest -> dom0, and
 * samples the longer one each millisecond: what the receiving domain's
 * vCPUs were doing in Xen's view (runstates), and whether the pCPU a
 * "running" one was on wrote any trace record within 50 ms (a pCPU that
 * runs writes one each few ms: scheduler decisions, hypercalls, timer
 * interrupts' returns; under QEMU one that writes none for that long
 * did not run: the host did not run that vCPU thread of QEMU's).  Each
 * millisecond counts as
 *   running   one of the receiver's vCPUs ran on a pCPU that ran
 *   silent    none did, one was "running" on a pCPU that did not run
 *   runnable  none did, one was runnable: Xen had it wait for a pCPU
 *   blocked   all were blocked (or offline): nothing woke them
 * and the leg gets the class of at least half its milliseconds (mixed:
 * none).  silent and runnable legs are the vCPU not running (the host or
 * Xen's scheduler); running legs a domain that ran and did not take the
 * event (a delay in that domain's kernel or process); blocked legs an
 * event that did not wake its domain (a delay in Xen's delivery).
 *
 * --ftrace FILE: dom0's own trace of the same time (tracefs' "trace",
 * trace_clock x86-tsc: a PV dom0 reads the TSC Xen's records carry),
 * irq:irq_handler_entry of evtchn-stress's ports (name
 * evtchn:evtchn-stress), sched:sched_wakeup of evtchn-stress and
 * sched:sched_switch to it.  Each slow leg into dom0 then also says when,
 * after the guest's send, dom0's handler of the port ran (the upcall),
 * when it woke peer, when peer ran and when it marked the answer; and a
 * line sums these over the slow legs into dom0.
 * and the last line counts them.  Exit status 0, or 1 on a bad trace,
 * 2 on bad arguments.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG			"xtrace-stalls"
#define TRC_LOST_RECORDS	0x0001f001U
#define TRC_TRACE_CPU_CHANGE	0x0001f003U
#define TRC_RUNSTATE_CHANGE	0x00021001U	/* | old << 8 | new << 4 */
#define TRC_SCHED_WAKE		0x00028004U
#define TRC_PV_HYPERCALL_V2	0x0020100dU
#define HC_SCHED_OP		29
#define HC_EVTCHN_OP		32		/* event_channel_op */
#define MARK			0x7e000000U
#define DOMID_IDLE		0x7fffU
#define MAX_PCPU		64
#define MAX_VCPU		64		/* (domain, vCPU) pairs kept */
#define NR_STATES		4

struct change {
	uint64_t t;
	unsigned int old, state;
	unsigned int cpu;		/* the pCPU whose buffer had it */
};

static struct vcpu {
	unsigned int dom, vcpu;
	struct change *c;
	size_t n, cap;
} vcpus[MAX_VCPU];
static unsigned int nr_vcpus;

/* Per pCPU: the TSC of each record, for its silences. */
static struct pcpu {
	uint64_t *t;
	size_t n, cap;
} pcpus[MAX_PCPU];
static unsigned int nr_pcpus;

static uint64_t *mark_t[4];	/* [kind][K]: TSC of the mark, 0: none */
/* The guest's event_channel_op hypercalls (its answers among them). */
static uint64_t *guest_ops;
static size_t nr_guest_ops, guest_ops_cap;
static unsigned int cur_dom[MAX_PCPU];	/* whose vCPU runs there */
static size_t mark_cap;
static unsigned long long lost_recs, records, marks, wakes;
static uint64_t t_first = UINT64_MAX, t_last;	/* the trace's span */

/* --ftrace: dom0's IRQ entries, wakeups and switches to evtchn-stress. */
enum { F_IRQ, F_WAKE, F_RUN, NR_F };
static struct {
	uint64_t *t;
	size_t n, cap;
} ft[NR_F];
static unsigned int *irq_cpu;	/* the vCPU each IRQ entry ran on */
static size_t irq_cpu_cap;


static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need > 2 * *cap ? need : 2 * *cap;
	p = realloc(p, *cap * size);
	if (!p)
		die("out of memory");
	return p;
}

static struct vcpu *vcpu_of(unsigned int dom, unsigned int v)
{
	unsigned int i;

	for (i = 0; i < nr_vcpus; i++)
		if (vcpus[i].dom == dom && vcpus[i].vcpu == v)
			return &vcpus[i];
	if (nr_vcpus == MAX_VCPU)
		return NULL;
	vcpus[nr_vcpus].dom = dom;
	vcpus[nr_vcpus].vcpu = v;
	return &vcpus[nr_vcpus++];
}

static void add_mark(unsigned int kind, size_t k, uint64_t t)
{
	if (kind < 1 || kind > 3)
		return;
	if (k >= mark_cap) {
		size_t old = mark_cap, cap = mark_cap, i;

		for (i = 1; i <= 3; i++) {
			cap = old;
			mark_t[i] = grow(mark_t[i], &cap, k + 1, sizeof(uint64_t));
			memset(mark_t[i] + old, 0, (cap - old) * sizeof(uint64_t));
		}
		mark_cap = cap;
	}
	mark_t[kind][k] = t;	/* a resend after a restore: the last */
	marks++;
}

/*
 * Read tracefs' text: "... TSC: irq_handler_entry: irq=N
 * name=evtchn:evtchn-stress", "... TSC: sched_wakeup: comm=evtchn-stress
 * ...", "... TSC: sched_switch: ... ==> next_comm=evtchn-stress ...".
 */
static void read_ftrace(const char *path)
{
	static const char *const ev[NR_F] = {
		": irq_handler_entry: ", ": sched_wakeup: ", ": sched_switch: "
	};
	static const char *const who[NR_F] = {
		"name=evtchn:evtchn-stress", "comm=evtchn-stress ",
		"next_comm=evtchn-stress "
	};
	char line[1024];
	FILE *f = fopen(path, "r");
	unsigned int i;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < NR_F; i++) {
			char *p = strstr(line, ev[i]), *q;
			unsigned long long t;

			if (!p || !strstr(p, who[i]))
				continue;
			*p = 0;
			q = strrchr(line, ' ');
			if (!q || sscanf(q, "%llu", &t) != 1 || strchr(q, '.'))
				die("%s: not an x86-tsc timestamp before \"%s\"", path, ev[i] + 2);
			if (ft[i].n && t < ft[i].t[ft[i].n - 1])
				die("%s: not in time order at %llu", path, t);
			if (i == F_IRQ) {
				q = strchr(line, '[');
				irq_cpu = grow(irq_cpu, &irq_cpu_cap, ft[i].n + 1, sizeof(*irq_cpu));
				if (!q || sscanf(q + 1, "%u", &irq_cpu[ft[i].n]) != 1)
					die("%s: no [CPU] before \"%s\"", path, ev[i] + 2);
			}
			ft[i].t = grow(ft[i].t, &ft[i].cap, ft[i].n + 1, sizeof(uint64_t));
			ft[i].t[ft[i].n++] = t;
			break;
		}
	}
	fclose(f);
}

/* Read the whole trace: records come in windows of one pCPU each. */
static void read_trace(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned int cpu = 0;
	uint32_t h, d[9];

	for (cpu = 0; cpu < MAX_PCPU; cpu++)
		cur_dom[cpu] = DOMID_IDLE;
	cpu = 0;
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (;;) {
		size_t got = fread(&h, 1, 4, f);
		unsigned int ev, extra, words;
		uint64_t t = 0;
		uint32_t *x = d;

		if (!got)
			break;
		ev = h & 0x0fffffffU;
		extra = (h >> 28) & 7;
		words = extra + ((h >> 31) ? 2 : 0);
		if (got != 4 || (words && fread(d, 4, words, f) != words))
			die("%s: truncated record", path);
		if (h >> 31) {
			t = d[0] | (uint64_t)d[1] << 32;
			x = d + 2;
		}
		if (ev == TRC_TRACE_CPU_CHANGE) {
			if (!extra || x[0] >= MAX_PCPU)
				die("%s: a CPU change record with no CPU or a CPU past 63", path);
			cpu = x[0];
			if (cpu >= nr_pcpus)
				nr_pcpus = cpu + 1;
			continue;
		}
		records++;
		if (ev == TRC_LOST_RECORDS) {
			lost_recs += extra ? x[0] : 1;
			continue;
		}
		if (!t)
			continue;
		if (t < t_first)
			t_first = t;
		if (t > t_last)
			t_last = t;
		pcpus[cpu].t = grow(pcpus[cpu].t, &pcpus[cpu].cap,
				    pcpus[cpu].n + 1, sizeof(uint64_t));
		pcpus[cpu].t[pcpus[cpu].n++] = t;
		if ((ev & 0xfffff00fU) == TRC_RUNSTATE_CHANGE && extra >= 1) {
			struct vcpu *v = vcpu_of(x[0] >> 16, x[0] & 0xffff);

			if (!v)
				continue;
			v->c = grow(v->c, &v->cap, v->n + 1, sizeof(*v->c));
			v->c[v->n].t = t;
			v->c[v->n].old = (ev >> 8) & 3;
			v->c[v->n].cpu = cpu;
			v->c[v->n++].state = (ev >> 4) & 3;
			if (((ev >> 4) & 3) == 0)
				cur_dom[cpu] = x[0] >> 16;
			else if (((ev >> 8) & 3) == 0 && cur_dom[cpu] == x[0] >> 16)
				cur_dom[cpu] = DOMID_IDLE;
		} else if (ev == TRC_SCHED_WAKE) {
			wakes++;
		} else if (ev == TRC_PV_HYPERCALL_V2 && extra >= 1 &&
			   (x[0] & 0xfffff) == HC_EVTCHN_OP &&
			   cur_dom[cpu] != 0 && cur_dom[cpu] != DOMID_IDLE) {
			guest_ops = grow(guest_ops, &guest_ops_cap,
					 nr_guest_ops + 1, sizeof(uint64_t));
			guest_ops[nr_guest_ops++] = t;
		} else if (ev == TRC_PV_HYPERCALL_V2 && extra >= 2 &&
			   (x[0] & 0xfffff) == HC_SCHED_OP &&
			   (x[0] & (1U << 20)) &&
			   (x[1] & 0xff000000U) == MARK) {
			add_mark((x[1] >> 20) & 0xf, x[1] & 0xfffff, t);
		}
	}
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
}

/* The index of the first of the @n sorted @t after @t0 (@n: none). */
static size_t first_index(const uint64_t *t, size_t n, uint64_t t0)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t[mid] <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of the @n sorted @t after @t0 (0: none). */
static uint64_t first_after(const uint64_t *t, size_t n, uint64_t t0)
{
	size_t i = first_index(t, n, t0);

	return i < n ? t[i] : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_change(const void *a, const void *b)
{
	return cmp_u64(&((const struct change *)a)->t,
		       &((const struct change *)b)->t);
}

/*
 * vCPU @v's state at @t (NR_STATES: not known) and, when running, the
 * pCPU it ran on (@cpu): the one whose buffer had the record that ends
 * the run (Xen writes it where the vCPU ran), else the one that began it.
 */
static unsigned int state_at(const struct vcpu *v, uint64_t t,
			     unsigned int *cpu)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {		/* the first change after t */
		size_t mid = (lo + hi) / 2;

		if (v->c[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->n) {
		*cpu = v->c[lo].cpu;
		return v->c[lo].old;
	}
	if (lo) {
		*cpu = v->c[lo - 1].cpu;
		return v->c[lo - 1].state;
	}
	return NR_STATES;
}

/*
 * Whether pCPU @p wrote no record for at least @gap around @t: between
 * its records just before and just after @t (the trace's ends count).
 */
static int silent_at(const struct pcpu *p, uint64_t t, uint64_t gap,
		     uint64_t first, uint64_t last)
{
	size_t lo = first_index(p->t, p->n, t);
	uint64_t before, after;

	before = lo ? p->t[lo - 1] : first;
	after = lo < p->n ? p->t[lo] : last;
	return after - before >= gap;
}

/*
 * What the receiving domain did, sampled each millisecond of a leg: one
 * of its vCPUs ran on a pCPU that was writing records (ran), none did
 * but one was "running" on a pCPU that wrote nothing for SILENT_MS
 * around (silent: the pCPU itself did not run), or was runnable
 * (runnable: Xen had it wait), or all were blocked or offline (blocked).
 */
enum { C_SILENT, C_RUNNABLE, C_RUNNING, C_BLOCKED, C_MIXED, NR_CLASSES };
static const char *const class_name[NR_CLASSES] = {
	"silent", "runnable", "running", "blocked", "mixed"
};
#define SILENT_MS	50

int main(int argc, char **argv)
{
	double mhz = 0, min_ms = 500;
	unsigned long long rtts = 0, slow = 0, cls[NR_CLASSES] = { 0 };
	unsigned int named = 20, i;
	const char *path = NULL, *ftrace = NULL;
	double to_irq = 0, irq_to_mark = 0, wake_to_run = 0;
	unsigned long long irq_legs = 0, wake_legs = 0, f_in = 0;
	char *end;
	size_t k;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--tsc-mhz") && i + 1 < (unsigned int)argc) {
			mhz = strtod(argv[++i], &end);
			if (*end || mhz <= 0)
				goto usage;
		} else if (!strcmp(argv[i], "--min-ms") && i + 1 < (unsigned int)argc) {
			min_ms = strtod(argv[++i], &end);
			if (*end || min_ms <= 0)
				goto usage;
		} else if (!strcmp(argv[i], "--named") && i + 1 < (unsigned int)argc) {
			named = strtoul(argv[++i], &end, 10);
			if (*end)
				goto usage;
		} else if (!strcmp(argv[i], "--ftrace") && i + 1 < (unsigned int)argc) {
			ftrace = argv[++i];
		} else if (argv[i][0] == '-' || path) {
			goto usage;
		} else {
			path = argv[i];
		}
	}
	if (!path || !mhz)
		goto usage;
	read_trace(path);
	for (i = 0; i < nr_pcpus; i++)
		qsort(pcpus[i].t, pcpus[i].n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < nr_vcpus; i++)
		qsort(vcpus[i].c, vcpus[i].n, sizeof(struct change), cmp_change);
	qsort(guest_ops, nr_guest_ops, sizeof(uint64_t), cmp_u64);
	if (ftrace)
		read_ftrace(ftrace);
	printf("trace: %llu records from %u pCPUs, %llu lost (Xen's count), %llu marks, %zu event channel hypercalls of the guest, %llu wakes, %u vCPUs\n",
	       records, nr_pcpus, lost_recs, marks, nr_guest_ops, wakes, nr_vcpus);
	if (!marks) {
		fprintf(stderr, PROG ": %s: no evtchn-stress marks (--xen-marks)\n", path);
		return 1;
	}

#define MS(tsc)	((double)(tsc) / (mhz * 1000))
	for (k = 1; k < mark_cap; k++) {
		uint64_t t1 = mark_t[1][k], t2 = mark_t[2][k], t3 = mark_t[3][k];
		unsigned long long n[NR_CLASSES] = { 0 }, vn[MAX_VCPU][C_MIXED] = { { 0 } };
		uint64_t ti;
		uint64_t a, b, t, step = mhz * 1000;
		unsigned int recv_dom0, c, cpu, verdict, show;
		double leg;

		/*
		 * The guest's answer: its last event channel hypercall before
		 * dom0's handler of it ran (--ftrace: the first IRQ after
		 * dom0's send), or before dom0's mark.
		 */
		ti = ftrace && t1 ? first_after(ft[F_IRQ].t, ft[F_IRQ].n, t1) : 0;
		if (ti > t3)
			ti = 0;
		if (t1 && t3 && !t2) {
			size_t j = first_index(guest_ops, nr_guest_ops,
					      (ti ? ti : t3) - 1);

			t2 = j && guest_ops[j - 1] > t1 ? guest_ops[j - 1] : 0;
		}
		if (!t1 || !t2 || !t3 || t2 < t1 || t3 < t2)
			continue;
		rtts++;
		/* The clocks agree if dom0's IRQ comes between its two marks. */
		f_in += ti != 0;
		if (MS(t3 - t1) < min_ms)
			continue;
		slow++;
		recv_dom0 = t3 - t2 > t2 - t1;
		a = recv_dom0 ? t2 : t1;
		b = recv_dom0 ? t3 : t2;
		leg = MS(b - a);
		for (t = a; t < b; t += step) {
			unsigned int ran = 0, silent = 0, wait = 0, known = 0;

			for (i = 0; i < nr_vcpus; i++) {
				unsigned int st;

				if (vcpus[i].dom == DOMID_IDLE ||
				    (vcpus[i].dom == 0) != recv_dom0)
					continue;
				st = state_at(&vcpus[i], t, &cpu);
				known |= st < NR_STATES;
				if (st == 0 && cpu < nr_pcpus &&
				    silent_at(&pcpus[cpu], t, SILENT_MS * step,
					      t_first, t_last))
					silent = 1, vn[i][C_SILENT]++;
				else if (st == 0)
					ran = 1, vn[i][C_RUNNING]++;
				else if (st == 1)
					wait = 1, vn[i][C_RUNNABLE]++;
				else if (st < NR_STATES)
					vn[i][C_BLOCKED]++;
			}
			if (!known)
				c = C_MIXED;
			else if (ran)
				c = C_RUNNING;
			else if (silent)
				c = C_SILENT;
			else if (wait)
				c = C_RUNNABLE;
			else
				c = C_BLOCKED;
			n[c]++;
		}
		for (verdict = 0; verdict < C_MIXED; verdict++)
			if (n[verdict] >= leg / 2)
				break;
		cls[verdict]++;
		show = slow <= named;
		if (show)
			printf("event %zu: round trip %.1f ms: dom0 -> guest %.1f ms, guest -> dom0 %.1f ms; over the %s leg the %s",
		       k, MS(t3 - t1), MS(t2 - t1), MS(t3 - t2),
		       recv_dom0 ? "second" : "first", recv_dom0 ? "dom0" : "guest");
		for (c = 0; show && c < C_MIXED; c++)
			printf("%s %s %llu ms", c ? "," : "", class_name[c], n[c]);
		if (show)
			printf(": %s (", class_name[verdict]);
		for (i = 0, c = 0; show && i < nr_vcpus; i++) {
			if (vcpus[i].dom == DOMID_IDLE ||
			    (vcpus[i].dom == 0) != recv_dom0)
				continue;
			printf("%sd%uv%u ran %llu, silent %llu, runnable %llu, blocked %llu ms",
			       c++ ? "; " : "", vcpus[i].dom, vcpus[i].vcpu,
			       vn[i][C_RUNNING], vn[i][C_SILENT],
			       vn[i][C_RUNNABLE], vn[i][C_BLOCKED]);
		}
		if (show)
			printf(")");
		if (ftrace && recv_dom0) {
			size_t j = first_index(ft[F_IRQ].t, ft[F_IRQ].n, t1);
			uint64_t tw, tr;

			if (ti) {
				if (show)
					printf("; dom0's ftrace after the guest's send: IRQ on vCPU %u +%.1f ms",
					       irq_cpu[j], MS(ti - t2));
				irq_legs++;
				to_irq += MS(ti - t2);
				irq_to_mark += MS(t3 - ti);
				tw = first_after(ft[F_WAKE].t, ft[F_WAKE].n, ti);
				tr = tw ? first_after(ft[F_RUN].t, ft[F_RUN].n, tw) : 0;
				if (tw && tr && tr <= t3) {
					if (show)
						printf(", woke peer +%.1f ms, peer ran +%.1f ms",
						       MS(tw - t2), MS(tr - t2));
					wake_legs++;
					wake_to_run += MS(tr - tw);
				} else if (show) {
					printf(", peer awake already");
				}
				if (show)
					printf(", marked +%.1f ms", MS(t3 - t2));
			} else if (show) {
				printf("; dom0's ftrace: no IRQ before the mark");
			}
		}
		if (show)
			printf("\n");
	}
	if (slow > named)
		printf("... %llu more slow round trips not named\n", slow - named);
	if (ftrace) {
		printf("ftrace: %zu IRQs, %zu wakeups, %zu switches to evtchn-stress; dom0's IRQ between its send and its mark (the clocks agree) in %llu of %llu round trips\n",
		       ft[F_IRQ].n, ft[F_WAKE].n, ft[F_RUN].n, f_in, rtts);
		if (irq_legs)
			printf("ftrace: over %llu slow legs into dom0: the guest's send to dom0's IRQ %.0f ms, the IRQ to peer's mark %.0f ms; peer's wakeup to running %.0f ms in the %llu of them where it slept\n",
			       irq_legs, to_irq, irq_to_mark, wake_to_run, wake_legs);
	}
	printf("round trips: %llu traced, %llu of at least %.0f ms:", rtts, slow, min_ms);
	for (i = 0; i < NR_CLASSES; i++)
		printf(" %s %llu", class_name[i], cls[i]);
	printf("\n");
	return 0;
usage:
	fprintf(stderr, PROG ": usage: " PROG " --tsc-mhz F [--min-ms N] [--named N] [--ftrace FILE] TRACE\n");
	return 2;
}
