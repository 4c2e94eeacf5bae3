/* trace_compare.h - `trace compare` (SPEC 5.12): the DFAnalyzer
 * notebook's table, a row per metric, a column per case, every metric of
 * a case computed in one pass over its files.
 *
 * A metrics file is a JSON array of objects, each with the fields
 *   name    a non-empty string, unique in the file;
 *   filter  optional: a --filter expression ("cat=POSIX,file^/p/ssd"), or
 *           an array of them, all ANDed (trace.h);
 *   value   "dur" (microseconds, written in seconds), "bytes"
 *           (st_pfw_event_bytes; an event without bytes adds 0) or
 *           "count" (each event adds 1);
 *   per     optional: keys (trace_keys.h) as "pattern,pid" or
 *           ["pattern", "pid"];
 *   reduce  "max", "min", "sum" or "mean"; optional (then "sum") only
 *           when there is no per;
 *   by      optional: keys as per: the metric is a table, a value per
 *           distinct by key (computed as below over that key's events
 *           only), instead of one value;
 *   events  optional: "csv" or "jsonl": the metric also writes the
 *           events its filter keeps, exactly as `trace events --format
 *           F` would over the case's inputs (trace_events.h), to the
 *           stream st_compare_case.events_out gives; its name then
 *           cannot hold '/' nor begin with '.' (it names a file);
 *   keys    optional, only with events: the derived columns (trace
 *           events --keys; default "basename,pattern"; "" none);
 * and no other; by and per hold ST_TRACE_KEYS_MAX keys at most together.
 * The metric selects the events its filter keeps, adds up their value
 * per distinct per key (a key is the tuple of the keys'
 * values; an event without a value of a key, e.g. no file, has the key
 * "none" for it, distinct from every string), then reduces over the
 * keys: the largest, the smallest, the sum, or the mean of the per-key
 * sums.  Without per there is one key, the total.  A metric that selects
 * no event has no value (none, not 0): JSON null, "-" in the text table.
 * Sums stop at INT64_MAX (st_compare_case.saturated says so).  A by
 * metric's rows are its keys that selected an event, each shown as
 * `trace summary --group-by` shows a group: the values joined by ','
 * (a ',' or '\' inside one escaped with '\' when there are several),
 * pid "HOST:PID", thread "HOST:PID:TID" (HOST "?" when none), no value
 * "(none)"; sorted by that text (bytes).
 */
#ifndef STREAMTIME_TRACE_COMPARE_H
#define STREAMTIME_TRACE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/trace.h"
#include "streamtime/trace_events.h"
#include "streamtime/trace_keys.h"

enum st_metric_value { ST_METRIC_DUR, ST_METRIC_BYTES, ST_METRIC_COUNT };
enum st_metric_reduce { ST_REDUCE_MAX, ST_REDUCE_MIN, ST_REDUCE_SUM,
			ST_REDUCE_MEAN };

typedef struct st_metric {
	char *name;                 /* owned */
	st_trace_filter filter;     /* no terms: every event */
	enum st_metric_value value;
	st_trace_keys per;          /* n 0: the total */
	enum st_metric_reduce reduce;
	st_trace_keys by;           /* n 0: one value */
	bool events;                /* writes its events */
	enum st_trace_events_format format;
	st_trace_keys cols;         /* the events' derived columns */
} st_metric;

typedef struct st_metrics {
	st_metric *v;
	size_t n;
} st_metrics;

/* Parse the metrics file TEXT[0..LEN) named WHAT (for messages) into M
 * (set afresh).  Errors are 78 (a bad configuration) and name WHAT, the
 * metric (its index from 1 and name) and the field: invalid JSON
 * (WHAT:LINE:COLUMN), not an array, no metric, a metric not an object, a
 * field unknown (with what was meant when it is close), missing or of
 * the wrong type, a name given twice, a value or reduce not one of its
 * words (with what was meant), a bad filter or key.  74 when memory runs
 * out.  Release M in every case. */
int st_metrics_parse(st_metrics *m, const char *text, size_t len,
		     const char *what, st_error *err);

/* st_metrics_parse of the file PATH: 66 when it cannot be read. */
int st_metrics_load(st_metrics *m, const char *path, st_error *err);

void st_metrics_release(st_metrics *m);

/* --events-dir DIR (NULL: not given) and --save-partial (PARTIAL) of
 * `trace compare` against the metrics M: DIR given, and not empty,
 * exactly when a metric writes events, and no partial then.  0, or -1
 * with ERR set (64, naming the metric). */
int st_metrics_events_check(const st_metrics *m, const char *dir,
			    bool partial, st_error *err);

/* A metric's word for its value or reduce ("dur", "max"). */
const char *st_metric_value_name(enum st_metric_value v);
const char *st_metric_reduce_name(enum st_metric_reduce r);

struct st_metric_row;

/* One metric's answer for a case. */
typedef struct st_metric_result {
	bool has;          /* false: no event selected */
	uint64_t keys;     /* distinct per keys seen (a by metric's: by and
			    * per keys) */
	int64_t v;         /* max, min, sum: microseconds, bytes, a count */
	double mean;       /* mean: the per-key sums' mean, same units */
	struct st_metric_row *rows;  /* a by metric's: one per by key */
	size_t n_rows;
} st_metric_result;

/* A row of a by metric: its key as shown (owned) and its answer. */
typedef struct st_metric_row {
	char *key;
	st_metric_result r;
} st_metric_row;

/* One case: its inputs in, its answers out. */
typedef struct st_compare_case {
	const char *name;
	const char *const *paths;  /* the case's trace files */
	size_t n;
	const st_trace_source *src;  /* NULL: DFTracer files only */
	/* the phase key: the segments of the case's system-trace sets
	 * and their phases (st_trace_opts.seg_us, nseg, seg_phase); NULL,
	 * 0: every event's phase is none */
	const int64_t *seg_us;
	size_t nseg;
	const char *const *seg_phase;
	FILE **events_out;           /* per metric: where an events metric
				      * writes its rows (NULL for the
				      * others); NULL when none does */
	/* out */
	st_metric_result *res;       /* one per metric */
	size_t n_res;
	uint64_t events;             /* X events read (before filters) */
	uint64_t bad_lines;
	bool saturated;
	st_trace_file *files_in;     /* one per path */
	size_t n_files;
	st_trace_bad *bad;           /* the first max_bad corrupt lines */
	size_t n_bad;
	struct st_compare_state *state;  /* the per-key tables (opts keep) */
} st_compare_case;

typedef struct st_compare_opts {
	const st_metrics *metrics;
	int jobs;                    /* threads; < 1 means 1 */
	size_t max_bad;
	st_trace_progress *progress; /* may be NULL */
	bool keep;                   /* keep the per-key tables in state,
				      * for st_compare_partial_write */
} st_compare_opts;

/* Compute every metric of O for each case of CASES[0..N), each file
 * read once: O->jobs threads take the files (of all cases, in order) one
 * at a time, each gathering per case into tables of its own, merged by
 * key at the end, so the answers do not depend on the threads.  An
 * input that cannot be opened, a damaged gzip stream or a read error is
 * recorded in the case's files_in (what was read before it counts), as
 * st_trace_summarize does.  An events metric's rows come in the order
 * of the case's paths (the rows of a file read out of turn wait in a
 * temporary file, one per thread, case and metric, until its turn).  Returns 0,
 * or -1 with ERR set when memory runs out or an events stream cannot be
 * written (74, naming the case and the metric).  Release each case with
 * st_compare_case_release, in every case. */
int st_trace_compare(st_compare_case *cases, size_t n,
		     const st_compare_opts *o, st_error *err);

void st_compare_case_release(st_compare_case *c);

/* ---- partials (SPEC 5.12, docs/slurm-array.md) -----------------------
 *
 * A partial is what `trace compare --save-partial` keeps of its cases so
 * that `trace merge` gives exactly the table one process would give over
 * the inputs of all the partials: per case, per metric, the sum of every
 * per key (a by metric's: by key then per key; its components as
 * strings, pid and tid as numbers), and the
 * inputs' records (files, corrupt-line counts, the first corrupt lines).
 * It is one JSON object:
 *   {"streamtime_partial": 1, "command": "trace compare",
 *    "metrics": TEXT of the metrics file, "cases": [
 *      {"name", "events", "bad_lines", "saturated",
 *       "phases": {"bounds": [US...], "names": [NAME|null...]} (only
 *                  when the case has system-trace phases: its seg_us
 *                  and seg_phase),
 *       "files": [{"path", "lines", "events", "meta", "other", "bad",
 *                  "fast", "err_code", "err_text", "not_trace",
 *                  "first_us", "end_us"}],
 *       "bad": [{"file": INDEX, "line", "why"}],
 *       "metrics": [{"name", "keys": [[COMP...]...], "sums": [N...]}]}]}
 * A string component that is not UTF-8 is {"x": HEX}; a key without a
 * value (no file, no phase) is null; a phase is its name. */
#define ST_COMPARE_PARTIAL_VERSION 1

/* Write the partial of CS[0..N) (computed with opts keep) and metrics M
 * from the file text METRICS_TEXT to F.  0, -1 out of memory or a write
 * error (ferror). */
int st_compare_partial_write(FILE *f, const char *metrics_text,
			     const st_metrics *m, const st_compare_case *cs,
			     size_t n);

/* Partials being merged: cases by name, in the order first seen. */
typedef struct st_compare_merge {
	char *metrics_text;    /* of the first partial */
	char *first;           /* its name */
	st_metrics m;
	st_compare_case *cases;
	size_t n;
	char **paths;          /* the inputs' paths (owned) */
	size_t n_paths;
} st_compare_merge;

/* Add the partial TEXT[0..LEN) named WHAT to MG (zeroed at first).
 * Errors 65 naming WHAT (and the line where JSON is invalid): not JSON,
 * truncated, not a partial of trace compare, another version, metrics
 * other than the first partial's (naming both), a malformed field, a
 * case whose phases differ from its phases in an earlier partial when a
 * metric has the key phase (the event's phase is from the sets its
 * process was given: the merge would not be exact); MG
 * is left as it was; metrics that write events (no partial holds
 * them).  74 out of memory. */
int st_compare_merge_add(st_compare_merge *mg, const char *text, size_t len,
			 const char *what, st_error *err);

/* The answers of MG's cases into their res, the first MAX_BAD corrupt
 * lines kept.  0, -1 out of memory (74). */
int st_compare_merge_finish(st_compare_merge *mg, size_t max_bad,
			    st_error *err);

void st_compare_merge_release(st_compare_merge *mg);

#endif
