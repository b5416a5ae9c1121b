# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# mk/tests/lib.sh: what mk/tests/*-test.sh share, sourced by them: a
# temporary folder $tmp (removed on exit), result NAME PROBLEM (counts an
# "ok" when PROBLEM is empty, a "FAILED" otherwise), summary NAME (the
# "NAME: N passed, M failed" line; false if one failed), and git's
# identity fixed to a tester, without the user's configuration.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
result() {
	if [[ -z $2 ]]; then
		passed=$((passed + 1))
		echo "ok: $1"
	else
		failed=$((failed + 1))
		echo "FAILED: $1: $2"
	fi
}
summary() {
	echo "$1: $passed passed, $failed failed"
	((failed == 0))
}
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=tester@example.org
# Not the user's git configuration (signing, hooks).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
