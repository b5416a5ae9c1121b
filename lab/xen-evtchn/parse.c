// SPDX-License-Identifier: GPL-2.0-only
/*
 * The replay script parser (the format is in README): evtchn-replay and
 * the fuzzers read scripts with it.  It checks the syntax, the order of
 * commands and every number against the geometry, so that the steps it
 * makes can be run as they are (evtchn_2l_replay.c).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/compiler.h>

#include "parse.h"

struct evr_parser {
	const char *name;
	unsigned int line;
	char *err;
	size_t err_size;
	struct evr_step *steps;
	unsigned int nr_steps;
	unsigned int *values;
	unsigned int nr_values;
	unsigned int word_bits;
	unsigned int nr_cpus;
	bool started;
	bool upcall;
};

static __printf(2, 3) bool evr_fail(struct evr_parser *p, const char *fmt, ...)
{
	int n = snprintf(p->err, p->err_size, "%s:%u: ", p->name, p->line);
	va_list ap;

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->err_size)
		vsnprintf(p->err + n, p->err_size - n, fmt, ap);
	va_end(ap);
	return false;
}

/* A decimal number below 2^32; the whole of @s must be digits. */
static bool evr_number(const char *s, unsigned int *val)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > 0xffffffffULL)
			return false;
	}
	*val = v;
	return true;
}

/* A port, word or cpu number, below the limit the geometry sets. */
static bool evr_arg(struct evr_parser *p, const char *s, const char *what,
		    unsigned int *val)
{
	unsigned int limit = p->word_bits * p->word_bits;

	if (!evr_number(s, val))
		return evr_fail(p, "bad %s '%s'", what, s);
	if (!strcmp(what, "word"))
		limit = p->word_bits;
	else if (!strcmp(what, "cpu"))
		limit = p->nr_cpus;
	if (*val >= limit)
		return evr_fail(p, "%s %u out of range (0-%u)", what, *val,
				limit - 1);
	return true;
}

/* Append lo, lo + 1, ..., hi to the script's values. */
static bool evr_add_values(struct evr_parser *p, unsigned int lo,
			   unsigned int hi)
{
	unsigned int *v = realloc(p->values, (p->nr_values + hi - lo + 1) *
				  sizeof(*v));

	if (!v)
		return evr_fail(p, "out of memory");
	p->values = v;
	while (lo <= hi)
		p->values[p->nr_values++] = lo++;
	return true;
}

/* Words of N, N-M and comma lists of those, into @step's list. */
static bool evr_list(struct evr_parser *p, char **tok, unsigned int nr,
		     const char *what, struct evr_step *step)
{
	unsigned int i, lo, hi;
	char *item, *dash, *next;

	step->first = p->nr_values;
	if (!nr)
		return evr_fail(p, "missing %s list", what);
	for (i = 0; i < nr; i++) {
		size_t len = strlen(tok[i]);

		if (tok[i][0] == ',' || tok[i][len - 1] == ',' ||
		    strstr(tok[i], ",,"))
			return evr_fail(p, "bad %s list '%s'", what, tok[i]);
		for (item = tok[i]; item; item = next) {
			next = strchr(item, ',');
			if (next)
				*next++ = '\0';
			dash = strchr(item, '-');
			if (dash)
				*dash = '\0';
			if (!evr_arg(p, item, what, &lo) ||
			    (dash && !evr_arg(p, dash + 1, what, &hi)))
				return false;
			if (!dash)
				hi = lo;
			else if (hi < lo)
				return evr_fail(p, "bad %s range '%u-%u'", what,
						lo, hi);
			if (!evr_add_values(p, lo, hi))
				return false;
		}
	}
	step->nr = p->nr_values - step->first;
	return true;
}

/* "PORTS" or "-" (none). */
static bool evr_list_or_none(struct evr_parser *p, char **tok,
			     unsigned int nr, struct evr_step *step)
{
	step->first = p->nr_values;
	if (nr == 1 && !strcmp(tok[0], "-"))
		return true;
	return evr_list(p, tok, nr, "port", step);
}

const char *const evr_op_names[EVR_NR_OPS] = {
	[EVR_WORD_BITS] = "word-bits",
	[EVR_CPUS] = "cpus",
	[EVR_PEND] = "pend",
	[EVR_RAW_PEND] = "raw-pend",
	[EVR_MASK] = "mask",
	[EVR_UNMASK] = "unmask",
	[EVR_BIND] = "bind",
	[EVR_CURSOR] = "cursor",
	[EVR_TIMER] = "timer",
	[EVR_SELECTOR] = "selector",
	[EVR_ON] = "on",
	[EVR_UPCALL] = "upcall",
	[EVR_EXPECT] = "expect",
	[EVR_EXPECT_CURSOR] = "expect-cursor",
	[EVR_EXPECT_PENDING] = "expect-pending",
	[EVR_SHOW_PENDING] = "show-pending",
};

/* One command, its words in @tok[0..@nr). */
static bool evr_command(struct evr_parser *p, char **tok, unsigned int nr,
			struct evr_step *s)
{
	unsigned int op;

	for (op = 0; op < EVR_NR_OPS; op++)
		if (!strcmp(tok[0], evr_op_names[op]))
			break;
	if (op == EVR_NR_OPS)
		return evr_fail(p, "unknown command '%s'", tok[0]);
	s->op = op;
	if (op == EVR_WORD_BITS || op == EVR_CPUS) {
		if (nr != 2 || !evr_number(tok[1], &s->arg))
			return evr_fail(p, "usage: %s", op == EVR_CPUS ?
					"cpus N" : "word-bits 32|64");
		if (p->started)
			return evr_fail(p, "'%s' must come before any other command",
					tok[0]);
		if (op == EVR_WORD_BITS && s->arg != 32 && s->arg != 64)
			return evr_fail(p, "word-bits must be 32 or 64, not %u",
					s->arg);
		if (op == EVR_CPUS && (!s->arg || s->arg > EVR_MAX_CPUS))
			return evr_fail(p, "cpus must be 1-%u, not %u",
					EVR_MAX_CPUS, s->arg);
		if (op == EVR_CPUS)
			p->nr_cpus = s->arg;
		else
			p->word_bits = s->arg;
		return true;
	}
	p->started = true;
	switch (op) {
	case EVR_PEND: case EVR_RAW_PEND: case EVR_MASK: case EVR_UNMASK:
		return evr_list(p, tok + 1, nr - 1, "port", s);
	case EVR_BIND:
		if (nr < 3)
			return evr_fail(p, "usage: bind PORTS... CPU");
		return evr_arg(p, tok[nr - 1], "cpu", &s->cpu) &&
		       evr_list(p, tok + 1, nr - 2, "port", s);
	case EVR_CURSOR: case EVR_TIMER: case EVR_EXPECT_CURSOR:
		if (nr != 3)
			return evr_fail(p, "usage: %s CPU PORT", tok[0]);
		return evr_arg(p, tok[1], "cpu", &s->cpu) &&
		       evr_arg(p, tok[2], "port", &s->arg);
	case EVR_SELECTOR:
		if (nr < 3)
			return evr_fail(p, "usage: selector CPU WORDS...");
		return evr_arg(p, tok[1], "cpu", &s->cpu) &&
		       evr_list(p, tok + 2, nr - 2, "word", s);
	case EVR_ON:
		if (nr < 4 || strcmp(tok[2], "pend"))
			return evr_fail(p, "usage: on PORT pend PORTS... [times N]");
		s->times = 1;
		if (nr >= 6 && !strcmp(tok[nr - 2], "times")) {
			if (!evr_number(tok[nr - 1], &s->times) || !s->times)
				return evr_fail(p, "bad count '%s'", tok[nr - 1]);
			nr -= 2;
		}
		return evr_arg(p, tok[1], "port", &s->arg) &&
		       evr_list(p, tok + 3, nr - 3, "port", s);
	case EVR_UPCALL:
		if (nr != 2)
			return evr_fail(p, "usage: upcall CPU");
		p->upcall = true;
		return evr_arg(p, tok[1], "cpu", &s->cpu);
	case EVR_EXPECT:
		if (!p->upcall)
			return evr_fail(p, "expect before any upcall");
		return evr_list_or_none(p, tok + 1, nr - 1, s);
	case EVR_EXPECT_PENDING:
		return evr_list_or_none(p, tok + 1, nr - 1, s);
	default:
		return nr == 1 || evr_fail(p, "usage: show-pending");
	}
}

/* Split @line into words ('#' starts a comment) and parse it. */
static bool evr_line(struct evr_parser *p, char *line)
{
	char **tok, *word, *hash = strchr(line, '#');
	unsigned int nr = 0;
	struct evr_step *s;
	bool ok;

	if (hash)
		*hash = '\0';
	tok = malloc((strlen(line) / 2 + 1) * sizeof(*tok));
	s = realloc(p->steps, (p->nr_steps + 1) * sizeof(*s));
	if (s)
		p->steps = s;
	if (!tok || !s) {
		free(tok);
		return evr_fail(p, "out of memory");
	}
	for (word = strtok(line, " \t\r"); word; word = strtok(NULL, " \t\r"))
		tok[nr++] = word;
	s += p->nr_steps;
	*s = (struct evr_step){ .line = p->line };
	ok = !nr || evr_command(p, tok, nr, s);
	if (ok && nr)
		p->nr_steps++;
	free(tok);
	return ok;
}

struct evr_script *evr_parse(const char *name, const char *text, size_t len,
			     unsigned int word_bits, char *err, size_t err_size)
{
	struct evr_parser p = {
		.name = name, .err = err, .err_size = err_size,
		.word_bits = word_bits, .nr_cpus = 1,
	};
	struct evr_script *script = calloc(1, sizeof(*script));
	size_t pos = 0;
	bool ok = script;

	if (!ok)
		evr_fail(&p, "out of memory");
	while (ok && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;
		char *line = malloc(n + 1);

		p.line++;
		if (!line) {
			ok = evr_fail(&p, "out of memory");
		} else if (memchr(text + pos, '\0', n)) {
			ok = evr_fail(&p, "NUL byte in script");
		} else {
			memcpy(line, text + pos, n);
			line[n] = '\0';
			ok = evr_line(&p, line);
		}
		free(line);
		pos += n + 1;
	}
	if (!ok) {
		free(p.steps);
		free(p.values);
		free(script);
		return NULL;
	}
	script->name = name;
	script->steps = p.steps;
	script->nr_steps = p.nr_steps;
	script->values = p.values;
	return script;
}

void evr_script_free(struct evr_script *script)
{
	if (!script)
		return;
	free((void *)script->steps);
	free((void *)script->values);
	free(script);
}
