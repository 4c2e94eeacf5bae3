/* sysplot.h - the overview figure of system-trace sets (`trace plot`,
 * SPEC 5.11): what the trace_visuals seed draws, on one UTC time axis.
 *
 *   calls   a row per process and kind of call (read, write, openat,
 *           close, mmap, ..., bio), processes in tree order (children
 *           under their parents, indented), each call a bar from its
 *           start to its end; a row of more than ST_SYSPLOT_BARS calls
 *           is drawn as its busy share per column instead: the time axis
 *           cut into ST_SYSPLOT_COLS equal columns, a bar per column
 *           that holds a call, its height the calls' time in it over the
 *           column's (at most 1) in quarters (any call: at least one),
 *           drawn 0.3 to 0.7 of a row high.
 *           At most ST_SYSPLOT_ROWS rows: beyond, the processes with the
 *           fewest calls share "other processes" rows, a row per kind.
 *   CPU     %usr, %sys, %iowait of mpstat's "all" rows, when a set has
 *           cpu.out;
 *   GPU     sm % and mem % per GPU (two panels), when a set has gpu.out.
 *           Samples are averaged per column (memory: the columns).
 *   phases  init, epochs and evals shaded across every panel, labelled
 *           in the calls panel inside their shading where the label
 *           fits (plot.h's st_plot_vspan), else named in the caption.
 * The caption says the axis' exact ends (UTC, µs) and each set's
 * alignment and bound.  Memory: the (set, pid, kind) table, the rows'
 * bars or columns; the calls are read twice, streaming.
 */
#ifndef STREAMTIME_SYSPLOT_H
#define STREAMTIME_SYSPLOT_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/plot.h"
#include "streamtime/systrace.h"
#include "streamtime/trace.h"

#define ST_SYSPLOT_ROWS 40
#define ST_SYSPLOT_BARS 1500
#define ST_SYSPLOT_COLS 1000

typedef struct st_sysplot_opts {
	const st_trace_filter *filter;   /* calls drawn; NULL: all */
	unsigned formats;                /* a mask of plot.h's formats */
	size_t max_bad;                  /* corrupt lines kept by number */
} st_sysplot_opts;

typedef struct st_sysplot_result {
	uint64_t events, calls;          /* read; drawn (the filter's) */
	size_t rows, dense_rows;         /* call rows; of them binned */
	size_t other_procs;              /* processes in "other" rows */
	size_t files;                    /* figure files written */
	uint64_t bad_lines;
	st_trace_bad *bad;               /* the first max_bad (file: an
					  * index of paths) */
	size_t n_bad;
	char **paths;                    /* the call files read */
	size_t n_paths;
} st_sysplot_result;

/* Draw the overview of the sets L into OUT_DIR/systrace_overview.png,
 * .svg and/or .pdf (O->formats), created with its parents, the files
 * published together or none.  0, or -1 with ERR set: 65 when the sets hold no
 * call and no sample (nothing to draw), 66/65/74 when a call file
 * cannot be read (named), 73 the directory or a file cannot be created,
 * 74 a write error or out of memory.  Release RES in every case. */
int st_sysplot_write(const st_systrace_list *l, const st_sysplot_opts *o,
		     const char *out_dir, st_sysplot_result *res,
		     st_error *err);

/* The busy share of a row drawn on AX at y ROW: BUSY and COUNT of the
 * ST_SYSPLOT_COLS columns of [X0, X1) (st_sysplot_bin), a bar per
 * column that holds a call, its height the share in quarters (any call:
 * the lowest), 0.3 to 0.7 of a row, bottom-aligned, in colour C. */
void st_sysplot_busy_bars(st_plot_axes *ax, const double *busy,
			  const uint32_t *count, double x0, double x1,
			  double row, st_plot_rgba c);

/* The figure st_sysplot_write writes (new, st_plot_fig_free), or NULL
 * with ERR set as it says; for a set of figures written together. */
st_plot_fig *st_sysplot_figure(const st_systrace_list *l,
				      const st_sysplot_opts *o,
				      st_sysplot_result *res, st_error *err);

void st_sysplot_result_release(st_sysplot_result *res);

/* Add the call [S, E) to the N columns that cut [T0, T1) into equal
 * parts: BUSY[i] += the share of column i it covers (0..1), COUNT[i] += 1
 * for each column it touches (a call of no length: its column's count
 * only).  Parts outside [T0, T1) are dropped; T1 itself falls in the
 * last column. */
void st_sysplot_bin(double *busy, uint32_t *count, size_t n, double t0,
		    double t1, double s, double e);

#endif
