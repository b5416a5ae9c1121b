#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk/add-cc.py: add addresses to the Cc: of mails, in place.

Usage: add-cc.py MAIL... -- ADDRESS...

Each ADDRESS ("Name <mail>") whose mail is not in a MAIL's Cc: header
yet is added to it (folded, one address a line); a MAIL without Cc:
gets one.  mk/series.sh runs it to copy the KUnit maintainers on a
series with a KUnit suite; mk/tests/series-test.sh tests it.
"""
import sys
args = sys.argv[1:]
if "--" not in args or args.index("--") == 0 or args[-1] == "--":
    sys.exit("usage: add-cc.py MAIL... -- ADDRESS...")
files, extra = args[:args.index("--")], args[args.index("--") + 1:]
for f in files:
    head, sep, body = open(f).read().partition("\n\n")
    lines = head.split("\n")
    for i, l in enumerate(lines):
        if l.startswith("Cc: "):
            j = i + 1
            while j < len(lines) and lines[j].startswith((" ", "\t")):
                j += 1
            have = " ".join(lines[i:j])
            add = [a for a in extra if a.split("<")[-1].rstrip(">") not in have]
            if add:
                lines[j - 1] += ","
                lines[j:j] = [" " + a + ("," if k < len(add) - 1 else "")
                              for k, a in enumerate(add)]
            break
    else:
        lines.append("Cc: " + ", ".join(extra))
    open(f, "w").write("\n".join(lines) + sep + body)
