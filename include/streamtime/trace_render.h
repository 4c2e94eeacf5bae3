/* trace_render.h - `trace summary`'s output: the summary of DFTracer
 * traces (trace.h) as text and as JSON (README, trace summary; SPEC
 * 5.10).  `trace summary`, `trace merge` and a binding share them. */
#ifndef STREAMTIME_TRACE_RENDER_H
#define STREAMTIME_TRACE_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/trace.h"

struct json_t;

/* What the output shows besides the summary: the options it was
 * computed with (the I/O and compute categories named, the time bins'
 * width) and --group-by and --per as given (GROUP NULL: no groups; PER
 * NULL: pid). */
typedef struct st_trace_render {
	const st_trace_opts *o;
	const char *group, *per;
} st_trace_render;

/* S as text to F: the counts, span, I/O and compute lines, the tables of
 * categories and functions (largest dur first, ties by key), the groups'
 * table (with R->group) and the time bins' (o->granularity_us > 0).
 * Seconds are written exactly from the microseconds (S.UUUUUU).  0, or
 * -1 with ERR set (74: out of memory; a write error shows in F). */
int st_trace_summary_text(FILE *f, const st_trace_summary *s,
			  const st_trace_render *r, st_error *err);

/* S as the JSON object of `trace summary --json`: "events", "bad_lines",
 * "hosts", "processes", "threads", "files", "span_us", "by_cat",
 * "by_name", the I/O and compute times, with R->group "group_by", "per"
 * and "groups", with time bins "time_granularity_us" and "bins".  New
 * reference; NULL when memory runs out. */
struct json_t *st_trace_summary_json(const st_trace_summary *s,
				     const st_trace_render *r);

/* J (stolen; NULL: memory ran out) to F, indented by 2, and a newline.
 * 0, or -1 with ERR set (74 naming WHAT, e.g. "the summary"). */
int st_trace_json_write(FILE *f, struct json_t *j, const char *what,
			st_error *err);

/* Name S[0..LEN) as a JSON string value (text.h): as it is when it is
 * UTF-8, else its escaped text; with HEX (may be NULL) its bytes in hex
 * appended to the array HEX.  New reference; NULL out of memory. */
struct json_t *st_trace_name_json(const char *s, size_t len,
				  struct json_t *hex);

#endif
