/* plot.h - a small charting layer on cairo.
 *
 * A figure is built first (axes, series, labels: a description, no drawing)
 * and then rendered by one drawing routine onto a PNG image surface (at
 * least 1200 px wide), an SVG or a PDF surface, so every format shows the
 * same picture.  Lengths are in points (1/72 in); the PNG is drawn at a scale.
 * Text uses "DejaVu Sans" (Debian's fonts-dejavu-core).
 *
 * Building never fails loudly: like cairo, a figure remembers the first
 * allocation failure and every later call on it (or on a NULL axes) does
 * nothing; st_plot_write() then reports it.  The figure copies every array
 * and string it is given.
 */
#ifndef STREAMTIME_PLOT_H
#define STREAMTIME_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"

enum st_plot_format {
	ST_PLOT_PNG = 1,
	ST_PLOT_SVG = 2,
	ST_PLOT_PDF = 4,        /* one page the figure's size, in points */
};

/* The formats in the order a figure's files are written (PNG, SVG, PDF):
 * the I-th is 1 << I, for I below ST_PLOT_NFORMATS. */
#define ST_PLOT_NFORMATS 3

/* The file name extension of FMT (".png", ".svg", ".pdf"), static. */
const char *st_plot_format_ext(enum st_plot_format fmt);

typedef struct st_plot_rgba {
	double r, g, b, a;
} st_plot_rgba;

/* The colour 0xRRGGBB with opacity A. */
static inline st_plot_rgba st_plot_hex(uint32_t rgb, double a)
{
	st_plot_rgba c = { (double)((rgb >> 16) & 0xff) / 255.0,
			   (double)((rgb >> 8) & 0xff) / 255.0,
			   (double)(rgb & 0xff) / 255.0, a };
	return c;
}

/* Corners of an axes' plot area, for legends and notes. */
enum st_plot_loc {
	ST_PLOT_UPPER_RIGHT,
	ST_PLOT_UPPER_LEFT,
	ST_PLOT_LOWER_RIGHT,
	ST_PLOT_LOWER_LEFT,
	ST_PLOT_ABOVE,          /* legends: one row above the plot area, to
				 * the right, beside the title */
};

typedef struct st_plot_fig st_plot_fig;
typedef struct st_plot_axes st_plot_axes;

/* ---- pure helpers (no cairo) ------------------------------------------ */

/* A "nice" step (1, 2 or 5 times a power of ten) that cuts SPAN into about
 * TARGET intervals.  SPAN <= 0 or not finite gives 1. */
double st_plot_nice_step(double span, int target);

/* The multiples of STEP in [LO, HI] (with a tolerance of 1e-9 steps), at
 * most MAX of them, into OUT (may be NULL to count).  Returns how many there
 * are (possibly more than MAX). */
size_t st_plot_ticks(double lo, double hi, double step, double *out,
		     size_t max);

/* The NBINS + 1 edges of NBINS equal bins from LO to HI into EDGES. */
void st_plot_hist_edges(double lo, double hi, size_t nbins, double *edges);

/* Count the N values V into NBINS equal bins from LO to HI (COUNTS, zeroed
 * here).  Bins are half-open [a, b) except the last, which also holds HI
 * (NumPy's rule); values outside [LO, HI] and NaN are not counted.  Returns
 * how many values were counted. */
size_t st_plot_hist_count(const double *v, size_t n, double lo, double hi,
			  size_t nbins, double *counts);

/* Tukey box-plot numbers of N values: quartiles as in stats.h, whiskers at
 * the most extreme values within 1.5 IQR of the box, the rest outliers. */
typedef struct st_plot_box_stats {
	size_t n;
	double q1, median, q3;
	double whisker_lo, whisker_hi;
	size_t outliers;
} st_plot_box_stats;

/* Fill OUT from the N values V (any order, not modified); with N 0 every
 * number is NaN.  Returns 0, or -1 when memory runs out. */
int st_plot_box_stats_compute(const double *v, size_t n,
			      st_plot_box_stats *out);

/* ---- building a figure ------------------------------------------------- */

/* A new empty figure of WIDTH x HEIGHT points (free with st_plot_fig_free),
 * or NULL when memory runs out. */
st_plot_fig *st_plot_fig_new(double width, double height);

/* Free FIG and everything in it.  NULL is accepted. */
void st_plot_fig_free(st_plot_fig *fig);

/* The title on top of the figure. */
void st_plot_fig_title(st_plot_fig *fig, const char *title);

/* A caption under every axes, lines split at '\n', left-aligned (the
 * axes make room for it). */
void st_plot_fig_caption(st_plot_fig *fig, const char *text);

/* Show the legend of AX's labelled series in one row under the figure
 * title (for figures whose panels share it). */
void st_plot_fig_legend(st_plot_fig *fig, const st_plot_axes *ax);

/* The rows of FIG's grid get heights in the proportion of the N
 * WEIGHTS (positive; rows beyond N weigh 1); without it all are equal. */
void st_plot_fig_row_weights(st_plot_fig *fig, const double *weights,
			     size_t n);

/* A new axes in cell (ROW, COL) of a ROWS x COLS grid filling the figure
 * below its title and legend; borrowed from FIG (NULL on failure). */
st_plot_axes *st_plot_fig_grid(st_plot_fig *fig, int rows, int cols, int row,
			       int col);

/* A new inset axes inside PARENT's plot area: X, Y (from the top), W, H are
 * fractions of that area and bound the inset with its tick labels.
 * Borrowed from the figure (NULL on failure or when PARENT is NULL). */
st_plot_axes *st_plot_axes_inset(st_plot_axes *parent, double x, double y,
				 double w, double h);

void st_plot_axes_title(st_plot_axes *ax, const char *title);
void st_plot_axes_labels(st_plot_axes *ax, const char *xlabel,
			 const char *ylabel);

/* Fixed limits; without them the axis fits the data.  Data beyond a fixed
 * limit is clipped: bars that reach above the top get their value written
 * near the top, points above it are drawn as triangles on the top edge. */
void st_plot_axes_xlim(st_plot_axes *ax, double lo, double hi);
void st_plot_axes_ylim(st_plot_axes *ax, double lo, double hi);

/* X values are wall-clock seconds since 1970-01-01 00:00 (of whatever zone
 * the caller chose): ticks fall on days, months or years, labelled as
 * dates. */
void st_plot_axes_xdates(st_plot_axes *ax);

/* X ticks at 0..N-1 labelled NAMES (e.g. one box per category). */
void st_plot_axes_xcategories(st_plot_axes *ax, const char *const *names,
			      size_t n);

/* X values are UTC seconds since the epoch over seconds to hours: ticks
 * at round seconds, minutes or hours, labelled HH:MM:SS. */
void st_plot_axes_xclock(st_plot_axes *ax);

/* Y ticks at 0..N-1 labelled NAMES (the rows of a Gantt chart, with
 * st_plot_axes_yinvert), every one of them; the left margin of every
 * axes of the figure grows to fit the longest, so that their x axes stay
 * aligned. */
void st_plot_axes_ycategories(st_plot_axes *ax, const char *const *names,
			      size_t n);

/* Y values are base-10 logarithms of the quantity shown (what spans
 * decades: call sizes, durations): ticks at whole powers of ten labelled
 * with the quantity (1, 10, 100, 1k, ..., 1M, ...), at least two of them
 * (within a decade 1, 2 and 5 times them, labelled likewise). */
void st_plot_axes_ylog10(st_plot_axes *ax);

/* Y grows downwards (row 0 at the top, as in a Gantt chart). */
void st_plot_axes_yinvert(st_plot_axes *ax);

/* Y counts things: tick steps are whole numbers. */
void st_plot_axes_yinteger(st_plot_axes *ax);

/* Show a legend of the labelled series in corner LOC. */
void st_plot_axes_legend(st_plot_axes *ax, enum st_plot_loc loc);

/* A short note in corner LOC (on a white box, so it stays readable). */
void st_plot_axes_note(st_plot_axes *ax, enum st_plot_loc loc,
		       const char *text);

/* The text shown instead of data when the axes has none (default
 * "no data"). */
void st_plot_axes_empty_text(st_plot_axes *ax, const char *text);

/* ---- series ------------------------------------------------------------ */

/* A histogram: NBINS bars between the NBINS + 1 EDGES, heights COUNTS.
 * Empty bins are not drawn. */
void st_plot_hist(st_plot_axes *ax, const double *edges, const double *counts,
		  size_t nbins, st_plot_rgba color, const char *label);

/* N points (X[i], Y[i]) as discs of RADIUS points. */
void st_plot_points(st_plot_axes *ax, const double *x, const double *y,
		    size_t n, st_plot_rgba color, double radius,
		    const char *label);

/* A polyline through N points, WIDTH points wide. */
void st_plot_line(st_plot_axes *ax, const double *x, const double *y,
		  size_t n, st_plot_rgba color, double width,
		  const char *label);

/* N horizontal bars from X0[i] to X1[i] centred on Y[i], HEIGHT data units
 * tall (at least a hairline when drawn, so that short bars stay visible). */
void st_plot_hbars(st_plot_axes *ax, const double *x0, const double *x1,
		   const double *y, size_t n, double height,
		   st_plot_rgba color, const char *label);

/* A box plot of the N values V at X, WIDTH data units wide: box Q1..Q3,
 * median line, whiskers at 1.5 IQR, outliers as open circles. */
void st_plot_box(st_plot_axes *ax, double x, const double *v, size_t n,
		 double width, st_plot_rgba color, const char *label);

/* A shaded span from X0 to X1 the height of the plot area (drawn in the
 * order of the series: add it first to have it behind them).  TEXT (may
 * be NULL) is written at its top left, inside the span, on the first of
 * two lines where it overlaps no text of the spans before it; a shown
 * span whose text has no room (narrower than it, or both lines taken
 * there) is named instead in a last line of the figure's caption. */
void st_plot_vspan(st_plot_axes *ax, double x0, double x1, st_plot_rgba color,
		   const char *text);

/* ---- output ------------------------------------------------------------ */

/* Size in pixels of FIG's PNG rendering. */
void st_plot_png_size(const st_plot_fig *fig, int *width, int *height);

/* Render FIG as FMT to F.  An SVG also holds every text as a transparent
 * <text> element over cairo's glyphs (searchable, selectable); a PDF's
 * text is text (the font's glyphs embedded, a subset).  Errors: 74 when
 * building the figure ran out of memory, cairo fails or F cannot be
 * written. */
int st_plot_write(const st_plot_fig *fig, enum st_plot_format fmt, FILE *f,
		  st_error *err);

/* Render FIG as FMT into PATH, atomically (atomic.h).  Errors: 73 when the
 * file cannot be created, 74 as st_plot_write. */
/* The same into AF, complete on disk but not yet in place: the caller
 * publishes it with st_atomic_commit (or drops it with st_atomic_abort),
 * so that a set of files appears together or not at all. */
struct st_atomic_file;
int st_plot_save_prepared(const st_plot_fig *fig, enum st_plot_format fmt,
			  const char *path, struct st_atomic_file *af,
			  st_error *err);
int st_plot_save(const st_plot_fig *fig, enum st_plot_format fmt,
		 const char *path, st_error *err);

/* The N figures FIGS, each as DIR/NAMES[i] plus the extension of every
 * format in the mask FORMATS, DIR created with its parents: all files
 * published together or none (st_atomic_set).  *FILES (added to): the
 * files written.  Errors as st_plot_save, 73 when DIR cannot be made. */
int st_plot_save_set(const st_plot_fig *const *figs,
		     const char *const *names, size_t n, const char *dir,
		     unsigned formats, size_t *files, st_error *err);

#endif
