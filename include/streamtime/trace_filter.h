/* trace_filter.h - the --filter expressions of the trace commands: terms
 * on an event's strings and numbers, all of which must hold (SPEC 5.10;
 * trace_filter.c). */
#ifndef STREAMTIME_TRACE_FILTER_H
#define STREAMTIME_TRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"

/* The fields a term tests.  The first four are the events' strings (the
 * readers' string ids; their answers are cached per id); basename and
 * pattern are the file's (trace_keys.h), answered with the file; the rest are
 * numbers of each event. */
enum st_trace_field {
	ST_TRACE_NAME, ST_TRACE_CAT, ST_TRACE_HOST, ST_TRACE_FILE,
	ST_TRACE_PID, ST_TRACE_TID, ST_TRACE_BASENAME, ST_TRACE_PATTERN,
	ST_TRACE_DUR, ST_TRACE_BYTES, ST_TRACE_TS, ST_TRACE_FIELD_N
};

enum st_trace_op {
	ST_TRACE_EQ,      /* FIELD=VALUE   equal (strings and numbers) */
	ST_TRACE_SUB,     /* FIELD~VALUE   contains */
	ST_TRACE_PREFIX,  /* FIELD^VALUE   starts with */
	ST_TRACE_SUFFIX,  /* FIELD$VALUE   ends with */
	ST_TRACE_REGEX,   /* FIELD=~RE     POSIX extended regular expression,
			   * anywhere in the value (anchor with ^ $) */
	ST_TRACE_LT, ST_TRACE_LE, ST_TRACE_GT, ST_TRACE_GE,  /* numbers */
};

typedef struct st_trace_term {
	enum st_trace_field field;
	enum st_trace_op op;
	bool neg;         /* "!" before the operator */
	char *value;      /* owned */
	int64_t num;      /* the number of a numeric field */
	void *re;         /* regex_t of =~ (owned) */
	char *text;       /* the term as written, for messages (owned; =~) */
} st_trace_term;

/* All terms must hold (AND). */
typedef struct st_trace_filter {
	st_trace_term *v;
	size_t n;
} st_trace_filter;

/* Add the terms of EXPR, "TERM[,TERM...]" with TERM = FIELD OP VALUE:
 *   name, cat, host, file, basename, pattern with = ~ ^ $ =~ (equal,
 *     contains, starts with, ends with, regular expression);
 *   pid, tid, dur, bytes, ts with = < <= > >= and an integer (dur and ts
 *     in microseconds, as in the traces; an event without bytes has none:
 *     no bytes term holds for it);
 * '!' before the operator negates (name!~x, dur!=0).  Error 64 naming
 * the term: an unknown field (with a suggestion), an operator the field
 * does not take, a value that is not an integer, a bad regular
 * expression or one with a back-reference (\1: glibc may take
 * exponential time on it), and "==" (a value starting with '=':
 * "cat==POSIX" is not a silent no-match).  A regular expression is
 * searched in time linear in the text (trace_filter.c, regex_anchored). */
int st_trace_filter_parse(st_trace_filter *f, const char *expr, st_error *err);
void st_trace_filter_release(st_trace_filter *f);

/* Do the terms on FIELD (name, cat, host or file; file also answers for
 * basename and pattern) hold for S[0..LEN) (S NULL: the event has none of
 * FIELD, which no positive term matches)?  1, 0, or -1 with ERR naming
 * the term when a regular expression failed (74 out of memory, 65 any
 * other error; never with S NULL). */
int st_trace_filter_field(const st_trace_filter *f, enum st_trace_field field,
			  const char *s, size_t len, st_error *err);

/* Do the terms on an event's numbers hold (pid, tid, dur, bytes, ts;
 * BYTES < 0: none)? */
bool st_trace_filter_nums(const st_trace_filter *f, int64_t pid, int64_t tid,
			  int64_t ts, int64_t dur, int64_t bytes);

#endif
