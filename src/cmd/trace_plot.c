/* trace_plot.c - `streamtime trace plot`: the overview figures of
 * DFTracer traces (trace_plot.h) and of system-trace directories
 * (sysplot.h). */
#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/plot.h"
#include "streamtime/sysplot.h"
#include "streamtime/trace_plot.h"

static const struct st_cmd_desc plot_desc = {
	.path = "streamtime trace plot",
	ST_DESC_ARGS_ANY("PATH...", "no trace file or directory given",
			 ST_COMPLETE_FILE),
	.description =
	"Draw the overview of DFTracer traces (FILE.pfw, .pfw.gz, or a\n"
	"directory of them) as DIR/trace_overview.png and .svg, and of\n"
	"system-trace directories (docs/systrace.md) as\n"
	"DIR/systrace_overview.png and .svg, on one UTC time axis.\n"
	"\n"
	"trace_overview: read and write bandwidth (bytes/s) and calls per\n"
	"second in time bins (those of trace summary --time-granularity, by\n"
	"each call's start; about 200 across the axis unless given); busy\n"
	"lanes, a row per process (--per thread: per thread), each call a bar\n"
	"coloured read, write or other; the size and the duration of the calls\n"
	"per function (the 10 with the most calls) as box plots on log axes.\n"
	"The calls of system-trace directories given with the traces are\n"
	"drawn with them.\n"
	"\n"
	"systrace_overview: rows per process (named as `trace summary` names\n"
	"them, children under their parents) and kind of call (read, write,\n"
	"openat, close, ...), each call a bar from its start to its end.\n"
	"Below: CPU %usr, %sys and %iowait (cpu.out), GPU sm % and memory %\n"
	"per GPU (gpu.out).  Init, epochs and evals (MLLOG) are shaded across\n"
	"all panels.  The caption gives the axis' ends and each directory's\n"
	"alignment bound.\n"
	"\n"
	"Both bound their rows alike: a row of more than 1500 calls is drawn\n"
	"as its busy share in each of 1000 columns of the time axis (in\n"
	"quarters), and at most 40 rows: the processes with the fewest calls\n"
	"share 'other processes' rows.\n",
	.epilogue =
	"Exit codes as trace summary's for the inputs (65 a directory that\n"
	"holds no trace, a damaged input, 66 one missing); 65 when there is\n"
	"nothing to draw, 64 when a time-align trace needs --date or the\n"
	"bins would be more than a million, 73 the output cannot be\n"
	"created.  The files appear together or not at all.\n",
};

static const char *const per_choices[] = { "process", "thread", NULL };

int cmd_trace_plot(int argc, char **argv)
{
	const char *outdir = NULL;
	unsigned formats = ST_PLOT_PNG | ST_PLOT_SVG;
	int per = 0;
	int64_t gran = 0;
	st_trace_filter filter = { 0 };
	struct st_trace_sys_opts sys = { 0 };
	const struct st_option opts[] = {
		ST_ROW_OUT_DIR(outdir, "where the figures' .png, .svg and .pdf "
			       "go (created if needed)"),
		ST_ROW_PLOT_FORMAT(formats),
		{ ST_O("filter", 0, ST_OPT_CALLBACK, &filter, "F",
		       "the calls drawn, as for `trace summary`", ST_OPT_REPEAT),
		  .cb = trace_opt_filter },
		{ ST_O("per", 0, ST_OPT_CHOICE, &per, "UNIT",
		       "DFTracer lanes: a row per process (default) or thread",
		       0), .choices = per_choices },
		{ ST_O("time-granularity", 0, ST_OPT_INT, &gran, "US",
		       "DFTracer bandwidth and calls per second: bins US "
		       "microseconds wide (default: a round width, about 200 "
		       "across the axis)", 0), .min = 1, .max = INT64_MAX,
		  .expect = "a positive number of microseconds" },
		ST_TRACE_SYS_OPT_ROWS(sys),
		ST_OPT_END_ROW,
	};
	struct st_trace_inputs in = { 0 };
	struct st_trace_sets ts = { 0 };
	st_sysplot_opts so = { 0 };
	st_trace_plot_opts o = { 0 };
	st_trace_notes nt = { 0 };
	st_error err;
	size_t max_bad = st_verbosity > 0 ? 1000 : 10;
	int nargs, rc;

	if (!st_opt_go(&plot_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	if ((rc = trace_inputs_open(&in, &ts, argv + 1, (size_t)nargs, &sys,
				    max_bad)))
		goto out;
	so.filter = o.filter = filter.n ? &filter : NULL;
	so.formats = formats;
	so.max_bad = o.max_bad = max_bad;
	o.per_thread = per == 1;
	o.granularity_us = gran;
	rc = trace_notes_said(&nt, st_trace_plot_run(&in, &ts, &o, &so, outdir,
						   &nt, &err), &err);
out:
	st_trace_inputs_release(&in);
	st_trace_sets_release(&ts);
	st_trace_filter_release(&filter);
	return st_finish_stdout(rc);
}
