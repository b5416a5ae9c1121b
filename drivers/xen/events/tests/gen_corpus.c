// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_corpus, a host program: evtchn-replay's script parser and
 * gen-corpus, which prints the corpus as C tables (see there).
 */
#include "../../../../tools/testing/xen-evtchn/parse.c"
#include "../../../../tools/testing/xen-evtchn/gen-corpus.c"
