#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk/fairness.py TOOL SCENARIOS OUT: the fairness report behind mk/fairness.sh.

Runs every SCENARIOS/*.replay with TOOL (evtchn-replay) under each policy
with --stats, and writes OUT/fairness.txt (a summary table, also printed)
and OUT/fairness-<scenario>.png (services per guest, one bar a policy).

A scenario describes itself in comment lines the tool ignores:
  #@ title TEXT             one line about it
  #@ guest NAME PORTS...    a guest; its throughput is the services of PORTS
  #@ device NAME PORTS...   another source of events (the NIC), shown apart
  #@ noisy NAME...          guests left out of the fairness figures
"""

import datetime
import os
import re
import subprocess
import sys
import tempfile

POLICIES = ("rr", "base", "lowest")
STAT = re.compile(r"port (\d+) services=(\d+) max_wait=(\d+) mean_wait=([0-9.]+)")

HEADER = """\
fairness: services per guest of the rr, base and lowest scans on replay scenarios, {date}
scenarios: lab/fairness/*.replay, run as evtchn-replay --policy P --stats FILE
throughput: a guest's services = the services of its rx and tx ports over the whole run
            (each is a batch of data delivered to the guest or of its acks forwarded; events
            raised while a port is still pending merge into one service)
share:      the guests' services as a share of all services (the rest are the devices')
max/min:    the largest guest's services over the smallest's; Jain = (sum x)^2 / (n * sum x^2)
wait:       services of any port between a port becoming pending and its service (--stats);
            worst = the largest over the guests' ports, mean = their mean per service
            (guests marked "noisy" are left out of max/min, Jain and wait)
"""


def die(msg):
    print(f"fairness: {msg}", file=sys.stderr)
    sys.exit(1)


def say(msg):
    print(f"fairness: {msg}", file=sys.stderr, flush=True)


def read_scenario(path):
    """The #@ lines of a scenario: title, guests, devices, noisy guests."""
    scn = {"name": os.path.basename(path)[: -len(".replay")], "path": path,
           "title": "", "guests": [], "devices": [], "noisy": set()}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("#@"):
                continue
            words = line[2:].split()
            key, args = (words[0], words[1:]) if words else ("", [])
            if key == "title" and args:
                scn["title"] = " ".join(args)
            elif key in ("guest", "device") and len(args) >= 2 and \
                    all(a.isdigit() for a in args[1:]):
                scn[key + "s"].append((args[0], [int(a) for a in args[1:]]))
            elif key == "noisy" and args:
                scn["noisy"].update(args)
            else:
                die(f"{path}:{lineno}: bad '#@' line")
    names = [g for g, _ in scn["guests"]]
    if not names:
        die(f"{path}: no '#@ guest' lines")
    if not scn["noisy"] <= set(names) or len(scn["noisy"]) >= len(names):
        die(f"{path}: '#@ noisy' must name some, not all, of its guests")
    return scn


def run_policy(tool, policy, path):
    """{port: (services, max_wait, mean_wait)} from one --stats run."""
    res = subprocess.run([tool, "--policy", policy, "--stats", path],
                         capture_output=True, text=True)
    if res.returncode:
        die(f"{path} ({policy}): {res.stderr.strip() or 'exit %d' % res.returncode}")
    stats = {}
    for line in res.stdout.splitlines():
        m = STAT.fullmatch(line)
        if m:
            stats[int(m[1])] = (int(m[2]), int(m[3]), float(m[4]))
    return stats


def figures(scn, stats):
    """Per-guest and per-device services, and the fairness figures."""
    def services(ports):
        return sum(stats.get(p, (0, 0, 0.0))[0] for p in ports)

    guests = [services(ports) for _, ports in scn["guests"]]
    devices = [services(ports) for _, ports in scn["devices"]]
    fair = [(x, ports) for (name, ports), x in zip(scn["guests"], guests)
            if name not in scn["noisy"]]
    xs = [x for x, _ in fair]
    ports = [p for _, pp in fair for p in pp if p in stats]
    total = sum(s for s, _, _ in stats.values())
    served = sum(stats[p][0] for p in ports)
    return {
        "guests": guests,
        "devices": devices,
        "share": sum(guests) / total if total else 0.0,
        "maxmin": max(xs) / min(xs) if min(xs) else float("inf"),
        "jain": sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0,
        "worst": max((stats[p][1] for p in ports), default=0),
        "mean": sum(stats[p][0] * stats[p][2] for p in ports) / served if served else 0.0,
    }


def table(scn, figs):
    """The scenario's block of the summary."""
    guests = [g + ("*" if g in scn["noisy"] else "") for g, _ in scn["guests"]]
    devices = [d for d, _ in scn["devices"]]
    width = max(6, *(len(c) + 1 for c in guests + devices))

    def cols(vals):
        return "".join(f"{v:>{width}}" for v in vals)

    lines = [f"{scn['name']}: {scn['title']}"]
    if scn["noisy"]:
        lines.append("  (* noisy: left out of max/min, Jain and wait)")
    lines.append(f"  {'policy':<7}{cols(guests)} |{cols(devices)} | "
                 f"{'share':>6} {'max/min':>7} {'Jain':>7} {'worst':>6} {'mean':>7}")
    for pol in POLICIES:
        f = figs[pol]
        lines.append(f"  {pol:<7}{cols(f['guests'])} |{cols(f['devices'])} | "
                     f"{100 * f['share']:>5.1f}% {f['maxmin']:>7.3f} "
                     f"{f['jain']:>7.4f} {f['worst']:>6} {f['mean']:>7.2f}")
    return "\n".join(lines) + "\n"


def chart(scn, figs, png):
    """Services per guest, a bar per policy, log scale; written to png."""
    out_dir = os.path.dirname(png)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        data = os.path.join(tmp, "data")
        with open(data, "w") as f:
            for i, (g, _) in enumerate(scn["guests"]):
                label = g + (" (noisy)" if g in scn["noisy"] else "")
                f.write(f'"{label}" ' + " ".join(str(figs[p]["guests"][i])
                                                 for p in POLICIES) + "\n")
        top = max(max(figs[p]["guests"]) for p in POLICIES)
        title = f"{scn['name']}: {scn['title']}".replace('"', "'")
        plot = ", ".join(
            f"'{data}' using {i + 2}:xtic(1) title '{p}'" + (
                f", '' using ($0 + {(i - 1) * 0.25:.2f}):{i + 2}:{i + 2} "
                "with labels offset 0,0.6 font ',8' notitle")
            for i, p in enumerate(POLICIES))
        script = f"""
set terminal pngcairo size 1000,520 font 'sans,11'
set output '{tmp}/chart.png'
set title "{title}" font ',12'
set ylabel "services of the guest's rx and tx ports (log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [0.8:{top * 4}]
set grid ytics
set key top right horizontal
set xtics nomirror
plot {plot}
"""
        res = subprocess.run(["gnuplot"], input=script, capture_output=True,
                             text=True)
        if res.returncode:
            die(f"gnuplot failed for {scn['name']}: {res.stderr.strip()}")
        os.replace(os.path.join(tmp, "chart.png"), png)


def write_atomic(path, text):
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 4:
        die("usage: fairness.py TOOL SCENARIOS OUT")
    tool, scn_dir, out = sys.argv[1:]
    # By name without ".replay": seed before seed-*.
    names = sorted(n[: -len(".replay")] for n in os.listdir(scn_dir)
                   if n.endswith(".replay"))
    paths = [os.path.join(scn_dir, n + ".replay") for n in names]
    if not paths:
        die(f"no scenarios in {scn_dir}")
    os.makedirs(out, exist_ok=True)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    report = [HEADER.format(date=date)]
    for path in paths:
        scn = read_scenario(path)
        say(f"{scn['name']}: {', '.join(POLICIES)}")
        figs = {p: figures(scn, run_policy(tool, p, path)) for p in POLICIES}
        report.append(table(scn, figs))
        chart(scn, figs, os.path.join(out, f"fairness-{scn['name']}.png"))
    text = "\n".join(report)
    write_atomic(os.path.join(out, "fairness.txt"), text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
