#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""vee-report: the tables (and a chart) of the VEE 2008 / Xen bug 1115 runs.

    vee-report.py [--png FILE] RUN.log...

Each RUN.log is a run's combined text (console logs and all); only lines
beginning with "vee:", "irq:" or "nic:" are read, and they must be well formed:

    vee: kernel=NAME variant=VARIANT run=R [noisy=G]
                                               the run's header, first;
                                               noisy: the guest that floods
                                               dom0 (0 or absent: none)
    vee: guest=N bytes=B secs=T mbps=M conns=C from vee-recv, guests 1..n
    irq: port=P name=NAME count=C              dom0's interrupts per event
                                               channel port over the run
    nic: rx_packets=P rx_bytes=B               what dom0's NIC received
                                               over the run (optional)

A file may hold several runs, each from its header on. For each (kernel,
variant) it prints per-guest Mb/s per run with the run's range, max/min,
Jain's fairness index (sum x)^2 / (n * sum x^2) and total; the mean per
guest over the runs and the spread (min-max, standard deviation) of the
total and of Jain; the NIC's (eth*, en*) and each vif's (vif*) port and
interrupt count; the slowest and fastest guest of each run; the NIC's
received packets and bytes per packet; and a line comparing the range of
the per-guest means with the report's: lowest-port-first 23.9-192.3 Mb/s
(max/min 8.05), round robin 83.8-140.26 Mb/s (max/min 1.67). The noisy
guest's Mb/s are shown (marked *) and counted in the total, but left out of
the range, max/min, Jain and the comparison: it is the flooder, not one of
the guests whose fairness is measured (lab/fairness treats its flooder the
same way). Last comes a text chart of the ranges of the per-guest means
against the report's two ranges.

--png FILE draws per-guest bandwidth (mean over runs, min-max error bars),
grouped by variant (bulk, unmoderated, noisy, small, then the others) and
kernel (lowest, base, series, then the others), as the tables are, with the
report's two ranges as shaded bands, through gnuplot; FILE appears only
when complete.

Exit: 0; 2 on malformed input ("FILE:LINE: message" on stderr) or bad
arguments; 1 if gnuplot fails.
"""

import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

REPORT = (
    ("lowest-first", 23.9, 192.3),
    ("round robin", 83.8, 140.26),
)
KERNEL_ORDER = ("lowest", "base", "series")
VARIANT_ORDER = ("bulk", "unmoderated", "noisy", "small")
FIELDS = {
    "header": ("kernel", "variant", "run", "noisy?"),
    "guest": ("guest", "bytes", "secs", "mbps", "conns"),
    "irq": ("port", "name", "count"),
    "nic": ("rx_packets", "rx_bytes"),
}
TOKEN = re.compile(r"[A-Za-z0-9_.+:/@-]+\Z")
UINT = re.compile(r"[0-9]+\Z")
DEC = re.compile(r"[0-9]+(\.[0-9]+)?\Z")
NIC = re.compile(r"(eth|en)")
VIF = re.compile(r"vif")


class Malformed(Exception):
    def __init__(self, where, msg):
        super().__init__(f"{where[0]}:{where[1]}: {msg}")


class Run:
    def __init__(self, kernel, variant, run, noisy, where):
        self.kernel, self.variant, self.run = kernel, variant, run
        self.noisy = noisy      # the flooding guest, 0: none
        self.where = where
        self.guests = {}        # guest -> (mbps, bytes, secs, conns)
        self.irqs = {}          # name -> (port, count)
        self.nic = None         # (rx packets, rx bytes)


def need_header(cur, kind, where):
    """A guest, irq or nic line belongs to the run of the header above
    it."""
    if cur is None:
        raise Malformed(where, f"{kind} line before any 'vee: kernel=' header")


def parse_fields(line, kind, where):
    """The key=value fields of @line, those of FIELDS[kind] ("?": may be
    left out)."""
    fields = {}
    for word in line.split()[1:]:
        key, eq, val = word.partition("=")
        if not eq or not val:
            raise Malformed(where, f"expected key=value, got '{word}'")
        if key in fields:
            raise Malformed(where, f"'{key}' given twice")
        fields[key] = val
    want = [k.rstrip("?") for k in FIELDS[kind]]
    missing = [k for k in FIELDS[kind] if k[-1] != "?" and k not in fields]
    extra = [k for k in fields if k not in want]
    if missing:
        raise Malformed(where, f"{kind} line lacks {', '.join(missing)}")
    if extra:
        raise Malformed(where, f"unknown field {extra[0]} in {kind} line")
    return fields


def number(fields, key, where, pattern=UINT):
    val = fields[key]
    if not pattern.match(val):
        raise Malformed(where, f"{key}={val} is not a"
                        f"{' whole' if pattern is UINT else ''} number")
    return int(val) if pattern is UINT else float(val)


def token(fields, key, where):
    val = fields[key]
    if not TOKEN.match(val):
        raise Malformed(where, f"bad {key} '{val}'")
    return val


def parse(paths):
    runs = []
    seen = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            print(f"vee-report: {path}: {e.strerror}", file=sys.stderr)
            sys.exit(2)
        cur = None
        for num, raw in enumerate(lines, 1):
            where = (path, num)
            line = raw.strip()
            if line.startswith("vee:"):
                if line.split()[1:2] and line.split()[1].startswith(
                        "kernel="):
                    fl = parse_fields(line, "header", where)
                    key = tuple(token(fl, k, where)
                                for k in ("kernel", "variant", "run"))
                    if key in seen:
                        raise Malformed(where, "run kernel=%s variant=%s "
                                        "run=%s already at %s:%d" %
                                        (key + seen[key]))
                    seen[key] = where
                    noisy = (number(fl, "noisy", where)
                             if "noisy" in fl else 0)
                    cur = Run(*key, noisy, where)
                    runs.append(cur)
                    continue
                fl = parse_fields(line, "guest", where)
                need_header(cur, "guest", where)
                g = number(fl, "guest", where)
                nbytes = number(fl, "bytes", where)
                secs = number(fl, "secs", where, DEC)
                mbps = number(fl, "mbps", where, DEC)
                conns = number(fl, "conns", where)
                if g in cur.guests:
                    raise Malformed(where, f"guest {g} twice in this run")
                if secs > 0:
                    want = nbytes * 8 / secs / 1e6
                    if abs(want - mbps) > 0.01 + 0.005 * want:
                        raise Malformed(where, f"mbps={fl['mbps']} but "
                                        f"bytes/secs make {want:.2f}")
                elif nbytes or mbps:
                    raise Malformed(where, "secs=0 with bytes or mbps")
                cur.guests[g] = (mbps, nbytes, secs, conns)
            elif line.startswith("irq:"):
                fl = parse_fields(line, "irq", where)
                need_header(cur, "irq", where)
                port = number(fl, "port", where)
                name = token(fl, "name", where)
                count = number(fl, "count", where)
                if name in cur.irqs:
                    raise Malformed(where, f"irq {name} twice in this run")
                if port in (p for p, _ in cur.irqs.values()):
                    raise Malformed(where, f"port {port} twice in this run")
                cur.irqs[name] = (port, count)
            elif line.startswith("nic:"):
                fl = parse_fields(line, "nic", where)
                need_header(cur, "nic", where)
                if cur.nic is not None:
                    raise Malformed(where, "nic line twice in this run")
                cur.nic = (number(fl, "rx_packets", where),
                           number(fl, "rx_bytes", where))
        mine = [r for r in runs if r.where[0] == path]
        if not mine:
            raise Malformed((path, 1), "no 'vee: kernel=' header in file")
        for r in mine:
            if not r.guests:
                raise Malformed(r.where, "run has no 'vee: guest=' lines")
            n = len(r.guests)
            if sorted(r.guests) != list(range(1, n + 1)):
                raise Malformed(r.where, "run's guests are not 1..%d: %s" %
                                (n, " ".join(map(str, sorted(r.guests)))))
            if r.noisy > n:
                raise Malformed(r.where, f"noisy={r.noisy}, but the run "
                                f"has guests 1..{n}")
            if n - (r.noisy > 0) < 1:
                raise Malformed(r.where, "no guest besides the noisy one")
    return runs


def jain(xs):
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq else math.nan


def ratio(xs):
    lo, hi = min(xs), max(xs)
    return hi / lo if lo else (math.nan if not hi else math.inf)


def fmt(x, prec=2):
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{prec}f}"


def run_key(r):
    return (0, int(r.run), "") if r.run.isdigit() else (1, 0, r.run)


def groups(runs):
    """{(kernel, variant): [runs]} in the report's order: by variant, then
    by kernel."""
    def kkey(k):
        return (KERNEL_ORDER.index(k), "") if k in KERNEL_ORDER else (9, k)

    def vkey(v):
        return (VARIANT_ORDER.index(v), "") if v in VARIANT_ORDER else (9, v)
    out = {}
    for r in runs:
        out.setdefault((r.kernel, r.variant), []).append(r)
    for k in out:
        out[k].sort(key=run_key)
    return {k: out[k] for k in sorted(out, key=lambda k: (vkey(k[1]),
                                                          kkey(k[0])))}


def nearer(rat):
    """Which of the report's two max/min ratios @rat is nearer (in log)."""
    if math.isnan(rat):
        return "neither"
    refs = [(name, hi / lo) for name, lo, hi in REPORT]
    if math.isinf(rat):
        return refs[0][0]
    return min(refs, key=lambda nr: abs(math.log(rat / nr[1])))[0]


def report(grouped, out):
    ranges = []
    for (kernel, variant), runs in grouped.items():
        n = len(runs[0].guests)
        noisy = runs[0].noisy
        for r in runs:
            if len(r.guests) != n:
                raise Malformed(r.where, f"{len(r.guests)} guests, but "
                                f"run {runs[0].run} of kernel={kernel} "
                                f"variant={variant} has {n}")
            if r.noisy != noisy:
                raise Malformed(r.where, f"noisy={r.noisy}, but run "
                                f"{runs[0].run} of kernel={kernel} "
                                f"variant={variant} has noisy={noisy}")
        # The guests whose fairness is measured: all but the flooder.
        fair = [g for g in range(1, n + 1) if g != noisy]
        w = max(8, max(len(r.run) for r in runs) + 1)
        out.append(f"== kernel={kernel} variant={variant}: {len(runs)} "
                   f"run{'s' if len(runs) > 1 else ''}, {n} guests, Mb/s ==")
        out.append("run".ljust(w) +
                   "".join(f"{'g%d%s' % (g, '*' if g == noisy else ''):>9}"
                           for g in range(1, n + 1)) +
                   f"{'min-max':>18}{'max/min':>9}{'Jain':>7}{'total':>10}")
        totals, jains = [], []
        for r in runs:
            xs = [r.guests[g][0] for g in range(1, n + 1)]
            fx = [r.guests[g][0] for g in fair]
            totals.append(sum(xs))
            jains.append(jain(fx))
            rng = f"{fmt(min(fx))}-{fmt(max(fx))}"
            out.append(r.run.ljust(w) + "".join(f"{fmt(x):>9}" for x in xs) +
                       f"{rng:>18}{fmt(ratio(fx)):>9}"
                       f"{fmt(jains[-1], 3):>7}{fmt(totals[-1]):>10}")
        means = [statistics.fmean(r.guests[g][0] for r in runs)
                 for g in range(1, n + 1)]
        fmeans = [means[g - 1] for g in fair]
        rng = f"{fmt(min(fmeans))}-{fmt(max(fmeans))}"
        out.append("mean".ljust(w) + "".join(f"{fmt(x):>9}" for x in means) +
                   f"{rng:>18}{fmt(ratio(fmeans)):>9}"
                   f"{fmt(jain(fmeans), 3):>7}{fmt(sum(means)):>10}")
        if noisy:
            out.append(f"* guest {noisy} floods dom0 (the noisy neighbour): "
                       "in the total, not in min-max, max/min, Jain or the "
                       "comparison")
        # Which guest was last and first in each run: a guest that is
        # last run after run is the sign of a scan order, which a range
        # alone does not show.  Ties go to the lower guest.
        slowest = [min(fair, key=lambda g, r=r: (r.guests[g][0], g))
                   for r in runs]
        fastest = [max(fair, key=lambda g, r=r: (r.guests[g][0], -g))
                   for r in runs]
        for name, gs in (("slowest", slowest), ("fastest", fastest)):
            out.append(f"{name} guest per run: " +
                       " ".join(f"g{g}" for g in gs))
        ranges.append((f"{kernel} {variant}", min(fmeans), max(fmeans)))
        for name, xs, prec in (("total", totals, 2), ("Jain", jains, 3)):
            ok = [x for x in xs if not math.isnan(x)]
            if not ok:
                out.append(f"{name}: -")
                continue
            sd = fmt(statistics.stdev(ok), prec) if len(ok) > 1 else "-"
            out.append(f"{name}: mean {fmt(statistics.fmean(ok), prec)} "
                       f"min-max {fmt(min(ok), prec)}-{fmt(max(ok), prec)} "
                       f"stddev {sd}")
        names = []
        for r in runs:
            names += [m for m in r.irqs if m not in names]
        def by_port(m):
            return (min(r.irqs[m][0] for r in runs if m in r.irqs), m)
        shown = sorted((m for m in names if NIC.match(m)), key=by_port) + \
            sorted((m for m in names if VIF.match(m)), key=by_port)
        if shown:
            out.append("interrupts (dom0, per event-channel port, over the "
                       "run):")
            out.append(f"{'name':<16}{'port':>8}" +
                       "".join(f"{'run ' + r.run:>12}" for r in runs) +
                       f"{'mean':>12}")
            for m in shown:
                ports = sorted({r.irqs[m][0] for r in runs if m in r.irqs})
                counts = [r.irqs[m][1] if m in r.irqs else None
                          for r in runs]
                have = [c for c in counts if c is not None]
                out.append(f"{m:<16}{'/'.join(map(str, ports)):>8}" +
                           "".join(f"{'-' if c is None else c:>12}"
                                   for c in counts) +
                           f"{statistics.fmean(have):>12.0f}")
        else:
            out.append("interrupts: no NIC or vif lines")
        if any(r.nic for r in runs):
            nics = [r.nic for r in runs if r.nic]
            if not shown:
                out.append(f"{'NIC (dom0)':<24}" +
                           "".join(f"{'run ' + r.run:>12}" for r in runs) +
                           f"{'mean':>12}")
            # The mean size: all bytes over all packets.
            rows = (("NIC rx packets",
                     [r.nic[0] if r.nic else None for r in runs],
                     statistics.fmean(p for p, _ in nics)),
                    ("NIC rx bytes/packet",
                     [r.nic[1] / r.nic[0] if r.nic and r.nic[0] else None
                      for r in runs],
                     sum(b for _, b in nics) / sum(p for p, _ in nics)
                     if sum(p for p, _ in nics) else math.nan))
            for label, xs, mean in rows:
                out.append(f"{label:<24}" +
                           "".join(f"{'-' if x is None else fmt(x, 0):>12}"
                                   for x in xs) + f"{fmt(mean, 0):>12}")
        out.append(f"compare: per-guest means {rng} Mb/s (max/min "
                   f"{fmt(ratio(fmeans))}); report: " +
                   ", ".join(f"{name} {lo:g}-{hi:g} (max/min {hi / lo:.2f})"
                             for name, lo, hi in REPORT) +
                   f"; nearer {nearer(ratio(fmeans))}")
        out.append("")
    text_chart(ranges, out)


def text_chart(ranges, out, width=60):
    """The ranges of per-guest means, as bars on one Mb/s axis with the
    report's two ranges: [==] spans min to max, a bar's ends at the
    nearest column."""
    top = max([hi for _, _, hi in REPORT] + [hi for _, _, hi in ranges])
    # At most 8 ticks: 50, 100, 200, 500, 1000... Mb/s apart.
    step = 50
    while top / step > 8:
        step *= 2 if str(step)[0] in "15" else 5 / 2
    step = int(step)
    top = math.ceil(top / step) * step
    def col(x):
        return min(width, max(0, round(x / top * width)))
    rows = [(f"report {name}", lo, hi) for name, lo, hi in REPORT] + ranges
    lw = max(len(label) for label, _, _ in rows) + 2
    out.append("chart: per-guest means, min to max, Mb/s")
    axis = [" "] * (width + 1)
    marks = []
    for tick in range(0, top + 1, step):
        c = col(tick)
        axis[c] = "|"
        marks.append((c, str(tick)))
    ticks = [" "] * (width + 8)
    for c, text in marks:
        start = min(max(0, c - len(text) // 2), len(ticks) - len(text))
        ticks[start:start + len(text)] = text
    out.append(" " * lw + "".join(ticks).rstrip())
    out.append(" " * lw + "".join(axis).rstrip())
    for label, lo, hi in rows:
        a, b = col(lo), col(hi)
        # lo and hi in one column: a single "|".
        bar = " " * a + ("[" + "=" * (b - a - 1) + "]" if b > a else "|")
        out.append(label.ljust(lw) + bar.ljust(width + 1) +
                   f"  {fmt(lo)}-{fmt(hi)}")
    out.append("")


def gnuplot_terminal():
    try:
        p = subprocess.run(["gnuplot", "-e", "set terminal"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"gnuplot: {e}")
    text = p.stdout + p.stderr
    for term in ("pngcairo", "png"):
        if re.search(rf"^\s*{term}\s", text, re.M):
            return term
    raise RuntimeError("gnuplot has neither the pngcairo nor the png "
                       "terminal")


def chart(grouped, path):
    term = gnuplot_terminal()
    n = max(len(runs[0].guests) for runs in grouped.values())
    variants = {v for _, v in grouped}
    rows = []
    for (kernel, variant), runs in grouped.items():
        label = kernel if len(variants) == 1 else f"{kernel} {variant}"
        if runs[0].noisy:
            label += f" (g{runs[0].noisy} floods)"
        cells = []
        for g in range(1, n + 1):
            xs = [r.guests[g][0] for r in runs if g in r.guests]
            cells += ([f"{statistics.fmean(xs):.3f}", f"{min(xs):.3f}",
                       f"{max(xs):.3f}"] if xs else ["NaN"] * 3)
        rows.append('"%s" %s' % (label.replace('"', "'"), " ".join(cells)))
    top = max([hi for _, _, hi in REPORT] +
              [r.guests[g][0] for runs in grouped.values() for r in runs
               for g in r.guests]) * 1.15
    colors = ("#d62728", "#1f77b4")
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".vee-report.", suffix=".png", dir=d)
    os.close(fd)
    esc = tmp.replace("\\", "\\\\").replace('"', '\\"')
    title = "VEE 2008 / Xen bug 1115: per-guest TCP receive bandwidth"
    script = [
        f'set terminal {term} size 1000,600',
        f'set output "{esc}"',
        f'set title "{title}"',
        'set ylabel "Mb/s (mean over runs, bars min-max)"',
        f'set yrange [0:{top:.3f}]',
        'set style data histograms',
        'set style histogram errorbars gap 2 lw 1',
        'set style fill solid 0.8 border -1',
        'set key outside right top',
        'set grid ytics',
        'set xtics rotate by -30 nomirror',
    ]
    for (name, lo, hi), c in zip(REPORT, colors):
        script += [
            f'set object rect from graph 0, first {lo} to graph 1, '
            f'first {hi} behind fc rgb "{c}" fs transparent solid 0.10 '
            'noborder',
            f'set arrow from graph 0, first {lo} to graph 1, first {lo} '
            f'nohead dt 2 lc rgb "{c}" front',
            f'set arrow from graph 0, first {hi} to graph 1, first {hi} '
            f'nohead dt 2 lc rgb "{c}" front',
            f'set label "report {name} {lo:g}-{hi:g}" at graph 0.01, '
            f'first {hi} offset 0,0.8 tc rgb "{c}" front',
        ]
    script.append("$data << EOD")
    script += rows
    script.append("EOD")
    script.append(f"plot for [g=1:{n}] $data using (column(3*g-1)):"
                  "(column(3*g)):(column(3*g+1)):xtic(1) title sprintf("
                  '"guest %d", g)')
    try:
        p = subprocess.run(["gnuplot"], input="\n".join(script) + "\n",
                           capture_output=True, text=True, timeout=120)
        if p.returncode or not os.path.getsize(tmp):
            msg = (p.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"gnuplot failed: {msg}")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"gnuplot: {e}")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main(argv):
    png = None
    paths = []
    args = iter(argv)
    for a in args:
        if a == "--png":
            png = next(args, None)
            if not png:
                break
        elif a.startswith("--png="):
            png = a[len("--png="):]
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            paths = []
            break
        else:
            paths.append(a)
    if not paths or (png is not None and not png):
        print("vee-report: usage: vee-report.py [--png FILE] RUN.log...",
              file=sys.stderr)
        return 2
    try:
        grouped = groups(parse(paths))
        out = []
        report(grouped, out)
    except Malformed as e:
        print(e, file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(out))
    if png:
        try:
            chart(grouped, png)
        except RuntimeError as e:
            print(f"vee-report: {png}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
