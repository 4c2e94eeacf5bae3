/* trace_timeline_run.c - `trace timeline` as one call (trace_timeline.h):
 * one pass or two as the output asks, the inputs judged before the
 * output is published, and what became of it all as notes. */
#include <inttypes.h>

#include "streamtime/trace_sets.h"
#include "streamtime/trace_timeline.h"

#define NOTE(level, ...) \
	st_trace_notes_add(nt, level, 0, NULL, err, __VA_ARGS__)

/* Perfetto's form of every event: written in the one pass that reads,
 * the inputs judged before it is published. */
static int one_pass(const char *const *paths, size_t n,
		    const st_trace_timeline_opts *o,
		    const st_systrace_list *sets, const char *out,
		    st_trace_timeline_counts *c, st_log *log,
		    st_trace_notes *nt, st_error *err)
{
	st_trace_summary s = { 0 };
	st_ctrace_file cf;
	int r = 0;

	if (st_ctrace_file_open(&cf, out, o->gzip, err) < 0)
		return st_trace_notes_fail(nt, err);
	if (st_trace_timeline_stream(paths, n, o, &s, cf.fp, c, log,
				     err) < 0)
		r = st_trace_notes_fail(nt, err);
	else
		r = st_trace_sets_output_notes(&s, sets, "trace timeline", nt,
					       err);
	if (r < 0 || st_trace_notes_status(nt))
		st_ctrace_file_abort(&cf);
	else if (st_ctrace_file_commit(&cf, err) < 0)
		r = st_trace_notes_fail(nt, err);
	st_trace_summary_release(&s);
	return r;
}

int st_trace_timeline_run(const char *const *paths, size_t n,
			  const st_trace_timeline_opts *o,
			  const st_systrace_list *sets, const char *out,
			  st_trace_timeline_counts *c, st_log *log,
			  st_trace_notes *nt, st_error *err)
{
	st_trace_summary s = { 0 };
	int r;

	*c = (st_trace_timeline_counts){ 0 };
	if (st_trace_timeline_one_pass(o))
		r = one_pass(paths, n, o, sets, out, c, log, nt, err);
	/* every input a whole trace before the output is touched */
	else if (st_trace_timeline_scan(paths, n, o, &s, err) < 0)
		r = st_trace_notes_fail(nt, err);
	else if ((r = st_trace_sets_output_notes(&s, sets, "trace timeline",
						 nt, err)) == 0 &&
		 !st_trace_notes_status(nt) &&
		 st_trace_timeline_save(paths, n, o, &s, out, c, log,
					err) < 0)
		r = st_trace_notes_fail(nt, err);
	st_trace_summary_release(&s);
	if (r < 0 || st_trace_notes_status(nt))
		return r;
	if (c->sampled)
		r = NOTE(ST_NOTE_WARN, "trace timeline: %" PRIu64 " events, "
			 "more than --max-events: every k-th kept, %" PRIu64
			 " written (otherData.sampled says so); Perfetto's "
			 "protobuf (--format perfetto, or an --out named "
			 "*.pftrace) keeps every event", c->events,
			 c->written);
	if (r == 0 && c->extra_lanes)
		r = NOTE(ST_NOTE_VERBOSE, "trace timeline: %" PRIu64 " extra "
			 "tracks for slices that overlap without nesting",
			 c->extra_lanes);
	return r;
}
