#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/doc-check.sh: every path and make target the docs name exists.  The
# docs are README.md, docs/*.md and the READMEs of lab/ (git ls-files).
# A path is a `quoted` word with a slash and only path characters; it must
# exist relative to the repository, to the doc's own directory, or (for
# the kernel's files, drivers/xen/...) in build/linux, as it is or as a
# glob, or be a program the lab builds from PATH.c, or be a file a target
# writes (named in the Makefile's "## target: ..." lines, such as
# docs/ci-cold.txt, which only make ci-cold makes).  Left out: build/ (made by the targets), absolute paths, the
# placeholders NNNN and V (patches/V/series), and docs/history.md (it
# names GitHub repositories, owner/name).  A target is the first word
# after `make` that is not VAR=value or an option (`make -C ...`, the
# kernel's make, is left out); it must be one of the Makefile's .PHONY
# targets.  Prints each missing one as FILE:LINE: and ends with
# "doc-check: N passed, M failed" (a doc each, then the help defaults and
# the quoted figures); exits 1 if one failed.
set -uo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
cd "$ROOT" || exit 1

phony=" $(sed -n '/^\.PHONY:/,/[^\\]$/p' Makefile | sed 's/^\.PHONY://; s/\\//g' | xargs) "
# What the targets write, as their "## target: ..." lines name it.
outputs=" $(sed -n 's/^## //p' Makefile | grep -oE '[A-Za-z0-9_.-]+(/[A-Za-z0-9_.*-]+)+' | xargs) "
[[ $phony != "  " ]] || die "Makefile: no .PHONY targets"
exists() {
	local p=$1 dir=$2 base
	for base in . "$dir" build/linux; do
		# Without the 7.3 tree (make BASE=V check alone), a kernel path
		# (its first folder one of the kernel tree's) cannot be checked.
		[[ $base != build/linux || -d build/linux ]] || { [[ ${p%%/*} =~ ^(arch|block|crypto|Documentation|drivers|fs|include|init|ipc|kernel|lib|mm|net|scripts|security|sound|tools|virt)$ ]] && return 0; }
		# shellcheck disable=SC2086 # a glob, on purpose
		compgen -G "$base/$p" >/dev/null && return 0
		# A program the lab builds from its source (lab/.../evtchn-stress).
		[[ ! -f $base/$p.c ]] || return 0
	done
	return 1
}

# A `quoted` word of Markdown.
# shellcheck disable=SC2016 # the backquotes are Markdown's
quoted='`[^`]+`'
passed=0 failed=0
mapfile -t docs < <(git ls-files '*.md' '*README*')
((${#docs[@]})) || die "no docs found (git ls-files in $ROOT)"
for doc in "${docs[@]}"; do
	bad=0
	dir=$(dirname "$doc")
	while IFS=: read -r line tok; do
		p=${tok//\`/}
		if [[ $p == make || $p == make\ * ]]; then
			read -ra w <<<"$p"
			tgt='' skip=0
			for x in "${w[@]:1}"; do
				[[ $x == -C ]] && { tgt=; break; }
				((!skip)) || { skip=0; continue; }
				# An option's own argument (make -j 2, -f FILE) is no target.
				[[ $x == -[jfoWI] ]] && { skip=1; continue; }
				[[ $x == *=* || $x == -* ]] && continue
				tgt=$x
				break
			done
			if [[ -n $tgt && $phony != *" $tgt "* ]]; then
				echo "$doc:$line: \`$p\`: no target '$tgt' in the Makefile"
				bad=1
			fi
			continue
		fi
		[[ $doc != docs/history.md && $p == */* ]] || continue
		[[ $p =~ ^[A-Za-z0-9_.*-]+(/[A-Za-z0-9_.*-]+)*/?$ ]] || continue
		case $p in build/* | *NNNN* | V/* | */V/*) continue ;; esac
		if ! exists "$p" "$dir" && [[ $outputs != *" $p "* ]]; then
			echo "$doc:$line: \`$p\`: no such file"
			bad=1
		fi
	done < <(grep -noE "$quoted" "$doc")
	if ((bad)); then failed=$((failed + 1)); else passed=$((passed + 1)); fi
done

# Then the defaults make help and make lab-help quote ("#= VAR: ...
# (default D" in the Makefile), against the code: a one-word D must be
# the code's own default, ${VAR:-D} or ${VAR-D} in mk/*.sh; a list (its
# first word not a number) must be a constant of mk/lib.sh, NAME="D".  A
# default that says when it applies ("1 for ARCH=arm only") is left to
# the docs.  One result.
bad=0
while read -r v d; do
	if [[ $d =~ ^[A-Za-z0-9._-]+$ ]]; then
		grep -qF -e "\${$v:-$d}" -e "\${$v-$d}" mk/*.sh ||
			{ echo "Makefile: $v: help says default $d, no \${$v:-$d} in mk/*.sh"; bad=1; }
	elif [[ $d =~ ^[A-Za-z][A-Za-z0-9._:-]*( [A-Za-z0-9._:-]+)+$ ]]; then
		grep -qE "^[A-Z_]+=\"$d\"$" mk/lib.sh ||
			{ echo "Makefile: $v: help says default \"$d\", no constant of mk/lib.sh has it"; bad=1; }
	fi
done < <(sed -nE 's/^#[=-] ([A-Z0-9_]+): .*\(default ([^);,]+)[);,].*/\1 \2/p' Makefile)
if ((bad)); then failed=$((failed + 1)); else passed=$((passed + 1)); fi

# Then the figures the docs quote from the code.  Each row: a file of the
# repo, an extended regex of its code whose first group is the value, and
# one of the docs (README.md, docs/*.md, lab's READMEs) whose first group
# is the figure quoted; every figure so quoted must be the code's value.
# One result.
bad=0
while IFS=$'\t' read -r file code phrase; do
	[[ -n $file ]] || continue
	want=$(sed -nE "s/^.*$code.*$/\\1/p" "$file" | head -n 1)
	[[ -n $want ]] || { echo "$file: no line matches /$code/ (mk/doc-check.sh's figures)"; bad=1; continue; }
	n=0
	while IFS=: read -r doc line fig; do
		n=$((n + 1))
		fig=$(sed -nE "s/^$phrase$/\\1/p" <<<"$fig")
		[[ $fig == "$want" ]] ||
			{ echo "$doc:$line: quotes $fig where $file has $want (/$phrase/)"; bad=1; }
	done < <(grep -noE "$phrase" "${docs[@]}")
	((n)) || { echo "mk/doc-check.sh: no doc quotes /$phrase/ any more: drop its row"; bad=1; }
done <<'EOF2'
mk/xen-test.sh	^RESTORE_PAIRS=([0-9]+)$	([0-9]+) loopback pairs
mk/xen-test.sh	^RESTORE_PAIRS=([0-9]+)$	evtchn-restore ([0-9]+)
mk/xen-test.sh	^TIMEOUT=([0-9]+)$	killed after ([0-9]+) s
mk/xen-test.sh	^EVENTS=.* echo [0-9]+ \|\| echo ([0-9]+)\)}$	exchanges ([0-9]+) round trips
mk/xen-test.sh	^EVENTS=.* echo ([0-9]+) \|\| echo [0-9]+\)}$	exchange is ([0-9]+) round trips
mk/xen-test.sh	echo 2400 \|\| echo ([0-9]+)\)$	QEMU ([0-9]+) s
lab/xen/dom0-init	^LOST_MS=\$\(param lost ([0-9]+)\)$	lost after ([0-9]+) ms
EOF2
if ((bad)); then failed=$((failed + 1)); else passed=$((passed + 1)); fi
echo "doc-check: $passed passed, $failed failed"
((failed == 0))
