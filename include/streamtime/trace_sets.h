/* trace_sets.h - the system-trace directories among a trace command's
 * inputs, open as sets and as one trace source (systrace.h). */
#ifndef STREAMTIME_TRACE_SETS_H
#define STREAMTIME_TRACE_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/systrace.h"
#include "streamtime/trace.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/tz.h"

/* The system-trace options of the trace commands (--date, --tz,
 * --names; NULL when not given). */
struct st_trace_sys_opts {
	const char *date, *tz, *names;
};

/* System-trace sets open, as a trace source. */
struct st_trace_sets {
	st_systrace_list sets;
	st_trace_source src;
	st_tz *tz;         /* --tz, used by the sets while they live */
	/* st_trace_sets_phases: the phases' segments and their names
	 * (st_trace_opts.seg_us, nseg, seg_phase), owned */
	int64_t *seg;
	size_t nseg;
	const char **phase;
};

/* Is every DIRS[0..N) a directory of system traces?  An error note for
 * each that is not: 66 missing (naming it and why), 65 not a set.  0,
 * or -1 with ERR set (74) when memory runs out. */
int st_trace_sets_check(char *const *dirs, size_t n, st_trace_notes *nt,
			st_error *err);

/* Open DIRS[0..N) as system-trace sets with SO (their small files read
 * now), each set's call files appended to *PATHS (*NPATHS of them, owned
 * by the caller; PATHS may be NULL), TS->src their source.  What a
 * record's manifest says went wrong (an incomplete record, bpftrace's
 * lost events, its output read unsplit) is a warning note in NT.
 * Returns 0 when all opened, else -1 with ERR set (the first set that
 * failed; those before it stay open in TS). */
int st_trace_sets_open(struct st_trace_sets *ts, char *const *dirs, size_t n,
		       const struct st_trace_sys_opts *so, size_t max_bad,
		       char ***paths, size_t *npaths, st_trace_notes *nt,
		       st_error *err);

/* The FILE arguments ARGS[0..N) into IN (st_trace_inputs_collect) and,
 * when NT then holds no error, the system-trace directories among them
 * opened into TS with SO (st_trace_sets_open), their call files added to
 * IN's paths.  0 (what the inputs are in NT), or -1 with ERR set.
 * Release IN and TS in every case. */
int st_trace_sets_collect(struct st_trace_inputs *in, struct st_trace_sets *ts,
			  char *const *args, size_t n,
			  const struct st_trace_sys_opts *so, size_t max_bad,
			  st_trace_notes *nt, st_error *err);

/* The phase key's segments of TS's sets into TS->seg, nseg and phase
 * (st_systrace_segments, st_systrace_phase_names): the phase of an
 * event of inputs read with these sets is from these sets' phases only.
 * 0, or -1 with ERR set (74 out of memory). */
int st_trace_sets_phases(struct st_trace_sets *ts, st_error *err);

/* O set to summarise the events of TS's sets (nothing when TS holds no
 * set): O->src their source, the phases' segments (st_trace_sets_phases)
 * as O's seg_us, nseg and seg_phase, and, when O names no I/O category,
 * POSIX, STDIO, syscall and block (static).  0, or -1 with ERR set (74
 * out of memory). */
int st_trace_sets_summary_opts(struct st_trace_sets *ts, st_trace_opts *o,
			       st_error *err);

/* What is to be said of the sets L (bpftrace, mpstat, pmon, MLPerf
 * files) besides their calls: the first ten of their corrupt lines,
 * "FILE:LINE: corrupt line skipped: WHY", and how many more the sample
 * files had, as warnings in NT.  0, or -1 with ERR set (74). */
int st_trace_sets_notes(const st_systrace_list *l, st_trace_notes *nt,
			st_error *err);

/* What is to be said after a summary S of inputs with the sets L (may
 * be NULL): st_trace_inputs_report's notes, then L's
 * (st_trace_sets_notes), then st_trace_span_report's, into NT.  0, or
 * -1 with ERR set (74). */
int st_trace_sets_summary_notes(const st_trace_summary *s,
				const st_systrace_list *l, st_trace_notes *nt,
				st_error *err);

/* st_trace_sets_summary_notes, then, when those fail the command, "WHAT:
 * nothing written (an output file is left as it was)".  0, or -1 with
 * ERR set (74). */
int st_trace_sets_output_notes(const st_trace_summary *s,
			       const st_systrace_list *l, const char *what,
			       st_trace_notes *nt, st_error *err);

void st_trace_sets_release(struct st_trace_sets *ts);

#endif
