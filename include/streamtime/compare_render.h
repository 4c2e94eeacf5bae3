/* compare_render.h - the table of `trace compare` and `trace merge`
 * (SPEC 5.12) written out: as text or as JSON, to a stream given.
 *
 * Text: a header row "metric  unit  CASE..." then a row per metric, a
 * by metric a row per key of any case as NAME[KEY] (NAME alone when no
 * case has a key); the unit "s" (dur in seconds: a sum with 6 decimals
 * exactly, a mean %.6f), "GiB" (bytes / 2^30, %.6f) or "count" (an
 * integer, a mean %.3f); "-" for no value; names and keys as their
 * escaped text (text.h), one line each; columns right-aligned to their
 * widest cell; a last line saying the units.
 * JSON: {"cases": [NAME...], "metrics": [{"name", "by": [KEY...] (by
 * metrics only), "values": {CASE: V}}]}, V dur in seconds, bytes and
 * counts as integers (a mean as a real), null for no value, a by
 * metric's V {KEY: V}; indented by 2, reals to 15 digits. */
#ifndef STREAMTIME_COMPARE_RENDER_H
#define STREAMTIME_COMPARE_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/trace_compare.h"

struct json_t;

enum st_compare_format { ST_COMPARE_TEXT, ST_COMPARE_JSON };

/* Write the table of the metrics M over the cases CS[0..N) (their res)
 * to F in format FMT.  0, or -1 with ERR (74: the reason, as strerror
 * says it, when memory runs out or F cannot be written). */
int st_compare_render(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n, enum st_compare_format fmt, st_error *err);

/* The JSON of the table (the object written above) of the metrics M
 * over CS[0..N).  New reference; NULL when memory runs out. */
struct json_t *st_compare_json(const st_metrics *m, const st_compare_case *cs,
			       size_t n);

#endif
