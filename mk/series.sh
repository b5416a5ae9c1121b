#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/series.sh: export build/linux's series (base..HEAD less the lab:
# commits) as mail in build/series/ and check it:
#  - the series of patches/series, each with its cover letter
#    (mk/cover-letter-NAME.in) in build/series/NAME/: events-2l (the
#    width fixes, for the xen tree's -rc and stable, then round robin and
#    KUnit, for -next; also to the KUnit maintainers and lists) and
#    evtchn (the /dev/xen/evtchn fixes, for the xen tree and stable);
#    each made again on the base, so that it applies alone;
#  - every patch authored by the sender (SIGNOFF="Name <mail>", else the
#    repo's git identity if it is a person's address), or by AUTHOR="Name
#    <mail>" (then b4 writes the in-body From: line for it); signed off
#    by the author and the sender only: build/linux's Signed-off-by lines
#    are dropped;
#  - REVISION=n (n > 1) makes it a versioned re-send, "[PATCH vn ...]"
#    (not V=, which is kbuild's verbosity);
#  - the cover letters are generated from mk/cover-letter-NAME.in, the
#    commits and build/out/bloat.txt (make
#    objsize, run here when it is older than the tree; COVER_FIGURES=0
#    leaves it out); b4 (Debian's 0.12) does the rest as kernel developers
#    know it: the cover commit (b4 prep --edit-cover), To/Cc from
#    scripts/get_maintainer.pl (b4 prep --auto-to-cc), the version, and
#    the mail in build/series/PART/*.eml (b4 send -o, which sends nothing;
#    its log build/logs/series-b4.log);
#  - checkpatch.pl --strict on every patch: any error, warning or check
#    fails the run; kernel-doc on the new files.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
# The submission is the 7.3 series; the 6.12 and 6.1 variants are
# backports, whose commits stable takes from upstream's once merged.
[[ $SERIES_BASE == "$MAIN_BASE" ]] ||
	die "make series mails the series against $MAIN_BASE; for BASE=$SERIES_BASE's variant see git -C ${LINUX#"$ROOT"/} log base..HEAD"
require_tree

# The mail is written to build/series.new/ and becomes build/series/ only
# once every check passed: a failing run leaves no .eml where
# "git send-email build/series/*/*.eml" would pick it up.
final=$BUILD/series
out=$BUILD/series.new
# The series is base..$tip, without the lab's commits (series_tip).
read_series
tip=$(series_tip)
n=$(git -C "$LINUX" rev-list --count "base..$tip")
if ((n == 0)); then
	say "nothing to export: patches/series has no entries"
	exit 0
fi

# The sender and the author, for From: and Signed-off-by:.
sender_identity series

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
last=$tip
# The series of patches/series (read_series: PARTS, E_PART), each made
# again on the base (signed_on): orig holds the tree's commits, newc[i]
# orig[i]'s commit in the mail.  PART NAME FIRST COUNT TEMPLATE: commits
# FIRST.. (COUNT of them) of orig.
mapfile -t orig < <(git -C "$repo" rev-list --reverse "base..$last")
parts=() newc=()
for name in "${PARTS[@]}"; do
	idx=()
	for i in "${!orig[@]}"; do
		[[ ${E_PART[i]} != "$name" ]] || idx+=("$i")
	done
	cs=()
	for i in "${idx[@]}"; do cs+=("${orig[i]}"); done
	mapfile -t made < <(signed_on "$repo" base "${cs[@]}")
	((${#made[@]} == ${#idx[@]})) || die "series $name: its commits could not be made again on the base"
	for k in "${!idx[@]}"; do newc[idx[k]]=${made[k]}; done
	parts+=("$name ${idx[0]} ${#idx[@]} mk/cover-letter-$name.in")
done

# b4 (Debian's 0.12) makes the mail: the cover letter as its cover commit,
# To and Cc from get_maintainer.pl (--auto-to-cc: maintainers and
# reviewers To, lists Cc; --nofixes: build/linux has no upstream history
# to find the authors of the commits named by Fixes: in), written to
# build/series/PART/ by b4 send -o (which sends nothing).
# Only the clone's configuration counts: the user's global one (an editor,
# diff options, b4 settings) would change what b4 does and writes.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
b4cfg() { git -C "$repo" config "$@"; }
b4cfg user.name "$sender_name"
b4cfg user.email "$sender_mail"
b4cfg sendemail.smtpserver localhost
getm="scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nofixes --no-tree"
# To: the maintainers and reviewers of the files (MAINTAINERS' F:
# entries); Cc: the lists, and whoever a K: keyword brings in (the
# PREEMPT_RT maintainers, for the KUnit suite's migrate_disable()), whom
# b4 leaves out of Cc when they are in To already.
b4cfg b4.send-auto-to-cmd "$getm --nol --nokeywords"
b4cfg b4.send-auto-cc-cmd "$getm --keywords"
b4log=$LOGS/series-b4.log
mkdir -p "$LOGS"
: >"$b4log"
b4() { (cd "$repo" && command b4 "$@") >>"$b4log" 2>&1 || die "b4 $* failed; see $b4log"; }

# The cover letters' figure: bloat-o-meter of each commit (make objsize,
# run here if build/out/bloat.txt is older than the tree).  COVER_FIGURES=0
# (make check) leaves it out.
bloat=$BUILD/out/bloat.txt
if [[ ${COVER_FIGURES:-1} != 0 ]]; then
	if [[ ! -s $bloat || $bloat -ot $SERIES_STAMP ]]; then
		say "build/out/bloat.txt is missing or older than the tree: make objsize (log: $LOGS/series-objsize.log) ..."
		"$ROOT/mk/objsize.sh" >"$LOGS/series-objsize.log" 2>&1 ||
			die "make objsize failed; see $LOGS/series-objsize.log"
	fi
else
	bloat=
fi

# The KUnit maintainers and lists, for a series with a KUnit suite.
kunit_cc() {
	(cd "$LINUX" && $getm --m --r --l -f include/kunit/test.h)
}

# header FILE NAME: a mail header, its folded lines joined.
header() {
	sed -n "/^$2: /,/^[^ ]/p" "$1" | sed '$d' | sed "s/^$2: //; s/^ //" | tr '\n' ' ' | sed 's/  */ /g; s/ *$//; s/,$//'
}

# mails_apply MAIL...: the MAILs' patches (git mailinfo), applied to the
# base in an index of their own (git apply --cached, as git am does), give
# the tree of $ptip.
mails_apply() {
	local m tree=base
	for m; do
		git mailinfo "$tmp/am-msg" "$tmp/am-patch" <"$m" >/dev/null &&
			tree=$(tree_plus "$repo" "$tree" <"$tmp/am-patch") || return 1
	done
	[[ $tree == "$(git -C "$repo" rev-parse "$ptip^{tree}")" ]]
}

rm -rf "$out" "$final"
mkdir -p "$out"
all_mails=()
for part in "${parts[@]}"; do
	read -r name first count template <<<"$part"
	ptip=${newc[first + count - 1]}
	git -C "$repo" checkout -q -B "$name" "$ptip"
	b4 prep -e base
	((REVISION == 1)) || b4 prep --force-revision "$REVISION"
	# The cover letter: the template with its generated sections.
	python3 "$ROOT/mk/cover-letter.py" "$tmp/cover.txt" "$ROOT/$template" "$LINUX" \
		"${orig[first]}^" "${orig[first + count - 1]}" "$bloat" ||
		die "mk/cover-letter.py failed for $name"
	# The cover letter into b4's cover commit (its editor: a copy), then To
	# and Cc, then the mail.
	# shellcheck disable=SC2016 # $1 is the editor script's own argument
	printf '#!/bin/sh\ncp "%s" "$1"\n' "$tmp/cover.txt" >"$tmp/editor"
	chmod +x "$tmp/editor"
	b4cfg core.editor "$tmp/editor"
	b4 prep --edit-cover
	b4 prep --auto-to-cc
	b4 send --no-sign -o "$out/$name"
	shopt -s nullglob
	mails=("$out/$name"/*.eml)
	cover=("$out/$name"/0000-*.eml)
	shopt -u nullglob
	((${#mails[@]} == count + 1 && ${#cover[@]} == 1)) ||
		die "b4 send -o wrote ${#mails[@]} mail(s) in $out/$name, not $count patches and a cover letter; see $b4log"
	subject=$(header "${cover[0]}" Subject)
	want="[PATCH$( ((REVISION == 1)) || echo " v$REVISION") 0/$count] $(head -n 1 "$tmp/cover.txt")"
	[[ $subject == "$want" ]] ||
		die "the cover letter's subject is '$subject', not '$want' (b4 did not take the generated cover letter? see $b4log)"
	# The cover letter's text as written: b4 may only add to its end.
	python3 - "${cover[0]}" "$tmp/cover.txt" <<-'EOF' ||
		import email, sys
		body = email.message_from_file(open(sys.argv[1])).get_payload(decode=True).decode()
		text = open(sys.argv[2]).read().split("\n", 2)[2]
		sys.exit(0 if body.startswith(text.rstrip("\n") + "\n") else 1)
	EOF
		die "series $name: the cover letter in ${cover[0]#"$ROOT"/} is not the text of mk/cover-letter-$name.in as generated (b4 changed it)"
	# build/linux's base is Debian's linux-source tarball as one commit:
	# its id is nowhere upstream, so b4's base-commit: line would mislead.
	sed -i '/^base-commit: /d' "${cover[0]}"
	# A series with a KUnit suite goes to the KUnit maintainers and lists
	# too (Cc:, every mail of it).
	if grep -q '^+++ b/.*kunit' "${mails[@]:1}"; then
		mapfile -t kcc < <(kunit_cc)
		((${#kcc[@]})) || die "scripts/get_maintainer.pl found no KUnit maintainer (include/kunit/test.h)"
		python3 "$ROOT/mk/add-cc.py" "${mails[@]}" -- "${kcc[@]}" ||
			die "mk/add-cc.py failed on $out/$name"
	fi
	# The mail applies alone on the base, as git am (the test robot, b4
	# am) applies it: its patches give the tree of the series' last commit.
	mails_apply "${mails[@]:1}" ||
		die "series $name: its mail in $out/$name does not apply with git am on the base to the series' tree"
	# Every maintainer of what the series touches must be in To.
	to=$(header "${cover[0]}" To)
	mapfile -t maint < <(cd "$repo" && $getm --m --nor --nol --nokeywords "${mails[@]:1}")
	((${#maint[@]})) || die "scripts/get_maintainer.pl found no maintainer for the series"
	for m in "${maint[@]}"; do
		[[ $to == *"$m"* ]] || die "maintainer $m is not in the cover letter's To: ($to); see $b4log"
	done
	say "$name: $count patch(es) and a cover letter in ${out#"$ROOT"/}/$name/, applying alone on the base (git am) (To: $to; Cc: $(header "${cover[0]}" Cc))"
	all_mails+=("${mails[@]:1}")
done

# build/linux has no upstream history, so checkpatch cannot resolve the
# commit ids of Fixes: tags and the like: don't let that fail the series.
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for any new
# file; the series' new files are all covered by existing entries
# (drivers/xen/ in XEN HYPERVISOR INTERFACE).
say "checkpatch --strict (not checked: commit ids in Fixes: etc., no upstream history; FILE_PATH_CHANGES, every new file has a MAINTAINERS entry)"
# checkpatch's stderr (e.g. scripts/spdxcheck.py failing) goes to a log.
errlog=$LOGS/series-checkpatch-stderr.log
: >"$errlog"
bad=0
cd "$LINUX"
for p in "${all_mails[@]}"; do
	name=${p#"$out"/}
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
else
	doclog=$LOGS/series-htmldocs.log
	say "make SPHINXDIRS=virt htmldocs (log: $doclog) ..."
	PATH=/usr/bin:$PATH make O="$BUILD/docs" SPHINXDIRS=virt htmldocs >"$doclog" 2>&1 ||
		die "make SPHINXDIRS=virt htmldocs failed; see $doclog"
	new=$(grep -E 'WARNING|ERROR' "$doclog" | grep -F "${ours[@]/#/-e}" || true)
	[[ -z $new ]] || { printf '        %s\n' "${new//$'\n'/$'\n'        }"; die "htmldocs: warnings in the series' files; see $doclog"; }
	say "htmldocs: no warning in the series' files (${#ours[@]} files; $(grep -cE 'WARNING|ERROR' "$doclog" || true) warning(s) in virt/ files the series does not touch)"
fi
rm -rf "$final"
mv "$out" "$final"
say "the mail: ${final#"$ROOT"/}/*/*.eml"
