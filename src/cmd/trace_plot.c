/* trace_plot.c - `streamtime trace plot`: the overview figure of
 * system-trace directories (sysplot.h). */
#include <inttypes.h>

#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/plot.h"
#include "streamtime/sysplot.h"

static const struct st_cmd_desc plot_desc = {
	.path = "streamtime trace plot",
	ST_DESC_ARGS_ANY("DIR...", "no system-trace directory given",
			 ST_COMPLETE_DIR),
	.description =
	"Draw the overview of system-trace directories (docs/systrace.md) as\n"
	"DIR/systrace_overview.png and .svg: one figure for all DIRs, on one\n"
	"UTC time axis.  Rows per process (named as `trace summary` names\n"
	"them, children under their parents) and kind of call (read, write,\n"
	"openat, close, ...), each call a bar from its start to its end; a row\n"
	"of more than 1500 calls is drawn as its busy share in each of 1000\n"
	"columns of the time axis (in quarters).  At most 40 rows: the\n"
	"processes with the fewest calls share 'other processes' rows.  Below:\n"
	"CPU %usr, %sys and %iowait (cpu.out), GPU sm % and memory % per GPU\n"
	"(gpu.out).  Init, epochs and evals (MLLOG) are shaded across all\n"
	"panels.  The caption gives the axis' ends and each directory's\n"
	"alignment bound.\n",
	.epilogue =
	"Exit 65 when a DIR holds no system-trace file or nothing to draw, 64\n"
	"when a time-align trace needs --date, 66 an input missing, 73 the\n"
	"output cannot be created.  The files appear together or not at all.\n",
};

int cmd_trace_plot(int argc, char **argv)
{
	const char *outdir = NULL;
	unsigned formats = ST_PLOT_PNG | ST_PLOT_SVG;
	st_trace_filter filter = { 0 };
	struct st_trace_sys_opts sys = { 0 };
	const struct st_option opts[] = {
		ST_ROW_OUT_DIR(outdir, "where systrace_overview.png, .svg and "
			       ".pdf go (created if needed)"),
		ST_ROW_PLOT_FORMAT(formats),
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F",
		       "the calls drawn, as for `trace summary`", ST_OPT_REPEAT),
		  .cb = trace_opt_filter },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_OPT_END_ROW,
	};
	struct st_trace_sets ts = { 0 };
	st_sysplot_opts o = { 0 };
	st_sysplot_result res = { 0 };
	st_trace_notes nt = { 0 };
	st_error err;
	int nargs, r, rc;

	if (!st_opt_go(&plot_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	if ((rc = trace_sets_check(argv + 1, (size_t)nargs)) ||
	    (rc = trace_sets_open(&ts, argv + 1, (size_t)nargs, &sys,
				  st_verbosity > 0 ? 1000 : 10, NULL, NULL)))
		goto out;
	o.filter = filter.n ? &filter : NULL;
	o.formats = formats;
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	if (st_sysplot_write(&ts.sets, &o, outdir, &res, &err) < 0) {
		rc = st_msg_fail(&err);
		st_msg_error("trace plot: nothing written");
	}
	/* the sets' corrupt lines, then those of the call files drawn */
	r = st_trace_sets_notes(&ts.sets, &nt, &err);
	if (r == 0)
		r = st_trace_bad_notes((const char *const *)res.paths, res.bad,
				       res.n_bad, res.bad_lines, &nt, &err);
	if (trace_notes_said(&nt, r, &err) && !rc)
		rc = ST_EXIT_IOERR;
	if (!rc)
		st_msg_info("trace plot: %" PRIu64 " calls in %zu rows (%zu as "
			    "busy share, %zu processes as 'other'); %zu files "
			    "written to %s", res.calls, res.rows, res.dense_rows,
			    res.other_procs, res.files, outdir);
out:
	st_sysplot_result_release(&res);
	st_trace_sets_release(&ts);
	st_trace_filter_release(&filter);
	return st_finish_stdout(rc);
}
