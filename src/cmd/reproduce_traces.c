/* reproduce_traces.c - a session's trace sets in reproduce's output set:
 * their rows for the report (OUT/traces/trace_sets.csv) and their events
 * in the one timeline beside the scans' journeys. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "reproduce_traces.h"
#include "trace_inputs.h"
#include "streamtime/atomic.h"
#include "streamtime/trace_keys.h"
#include "streamtime/traceset.h"

#define MAX_BAD 10

/* Summarise set I of S into F.  Returns the exit status (said). */
static int one_set(FILE *f, const st_session *s, size_t i)
{
	const st_trace_input *t = &s->traces[i];
	struct st_trace_inputs in = { 0 };
	struct st_trace_sets ts = { 0 };
	struct st_trace_sys_opts so = { 0 };
	st_trace_summary sum;
	st_trace_opts o = { .jobs = 2, .max_bad = MAX_BAD };
	st_error err;
	int rc;

	memset(&sum, 0, sizeof(sum));
	if ((rc = trace_inputs_open(&in, &ts, t->paths, t->npaths, &so,
				    MAX_BAD)))
		goto out;
	if (st_trace_sets_summary_opts(&ts, &o, &err) < 0 ||
	    st_trace_keys_parse(&o.group, "pid", &err) < 0 ||
	    st_trace_summarize((const char *const *)in.v, in.n, &o, &sum,
			       &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	rc = trace_inputs_report(sum.files_in, sum.n_files, sum.bad,
				 sum.n_bad, sum.bad_lines, &ts.sets);
	if (rc)
		goto out;
	if (st_traceset_write(f, i, t->label, st_trace_role_name(t->role),
			      &sum, &ts.sets, ts.seg, ts.nseg, &err) < 0)
		rc = st_msg_fail(&err);
out:
	if (rc)
		st_msg_error("inputs.traces[%zu] (%s): not read", i, t->label);
	st_trace_summary_release(&sum);
	st_trace_sets_release(&ts);
	st_trace_inputs_release(&in);
	return rc;
}

int st_reproduce_trace_rows(const st_session *s, const char *path,
			    st_error *err)
{
	st_atomic_file af;
	int rc;

	if (st_atomic_open(&af, path, err) < 0)
		return -1;
	if (fputs(ST_TRACESET_HEADER, af.fp) == EOF) {
		st_atomic_abort(&af);
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s", path);
	}
	for (size_t i = 0; i < s->ntraces; i++)
		if ((rc = one_set(af.fp, s, i))) {
			st_atomic_abort(&af);
			return st_error_set(err, rc, "the session's trace sets "
					    "could not be read (said above)");
		}
	return st_atomic_commit(&af, err);
}

int st_reproduce_trace_timeline(const st_session *s, const char *out,
				const st_timeline_input *tin,
				const st_clock_offsets *offsets,
				st_trace_timeline_counts *c, st_log *log,
				st_error *err)
{
	struct st_trace_inputs in = { 0 };
	struct st_trace_sets ts = { 0 };
	struct st_trace_sys_opts so = { 0 };
	st_trace_timeline_opts o = {
		.max_events = 1000000, .offsets = offsets, .experiment = tin,
		.jobs = 2, .max_bad = MAX_BAD,
	};
	st_trace_summary sum = { 0 };
	char **args = NULL;
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < s->ntraces; i++)
		n += s->traces[i].npaths;
	args = calloc(n + 1, sizeof(*args));
	if (!args)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	n = 0;
	for (size_t i = 0; i < s->ntraces; i++)
		for (size_t k = 0; k < s->traces[i].npaths; k++)
			args[n++] = s->traces[i].paths[k];
	if ((rc = trace_inputs_open(&in, &ts, args, n, &so, MAX_BAD))) {
		st_error_set(err, rc, "the session's trace sets could not be "
			     "read (said above)");
		goto out;
	}
	if (ts.sets.n)
		o.src = &ts.src;
	rc = st_trace_timeline_scan((const char *const *)in.v, in.n, &o, &sum,
				    err) < 0 ||
	     st_trace_timeline_save((const char *const *)in.v, in.n, &o, &sum,
				    out, c, log, err) < 0;
out:
	st_trace_summary_release(&sum);
	free(args);
	st_trace_sets_release(&ts);
	st_trace_inputs_release(&in);
	return rc ? -1 : 0;
}
