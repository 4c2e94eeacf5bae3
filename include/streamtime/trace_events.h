/* trace_events.h - `trace events`: the selected events of traces as a
 * table, a row per event, for the drill-downs a tool does not answer
 * itself (issue 16).
 *
 * Columns, in this order:
 *   ts, dur     microseconds, as in the trace (ts since the epoch);
 *   start, end  ts and ts + dur as UTC instants (st_time_format_utc:
 *               "2024-09-26T21:48:27.981693+00:00", the fraction only
 *               when there is one);
 *   host, pid, tid, name, cat, file   as read (pfw.h: hashes resolved);
 *   bytes       st_pfw_event_bytes; none when the event moved no data
 *               we know of;
 *   then one column per derived key asked (trace_keys.h), named as the
 *   key ("pattern", "prefix:2").
 * A value the event does not have (host, file, bytes, a key of a file)
 * is an empty cell in CSV and null in JSON lines.
 *
 * CSV (RFC 4180, st_csv_write_row): a header row, then a row per event;
 * a cell is quoted when it holds a comma, a quote, or begins or ends
 * with a blank.  Every row is one line: text cells hold the escaped
 * text of the name (text.h: a control character "\u00XX", a backslash
 * "\\", a byte outside UTF-8 "\xHH"), so the exact bytes come back by
 * undoing those escapes.  JSON lines: an object per event, a text column
 * the name itself (JSON's escapes, NUL as \u0000) when it is UTF-8, else
 * its escaped text and a member COLUMN_hex ("file_hex") with its bytes.
 *
 * Rows come in the order of the paths, each file's in its order; the
 * files are read one after the other, once, in memory bounded by the
 * reader's (pfw.h).
 */
#ifndef STREAMTIME_TRACE_EVENTS_H
#define STREAMTIME_TRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/atomic.h"
#include "streamtime/error.h"
#include "streamtime/trace.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/strtab.h"
#include "streamtime/trace_keys.h"

enum st_trace_events_format { ST_TRACE_EVENTS_CSV, ST_TRACE_EVENTS_JSONL };

typedef struct st_trace_events_opts {
	const st_trace_filter *filter;      /* NULL: every event */
	const st_trace_keys *keys;          /* derived columns; NULL: none */
	enum st_trace_events_format format;
	uint64_t limit;                     /* at most this many rows; 0:
					     * no limit */
	size_t max_bad;                     /* corrupt lines kept by number */
	st_trace_progress *progress;        /* may be NULL */
	const st_trace_source *src;         /* NULL: DFTracer files; else
					     * each path opened by its open
					     * (system traces: systrace.h) */
	/* the phase key: the phases of the system-trace sets read
	 * (st_trace_opts.seg_us, nseg, seg_phase); NULL, 0: none */
	const int64_t *seg_us;
	size_t nseg;
	const char *const *seg_phase;
} st_trace_events_opts;

/* What became of the inputs, as a summary says it (trace.h). */
typedef struct st_trace_events_result {
	uint64_t rows;             /* events written */
	uint64_t events;           /* X events read (before the filter) */
	uint64_t bad_lines;
	bool limited;              /* stopped at the limit: the rest of the
				    * inputs was not read */
	bool write_failed;         /* the error is OUT's ... */
	int write_errno;           /* ... and this its errno */
	st_trace_file *files_in;   /* the inputs read (all of them unless
				    * limited), in order */
	size_t n_files;
	st_trace_bad *bad;         /* the first max_bad corrupt lines */
	size_t n_bad;
} st_trace_events_result;

/* Is K a column of its own already (host, pid, name, cat, file), so
 * that it cannot be a derived column too? */
bool st_trace_events_key_is_column(const st_trace_key *k);

/* --keys LIST (st_trace_keys_parse) into K: the derived columns, none
 * of them a column already (64 naming it).  0, or -1 with ERR set. */
int st_trace_events_keys_parse(st_trace_keys *k, const char *list,
			       st_error *err);

/* Write the header and a row per event of PATHS[0..N) that O's filter
 * keeps to OUT.  An input that cannot be opened, a damaged gzip stream
 * or a read error is recorded in RES->files_in (err_code, err_text: what
 * was read before it is written) and the next input is read; so is a
 * file with no event of any phase (not_trace).  Returns 0, or -1 with
 * ERR set: 74 when OUT cannot be written (RES->write_failed) or memory
 * runs out (RES then says what was read), 64 when a key is a column
 * already.  Release RES
 * in every case. */
int st_trace_events_write(const char *const *paths, size_t n,
			  const st_trace_events_opts *o, FILE *out,
			  st_trace_events_result *res, st_error *err);

void st_trace_events_result_release(st_trace_events_result *res);

/* st_trace_events_write to AF, open on the file OUT ("-": stdout, as
 * the rows come; atomic.h), then what is to be said into NT: the corrupt
 * lines of the system-trace sets SETS (st_trace_sets_notes), then what
 * became of the inputs read (st_trace_inputs_report).  AF is committed
 * when the writing went well and NT holds no error, else aborted
 * (standard output has had the rows before a fault).  0, or -1 with ERR
 * set: st_trace_events_write's error ("cannot write OUT: REASON" when it
 * is OUT's), the commit's, or 74.  Release RES in every case. */
int st_trace_events_save(st_atomic_file *af, const char *out,
			 const char *const *paths, size_t n,
			 const st_trace_events_opts *o,
			 const st_systrace_list *sets,
			 st_trace_events_result *res, st_trace_notes *nt,
			 st_error *err);

/* ---- the events as columns (trace_events_cols.c) ---------------------
 *
 * The rows st_trace_events_write would write, kept in memory as columns
 * for a binding (the Python module, python/): the numbers as they are,
 * each text as its bytes interned in STRS (a cell's id; the same text,
 * the same id), start and end left to the caller (ts, ts + dur). */
#define ST_TRACE_COL_NONE UINT32_MAX

typedef struct st_trace_event_cols {
	size_t n;                          /* rows */
	int64_t *ts, *dur, *pid, *tid;
	int64_t *bytes;                    /* < 0: none */
	uint32_t *host, *name, *cat, *file;  /* ids in strs;
					      * ST_TRACE_COL_NONE: none */
	size_t nkeys;                      /* the derived columns */
	char knames[ST_TRACE_KEYS_MAX][16];  /* their names */
	uint32_t *key[ST_TRACE_KEYS_MAX];  /* their cells, as above */
	st_strtab strs;
	struct st_trace_cols_state *state;  /* while reading */
} st_trace_event_cols;

/* The rows of PATHS[0..N) that O's filter keeps, with O's keys, limit,
 * source and phases (its format is not used), into C (set afresh), what
 * became of the inputs into RES as st_trace_events_write says it.
 * 0, or -1 with ERR set: 74 out of memory (RES then says what was
 * read), 64 a key that is a column already.  Release C and RES in every
 * case. */
int st_trace_events_cols(const char *const *paths, size_t n,
			 const st_trace_events_opts *o,
			 st_trace_event_cols *c, st_trace_events_result *res,
			 st_error *err);

void st_trace_event_cols_release(st_trace_event_cols *c);

#endif
