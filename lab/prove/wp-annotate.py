#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""wp-annotate.py IN OUT: events_2l.c with the ACSL annotations WP needs
to bound evtchn_2l_handle_events()'s word loop (../../mk/prove.sh).

Only comments are added, each at the start of one of four lines of the
file (so every line keeps its number): a contract of
active_evtchns() (it assigns nothing), the pass's precondition (its CPU
and cursor in range, as the harness's main() sets them), and the two
loops' invariants, assigns and variants.  The C code is the file's own:
OUT with the added comments taken out is IN, byte for byte, or this
script fails.

The outer loop's invariant (lab/prove/wp_bits.h defines prove_none(p,
a, b): no bit of p in [a, b)), with s the start word and w the word
index, in three laps:
  - first visit: i == 0 and w == s;
  - going up from the start word: i <= w - s, and no pending word
    left in [s + 1, w) (each visited one is cleared);
  - after the wrap: none left above s nor below w, w <= s + 1 and
    i <= B + 1 - s + w;
  - or none left at all.
So i <= B + 2 (ibound): the pass visits at most B + 2 words and `i++`
cannot overflow; and B + 2 - i is the loop's variant.

With --order, the annotations of the at-most-once proof are added too
(prove_2l.c built with PROVE_ORDER): prove_2l.c's handle_irq_for_port()
requires that the port's position, its distance from the start port S
going up and wrapping (prove_pos()), be above the ghost prove_last,
the position of the port handled last in the pass, and sets prove_last
to it.  So the ports a pass hands to handle_irq_for_port() have
increasing positions, all in [0, B * B): none is handled twice, whatever
the handlers raise meanwhile.  The invariants that carry it: before
each word the pass visits, prove_last is below the position of the
word's bit 0 in the lap it is in (order), and in a word, below that of
the next bit (order_bits, with prove_base()); in the second visit of
the start word, no bit at or above the start bit is left (bits_second).
"""
import os
import sys

MASKS = ('cpu_evtchn_mask[0 .. EVR_MAX_CPUS - 1][0 .. EVTCHN_WORDS - 1],\n'
         '\t      evr_vcpu_info[0 .. EVR_MAX_CPUS - 1],\n'
         '\t      current_word_idx[0 .. EVR_MAX_CPUS - 1],\n'
         '\t      current_bit_idx[0 .. EVR_MAX_CPUS - 1]')


def annotations(order):
    """The (anchor, ACSL) pairs; with order, the at-most-once proof's too."""
    last = ', prove_last' if order else ''
    req = ('    requires order_start: prove_last == -1;\n'
           '    requires order_S: prove_S == current_word_idx[evr_this_cpu] * EVTCHN_WORDS +\n'
           '      current_bit_idx[evr_this_cpu];\n') if order else ''
    inv = ('\t    loop invariant order: (i == 0 && word_idx == start_word_idx && prove_last == -1) ||\n'
           '\t      (i >= 1 && start_word_idx < word_idx &&\n'
           '\t       prove_none(pending_words, start_word_idx + 1, word_idx) &&\n'
           '\t       prove_last < (word_idx - start_word_idx) * EVTCHN_WORDS - start_bit_idx) ||\n'
           '\t      (i >= 1 && word_idx <= start_word_idx &&\n'
           '\t       prove_none(pending_words, start_word_idx + 1, EVTCHN_WORDS) &&\n'
           '\t       prove_none(pending_words, 0, word_idx) &&\n'
           '\t       prove_last < (EVTCHN_WORDS - start_word_idx + word_idx) * EVTCHN_WORDS -\n'
           '\t         start_bit_idx) ||\n'
           '\t      pending_words == 0;\n') if order else ''
    inner = ('\t\t    loop invariant bits_range: 0 <= bit_idx < EVTCHN_WORDS;\n'
             '\t\t    loop invariant bits_first: word_idx == start_word_idx && i == 0 ==>\n'
             '\t\t      start_bit_idx <= bit_idx;\n'
             '\t\t    loop invariant bits_second: word_idx == start_word_idx && i != 0 ==>\n'
             '\t\t      prove_none(pending_bits, start_bit_idx, EVTCHN_WORDS);\n'
             '\t\t    loop invariant order_bits: prove_last <\n'
             '\t\t      prove_base(word_idx, i, start_word_idx, start_bit_idx) + bit_idx;\n'
             ) if order else ''
    return [
        ('static inline xen_ulong_t active_evtchns(',
         '/*@ assigns \\nothing; */\n'),
        ('static void evtchn_2l_handle_events(unsigned cpu, struct evtchn_loop_ctrl *ctrl)\n{',
         '/*@ requires evr_this_cpu < EVR_MAX_CPUS;\n'
         '    requires 0 <= current_word_idx[evr_this_cpu] < EVTCHN_WORDS;\n'
         '    requires 0 <= current_bit_idx[evr_this_cpu] < EVTCHN_WORDS;\n'
         + req +
         '*/\n'),
        ('\tfor (i = 0; pending_words != 0; i++) {\n',
         '\t/*@ loop invariant wrange: 0 <= word_idx < EVTCHN_WORDS;\n'
         '\t    loop invariant ibound: 0 <= i <= EVTCHN_WORDS + 2;\n'
         '\t    loop invariant laps: (i == 0 && word_idx == start_word_idx) ||\n'
         '\t      (i >= 1 && start_word_idx < word_idx &&\n'
         '\t       i <= word_idx - start_word_idx &&\n'
         '\t       prove_none(pending_words, start_word_idx + 1, word_idx)) ||\n'
         '\t      (i >= 1 && word_idx <= start_word_idx + 1 &&\n'
         '\t       i <= EVTCHN_WORDS + 1 - start_word_idx + word_idx &&\n'
         '\t       prove_none(pending_words, start_word_idx + 1, EVTCHN_WORDS) &&\n'
         '\t       prove_none(pending_words, 0, word_idx)) ||\n'
         '\t      pending_words == 0;\n'
         + inv +
         '\t    loop assigns i, pending_words, word_idx, bit_idx, pending_bits,\n'
         '\t      evr_shared_info, ' + MASKS + last + ';\n'
         '\t    loop variant EVTCHN_WORDS + 2 - i;\n'
         '\t*/\n'),
        ('\t\tdo {\n',
         '\t\t/*@ ' + inner.lstrip('\t ') +
         ('\t\t    ' if inner else '') + 'loop assigns bit_idx, evr_shared_info,\n'
         '\t\t      ' + MASKS.replace('\n\t', '\n\t\t') + last + ';\n'
         '\t\t    loop variant EVTCHN_WORDS - bit_idx;\n'
         '\t\t*/\n'),
    ]

def main():
    args = sys.argv[1:]
    order = args[:1] == ['--order']
    if order:
        args = args[1:]
    if len(args) != 2:
        sys.exit('usage: wp-annotate.py [--order] IN OUT')
    src = open(args[0]).read()
    out = src
    added = []
    for anchor, text in annotations(order):
        n = out.count(anchor)
        if n != 1:
            first = anchor.splitlines()[0].strip()
            sys.exit(f'{args[0]}: "{first}" found {n} times, not once')
        # On the anchor's own line, so that every line keeps its number
        # (alarms name the lines of the file as it is).
        indent = anchor[:len(anchor) - len(anchor.lstrip())]
        one = ' '.join(t.strip() for t in text.splitlines()) + ' '
        added.append(one)
        out = out.replace(anchor, indent + one + anchor.lstrip())
    back = out
    for one in added:
        back = back.replace(one, '', 1)
    if back != src:
        sys.exit(f'{args[1]}: taking the annotations out does not give {args[0]}')
    with open(args[1] + '.tmp', 'w') as f:
        f.write(out)
    os.replace(args[1] + '.tmp', args[1])


if __name__ == '__main__':
    main()
