#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/tests/product-test.sh: what make and make deb build is the mailed
# series and nothing of the lab's (make check, any base):
# - the source they build (product_tree in mk/lib.sh) is at the commit of
#   patches/series' last entry, and its history since base holds no
#   "lab:" commit;
# - no lab patch (lab/patches/series) is in it: each applies to it, and
#   none in reverse;
# - the stored patches/ apply with git am, in patches/series' order, onto
#   a clean base and give exactly that source's tree (the patch files are
#   whole: new files inside);
# - no kernel in build/out/ (make's System.map) has a symbol a lab patch
#   exports.
# Ends with "product-test: N passed, M failed"; exits 1 if a check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=mk/lib.sh
. "$here/../lib.sh"
lib_init
# shellcheck source=mk/tests/lib.sh
. "$here/lib.sh"
cd "$ROOT" || exit 1
require_tree
read_series
product_tree >/dev/null
tip=$(series_tip)

head=$(git -C "$PRODUCT" rev-parse HEAD)
labs=$(git -C "$PRODUCT" log --format=%s base..HEAD | grep '^lab:' || true)
problem=
[[ $head == "$tip" ]] || problem="${PRODUCT#"$ROOT"/} is at ${head:0:12}, not the series' last commit ${tip:0:12}"
[[ -z $labs ]] || problem+="${problem:+; }lab: commits in it: ${labs//$'\n'/, }"
result "make's source is the mailed series ($N_MAILED patches, $(git -C "$PRODUCT" log -1 --format='%h %s'))" "$problem"

for ((i = N_MAILED; i < ${#E_PATCH[@]}; i++)); do
	p=${REPLACE[${E_PATCH[i]##*/}]:-${E_PATCH[i]}}
	problem=
	if git -C "$PRODUCT" apply --check --reverse "$ROOT/$p" 2>/dev/null; then
		problem="it is in ${PRODUCT#"$ROOT"/} (it applies in reverse)"
	elif ! git -C "$PRODUCT" apply --check "$ROOT/$p" 2>/dev/null; then
		problem="it does not apply to ${PRODUCT#"$ROOT"/} either: the test cannot tell"
	fi
	result "$p is not in make's source" "$problem"
done

# git am of the stored patches onto base, in a scratch clone sharing the
# tree's objects, with only the files they touch checked out.
repo=$tmp/linux
git clone -q --shared --no-checkout "$LINUX" "$repo"
mapfile -t files < <(git -C "$LINUX" diff --name-only base "$tip")
git -C "$repo" sparse-checkout set --no-cone "${files[@]/#//}"
git -C "$repo" -c advice.detachedHead=false checkout -q --detach base
mails=()
for ((i = 0; i < N_MAILED; i++)); do
	mails+=("$ROOT/${REPLACE[${E_PATCH[i]##*/}]:-${E_PATCH[i]}}")
done
problem=
if ! git -C "$repo" am -q "${mails[@]}" >"$tmp/am.log" 2>&1; then
	problem="git am failed: $(tail -n 1 "$tmp/am.log")"
elif [[ $(git -C "$repo" rev-parse 'HEAD^{tree}') != $(git -C "$LINUX" rev-parse "$tip^{tree}") ]]; then
	problem="git am gives tree $(git -C "$repo" rev-parse 'HEAD^{tree}'), not the series' $(git -C "$LINUX" rev-parse "$tip^{tree}")"
fi
result "git am of the $N_MAILED stored patches onto base gives the series' tree" "$problem"

# The reproducer in series (c)'s first changelog is the lab's program
# that make xen-test runs (its text indented by two, tabs as four
# spaces, without the SPDX line).
prog=$ROOT/lab/xen-evtchn/evtchn-restore.c
mapfile -t carriers < <(grep -l '^  #include <xenevtchn.h>$' "${mails[@]}")
problem=
if ((${#carriers[@]} != 1)); then
	problem="${#carriers[@]} mailed patches carry the program (want 1)"
elif ! diff -u <(grep -v '^// SPDX' "$prog" | expand -t4 | sed 's/^/  /; s/ *$//') \
	<(git mailinfo /dev/stdout /dev/null <"${carriers[0]}" 2>/dev/null | awk '
		/^  \/\* evtchn-restore.c / { on = 1 }
		on && /^[^ ]/ { exit }
		on && !/^$/ { print; last = NR }
		on && /^$/ { print }' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}') >"$tmp/prog.diff"; then
	problem="${carriers[0]##*/}'s program differs from ${prog#"$ROOT"/}: $(sed -n '3,12p' "$tmp/prog.diff" | tr '\n' ' ')"
fi
result "the reproducer in ${carriers[0]##*/} is ${prog#"$ROOT"/}" "$problem"

syms=$(for ((i = N_MAILED; i < ${#E_PATCH[@]}; i++)); do
	sed -n 's/^+EXPORT_SYMBOL[A-Z_]*(\([A-Za-z0-9_]*\));$/\1/p' "$ROOT/${E_PATCH[i]}"
done)
maps=()
for m in "$BUILD"/out/System.map "$BUILD"/out/*/System.map; do
	[[ ! -f $m ]] || maps+=("$m")
done
if ((${#maps[@]} == 0)); then
	echo "# no kernel in ${BUILD#"$ROOT"/}/out/ (make not run): nothing to look for the lab's symbols in"
else
	problem=
	for m in "${maps[@]}"; do
		for s in $syms; do
			! grep -qw "$s" "$m" || problem+="${problem:+; }$s in ${m#"$ROOT"/}"
		done
	done
	result "no lab symbol ($(wc -w <<<"$syms")) in make's kernels (${#maps[@]})" "$problem"
fi
summary product-test
