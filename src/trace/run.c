/* run.c - the trace commands at file level: read, check, write the output
 * atomically (nothing is written when an input is refused). */
#include <inttypes.h>
#include <stdio.h>

#include "streamtime/atomic.h"
#include "streamtime/trace.h"

/* The caller's check of the first pass; -1 with *CHECK_RC set when it
 * refuses. */
static int check(const st_trace_run_opts *o, const st_trace_summary *s,
		 int *check_rc)
{
	*check_rc = o->check ? o->check(o->check_ctx, s) : 0;
	return *check_rc ? -1 : 0;
}

int st_trace_summary_run(const st_trace_run_opts *o, const st_trace_opts *so,
			 st_trace_writer write, void *write_ctx,
			 int *check_rc, st_log *log, st_error *err)
{
	st_trace_summary s = { 0 };
	st_atomic_file af = { 0 };
	int rc = -1;

	*check_rc = 0;
	if (st_trace_summarize(o->paths, o->n, so, &s, err) < 0 ||
	    check(o, &s, check_rc) < 0)
		goto out;
	if (s.saturated)
		st_warn(log, "trace summary: a total of bytes or time passed "
			"%" PRId64 " and is shown as that (capped, not "
			"wrapped)", INT64_MAX);
	if (st_atomic_open(&af, o->out, err) < 0)
		goto out;
	if (write(write_ctx, &s, af.fp, err) < 0) {
		st_atomic_abort(&af);
		goto out;
	}
	rc = st_atomic_commit(&af, err);
out:
	st_trace_summary_release(&s);
	return rc;
}

int st_trace_timeline_run(const st_trace_run_opts *o,
			  const st_trace_timeline_opts *to,
			  st_trace_timeline_counts *c, int *check_rc,
			  st_log *log, st_error *err)
{
	st_trace_summary s = { 0 };
	st_atomic_file af = { 0 };
	int rc = -1;

	*check_rc = 0;
	/* every input a whole trace before the output is touched */
	if (st_trace_timeline_scan(o->paths, o->n, to, &s, err) < 0 ||
	    check(o, &s, check_rc) < 0 ||
	    st_atomic_open(&af, o->out, err) < 0)
		goto out;
	if (st_trace_timeline_write(o->paths, o->n, to, &s, af.fp, c, log,
				    err) < 0) {
		st_atomic_abort(&af);
		goto out;
	}
	rc = st_atomic_commit(&af, err);
out:
	st_trace_summary_release(&s);
	return rc;
}
