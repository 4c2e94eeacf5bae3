/* run.c - the trace commands at file level: read, check, write the output
 * atomically (nothing is written when an input is refused). */
#include <inttypes.h>
#include <stdio.h>

#include "streamtime/atomic.h"
#include "streamtime/sum_partial.h"
#include "streamtime/trace.h"

/* The caller's check of the first pass; -1 with *CHECK_RC set when it
 * refuses. */
static int check(const st_trace_run_opts *o, const st_trace_summary *s,
		 int *check_rc)
{
	*check_rc = o->check ? o->check(o->check_ctx, s) : 0;
	return *check_rc ? -1 : 0;
}

/* Write S to O's output atomically with WRITE: 0 when committed, else -1
 * with ERR set and nothing left behind. */
static int write_out(const st_trace_run_opts *o, const st_trace_summary *s,
		     st_trace_writer write, void *write_ctx, st_error *err)
{
	st_atomic_file af = { 0 };

	if (st_atomic_open(&af, o->out, err) < 0)
		return -1;
	if (write(write_ctx, s, af.fp, err) < 0) {
		st_atomic_abort(&af);
		return -1;
	}
	return st_atomic_commit(&af, err);
}

int st_trace_summary_emit(const st_trace_run_opts *o,
			  const st_trace_summary *s, st_trace_writer write,
			  void *write_ctx, int *check_rc, st_log *log,
			  st_error *err)
{
	*check_rc = 0;
	if (check(o, s, check_rc) < 0)
		return -1;
	if (s->saturated)
		st_warn(log, "trace summary: a total of bytes or time passed "
			"%" PRId64 " and is shown as that (capped, not "
			"wrapped)", INT64_MAX);
	return write_out(o, s, write, write_ctx, err);
}

int st_trace_summary_run(const st_trace_run_opts *o, const st_trace_opts *so,
			 st_trace_writer write, void *write_ctx,
			 int *check_rc, st_log *log, st_error *err)
{
	st_trace_summary s = { 0 };
	int rc = -1;

	*check_rc = 0;
	if (st_trace_summarize(o->paths, o->n, so, &s, err) < 0)
		goto out;
	rc = st_trace_summary_emit(o, &s, write, write_ctx, check_rc, log,
				   err);
out:
	st_trace_summary_release(&s);
	return rc;
}

/* What the timeline's second pass needs besides the summary. */
struct timeline_ctx {
	const st_trace_run_opts *o;
	const st_trace_timeline_opts *to;
	st_trace_timeline_counts *c;
	st_log *log;
};

static int write_timeline(void *ctx, const st_trace_summary *s, FILE *f,
			  st_error *err)
{
	const struct timeline_ctx *t = ctx;

	return st_trace_timeline_write(t->o->paths, t->o->n, t->to, s, f, t->c,
				       t->log, err);
}

int st_trace_timeline_run(const st_trace_run_opts *o,
			  const st_trace_timeline_opts *to,
			  st_trace_timeline_counts *c, int *check_rc,
			  st_log *log, st_error *err)
{
	struct timeline_ctx t = { o, to, c, log };
	st_trace_summary s = { 0 };
	int rc = -1;

	*check_rc = 0;
	/* every input a whole trace before the output is touched */
	if (st_trace_timeline_scan(o->paths, o->n, to, &s, err) < 0 ||
	    check(o, &s, check_rc) < 0)
		goto out;
	rc = write_out(o, &s, write_timeline, &t, err);
out:
	st_trace_summary_release(&s);
	return rc;
}
