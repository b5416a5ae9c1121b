/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The replay script parser (parse.c), shared by evtchn-replay and the
 * fuzzers of ../fuzz.
 */
#ifndef __EVR_PARSE_H__
#define __EVR_PARSE_H__

#include <stddef.h>

#include "evtchn_2l_script.h"

/* The command of each enum evr_op, as scripts write it. */
extern const char *const evr_op_names[EVR_NR_OPS];

/*
 * Parse the script @text (@len bytes) named @name, with @word_bits bits
 * a word unless the script says otherwise, and one CPU.  Returns NULL
 * with "NAME:LINE: message" in @err on a syntax error, a number out of
 * range, or when out of memory.
 */
struct evr_script *evr_parse(const char *name, const char *text, size_t len,
			     unsigned int word_bits, char *err, size_t err_size);
void evr_script_free(struct evr_script *script);

#endif /* __EVR_PARSE_H__ */
