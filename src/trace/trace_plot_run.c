/* trace_plot_run.c - `trace plot` as one call (trace_plot.h): the
 * DFTracer overview when DFTracer files are given, the system-trace
 * overview when only sets are, and what became of it all as notes. */
#include <inttypes.h>

#include "streamtime/trace_plot.h"

/* The call files of the sets L. */
static size_t set_files(const st_systrace_list *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *const *paths;

		n += st_systrace_event_files(l->v[i], &paths);
	}
	return n;
}

/* ERR's failure and "nothing written" into NT.  0, or -1 (memory). */
static int plot_failed(st_trace_notes *nt, st_error *err)
{
	if (st_trace_notes_fail(nt, err) < 0)
		return -1;
	return st_trace_notes_add(nt, ST_NOTE_ERROR, ST_EXIT_OK, NULL, err,
				  "trace plot: nothing written");
}

/* The system-trace overview of TS alone (no DFTracer file given). */
static int plot_sets(struct st_trace_sets *ts, const st_sysplot_opts *o,
		     const char *outdir, st_trace_notes *nt, st_error *err)
{
	st_sysplot_result res = { 0 };
	bool failed = false;
	int r = 0;

	if (st_sysplot_write(&ts->sets, o, outdir, &res, err) < 0) {
		failed = true;
		r = plot_failed(nt, err);
	}
	/* the sets' corrupt lines, then those of the call files drawn */
	if (r == 0)
		r = st_trace_sets_notes(&ts->sets, nt, err);
	if (r == 0)
		r = st_trace_bad_notes((const char *const *)res.paths, res.bad,
				       res.n_bad, res.bad_lines, nt, err);
	if (r == 0 && !failed && !st_trace_notes_status(nt))
		r = st_trace_notes_add(nt, ST_NOTE_INFO, 0, NULL, err,
				       "trace plot: %" PRIu64 " calls in %zu "
				       "rows (%zu as busy share, %zu processes "
				       "as 'other'); %zu files written to %s",
				       res.calls, res.rows, res.dense_rows,
				       res.other_procs, res.files, outdir);
	st_sysplot_result_release(&res);
	return r;
}

/* The DFTracer overview of IN (and the sets' overview of TS). */
static int plot_traces(const struct st_trace_inputs *in,
		       struct st_trace_sets *ts, st_trace_plot_opts *o,
		       const st_sysplot_opts *so, const char *outdir,
		       st_trace_notes *nt, st_error *err)
{
	const char *const *paths = (const char *const *)in->v;
	st_trace_plot_result res = { 0 };
	st_sysplot_result sres = { 0 };
	size_t files = 0;
	int r;

	o->src = ts->sets.n ? &ts->src : NULL;
	if (st_trace_plot_scan(paths, in->n, o, &res, err) < 0)
		r = plot_failed(nt, err);
	else if ((r = st_trace_sets_summary_notes(&res.s, ts->sets.n ?
						  &ts->sets : NULL, nt,
						  err)) == 0 &&
		 !st_trace_notes_status(nt)) {
		if (st_trace_plot_write(paths, in->n, o, &ts->sets, so, outdir,
					so->formats, &res, &sres, &files,
					err) < 0)
			r = plot_failed(nt, err);
		else
			r = st_trace_notes_add(nt, ST_NOTE_INFO, 0, NULL, err,
				"trace plot: %" PRIu64 " events in %zu lanes "
				"(%zu as busy share, %zu %s in the last); %zu "
				"files written to %s", res.s.events, res.lanes,
				res.dense_lanes, res.other_units,
				o->per_thread ? "threads" : "processes", files,
				outdir);
	} else if (r == 0) {
		r = st_trace_notes_add(nt, ST_NOTE_ERROR, ST_EXIT_OK, NULL,
				       err, "trace plot: nothing written");
	}
	st_sysplot_result_release(&sres);
	st_trace_plot_result_release(&res);
	return r;
}

int st_trace_plot_run(const struct st_trace_inputs *in,
		      struct st_trace_sets *ts, st_trace_plot_opts *o,
		      const st_sysplot_opts *so, const char *outdir,
		      st_trace_notes *nt, st_error *err)
{
	if (in->n > set_files(&ts->sets))
		return plot_traces(in, ts, o, so, outdir, nt, err);
	return plot_sets(ts, so, outdir, nt, err);
}
