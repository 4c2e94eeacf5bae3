/* partial_io.h - what the partials of trace compare and trace summary
 * share (SPEC 5.12, docs/slurm-array.md): strings that may not be UTF-8,
 * the inputs' records, counts.  Not a public interface. */
#ifndef STREAMTIME_TRACE_PARTIAL_IO_H
#define STREAMTIME_TRACE_PARTIAL_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "streamtime/trace.h"

/* The largest |time| a partial may hold (ts, ends, spans): far above any
 * trace's (the reader keeps |ts|, |dur| <= 2^53), low enough that their
 * differences and sums cannot overflow. */
#define ST_PARTIAL_TIME_MAX (INT64_C(1) << 60)

/* S[0..LEN) as a JSON string, or {"x": HEX} when it is not UTF-8. */
void st_partial_put_str(FILE *f, const char *s, size_t len);
/* S as st_partial_put_str, or null. */
void st_partial_put_cstr(FILE *f, const char *s);
/* Input record T: {"path", "lines", "events", "meta", "other", "bad",
 * "fast", "err_code", "err_text", "not_trace", "first_us", "end_us"}. */
void st_partial_put_file(FILE *f, const st_trace_file *t);

/* TEXT[0..LEN), the partial named WHAT, loaded (jansson FLAGS) and its
 * head checked: a JSON object with "streamtime_partial": a version from
 * OLDEST to VERSION and "command": COMMAND.  The root, or NULL with ERR
 * set (65 naming WHAT, and the line and column where the JSON is
 * invalid). */
json_t *st_partial_load(const char *text, size_t len, const char *what,
			const char *command, int oldest, int version,
			size_t flags, st_error *err);

/* V as a string: a string or {"x": HEX} into *S (owned by V or by *BUF,
 * which the caller frees), *LEN.  false when it is neither. */
bool st_partial_get_str(json_t *v, const char **s, size_t *len, char **buf);
/* Is V a string or {"x": HEX}? */
bool st_partial_is_str(json_t *v);
/* V, a string or {"x": HEX}, as a NUL-terminated copy into *OUT (the
 * caller frees it).  0, 1 neither, -1 out of memory. */
int st_partial_get_dup(json_t *v, char **out);
/* Is V an integer >= 0? */
bool st_partial_is_count(json_t *v);
/* Is V an integer within +-ST_PARTIAL_TIME_MAX? */
bool st_partial_is_time(json_t *v);
/* The input record V checked and, T not NULL, read into T (zeroed by the
 * caller), its path a copy into *PATH (the caller frees it; T->path
 * points to it).  0, 1 malformed, -1 out of memory. */
int st_partial_get_file(json_t *v, st_trace_file *t, char **path);

#endif
