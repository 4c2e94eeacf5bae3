/* plot_int.h - what the plot files share, not a public interface: the
 * figure description (plot.c builds it), the frame of an axes and its
 * ticks (plot_scale.c), drawn by plot_draw.c.
 */
#ifndef STREAMTIME_PLOT_INT_H
#define STREAMTIME_PLOT_INT_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "streamtime/plot.h"

#define FONT "DejaVu Sans"
#define PNG_WIDTH 1280.0          /* pixels of every PNG */

/* Text sizes (points) of main axes and of insets. */
#define FIG_TITLE_PT 14.0
#define TITLE_PT 12.0
#define LABEL_PT 11.5
#define TICK_PT 10.5
#define LEGEND_PT 10.5
#define NOTE_PT 10.0
#define INSET_TITLE_PT 9.5
#define INSET_TICK_PT 8.5

/* Margins of a grid cell around its plot area (points). */
#define MARGIN_LEFT 66.0
#define MARGIN_RIGHT 18.0
#define MARGIN_TOP 12.0
#define MARGIN_TITLE 26.0
#define MARGIN_BOTTOM 30.0
#define MARGIN_XLABEL 48.0

enum kind { K_HIST, K_POINTS, K_LINE, K_HBARS, K_BOX, K_VSPAN };

struct series {
	enum kind kind;
	char *label;
	st_plot_rgba color;
	size_t n;
	double *a, *b, *c;    /* hist: edges (n + 1), counts; points, line: x, y;
				 hbars: x0, x1, y; box: the outliers (a) */
	double size;          /* radius, line width, bar height, box width */
	double x;             /* box position */
	st_plot_box_stats box;
	char *text;           /* vspan: written at its top */
};

struct st_plot_axes {
	st_plot_fig *fig;
	st_plot_axes *parent;         /* insets */
	int rows, cols, row, col;
	double ix, iy, iw, ih;        /* inset rectangle, fractions */
	char *title, *xlabel, *ylabel, *empty, *note;
	bool has_xlim, has_ylim, xdates, xclock, yinvert, yinteger, legend;
	bool ylog10;
	double xlo, xhi, ylo, yhi;
	enum st_plot_loc legend_loc, note_loc;
	char **cats;
	size_t ncats;
	char **ycats;                 /* row names, y = 0..nycats-1 */
	size_t nycats;
	struct series *s;
	size_t ns;
};

struct st_plot_fig {
	double w, h;
	char *title;
	char *caption;
	const st_plot_axes *legend_from;
	st_plot_axes **axes;
	size_t naxes;
	double *row_w;                /* grid rows' height weights */
	size_t nrow_w;
	bool failed;
};

/* Where an axes is drawn: the plot area (points) and the data limits. */
struct frame {
	double x, y, w, h;
	double bx, by, bw, bh;        /* an inset's box, labels included */
	double xlo, xhi, ylo, yhi;
	bool yinvert, inset, has_data;
	bool out_of_range;      /* limits no axis can show: drawn empty */
};

static inline double map_x(const struct frame *f, double x)
{
	return f->x + (x - f->xlo) / (f->xhi - f->xlo) * f->w;
}

static inline double map_y(const struct frame *f, double y)
{
	double t = (y - f->ylo) / (f->yhi - f->ylo);

	return f->yinvert ? f->y + t * f->h : f->y + f->h - t * f->h;
}

#define MAX_TICKS 32

struct tick {
	double v;
	char text[40];
};

/* F's data limits from AX (set, or the data's, padded); F's place is
 * set already. */
void plot_limits(const st_plot_axes *ax, struct frame *f);

/* Numeric ticks of [LO, HI] for an axis LEN points long, about one per
 * SPACING points (whole numbers only with INTEGER); at most MAX_TICKS
 * in T.  Returns how many. */
size_t plot_numeric_ticks(double lo, double hi, double len, double spacing,
			  bool integer, struct tick *t);

/* Ticks of [LO, HI], base-10 logarithms, for an axis LEN points long:
 * the whole powers of ten in it labelled 1, 10, 100, 1k, ... (every
 * other one when crowded); with fewer than two, 1, 2 and 5 times them;
 * with fewer still, plot_numeric_ticks' steps labelled with the
 * quantity.  Returns how many. */
size_t plot_log10_ticks(double lo, double hi, double len, double spacing,
			struct tick *t);

/* Date ticks of [LO, HI] (seconds since the epoch, UTC), about TARGET. */
size_t plot_date_ticks(double lo, double hi, int target, struct tick *t);

/* Clock ticks of [LO, HI] (UTC seconds since the epoch): round seconds,
 * minutes or hours, about TARGET of them, labelled HH:MM:SS (with tenths
 * below a second's step); over more than TARGET days, plot_date_ticks'. */
size_t plot_clock_ticks(double lo, double hi, int target, struct tick *t);

/* What SVG output adds to cairo's drawing: every text drawn, as a
 * transparent <text> element at its place, so that the SVG's words can
 * be searched and selected (cairo draws glyphs).  plot_render appends to
 * the recorder set on its context with plot_text_record. */
struct text_layer {
	char *buf;
	size_t len, cap;
	bool failed;
};

void plot_text_record(cairo_t *cr, struct text_layer *tl);

/* The one drawing path: FIG on CR, whose unit is the point. */
void plot_render(const st_plot_fig *fig, cairo_t *cr);

#endif
