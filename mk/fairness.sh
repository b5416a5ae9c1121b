#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/fairness.sh: replay the fairness scenarios
# (lab/fairness/*.replay) under the rr, base and
# lowest scans and report per-guest services, max/min, Jain's index and
# waits: the table goes to stdout and build/out/fairness.txt, a chart per
# scenario to build/out/fairness-<scenario>.png.  evtchn-replay is built
# from the repo into build/fairness/; mk/fairness.py does the rest.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init

command -v gnuplot >/dev/null || die "gnuplot not found (run 'make deps')"
command -v python3 >/dev/null || die "python3 not found (run 'make deps')"
say "building build/fairness/evtchn-replay"
lab_make "$BUILD/fairness" all
python3 "$ROOT/mk/fairness.py" "$BUILD/fairness/evtchn-replay" \
	"$ROOT/lab/fairness" "$BUILD/out"
say "saved build/out/fairness.txt and build/out/fairness-*.png"
