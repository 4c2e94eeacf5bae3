/* trace_timeline.h - DFTracer traces as one Chrome trace for Perfetto
 * (SPEC 5.10): a first pass that summarises, lanes for overlapping slices,
 * the writer, what --clock-offsets and --experiment add
 * (trace_timeline.c, trace_timeline_lanes.c, trace_timeline_extras.c). */
#ifndef STREAMTIME_TRACE_TIMELINE_H
#define STREAMTIME_TRACE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/clockfix.h"
#include "streamtime/ctrace.h"
#include "streamtime/csv.h"
#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/timeline.h"
#include "streamtime/trace.h"
#include "streamtime/trace_inputs.h"

typedef struct st_trace_timeline_opts {
	const st_trace_filter *filter;      /* NULL: every event */
	uint64_t max_events;                /* 0: no limit */
	const st_clock_offsets *offsets;    /* NULL: no correction */
	const st_timeline_input *experiment;  /* NULL: none */
	int jobs;
	size_t max_bad;
	st_trace_progress *progress;        /* may be NULL */
	const st_trace_source *src;         /* NULL: DFTracer files only */
	st_ctrace_format format;            /* ctrace.h: JSON or Perfetto's */
	bool gzip;                          /* the file gzipped (_save) */
} st_trace_timeline_opts;

typedef struct st_trace_timeline_counts {
	uint64_t events;          /* X events read (after the filter) */
	uint64_t written;         /* trace X events written */
	uint64_t processes;
	uint64_t experiment_events;
	uint64_t corrected_hosts;
	uint64_t extra_lanes;     /* tracks added for overlapping slices */
	bool sampled;
} st_trace_timeline_counts;

/* Give each of the N slices V[i] = [s, e) of one track a lane, LANE[i],
 * so that the slices of a lane nest: sorted by start (the longer first on
 * ties), each ends within the slice that encloses it.  Greedy, in that
 * order: a slice goes on the first lane whose open slices all enclose it
 * (or that has none open), so properly nested slices stay on their
 * parent's lane and only partial overlaps open new ones.  O(n log n);
 * the result depends only on the intervals.  Returns the number of lanes
 * (0 for no slices), or -1 when memory runs out. */
int64_t st_trace_lanes(const st_trace_iv *v, size_t n, uint32_t *lane);

/* The timeline's first pass: summarise PATHS as st_trace_timeline_write
 * needs it (O's filter, no unions) into S, which must be released.  S's
 * files_in say which inputs are missing, damaged or not a trace at all,
 * so that the caller can refuse them before it creates any output.
 * Returns 0, or -1 with ERR set when memory runs out. */
int st_trace_timeline_scan(const char *const *paths, size_t n,
			   const st_trace_timeline_opts *o,
			   st_trace_summary *s, st_error *err);

/* Write one Chrome trace (object form) of PATHS to OUT, S being what
 * st_trace_timeline_scan gave for the same PATHS and O: a process per
 * (host, pid), pids 1..P in (host, pid) order, named "HOST pid PID", a
 * track per thread (tid as read, named "tid T"), an X slice per event
 * (args: file, bytes).  Slices of a thread that overlap without nesting
 * go on extra tracks of its process, "tid T (2)", "tid T (3)", ... (lanes
 * by st_trace_lanes; their tids are free numbers above the process's
 * largest tid), kept next to it by thread_sort_index; every track nests.
 * No event (none read, or none the filter keeps) is a valid trace with
 * no slice.  With the scan, this reads the files three times (counts;
 * the slices' tracks and times; writing) and holds 24 bytes per slice
 * written while giving lanes, 4 while writing.  When there are more than
 * max_events events, every k-th is kept (evenly, exactly max_events of
 * them) and otherData.sampled says so.  With offsets, each host's ts is
 * corrected by its nearest measurement (a host never measured is left
 * alone, with a warning to LOG).  With experiment, its stages follow as
 * processes P+1..P+6 (st_timeline_append).  Error 74 on a write error,
 * 65/66 from the experiment's inputs, 64 beyond 2^32-1 slices. */
int st_trace_timeline_write(const char *const *paths, size_t n,
			    const st_trace_timeline_opts *o,
			    const st_trace_summary *s, FILE *out,
			    st_trace_timeline_counts *c, st_log *log,
			    st_error *err);

/* Perfetto's form (O->format) keeps no lanes: a thread is one track, and
 * its processes are numbered as they first come, named as above: 1, 2, ...
 * by one writer; with O->jobs > 1, several inputs and no system traces or
 * clock offsets, each input i (from 0) of N is written apart, in parallel,
 * and its processes are i + 1 + k (N + 1) (a process whose events are in
 * two inputs is then two processes of the same name).
 * Does it need no first pass: every event kept (no max_events)?  Then
 * st_trace_timeline_stream writes it in one pass. */
bool st_trace_timeline_one_pass(const st_trace_timeline_opts *o);

/* st_trace_timeline_write without a first pass (st_trace_timeline_one_pass
 * true): the one pass that writes also records into S (zeroed first;
 * release it in every case) what st_trace_timeline_scan would for the
 * inputs' notes: files_in (missing, damaged, not a trace, each file's
 * span), the corrupt lines, the events kept.  So the caller judges the
 * inputs after writing and before publishing OUT.  0, or -1 with ERR set
 * as st_trace_timeline_write. */
int st_trace_timeline_stream(const char *const *paths, size_t n,
			     const st_trace_timeline_opts *o,
			     st_trace_summary *s, FILE *out,
			     st_trace_timeline_counts *c, st_log *log,
			     st_error *err);

/* st_trace_timeline_write to the file OUT ("-": stdout), whole or not at
 * all (atomic.h), gzipped when O->gzip: nothing is left behind when it
 * fails.  0, or -1 with ERR set. */
int st_trace_timeline_save(const char *const *paths, size_t n,
			   const st_trace_timeline_opts *o,
			   const st_trace_summary *s, const char *out,
			   st_trace_timeline_counts *c, st_log *log,
			   st_error *err);

/* `trace timeline` whole: st_trace_timeline_stream into the atomic OUT
 * when st_trace_timeline_one_pass(O), else st_trace_timeline_scan, then
 * st_trace_timeline_save; the inputs (and the sets SETS among them, may
 * be NULL) judged before OUT is published (st_trace_sets_output_notes).
 * What became of the inputs, a failure, and after a timeline written the
 * warning that it was sampled and (verbose) its extra tracks go into NT
 * in the order to say them; its status is the command's, and C counts
 * what was written.  0, or -1 with ERR set when memory runs out. */
int st_trace_timeline_run(const char *const *paths, size_t n,
			  const st_trace_timeline_opts *o,
			  const st_systrace_list *sets, const char *out,
			  st_trace_timeline_counts *c, st_log *log,
			  st_trace_notes *nt, st_error *err);

/* What --clock-offsets and --experiment bring to a timeline, owned. */
typedef struct st_trace_timeline_extras {
	st_table otab;                 /* the clock probe's file */
	st_clock_offsets offs;
	st_experiments ex;
	char *config;                  /* the experiments' file; NULL: the
					* paper's */
	char *merged, *stdir, *wt, *created;  /* the experiment's inputs */
	st_timeline_input tin;
} st_trace_timeline_extras;

/* The clock offsets of the `clock probe` file OFFSETS into X, O->offsets
 * then pointing at them; the experiment EXP_DIR (`reproduce --out DIR`;
 * with DATA, the dataset, and CONFIG, as `streamtime timeline` takes
 * them: st_experiments_given) into X, O->experiment then pointing at it,
 * its inputs checked before any output is touched: the first that is
 * missing or unreadable is an error note (66) in NT, the experiments
 * read a verbose one ("experiments: FILE").  Each of OFFSETS, EXP_DIR,
 * DATA and CONFIG may be NULL (not given).  0 (an error note in NT then
 * stops the command), or -1 with ERR set.  Release X in every case
 * (zeroed first). */
int st_trace_timeline_extras_load(st_trace_timeline_extras *x,
				  st_trace_timeline_opts *o,
				  const char *offsets, const char *exp_dir,
				  const char *data, const char *config,
				  st_trace_notes *nt, st_error *err);

void st_trace_timeline_extras_release(st_trace_timeline_extras *x);

#endif
