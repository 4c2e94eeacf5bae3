/* trace_plot.h - `trace plot`'s figure of DFTracer traces (and of the
 * calls of system-trace sets read with them): what DFTracer users look
 * at, on one UTC time axis, from top to bottom:
 *
 *   bandwidth  bytes read and written per second, per time bin: the
 *              bins of `trace summary --time-granularity` (bytes_read,
 *              bytes_written, by each call's start) over their width;
 *   operations calls per second in the same bins: reads, writes, all;
 *   lanes      a row per process (or per thread), each call a bar from
 *              its start to its end coloured read, write or other; as
 *              the system-trace overview bounds them (sysplot.h): a row
 *              of more than ST_SYSPLOT_BARS calls is its busy share per
 *              1/ST_SYSPLOT_COLS of the axis, and at most ST_SYSPLOT_ROWS
 *              rows, the units with the fewest calls sharing the last;
 *   sizes and durations  per function (the ST_TRACE_PLOT_FUNCS with the
 *              most calls), box plots on a log axis: sizes and durations
 *              span decades (a 4 KiB read beside a 1 GiB one, 1 us
 *              beside a second), so one box per function side by side
 *              reads better than a histogram each; box the quartiles,
 *              whiskers 1.5 IQR of the logarithms.  Calls without bytes
 *              have no size, calls of 0 us no place on a log axis: left
 *              out of these panels, and counted in the caption.
 * The caption states the axis' ends, the bins' width, the bytes and
 * calls read and written and each peak, so that the figure can be
 * checked by numbers.  Memory: the lanes' bars or columns and two
 * floats per call kept (sizes, durations).
 */
#ifndef STREAMTIME_TRACE_PLOT_H
#define STREAMTIME_TRACE_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/plot.h"
#include "streamtime/sysplot.h"
#include "streamtime/systrace.h"
#include "streamtime/trace.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/trace_sets.h"

#define ST_TRACE_PLOT_BINS 200     /* the bins across the axis, about */
#define ST_TRACE_PLOT_FUNCS 10

typedef struct st_trace_plot_opts {
	const st_trace_filter *filter;   /* calls drawn; NULL: all */
	const st_trace_source *src;      /* system-trace sets; NULL: none */
	bool per_thread;                 /* lanes per thread, not process */
	int64_t granularity_us;          /* > 0: the bins' width; else a
					  * round width, about
					  * ST_TRACE_PLOT_BINS across */
	int jobs;
	size_t max_bad;
} st_trace_plot_opts;

typedef struct st_trace_plot_result {
	st_trace_summary s;              /* the inputs read, as `trace
					  * summary` reads them (its notes) */
	int64_t granularity_us;          /* the bins' width drawn */
	int64_t bytes_read, bytes_written;
	size_t lanes, dense_lanes;       /* rows; of them busy shares */
	size_t other_units;              /* processes (threads) in the
					  * last row */
	size_t funcs, funcs_left;        /* functions shown; not shown */
} st_trace_plot_result;

/* Read PATHS[0..N) once as `trace summary` does (O's filter and
 * source), into RES->s: what the command says about the inputs before
 * drawing.  0, or -1 with ERR set as st_trace_summarize. */
int st_trace_plot_scan(const char *const *paths, size_t n,
		       const st_trace_plot_opts *o, st_trace_plot_result *res,
		       st_error *err);

/* The figure of PATHS (after st_trace_plot_scan, whose RES it fills
 * on): new (st_plot_fig_free), or NULL with ERR set: 65 when no event
 * is kept (nothing to draw), 64 too many bins, 66/65/74 an input that
 * cannot be read now (named), 74 out of memory. */
st_plot_fig *st_trace_plot_figure(const char *const *paths, size_t n,
				  const st_trace_plot_opts *o,
				  st_trace_plot_result *res, st_error *err);

/* `trace plot` on DFTracer files (and sets): the figure of PATHS as
 * OUT_DIR/trace_overview and, when SETS (may be NULL) holds a set, the
 * system-trace overview of the sets (st_sysplot_figure with SO, into
 * SRES) as OUT_DIR/systrace_overview, in each format of the mask
 * FORMATS, all files published together or none.  0, or -1 with ERR
 * set as st_trace_plot_figure, st_sysplot_figure and st_plot_save_set
 * say. */
int st_trace_plot_write(const char *const *paths, size_t n,
			const st_trace_plot_opts *o,
			const st_systrace_list *sets,
			const st_sysplot_opts *so, const char *out_dir,
			unsigned formats, st_trace_plot_result *res,
			st_sysplot_result *sres, size_t *files,
			st_error *err);

void st_trace_plot_result_release(st_trace_plot_result *res);

/* `trace plot` whole: when IN holds more files than the call files of
 * TS's sets, the DFTracer overview of IN (st_trace_plot_scan, then
 * st_trace_plot_write with the sets' overview, O's source set to TS's);
 * else the system-trace overview of TS alone (st_sysplot_write).  What
 * became of the inputs, a failure with "trace plot: nothing written",
 * or what was written (an info note) go into NT, in the order to say
 * them; its status is the command's.  0, or -1 with ERR set when memory
 * runs out. */
int st_trace_plot_run(const struct st_trace_inputs *in,
		      struct st_trace_sets *ts, st_trace_plot_opts *o,
		      const st_sysplot_opts *so, const char *outdir,
		      st_trace_notes *nt, st_error *err);

#endif
