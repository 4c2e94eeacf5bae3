/* trace_timeline_extras.c - what --clock-offsets and --experiment bring
 * to `trace timeline` (trace_timeline.h). */
#include <stdlib.h>

#include "streamtime/atomic.h"
#include "streamtime/session.h"
#include "streamtime/trace_timeline.h"

/* The experiment EXP_DIR's inputs (with DATA, the dataset's) into X and
 * its st_timeline_input, each checked (the first missing one an error
 * note in NT).  0, or -1 with ERR set. */
static int experiment_inputs(st_trace_timeline_extras *x, const char *exp_dir,
			     const char *data, st_trace_notes *nt,
			     st_error *err)
{
	const char *check[3];

	x->merged = st_path_join(exp_dir, "file_transfer/merged_job_info.csv");
	x->stdir = st_path_join(exp_dir, "streaming");
	if (data) {
		x->wt = st_path_join(data, "file_transfer/write_times.csv");
		x->created = st_path_join(data, "streaming/"
					  "ncem_file_created_times.csv");
	}
	if (!x->merged || !x->stdir || (data && (!x->wt || !x->created)))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	/* missing: said before the output is touched */
	check[0] = x->merged;
	check[1] = x->wt;
	check[2] = x->created;
	for (size_t i = 0; i < 3; i++) {
		int r = check[i] ? st_trace_input_check(check[i], false, nt,
							err) : 0;

		if (r)
			return r < 0 ? -1 : 0;
	}
	x->tin = (st_timeline_input){ .merged = x->merged,
				      .write_times = x->wt,
				      .created = x->created,
				      .streaming_dir = x->stdir, .ex = &x->ex };
	return 0;
}

int st_trace_timeline_extras_load(st_trace_timeline_extras *x,
				  st_trace_timeline_opts *o,
				  const char *offsets, const char *exp_dir,
				  const char *data, const char *config,
				  st_trace_notes *nt, st_error *err)
{
	if (offsets) {
		if (st_table_read(&x->otab, offsets, err) < 0 ||
		    st_clock_offsets_load(&x->offs, &x->otab, err) < 0)
			return -1;
		o->offsets = &x->offs;
	}
	if (!exp_dir)
		return 0;
	if (st_experiments_given(&x->ex, config, data, &x->config, err) < 0 ||
	    st_trace_notes_add(nt, ST_NOTE_VERBOSE, 0, NULL, err,
			       "experiments: %s", x->config ? x->config :
			       "the paper's (built in)") < 0 ||
	    experiment_inputs(x, exp_dir, data, nt, err) < 0)
		return -1;
	if (x->tin.merged)
		o->experiment = &x->tin;
	return 0;
}

void st_trace_timeline_extras_release(st_trace_timeline_extras *x)
{
	st_clock_offsets_release(&x->offs);
	st_table_release(&x->otab);
	st_experiments_release(&x->ex);
	free(x->config);
	free(x->merged);
	free(x->stdir);
	free(x->wt);
	free(x->created);
}
