/* sum_partial.h - partials of `trace summary` (SPEC 5.12, issue 16 item
 * 5, docs/slurm-array.md).
 *
 * A summary partial is what `trace summary --save-partial` keeps of its
 * run so that `trace merge` gives exactly the summary (text and --json)
 * one `trace summary` process gives over the inputs of all the partials:
 * what the threads gathered, merged but not finished (every count, sum
 * and maximum's per-unit sums by key as strings, the (name, bytes) counts
 * the quartiles come from, each process's I/O and compute intervals as
 * their union, the time bins' counts), the options that change the
 * computation, and the inputs' records.  One JSON object:
 *   {"streamtime_partial": 1, "command": "trace summary",
 *    "options": {"filter": [TERM...], "io_cats": null | [CAT...],
 *                "compute_cats": null | [CAT...], "group_by": null | KEYS,
 *                "per": null | KEYS, "time_granularity_us": N},
 *    "events", "first_us", "end_us", "saturated", "bad_lines",
 *    "files": [{"path", "lines", "events", "meta", "other", "bad",
 *               "fast", "err_code", "err_text", "not_trace", "first_us",
 *               "end_us"}],
 *    "bad": [{"file": INDEX, "line", "why"}],
 *    "tables": {"name" | "cat" | "host" | "file" | "group" | "per":
 *               [[STRING, count, dur, bytes]...]},
 *    "procs": [[HOST, pid, events, [s, e, ...I/O], [s, e, ...compute]]],
 *    "threads": [[PROC, tid]...], "sizes": [[NAME, bytes, count]...],
 *    "gper": [[GROUP, 2 PER (dur) | 2 PER + 1 (bytes), sum]...],
 *    "bins": [[BIN, 0 events | 1 bytes, sum]...]}
 * HOST, PROC, NAME, GROUP and PER are indexes into the tables and procs
 * of the same partial; a group's or unit's string joins its keys' values
 * by NUL; a string that is not UTF-8 is {"x": HEX}.  The filter's terms
 * are written canonically (FIELD[!]OP VALUE, sorted), so "--filter a,b"
 * and "--filter b --filter a" are the same options; --group-by and --per
 * as given (they are shown). */
#ifndef STREAMTIME_SUM_PARTIAL_H
#define STREAMTIME_SUM_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/trace.h"

/* Version 2 added the bins' bytes read and written; a version 1 partial
 * still merges when it has no bins (no --time-granularity). */
#define ST_SUM_PARTIAL_VERSION 2
#define ST_SUM_PARTIAL_OLDEST 1

/* What `trace summary --save-partial` writes, made and not yet written. */
typedef struct st_sum_partial st_sum_partial;

/* `trace summary --save-partial`: summarise PATHS[0..N) with SO (GROUP
 * and PER the --group-by and --per texts, NULL when not given) into a
 * partial.  S gets the inputs' records only (files_in, bad, bad_lines,
 * saturated), for what is said about them (trace_inputs.h) before the
 * partial is written; release it either way.  New (st_sum_partial_free),
 * or NULL with ERR set: 64 when SO reads system traces (a source or
 * segments: the partial has no room for their sets) or skips the
 * unions, else as st_trace_summarize. */
st_sum_partial *st_sum_partial_new(const char *const *paths, size_t n,
				   const st_trace_opts *so, const char *group,
				   const char *per, st_trace_summary *s,
				   st_error *err);

/* The partial P, S the records st_sum_partial_new gave with it, to F.
 * 0, or -1 with ERR set (74). */
int st_sum_partial_write(FILE *f, st_sum_partial *p,
			 const st_trace_summary *s, st_error *err);

void st_sum_partial_free(st_sum_partial *p);

/* The command a partial TEXT[0..LEN) names ("trace summary", "trace
 * compare", ...) into BUF (SIZE bytes), or NULL when it is no JSON object
 * with a string "command". */
const char *st_partial_command(const char *text, size_t len, char *buf,
			       size_t size);

struct st_sum_merge_state;

/* Summary partials being merged. */
typedef struct st_sum_merge {
	const st_trace_opts *o;     /* the partials' options (no filter: its
				     * terms only had to agree), NULL
				     * before the first partial */
	const char *group, *per;    /* --group-by and --per as given, NULL
				     * when not */
	struct st_sum_merge_state *state;
} st_sum_merge;

/* Add the partial TEXT[0..LEN) named WHAT to MG (zeroed at first).
 * Errors 65 naming WHAT (and the line where the JSON is invalid): not
 * JSON, truncated, not a partial of trace summary, another version,
 * options other than the first partial's (naming both and the option),
 * a malformed field; MG is left as it was.  74 out of memory. */
int st_sum_merge_add(st_sum_merge *mg, const char *text, size_t len,
		     const char *what, st_error *err);

/* The summary of every partial added (at least one) into S, as
 * st_trace_summarize would give it over all their inputs (the first
 * MAX_BAD corrupt lines kept, in the order of the partials, then of
 * their files and lines); S's input paths are borrowed from MG, so
 * release S first.  0, or -1 with ERR set (64 too many time bins, 74). */
int st_sum_merge_finish(st_sum_merge *mg, size_t max_bad,
			st_trace_summary *s, st_error *err);

void st_sum_merge_release(st_sum_merge *mg);

/* The partial P that st_sum_partial_new made, with its records S, added
 * to MG without writing it out (as st_sum_merge_add of what
 * st_sum_partial_write gives; P's gatherings are taken: free P after,
 * never write it).  WHAT names it in messages.  0, or -1 with ERR set: 65
 * other options than the first partial's (MG as it was), 74 out of
 * memory (release MG). */
int st_sum_merge_add_partial(st_sum_merge *mg, st_sum_partial *p,
			     const st_trace_summary *s, const char *what,
			     st_error *err);

/* The binary form of a partial, for the result cache (trace_cache.h):
 * what st_sum_partial_write writes (of P, or of everything added to MG
 * before st_sum_merge_finish: the partial the same inputs give in one
 * run), as little-endian words (not for --save-partial: only this
 * streamtime reads it).  0, -1 a write error. */
int st_sum_partial_write_bin(FILE *f, st_sum_partial *p,
			     const st_trace_summary *s);
int st_sum_merge_write_bin(FILE *f, const st_sum_merge *mg);

/* st_sum_merge_add of a binary partial TEXT[0..LEN), under the same
 * checks (65 naming WHAT when it is malformed; MG left as it was). */
int st_sum_merge_add_bin(st_sum_merge *mg, const char *text, size_t len,
			 const char *what, st_error *err);

/* What of SO (and the --group-by and --per texts GROUP and PER) changes
 * a summary, as a partial's "options" (compact, keys sorted): a key of
 * the result cache (trace_cache.h).  New, or NULL out of memory. */
char *st_sum_partial_options(const st_trace_opts *so, const char *group,
			     const char *per);


#endif
