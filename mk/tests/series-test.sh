#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/tests/series-test.sh: make series' generated parts on saved inputs,
# without b4 or a kernel tree.
# - mk/cover-letter.py on a made git tree of four commits (a stable fix
#   with Fixes: and Cc: stable, a fix with Fixes: only, a patch with an
#   indented code block, one without either), a saved bloat-o-meter file
#   (cover-letter.bloat: one commit that changes the object, one that does
#   not) and a template with every section (cover-letter.in): its output
#   must be cover-letter.expected, byte for byte;
# - the same with no bloat file: no @BLOAT@ paragraph;
# - an unknown @SECTION@ in the template: exit status 1, one line naming it;
# - mk/add-cc.py on saved mails (a folded Cc: that already has one of the
#   addresses, and no Cc: at all): add-cc-*.expected;
# - add-cc.py without "--": its usage line, exit status 1.
# Ends with "series-test: N passed, M failed"; exits 1 if a check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mk=$(dirname "$here")
# shellcheck source=mk/tests/lib.sh
. "$here/lib.sh"

# The made tree: a base and four commits, with fixed dates and author.
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
g=$tmp/linux
git init -q "$g" || { echo "series-test: git init failed"; exit 1; }
commit() {
	echo "$1" >>"$g/file"
	{ git -C "$g" add file && git -C "$g" commit -q -F -; } ||
		{ echo "series-test: cannot make the test tree's commit '$1'"; exit 1; }
}
commit base <<<"base"
commit one <<'MSG'
xen/events: fix the first thing

The first thing is wrong on 32-bit Arm, where a long is narrower than
the word.

Fix it.

Fixes: 0123456789ab ("xen/events: the first thing")
Cc: stable@vger.kernel.org
Signed-off-by: Tester <tester@example.org>
MSG
commit two <<'MSG'
xen/events: fix the second thing

The second thing indexes the words with the wrong width:

	x = y / BITS_PER_LONG;

Use the event word's width.

Fixes: ba9876543210 ("xen/events: the second thing")
Signed-off-by: Tester <tester@example.org>
MSG
commit three <<'MSG'
xen/events: a change with no Fixes tag

A paragraph that does not end in a full stop
because it goes on in a list:
- one
- two

Make it so.

Signed-off-by: Tester <tester@example.org>
MSG
first=$(git -C "$g" rev-list --reverse HEAD | sed -n 2p)

out=$tmp/cover.txt
if python3 "$mk/cover-letter.py" "$out" "$here/cover-letter.in" "$g" "$first^" HEAD \
	"$here/cover-letter.bloat" 2>"$tmp/err"; then
	if d=$(diff -u "$here/cover-letter.expected" "$out"); then
		result cover-letter ""
	else
		result cover-letter "differs from cover-letter.expected: $(head -n 12 <<<"$d" | tr '\n' '|')"
	fi
else
	result cover-letter "exit status $?: $(tail -n 1 "$tmp/err")"
fi

if python3 "$mk/cover-letter.py" "$out" "$here/cover-letter.in" "$g" "$first^" HEAD "" 2>"$tmp/err"; then
	if grep -q 'bloat-o-meter' "$out"; then
		result cover-letter-no-bloat "a bloat-o-meter paragraph with no bloat file"
	elif ! grep -q '^Patch 1 is for stable' "$out"; then
		result cover-letter-no-bloat "the rest of the letter is missing"
	else
		result cover-letter-no-bloat ""
	fi
else
	result cover-letter-no-bloat "exit status $?: $(tail -n 1 "$tmp/err")"
fi

printf 'Subject\n\n@PATCHES@\n@NOSUCH@\n' >"$tmp/bad.in"
python3 "$mk/cover-letter.py" "$out" "$tmp/bad.in" "$g" "$first^" HEAD "" 2>"$tmp/err"
rc=$?
if [[ $rc == 1 && $(wc -l <"$tmp/err") == 1 ]] && grep -q "bad.in: unknown section @NOSUCH@" "$tmp/err"; then
	result cover-letter-unknown-section ""
else
	result cover-letter-unknown-section "exit status $rc, stderr: $(tr '\n' '|' <"$tmp/err")"
fi

cp "$here/add-cc-folded.eml" "$here/add-cc-none.eml" "$tmp/"
if python3 "$mk/add-cc.py" "$tmp/add-cc-folded.eml" "$tmp/add-cc-none.eml" -- \
	"KUnit Maintainer <kunit@example.org>" "Second Reviewer <second@example.org>" 2>"$tmp/err"; then
	for m in folded none; do
		if d=$(diff -u "$here/add-cc-$m.expected" "$tmp/add-cc-$m.eml"); then
			result "add-cc-$m" ""
		else
			result "add-cc-$m" "differs from add-cc-$m.expected: $(head -n 12 <<<"$d" | tr '\n' '|')"
		fi
	done
else
	result add-cc "exit status $?: $(tail -n 1 "$tmp/err")"
fi

python3 "$mk/add-cc.py" "$tmp/add-cc-none.eml" 2>"$tmp/err"
rc=$?
if [[ $rc == 1 ]] && grep -q '^usage: add-cc.py MAIL... -- ADDRESS...$' "$tmp/err"; then
	result add-cc-usage ""
else
	result add-cc-usage "exit status $rc, stderr: $(tr '\n' '|' <"$tmp/err")"
fi

summary series-test
