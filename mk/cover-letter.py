#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk/cover-letter.py: the cover letter of one of make series' series.

Usage: cover-letter.py OUT TEMPLATE LINUX FIRST LAST BLOAT

Reads TEMPLATE (mk/cover-letter-*.in: '#' lines left out, the first line
the subject, @NAME@ a generated section), the commits FIRST..LAST of the
git tree LINUX (each patch's subject and first paragraph, which are for
stable) and BLOAT (make objsize's build/out/bloat.txt, or '' for none),
and writes the subject, a blank line and the text to OUT.  An @NAME@ it does not know
stops it (exit status 1, naming TEMPLATE).  mk/series.sh runs it;
mk/tests/series-test.sh tests it on saved inputs.
"""
import re
import subprocess
import sys
import textwrap

if len(sys.argv) != 7:
    sys.exit("usage: cover-letter.py OUT TEMPLATE LINUX FIRST LAST BLOAT")
cover_path, template_path, linux, first, last, bloat_path = sys.argv[1:]

def git(*args):
    return subprocess.run(["git", "-C", linux, *args], check=True,
                          capture_output=True, text=True).stdout

def wrap(text, indent):
    return textwrap.fill(" ".join(text.split()), 72, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False)

IMPERATIVE = ("Add", "Build", "Describe", "Drop", "Fix", "Make", "Move",
              "Remove", "Replace", "Split", "Use")

def summary(body):
    """What the patch is about: the message up to its first prose paragraph
    ending with a full stop (indented code kept as it is), then, if that
    did not say it, the first paragraph that says what the patch does."""
    out, paras = [], body.strip().split("\n\n")
    for n, para in enumerate(paras):
        if para.startswith(("\t", " ")):
            out.append("\n".join("    " + l.replace("\t", "    ")
                                 for l in para.split("\n")))
            continue
        if re.search(r"^[-*] ", para, re.M):
            # A list: its lines as they are, not run together.
            out.append("\n".join("    " + l for l in para.split("\n")))
            if para.rstrip().endswith("."):
                break
            continue
        out.append(wrap(para, "    "))
        if para.rstrip().endswith("."):
            break
    if not any(o.lstrip().startswith(IMPERATIVE) for o in out):
        for para in paras[n + 1:]:
            if para.startswith(IMPERATIVE):
                out.append(wrap(para, "    "))
                break
    return "\n\n".join(out)

commits = git("rev-list", "--reverse", first + ".." + last).split()
total = len(commits)
patches, stable, fixes_only, rest, subjects = [], [], [], [], []
for i, c in enumerate(commits, 1):
    subject = git("log", "-1", "--format=%s", c).strip()
    subjects.append(subject)
    body = git("log", "-1", "--format=%b", c)
    body = re.sub(r"^(Fixes|Cc|Signed-off-by|Reviewed-by|Acked-by): .*\n?", "",
                  body, flags=re.M)
    patches.append(f"{i}/{total} {subject}\n\n" + summary(body))
    full = git("log", "-1", "--format=%b", c)
    fixes = re.findall(r"^Fixes: (.*)$", full, re.M)
    if fixes and re.search(r"^Cc: stable@", full, re.M):
        stable.append((i, fixes))
    elif fixes:
        fixes_only.append(i)
    else:
        rest.append(i)

def nums(l):
    return ", ".join(map(str, l[:-1])) + (" and " if len(l) > 1 else "") + str(l[-1])

stable_text = []
for i, f in stable:
    stable_text.append(f"Patch {i} is for stable: it fixes {'; '.join(f)}, "
                       "carries Cc: stable and applies without the rest.")
if fixes_only:
    stable_text.append(f"Patch{'es' if len(fixes_only) > 1 else ''} "
                       f"{nums(fixes_only)} carr{'y' if len(fixes_only) > 1 else 'ies'} "
                       "a Fixes: tag but not Cc: stable (see the message).")
if rest:
    stable_text.append(f"Patch{'es' if len(rest) > 1 else ''} {nums(rest)} "
                       f"{'are' if len(rest) > 1 else 'is'} not for stable.")

# bloat-o-meter's entries (make objsize) of this series' commits that
# change the object.
bloat = ""
if bloat_path:
    entries = open(bloat_path).read().strip().split("\n\n")
    keep = []
    for e in entries:
        head, _, rest_ = e.partition("\n")
        m = re.match(r"^\$ (.*)  # (\w+): (.*)$", head)
        if m and m.group(3) in subjects and "up/down: 0/0 (0)" not in rest_:
            keep.append(f"  $ {m.group(1)}   # {m.group(2)}, {m.group(3)}\n" +
                        "\n".join("  " + l for l in rest_.split("\n")))
    if keep:
        bloat = ("The cost in code, bloat-o-meter on events_2l.o against the "
                 "commit before (make objsize: gcc, x86_64 defconfig with "
                 "xen.config, arm multi_v7_defconfig with XEN):")
        bloat = wrap(bloat, "") + "\n\n" + "\n\n".join(keep)

sections = {
    "PATCHES": "\n\n".join(patches),
    "STABLE": wrap(" ".join(stable_text), ""),
    "BLOAT": bloat,
    "KUNIT": (
        "  ./tools/testing/kunit/kunit.py run --arch=x86_64 \\\n"
        "      --kunitconfig=drivers/xen/events/tests \\\n"
        "      --kconfig_add CONFIG_HYPERVISOR_GUEST=y \\\n"
        "      --kconfig_add CONFIG_PARAVIRT=y\n"
        "  ./tools/testing/kunit/kunit.py run --arch=i386 \\\n"
        "      --kunitconfig=drivers/xen/events/tests \\\n"
        "      --kconfig_add CONFIG_HYPERVISOR_GUEST=y \\\n"
        "      --kconfig_add CONFIG_PARAVIRT=y \\\n"
        "      --kconfig_add CONFIG_X86_PAE=y --kconfig_add CONFIG_X86_GENERIC=y \\\n"
        "      --kconfig_add CONFIG_SMP=y\n"
        "  ./tools/testing/kunit/kunit.py run --arch=arm \\\n"
        "      --cross_compile=arm-linux-gnueabihf- \\\n"
        "      --kunitconfig=drivers/xen/events/tests"),
}

lines = [l for l in open(template_path).read().split("\n")
         if not l.startswith("#")]
subject, blurb = lines[0], "\n".join(lines[1:]).strip("\n")
for name, text in sections.items():
    blurb = blurb.replace(f"@{name}@", text)
left = re.findall(r"@[A-Z_]+@", blurb)
if left:
    sys.exit(f"{template_path}: unknown section {left[0]}")

blurb = re.sub(r"\n{3,}", "\n\n", blurb)
open(cover_path, "w").write(subject + "\n\n" + blurb + "\n")
