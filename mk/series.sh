#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/series.sh: export build/linux's series (base..HEAD less the lab: commits) as mail in
# build/series/ and check it:
#  - every patch signed off by the sender: SIGNOFF="Name <mail>", else the
#    repo's git identity (user.name, user.email); without either it stops;
#  - every patch authored by the sender, or by AUTHOR="Name <mail>" (then
#    b4 writes the in-body From: line for it);
#  - REVISION=n (n > 1) makes it a versioned re-send, "[PATCH vn ...]"
#    (not V=, which is kbuild's verbosity);
#  - the cover letter's text is generated from mk/cover-letter.in, the
#    commits and lab/measured.txt; b4 (Debian's 0.12) does the rest as
#    kernel developers know it: the cover commit (b4 prep --edit-cover),
#    To/Cc from scripts/get_maintainer.pl (b4 prep --auto-to-cc), the
#    version, and the mail in build/series/*.eml (b4 send -o, which sends
#    nothing; its log build/logs/series-b4.log);
#  - checkpatch.pl --strict on every patch: any error, warning or check
#    fails the run.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
# The submission is the 7.3 series; the 6.12 and 6.1 variants are
# backports, whose commits stable takes from upstream's once merged.
[[ $SERIES_BASE == "$MAIN_BASE" ]] ||
	die "make series mails the series against $MAIN_BASE; for BASE=$SERIES_BASE's variant see git -C ${LINUX#"$ROOT"/} log base..HEAD"
require_tree

out=$BUILD/series
# The series is base..$tip: the commits of patches/series up to the first
# "lab:" one (the rig's, never mailed; they come last).
tip=base
for c in $(git -C "$LINUX" rev-list --reverse base..HEAD); do
	s=$(git -C "$LINUX" log -1 --format=%s "$c")
	if [[ $s == lab:* ]]; then
		lab=1
		continue
	fi
	[[ -z ${lab:-} ]] || die "commit '$s' comes after a lab: commit in ${LINUX#"$ROOT"/}: lab patches go last in patches/series"
	tip=$c
done
n=$(git -C "$LINUX" rev-list --count "base..$tip")
if ((n == 0)); then
	say "nothing to export: patches/series has no entries"
	exit 0
fi

# The sender, for From: and Signed-off-by:.  Never made up.
if [[ -n ${SIGNOFF:-} ]]; then
	ident=$SIGNOFF
else
	name=$(git -C "$ROOT" config user.name || true)
	mail=$(git -C "$ROOT" config user.email || true)
	[[ -n $name && -n $mail ]] ||
		die "no identity to sign the patches off with: set git config user.name and user.email, or run make series SIGNOFF=\"Your Name <you@example.org>\""
	ident="$name <$mail>"
	# The repo's own identity (a noreply or example address) is not a
	# person: it signs nothing.
	[[ ! $mail =~ (noreply|\.invalid$|\.example$|\.test$|\.localhost$) ]] ||
		die "git's user.email here, $mail, is not a person's address: run make series SIGNOFF=\"Your Name <you@example.org>\""
fi
[[ $ident =~ ^([^<>]*[^<>[:space:]])\ +\<([^<>[:space:]]+@[^<>[:space:]]+)\>$ ]] ||
	die "SIGNOFF must read \"Name <mail>\", not '$ident'"
sender_name=${BASH_REMATCH[1]} sender_mail=${BASH_REMATCH[2]}
author=${AUTHOR:-$ident}
[[ $author =~ ^([^<>]*[^<>[:space:]])\ +\<([^<>[:space:]]+@[^<>[:space:]]+)\>$ ]] ||
	die "AUTHOR must read \"Name <mail>\", not '$author'"
author_name=${BASH_REMATCH[1]} author_mail=${BASH_REMATCH[2]}

[[ -z ${V:-} ]] || die "V= is kbuild's verbosity; the series' version is REVISION=$V"
REVISION=${REVISION:-1}
[[ $REVISION =~ ^[1-9][0-9]*$ ]] || die "REVISION must be a version number (1, 2, ...), not '$REVISION'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v b4 >/dev/null || die "b4 not found (Debian package b4; mk/deps.sh installs it)"

# The series' commits again, authored by the author (their dates and
# messages kept) and signed off by the sender, in a clone sharing
# build/linux's objects, with only what b4 needs checked out (MAINTAINERS
# and scripts/get_maintainer.pl, for To and Cc).
repo=$tmp/linux
git clone -q --shared --no-checkout "$LINUX" "$repo"
git -C "$repo" sparse-checkout set --no-cone /MAINTAINERS /scripts/get_maintainer.pl
# Only real people sign: any Signed-off-by of build/linux's commits goes;
# the author's (AUTHOR=) and then the sender's come instead.
signoffs=(--trailer "Signed-off-by: $author_name <$author_mail>")
[[ "$author_name <$author_mail>" == "$sender_name <$sender_mail>" ]] ||
	signoffs+=(--trailer "Signed-off-by: $sender_name <$sender_mail>")
last=$tip
tip=$(git -C "$repo" rev-parse base)
for c in $(git -C "$repo" rev-list --reverse "base..$last"); do
	msg=$(git -C "$repo" log -1 --format=%B "$c" | sed '/^Signed-off-by: /d' |
		git -C "$repo" interpret-trailers --if-exists add "${signoffs[@]}")
	tip=$(GIT_AUTHOR_NAME=$author_name GIT_AUTHOR_EMAIL=$author_mail \
		GIT_AUTHOR_DATE=$(git -C "$repo" log -1 --format=%aD "$c") \
		GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_mail \
		git -C "$repo" commit-tree "$c^{tree}" -p "$tip" -m "$msg")
done
git -C "$repo" checkout -q -b series "$tip"

# b4 (Debian's 0.12) makes the mail: the cover letter as its cover commit,
# To and Cc from get_maintainer.pl (--auto-to-cc: maintainers and
# reviewers To, lists Cc; --nofixes: build/linux has no upstream history
# to find the authors of the commits named by Fixes: in), written to
# build/series/ by b4 send -o (which sends nothing).
# Only the clone's configuration counts: the user's global one (an editor,
# diff options, b4 settings) would change what b4 does and writes.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
b4cfg() { git -C "$repo" config "$@"; }
b4cfg user.name "$sender_name"
b4cfg user.email "$sender_mail"
b4cfg sendemail.smtpserver localhost
getm="scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nofixes --no-tree"
b4cfg b4.send-auto-to-cmd "$getm --nol"
b4cfg b4.send-auto-cc-cmd "$getm --nom"
b4log=$LOGS/series-b4.log
mkdir -p "$LOGS"
: >"$b4log"
b4() { (cd "$repo" && command b4 "$@") >>"$b4log" 2>&1 || die "b4 $* failed; see $b4log"; }
b4 prep -e base
((REVISION == 1)) || b4 prep --force-revision "$REVISION"

measured=$ROOT/lab/measured.txt
[[ -f $measured ]] || die "lab/measured.txt is missing (the test and bench figures of the cover letter)"
# The figures, as make objsize and make bench wrote them; COVER_FIGURES=0
# (make check) leaves them out, else they must exist.
figures=()
for f in "$BUILD/out/objsize.txt" "$BUILD/out/bench.txt"; do
	if [[ ${COVER_FIGURES:-1} != 0 ]]; then
		[[ -s $f ]] || die "${f#"$ROOT"/} is missing: run make objsize and make bench first (COVER_FIGURES=0 leaves the figures out)"
		figures+=("$f")
	fi
done
# The width bug's live figures, as make xen-test ARCH=arm wrote them, if
# it ran.
if [[ ${COVER_FIGURES:-1} != 0 ]]; then
	if [[ -s $BUILD/out/width.txt ]]; then
		figures+=("$BUILD/out/width.txt")
	else
		warn "build/out/width.txt is missing: the cover letter has no live figure for patch 1 (make xen-test ARCH=arm writes it)"
	fi
	if [[ -s $BUILD/out/live-order.txt ]]; then
		figures+=("$BUILD/out/live-order.txt")
	else
		warn "build/out/live-order.txt is missing: the cover letter has no live figure for patch 3 (make live-order writes it)"
	fi
	if [[ -s $BUILD/out/vee-trace.txt ]]; then
		figures+=("$BUILD/out/vee-trace.txt")
	else
		warn "build/out/vee-trace.txt is missing: the cover letter has no traced 7-guest run (make vee-lab VEE_TRACE=5 writes it)"
	fi
fi
python3 - "$tmp/cover.txt" "$ROOT/mk/cover-letter.in" "$measured" "$LINUX" "$last" "${figures[@]}" <<'EOF'
import re, subprocess, sys, textwrap

cover_path, template_path, measured_path, linux, last, *figure_paths = sys.argv[1:]
figures = "\n\n".join(open(f).read().rstrip() for f in figure_paths) or \
    "(figures left out: run make objsize and make bench first)"

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
        out.append(wrap(para, "    "))
        if para.rstrip().endswith("."):
            break
    if not any(o.lstrip().startswith(IMPERATIVE) for o in out):
        for para in paras[n + 1:]:
            if para.startswith(IMPERATIVE):
                out.append(wrap(para, "    "))
                break
    return "\n\n".join(out)

commits = git("rev-list", "--reverse", "base.." + last).split()
total = len(commits)
patches, stable, fixes_only, rest = [], [], [], []
for i, c in enumerate(commits, 1):
    subject = git("log", "-1", "--format=%s", c).strip()
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
    stable_text.append(f"Patches {nums(rest)} are not for stable.")
sections = {
    "PATCHES": "The series:\n\n" + "\n\n".join(patches),
    "STABLE": wrap(" ".join(stable_text), ""),
    "TESTING": open(measured_path).read().rstrip(),
    "FIGURES": figures,
    "KUNIT": (
        "The KUnit suite (CONFIG_XEN_EVTCHN_2L_KUNIT_TEST) runs under QEMU;\n"
        "CONFIG_XEN cannot be enabled on UML, and on x86-64 it needs\n"
        "CONFIG_HYPERVISOR_GUEST and CONFIG_PARAVIRT:\n\n"
        "  ./tools/testing/kunit/kunit.py run --arch=x86_64 \\\n"
        "        --kunitconfig=drivers/xen/events/tests \\\n"
        "        --kconfig_add CONFIG_HYPERVISOR_GUEST=y \\\n"
        "        --kconfig_add CONFIG_PARAVIRT=y\n\n"
        "  ./tools/testing/kunit/kunit.py run --arch=arm64 \\\n"
        "        --cross_compile=aarch64-linux-gnu- \\\n"
        "        --kunitconfig=drivers/xen/events/tests"),
}

lines = [l for l in open(template_path).read().split("\n")
         if not l.startswith("#")]
subject, blurb = lines[0], "\n".join(lines[1:]).strip("\n")
for name, text in sections.items():
    blurb = blurb.replace(f"@{name}@", text)
left = re.findall(r"^@[A-Z]+@$", blurb, re.M)
if left:
    sys.exit(f"{template_path}: unknown section {left[0]}")

open(cover_path, "w").write(subject + "\n\n" + blurb + "\n")
EOF
# The cover letter into b4's cover commit (its editor: a copy), then To
# and Cc, then the mail.
# shellcheck disable=SC2016 # $1 is the editor script's own argument
printf '#!/bin/sh\ncp "%s" "$1"\n' "$tmp/cover.txt" >"$tmp/editor"
chmod +x "$tmp/editor"
b4cfg core.editor "$tmp/editor"
b4 prep --edit-cover
b4 prep --auto-to-cc
rm -rf "$out"
b4 send --no-sign -o "$out"
shopt -s nullglob
mails=("$out"/*.eml)
cover=("$out"/0000-*.eml)
shopt -u nullglob
((${#mails[@]} == n + 1 && ${#cover[@]} == 1)) ||
	die "b4 send -o wrote ${#mails[@]} mail(s) in $out, not $n patches and a cover letter; see $b4log"
# header FILE NAME: a mail header, its folded lines joined.
header() {
	sed -n "/^$2: /,/^[^ ]/p" "$1" | sed '$d' | sed "s/^$2: //; s/^ //" | tr '\n' ' ' | sed 's/  */ /g; s/ *$//; s/,$//'
}
subject=$(header "${cover[0]}" Subject)
want="[PATCH$( ((REVISION == 1)) || echo " v$REVISION") 0/$n] $(head -n 1 "$tmp/cover.txt")"
[[ $subject == "$want" ]] ||
	die "the cover letter's subject is '$subject', not '$want' (b4 did not take the generated cover letter? see $b4log)"
# build/linux's base is Debian's linux-source tarball as one commit: its
# id is nowhere upstream, so b4's base-commit: line would mislead.
sed -i '/^base-commit: /d' "${cover[0]}"
# Every maintainer of what the series touches must be in To.
to=$(header "${cover[0]}" To)
mapfile -t maint < <(cd "$repo" && $getm --m --nor --nol "${mails[@]:1}")
((${#maint[@]})) || die "scripts/get_maintainer.pl found no maintainer for the series"
for m in "${maint[@]}"; do
	[[ $to == *"$m"* ]] || die "maintainer $m is not in the cover letter's To: ($to); see $b4log"
done
say "$n patch(es) and a cover letter in $out/ (To: $to)"

# build/linux has no upstream history, so checkpatch cannot resolve the
# commit ids of Fixes: tags and the like: don't let that fail the series.
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for any new
# file; the series' new files are all covered by existing entries
# (drivers/xen/ and, from patch 5, Documentation/virt/xen/ in XEN
# HYPERVISOR INTERFACE).
say "checkpatch --strict (not checked: commit ids in Fixes: etc., no upstream history; FILE_PATH_CHANGES, every new file has a MAINTAINERS entry)"
# checkpatch's stderr (e.g. scripts/spdxcheck.py failing) goes to a log.
errlog=$LOGS/series-checkpatch-stderr.log
mkdir -p "$LOGS"
: >"$errlog"
bad=0
cd "$LINUX"
for p in "$out"/*.eml; do
	name=$(basename "$p")
	[[ $name != 0000-* ]] || continue
	# Debian's python3 (with python3-ply, python3-git) for spdxcheck.py.
	report=$(PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$p" 2>>"$errlog") || true
	total=$(grep -m1 '^total: ' <<<"$report" || true)
	if [[ $total =~ ^total:\ 0\ errors,\ 0\ warnings,\ 0\ checks ]]; then
		echo "  ok    $name: $total"
	else
		bad=$((bad + 1))
		echo "  FAIL  $name: ${total:-checkpatch.pl gave no summary}"
		sed -e '/^total: /,$d' -e 's/^./        &/' <<<"$report"
	fi
done
[[ ! -s $errlog ]] ||
	warn "checkpatch.pl printed errors of its own (some checks may have been skipped); see $errlog"
((bad == 0)) || die "checkpatch --strict: $bad of $n patch(es) have errors, warnings or checks"
say "checkpatch --strict: all $n patch(es) clean"

# The documentation: kernel-doc of the new headers, and the virt/ book
# (Debian's python3-sphinx), where a warning about the series' files is a
# failure (the base has warnings of its own elsewhere in virt/).
mapfile -t docs < <(git diff --name-only --diff-filter=A "base..$last" -- \
	'drivers/*.h' 'drivers/*.c')
if ! kdoc=$(./scripts/kernel-doc -none -Wall "${docs[@]}" 2>&1) || [[ -n $kdoc ]]; then
	printf '        %s\n' "${kdoc//$'\n'/$'\n'        }"
	die "kernel-doc -none -Wall: warnings in the series' files"
fi
say "kernel-doc -none -Wall: ${#docs[@]} new source files clean"
mapfile -t ours < <(git diff --name-only "base..$last" -- Documentation 'drivers/*.h')
if ((${#ours[@]} == 0)); then
	say "htmldocs: not built, the series changes no documentation"
	exit 0
fi
doclog=$LOGS/series-htmldocs.log
say "make SPHINXDIRS=virt htmldocs (log: $doclog) ..."
PATH=/usr/bin:$PATH make O="$BUILD/docs" SPHINXDIRS=virt htmldocs >"$doclog" 2>&1 ||
	die "make SPHINXDIRS=virt htmldocs failed; see $doclog"
new=$(grep -E 'WARNING|ERROR' "$doclog" | grep -F "${ours[@]/#/-e}" || true)
[[ -z $new ]] || { printf '        %s\n' "${new//$'\n'/$'\n'        }"; die "htmldocs: warnings in the series' files; see $doclog"; }
say "htmldocs: no warning in the series' files (${#ours[@]} files; $(grep -cE 'WARNING|ERROR' "$doclog" || true) warning(s) in virt/ files the series does not touch)"
