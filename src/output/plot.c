/* plot.c - a small charting layer on cairo (see plot.h).
 *
 * A figure is a description; render() is the one drawing path, run on a
 * cairo context whose unit is the point.  For SVG that context draws on an
 * SVG surface; for PNG on an RGB image surface scaled to PNG_WIDTH pixels,
 * which png.c then encodes at settings for plots (not
 * cairo_surface_write_to_png: libpng at zlib's default level is slow).
 */
#include <cairo.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/atomic.h"
#include "streamtime/plot.h"
#include "streamtime/png.h"
#include "streamtime/stats.h"
#include "streamtime/time.h"

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

static const st_plot_rgba ink = { 0.1, 0.1, 0.1, 1.0 };
static const st_plot_rgba grey = { 0.45, 0.45, 0.45, 1.0 };
static const st_plot_rgba gridline = { 0.9, 0.9, 0.9, 1.0 };

/* ---- pure helpers ------------------------------------------------------ */

double st_plot_nice_step(double span, int target)
{
	double raw, mag, norm;

	if (!(span > 0) || !isfinite(span) || target < 1)
		return 1.0;
	raw = span / target;
	mag = pow(10.0, floor(log10(raw)));
	norm = raw / mag;
	if (norm < 1.5)
		return mag;
	if (norm < 3.0)
		return 2.0 * mag;
	if (norm < 7.0)
		return 5.0 * mag;
	return 10.0 * mag;
}

size_t st_plot_ticks(double lo, double hi, double step, double *out,
		     size_t max)
{
	double k, last;
	size_t n = 0;

	if (!(step > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	k = ceil(lo / step - 1e-9);
	last = floor(hi / step + 1e-9);
	for (; k <= last && n < 100000; k += 1.0) {
		double v = k * step;

		if (out && n < max)
			out[n] = v == 0 ? 0.0 : v;    /* no "-0" */
		n++;
	}
	return n;
}

void st_plot_hist_edges(double lo, double hi, size_t nbins, double *edges)
{
	for (size_t i = 0; i <= nbins; i++)
		edges[i] = i == nbins ? hi
				      : lo + (hi - lo) * (double)i / (double)nbins;
}

size_t st_plot_hist_count(const double *v, size_t n, double lo, double hi,
			  size_t nbins, double *counts)
{
	size_t counted = 0;
	double w;

	for (size_t i = 0; i < nbins; i++)
		counts[i] = 0;
	if (nbins == 0 || !(hi > lo))
		return 0;
	w = (hi - lo) / (double)nbins;
	for (size_t i = 0; i < n; i++) {
		double x = v[i], e0, e1;
		size_t b;

		if (!(x >= lo && x <= hi))
			continue;
		b = x == hi ? nbins - 1 : (size_t)((x - lo) / w);
		if (b >= nbins)
			b = nbins - 1;
		/* settle rounding against the edges st_plot_hist_edges gives */
		e0 = lo + (hi - lo) * (double)b / (double)nbins;
		e1 = b + 1 == nbins ? hi
				    : lo + (hi - lo) * (double)(b + 1) / (double)nbins;
		if (x < e0 && b > 0)
			b--;
		else if (x >= e1 && b + 1 < nbins)
			b++;
		counts[b] += 1;
		counted++;
	}
	return counted;
}

int st_plot_box_stats_compute(const double *v, size_t n,
			      st_plot_box_stats *out)
{
	st_summary s;
	double lo_fence, hi_fence;

	out->n = n;
	out->outliers = 0;
	out->q1 = out->median = out->q3 = NAN;
	out->whisker_lo = out->whisker_hi = NAN;
	if (n == 0)
		return 0;
	if (st_stats_summarize(v, n, &s) < 0)
		return -1;
	out->q1 = s.q25;
	out->median = s.median;
	out->q3 = s.q75;
	lo_fence = s.q25 - 1.5 * (s.q75 - s.q25);
	hi_fence = s.q75 + 1.5 * (s.q75 - s.q25);
	out->whisker_lo = s.q25;
	out->whisker_hi = s.q75;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < lo_fence || v[i] > hi_fence) {
			out->outliers++;
			continue;
		}
		if (v[i] < out->whisker_lo)
			out->whisker_lo = v[i];
		if (v[i] > out->whisker_hi)
			out->whisker_hi = v[i];
	}
	return 0;
}

/* ---- the description --------------------------------------------------- */

enum kind { K_HIST, K_POINTS, K_LINE, K_HBARS, K_BOX };

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
};

struct st_plot_axes {
	st_plot_fig *fig;
	st_plot_axes *parent;         /* insets */
	int rows, cols, row, col;
	double ix, iy, iw, ih;        /* inset rectangle, fractions */
	char *title, *xlabel, *ylabel, *empty, *note;
	bool has_xlim, has_ylim, xdates, yinvert, yinteger, legend;
	double xlo, xhi, ylo, yhi;
	enum st_plot_loc legend_loc, note_loc;
	char **cats;
	size_t ncats;
	struct series *s;
	size_t ns;
};

struct st_plot_fig {
	double w, h;
	char *title;
	const st_plot_axes *legend_from;
	st_plot_axes **axes;
	size_t naxes;
	bool failed;
};

st_plot_fig *st_plot_fig_new(double width, double height)
{
	st_plot_fig *fig = calloc(1, sizeof(*fig));

	if (fig) {
		fig->w = width > 1 ? width : 1;
		fig->h = height > 1 ? height : 1;
	}
	return fig;
}

static void series_release(struct series *s)
{
	free(s->label);
	free(s->a);
	free(s->b);
	free(s->c);
}

void st_plot_fig_free(st_plot_fig *fig)
{
	if (!fig)
		return;
	for (size_t i = 0; i < fig->naxes; i++) {
		st_plot_axes *ax = fig->axes[i];

		for (size_t j = 0; j < ax->ns; j++)
			series_release(&ax->s[j]);
		for (size_t j = 0; j < ax->ncats; j++)
			free(ax->cats[j]);
		free(ax->cats);
		free(ax->s);
		free(ax->title);
		free(ax->xlabel);
		free(ax->ylabel);
		free(ax->empty);
		free(ax->note);
		free(ax);
	}
	free(fig->axes);
	free(fig->title);
	free(fig);
}

/* Replace *DST by a copy of SRC (NULL clears); a failure marks FIG. */
static void set_str(st_plot_fig *fig, char **dst, const char *src)
{
	char *c = NULL;

	if (src && !(c = strdup(src))) {
		fig->failed = true;
		return;
	}
	free(*dst);
	*dst = c;
}

/* A copy of the N doubles V, or NULL (marking FIG) when memory runs out. */
static double *dup_doubles(st_plot_fig *fig, const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c) {
		fig->failed = true;
		return NULL;
	}
	if (n)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

void st_plot_fig_title(st_plot_fig *fig, const char *title)
{
	if (fig)
		set_str(fig, &fig->title, title);
}

void st_plot_fig_legend(st_plot_fig *fig, const st_plot_axes *ax)
{
	if (fig)
		fig->legend_from = ax;
}

static st_plot_axes *axes_add(st_plot_fig *fig)
{
	st_plot_axes **nv, *ax;

	if (!fig || fig->failed)
		return NULL;
	nv = realloc(fig->axes, (fig->naxes + 1) * sizeof(*nv));
	ax = calloc(1, sizeof(*ax));
	if (nv)
		fig->axes = nv;
	if (!nv || !ax) {
		free(ax);
		fig->failed = true;
		return NULL;
	}
	ax->fig = fig;
	fig->axes[fig->naxes++] = ax;
	return ax;
}

st_plot_axes *st_plot_fig_grid(st_plot_fig *fig, int rows, int cols, int row,
			       int col)
{
	st_plot_axes *ax = axes_add(fig);

	if (ax) {
		ax->rows = rows > 0 ? rows : 1;
		ax->cols = cols > 0 ? cols : 1;
		ax->row = row;
		ax->col = col;
	}
	return ax;
}

st_plot_axes *st_plot_axes_inset(st_plot_axes *parent, double x, double y,
				 double w, double h)
{
	st_plot_axes *ax = parent ? axes_add(parent->fig) : NULL;

	if (ax) {
		ax->parent = parent;
		ax->ix = x;
		ax->iy = y;
		ax->iw = w;
		ax->ih = h;
	}
	return ax;
}

void st_plot_axes_title(st_plot_axes *ax, const char *title)
{
	if (ax)
		set_str(ax->fig, &ax->title, title);
}

void st_plot_axes_labels(st_plot_axes *ax, const char *xlabel,
			 const char *ylabel)
{
	if (!ax)
		return;
	set_str(ax->fig, &ax->xlabel, xlabel);
	set_str(ax->fig, &ax->ylabel, ylabel);
}

void st_plot_axes_xlim(st_plot_axes *ax, double lo, double hi)
{
	if (ax && hi > lo) {
		ax->has_xlim = true;
		ax->xlo = lo;
		ax->xhi = hi;
	}
}

void st_plot_axes_ylim(st_plot_axes *ax, double lo, double hi)
{
	if (ax && hi > lo) {
		ax->has_ylim = true;
		ax->ylo = lo;
		ax->yhi = hi;
	}
}

void st_plot_axes_xdates(st_plot_axes *ax)
{
	if (ax)
		ax->xdates = true;
}

void st_plot_axes_xcategories(st_plot_axes *ax, const char *const *names,
			      size_t n)
{
	char **v;

	if (!ax || ax->fig->failed)
		return;
	v = calloc(n + 1, sizeof(*v));
	if (!v) {
		ax->fig->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		set_str(ax->fig, &v[i], names[i]);
	for (size_t j = 0; j < ax->ncats; j++)
		free(ax->cats[j]);
	free(ax->cats);
	ax->cats = v;
	ax->ncats = n;
}

void st_plot_axes_yinvert(st_plot_axes *ax)
{
	if (ax)
		ax->yinvert = true;
}

void st_plot_axes_yinteger(st_plot_axes *ax)
{
	if (ax)
		ax->yinteger = true;
}

void st_plot_axes_legend(st_plot_axes *ax, enum st_plot_loc loc)
{
	if (ax) {
		ax->legend = true;
		ax->legend_loc = loc;
	}
}

void st_plot_axes_note(st_plot_axes *ax, enum st_plot_loc loc,
		       const char *text)
{
	if (ax) {
		set_str(ax->fig, &ax->note, text);
		ax->note_loc = loc;
	}
}

void st_plot_axes_empty_text(st_plot_axes *ax, const char *text)
{
	if (ax)
		set_str(ax->fig, &ax->empty, text);
}

/* A new series of AX (zeroed but for KIND, COLOR, LABEL), or NULL. */
static struct series *series_add(st_plot_axes *ax, enum kind kind,
				 st_plot_rgba color, const char *label)
{
	struct series *nv, *s;

	if (!ax || ax->fig->failed)
		return NULL;
	nv = realloc(ax->s, (ax->ns + 1) * sizeof(*nv));
	if (!nv) {
		ax->fig->failed = true;
		return NULL;
	}
	ax->s = nv;
	s = &ax->s[ax->ns++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->color = color;
	set_str(ax->fig, &s->label, label);
	return s;
}

void st_plot_hist(st_plot_axes *ax, const double *edges, const double *counts,
		  size_t nbins, st_plot_rgba color, const char *label)
{
	struct series *s = series_add(ax, K_HIST, color, label);

	if (!s)
		return;
	s->n = nbins;
	s->a = dup_doubles(ax->fig, edges, nbins + 1);
	s->b = dup_doubles(ax->fig, counts, nbins);
}

/* A new series of two arrays of N (borrowed from AX), or NULL. */
static struct series *xy_series(st_plot_axes *ax, enum kind kind,
				const double *x, const double *y, size_t n,
				st_plot_rgba color, double size,
				const char *label)
{
	struct series *s = series_add(ax, kind, color, label);

	if (!s)
		return NULL;
	s->n = n;
	s->size = size;
	s->a = dup_doubles(ax->fig, x, n);
	s->b = dup_doubles(ax->fig, y, n);
	return s;
}

void st_plot_points(st_plot_axes *ax, const double *x, const double *y,
		    size_t n, st_plot_rgba color, double radius,
		    const char *label)
{
	xy_series(ax, K_POINTS, x, y, n, color, radius, label);
}

void st_plot_line(st_plot_axes *ax, const double *x, const double *y,
		  size_t n, st_plot_rgba color, double width,
		  const char *label)
{
	xy_series(ax, K_LINE, x, y, n, color, width, label);
}

void st_plot_hbars(st_plot_axes *ax, const double *x0, const double *x1,
		   const double *y, size_t n, double height,
		   st_plot_rgba color, const char *label)
{
	struct series *s = xy_series(ax, K_HBARS, x0, x1, n, color, height,
				     label);

	if (s)
		s->c = dup_doubles(ax->fig, y, n);
}

void st_plot_box(st_plot_axes *ax, double x, const double *v, size_t n,
		 double width, st_plot_rgba color, const char *label)
{
	struct series *s = series_add(ax, K_BOX, color, label);
	double lo, hi;
	size_t k = 0;

	if (!s)
		return;
	s->x = x;
	s->size = width;
	if (st_plot_box_stats_compute(v, n, &s->box) < 0 ||
	    !(s->a = malloc((s->box.outliers + 1) * sizeof(double)))) {
		ax->fig->failed = true;
		return;
	}
	lo = s->box.q1 - 1.5 * (s->box.q3 - s->box.q1);
	hi = s->box.q3 + 1.5 * (s->box.q3 - s->box.q1);
	for (size_t i = 0; i < n; i++)
		if (v[i] < lo || v[i] > hi)
			s->a[k++] = v[i];
	s->n = k;
}

/* ---- limits and ticks ------------------------------------------------- */

/* Where an axes is drawn: the plot area (points) and the data limits. */
struct frame {
	double x, y, w, h;
	double bx, by, bw, bh;        /* an inset's box, labels included */
	double xlo, xhi, ylo, yhi;
	bool yinvert, inset, has_data;
	bool out_of_range;      /* limits no axis can show: drawn empty */
};

static double map_x(const struct frame *f, double x)
{
	return f->x + (x - f->xlo) / (f->xhi - f->xlo) * f->w;
}

static double map_y(const struct frame *f, double y)
{
	double t = (y - f->ylo) / (f->yhi - f->ylo);

	return f->yinvert ? f->y + t * f->h : f->y + f->h - t * f->h;
}

struct bounds {
	double x0, x1, y0, y1;
	bool any, pad_x, pad_y, zero_y;
};

static void grow(struct bounds *b, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return;
	if (!b->any) {
		b->x0 = b->x1 = x;
		b->y0 = b->y1 = y;
		b->any = true;
		return;
	}
	b->x0 = fmin(b->x0, x);
	b->x1 = fmax(b->x1, x);
	b->y0 = fmin(b->y0, y);
	b->y1 = fmax(b->y1, y);
}

/* The extent of AX's data, and how each side should be padded. */
static struct bounds data_bounds(const st_plot_axes *ax)
{
	struct bounds b = { 0 };

	for (size_t i = 0; i < ax->ns; i++) {
		const struct series *s = &ax->s[i];

		switch (s->kind) {
		case K_HIST:
			for (size_t j = 0; j < s->n; j++)
				if (s->b[j] > 0) {
					grow(&b, s->a[j], 0);
					grow(&b, s->a[j + 1], s->b[j]);
				}
			b.pad_y = b.zero_y = true;
			break;
		case K_POINTS:
		case K_LINE:
			for (size_t j = 0; j < s->n; j++)
				grow(&b, s->a[j], s->b[j]);
			b.pad_x = b.pad_y = true;
			break;
		case K_HBARS:
			for (size_t j = 0; j < s->n; j++) {
				grow(&b, s->a[j], s->c[j] - s->size / 2);
				grow(&b, s->b[j], s->c[j] + s->size / 2);
			}
			b.pad_x = true;
			break;
		case K_BOX:
			if (s->box.n == 0)
				break;
			grow(&b, s->x - s->size / 2, s->box.whisker_lo);
			grow(&b, s->x + s->size / 2, s->box.whisker_hi);
			for (size_t j = 0; j < s->n; j++)
				grow(&b, s->x, s->a[j]);
			b.pad_x = b.pad_y = true;
			break;
		}
	}
	return b;
}

/* Widen [*LO, *HI] by FRAC of its span on each side (a point becomes a unit
 * interval). */
static void pad(double *lo, double *hi, double frac, bool keep_lo)
{
	double span = *hi - *lo;

	if (!(span > 0)) {
		double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 0.5;

		if (!keep_lo)
			*lo -= d;
		*hi += d;
		return;
	}
	if (!keep_lo)
		*lo -= span * frac;
	*hi += span * frac;
}

/* The data limits of AX (fixed, or fitted to its data). */
static void limits(const st_plot_axes *ax, struct frame *f)
{
	struct bounds b = data_bounds(ax);

	f->has_data = b.any;
	f->out_of_range = false;
	if (!b.any) {
		b.x0 = b.y0 = 0;
		b.x1 = b.y1 = 1;
	} else {
		if (b.zero_y && b.y0 > 0)
			b.y0 = 0;
		if (b.pad_x || !(b.x1 > b.x0))
			pad(&b.x0, &b.x1, 0.03, false);
		if (b.pad_y || !(b.y1 > b.y0))
			pad(&b.y0, &b.y1, 0.05, b.zero_y && b.y0 == 0);
	}
	if (ax->ncats && !ax->has_xlim) {
		b.x0 = -0.5;
		b.x1 = (double)ax->ncats - 0.5;
	}
	f->xlo = ax->has_xlim ? ax->xlo : b.x0;
	f->xhi = ax->has_xlim ? ax->xhi : b.x1;
	f->ylo = ax->has_ylim ? ax->ylo : b.y0;
	f->yhi = ax->has_ylim ? ax->yhi : b.y1;
	f->yinvert = ax->yinvert;
	/* values near the ends of the double range (a broken input) give
	 * spans that are infinite or too wide to map onto points: the axes
	 * are drawn empty, saying so, instead of failing the figure */
	if (!(isfinite(f->xhi - f->xlo) && isfinite(f->yhi - f->ylo) &&
	      f->xhi - f->xlo < 1e15 && f->yhi - f->ylo < 1e15)) {
		f->out_of_range = f->has_data;
		f->has_data = false;
		f->xlo = f->ylo = 0;
		f->xhi = f->yhi = 1;
	}
}

/* Decimals needed to print multiples of STEP. */
static int step_decimals(double step)
{
	int d = 0;

	while (d < 9 && fabs(step * pow(10, d) - round(step * pow(10, d))) >
	       1e-6 * step * pow(10, d))
		d++;
	return d;
}

#define MAX_TICKS 32

struct tick {
	double v;
	char text[40];
};

/* Numeric ticks of [LO, HI] for an axis LEN points long, about one per
 * SPACING points. */
static size_t numeric_ticks(double lo, double hi, double len, double spacing,
			    bool integer, struct tick *t)
{
	int target = (int)(len / spacing);
	double v[MAX_TICKS], step;
	size_t n;
	int d;

	if (target < 2)
		target = 2;
	step = st_plot_nice_step(hi - lo, target);
	if (integer && step < 1)
		step = 1;
	while (st_plot_ticks(lo, hi, step, NULL, 0) > MAX_TICKS)
		step *= 2;
	n = st_plot_ticks(lo, hi, step, v, MAX_TICKS);
	d = step_decimals(step);
	for (size_t i = 0; i < n; i++) {
		t[i].v = v[i];
		snprintf(t[i].text, sizeof(t[i].text), "%.*f", d, v[i]);
	}
	return n;
}

/* Date ticks of [LO, HI] (wall-clock seconds): the finest of hours, days,
 * months and years that gives at most TARGET ticks. */
static size_t date_ticks(double lo, double hi, int target, struct tick *t)
{
	static const struct { int hours, days, months; } steps[] = {
		{ 1, 0, 0 }, { 2, 0, 0 }, { 3, 0, 0 }, { 6, 0, 0 }, { 12, 0, 0 },
		{ 0, 1, 0 }, { 0, 2, 0 }, { 0, 7, 0 }, { 0, 14, 0 },
		{ 0, 0, 1 }, { 0, 0, 2 }, { 0, 0, 3 }, { 0, 0, 6 },
		{ 0, 0, 12 }, { 0, 0, 24 }, { 0, 0, 60 }, { 0, 0, 120 },
	};
	size_t n = 0;

	if (target < 2)
		target = 2;
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		n = 0;
		if (steps[k].months == 0) {
			double step = steps[k].hours ? steps[k].hours * 3600.0
						     : steps[k].days * 86400.0;
			size_t c = st_plot_ticks(lo, hi, step, NULL, 0);

			if (c > (size_t)target && k + 1 < sizeof(steps) / sizeof(steps[0]))
				continue;
			for (double v = ceil(lo / step) * step; v <= hi && n < MAX_TICKS;
			     v += step) {
				int64_t y;
				unsigned m, d;
				int64_t day = (int64_t)floor(v / 86400.0);

				st_civil_from_days(day, &y, &m, &d);
				t[n].v = v;
				if (steps[k].hours)
					snprintf(t[n].text, sizeof(t[n].text),
						 "%02u-%02u %02d:00", m, d,
						 (int)((v - (double)day * 86400.0) / 3600.0));
				else
					snprintf(t[n].text, sizeof(t[n].text),
						 "%04lld-%02u-%02u", (long long)y, m, d);
				n++;
			}
		} else {
			int64_t y0, y1, mk = steps[k].months;
			unsigned m0, m1, d0, d1;
			int64_t first, last;

			st_civil_from_days((int64_t)floor(lo / 86400.0), &y0, &m0, &d0);
			st_civil_from_days((int64_t)floor(hi / 86400.0), &y1, &m1, &d1);
			first = y0 * 12 + (int64_t)m0 - 1;
			last = y1 * 12 + (int64_t)m1 - 1;
			first = (first + mk - 1) / mk * mk;
			if ((last - first) / mk + 1 > target &&
			    k + 1 < sizeof(steps) / sizeof(steps[0]))
				continue;
			for (int64_t mi = first; mi <= last && n < MAX_TICKS; mi += mk) {
				double v = (double)st_days_from_civil(mi / 12,
					(unsigned)(mi % 12) + 1, 1) * 86400.0;

				if (v < lo || v > hi)
					continue;
				t[n].v = v;
				if (mk % 12 == 0)
					snprintf(t[n].text, sizeof(t[n].text), "%lld",
						 (long long)(mi / 12));
				else
					snprintf(t[n].text, sizeof(t[n].text),
						 "%04lld-%02d", (long long)(mi / 12),
						 (int)(mi % 12) + 1);
				n++;
			}
		}
		return n;
	}
	return n;
}

/* ---- drawing ------------------------------------------------------------ */

static void set_color(cairo_t *cr, st_plot_rgba c)
{
	cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a);
}

/* Draw S at (X, Y) in SIZE points: AX, AY anchor the text (0 left/top, 0.5
 * centre, 1 right/bottom); ANGLE in radians turns it around (X, Y). */
static void text(cairo_t *cr, const char *s, double size, bool bold, double x,
		 double y, double ax, double ay, double angle)
{
	cairo_text_extents_t e;

	/* a place computed from data out of range is no place: a translation
	 * by NaN or infinity would leave the context in an error state */
	if (!s || !*s || !isfinite(x) || !isfinite(y))
		return;
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD
				    : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	cairo_save(cr);
	cairo_translate(cr, x, y);
	if (angle != 0)
		cairo_rotate(cr, angle);
	/* 0.73 em is DejaVu Sans' cap height: "top" means the tops of capitals */
	cairo_move_to(cr, -e.x_advance * ax, 0.73 * size * (1.0 - ay));
	cairo_show_text(cr, s);
	cairo_restore(cr);
}

static double text_width(cairo_t *cr, const char *s, double size)
{
	cairo_text_extents_t e;

	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

static void draw_hist(cairo_t *cr, const struct frame *f,
		      const struct series *s)
{
	double top = f->yinvert ? f->ylo : f->yhi;
	size_t clipped = SIZE_MAX;

	for (size_t j = 0; j < s->n; j++) {
		double x0, x1, y0, y1;

		if (!(s->b[j] > 0))
			continue;
		x0 = map_x(f, s->a[j]);
		x1 = map_x(f, s->a[j + 1]);
		y0 = map_y(f, 0);
		y1 = map_y(f, fmin(s->b[j], top));
		cairo_rectangle(cr, x0, y1, x1 - x0, y0 - y1);
		if (s->b[j] > top && (clipped == SIZE_MAX || s->b[j] > s->b[clipped]))
			clipped = j;
	}
	set_color(cr, s->color);
	cairo_fill_preserve(cr);
	cairo_set_source_rgba(cr, 0, 0, 0, 0.8);
	cairo_set_line_width(cr, f->inset ? 0.3 : 0.45);
	cairo_stroke(cr);
	if (clipped != SIZE_MAX) {
		char buf[48];

		/* the tallest clipped bar says how tall it is */
		snprintf(buf, sizeof(buf), "\xe2\x86\x91 %.0f", s->b[clipped]);
		set_color(cr, ink);
		text(cr, buf, f->inset ? INSET_TICK_PT : NOTE_PT, false,
		     map_x(f, s->a[clipped + 1]) + 3, f->y + 4, 0, 0, 0);
	}
}

/* A set of quantised positions, so that a marker drawn where an earlier
 * one of the same series already is (within a fraction of a point) is
 * skipped (the same in both outputs): jobs with the same queue time a job
 * apart would otherwise be drawn over each other, at a cost. */
struct posset {
	uint64_t *slot;      /* 0: empty; keys have bit 63 set */
	size_t mask;
};

static int posset_init(struct posset *ps, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	ps->slot = calloc(cap, sizeof(*ps->slot));
	ps->mask = cap - 1;
	return ps->slot ? 0 : -1;
}

/* Add the cell of (X, Y) (points); false when it was there already. */
static bool posset_add(struct posset *ps, double x, double y, bool alt)
{
	const double cell = 0.5;
	uint64_t key = (uint64_t)1 << 63 | (uint64_t)alt << 62 |
		       ((uint64_t)(uint32_t)(int32_t)lround(x / cell) << 31) |
		       ((uint64_t)(uint32_t)(int32_t)lround(y / cell) & 0x7fffffffu);
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & ps->mask;

	while (ps->slot[i]) {
		if (ps->slot[i] == key)
			return false;
		i = (i + 1) & ps->mask;
	}
	ps->slot[i] = key;
	return true;
}

/* Trace one marker centred on (X, Y): a disc, or for a point above the top
 * of the axis a triangle pointing up. */
static void marker_path(cairo_t *cr, double x, double y, double r, bool up)
{
	cairo_new_sub_path(cr);
	if (!up) {
		cairo_arc(cr, x, y, r, 0, 2 * M_PI);
		return;
	}
	r *= 1.3;
	cairo_move_to(cr, x, y - r);
	cairo_line_to(cr, x + r, y + r * 0.8);
	cairo_line_to(cr, x - r, y + r * 0.8);
	cairo_close_path(cr);
}

/* Markers are filled only: an outline doubles the size of an SVG that
 * holds thousands of them (and their translucent colour shows overlap). */
static void marker_paint(cairo_t *cr, const struct series *s)
{
	set_color(cr, s->color);
	cairo_fill(cr);
}

/* One marker rasterised at the device resolution SCALE, centred in its
 * image: what a raster target stamps at every point. */
static cairo_surface_t *marker_stamp(cairo_t *cr, const struct series *s,
				     double scale, bool up, double *half)
{
	double m = s->size * 1.3 + 1;
	int px = (int)ceil(2 * m * scale) | 1;
	cairo_surface_t *img;
	cairo_t *c;

	*half = (double)(px / 2) / scale;
	img = cairo_surface_create_similar_image(cairo_get_target(cr),
						 CAIRO_FORMAT_ARGB32, px, px);
	cairo_surface_set_device_scale(img, scale, scale);
	c = cairo_create(img);
	marker_path(c, *half + 0.5 / scale, *half + 0.5 / scale, s->size, up);
	marker_paint(c, s);
	cairo_destroy(c);
	return img;
}

/* Markers of S.  Same geometry on every target; a raster target stamps a
 * marker rasterised once (as matplotlib's Agg does), a vector one gets one
 * path per marker shape: per-marker fills cost tens of microseconds each
 * in cairo. */
static void draw_points(cairo_t *cr, const struct frame *f,
			const struct series *s, bool clip_top)
{
	double r = s->size, sx = 1, sy = 0;
	bool raster = cairo_surface_get_type(cairo_get_target(cr)) ==
		      CAIRO_SURFACE_TYPE_IMAGE;
	cairo_surface_t *stamp[2] = { NULL, NULL };
	double half[2] = { 0, 0 };
	struct posset ps;

	if (posset_init(&ps, s->n) < 0)
		return;
	cairo_user_to_device_distance(cr, &sx, &sy);
	for (int up = 0; up < 2; up++) {
		if (raster)
			stamp[up] = marker_stamp(cr, s, sx, up, &half[up]);
		for (size_t j = 0; j < s->n; j++) {
			double x = s->a[j], y = s->b[j], px, py;
			bool above = clip_top && y > f->yhi;

			if (!isfinite(x) || !isfinite(y) || x < f->xlo ||
			    x > f->xhi || y < fmin(f->ylo, f->yhi) ||
			    (!clip_top && y > f->yhi) || above != (up == 1))
				continue;
			px = map_x(f, x);
			py = above ? f->y + r * 1.3 : map_y(f, y);
			if (!posset_add(&ps, px, py, above))
				continue;
			if (!raster) {
				marker_path(cr, px, py, r, above);
				continue;
			}
			/* whole device pixels: the stamp is copied, not resampled */
			cairo_set_source_surface(cr, stamp[up],
						 round((px - half[up]) * sx) / sx,
						 round((py - half[up]) * sx) / sx);
			cairo_paint(cr);
		}
		if (!raster)
			marker_paint(cr, s);
		cairo_surface_destroy(stamp[up]);
	}
	free(ps.slot);
}

static void draw_line(cairo_t *cr, const struct frame *f,
		      const struct series *s)
{
	bool pen = false;

	for (size_t j = 0; j < s->n; j++) {
		if (!isfinite(s->a[j]) || !isfinite(s->b[j])) {
			pen = false;
			continue;
		}
		if (pen)
			cairo_line_to(cr, map_x(f, s->a[j]), map_y(f, s->b[j]));
		else
			cairo_move_to(cr, map_x(f, s->a[j]), map_y(f, s->b[j]));
		pen = true;
	}
	set_color(cr, s->color);
	cairo_set_line_width(cr, s->size);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_stroke(cr);
}

/* Bars of S, at least a hairline wide so that a 4 s bar on a 13 h axis
 * shows.  Thousands of them are sub-point tall: a bar that continues the
 * previous one (same ends to half a point, touching) extends it instead
 * of adding a rectangle. */
static void draw_hbars(cairo_t *cr, const struct frame *f,
		       const struct series *s)
{
	const double q = 0.5;
	double px0 = 0, px1 = 0, py0 = 0, py1 = 0;
	bool open = false;

	for (size_t j = 0; j < s->n; j++) {
		double x0 = map_x(f, fmin(s->a[j], s->b[j]));
		double x1 = map_x(f, fmax(s->a[j], s->b[j]));
		double ya = map_y(f, s->c[j] - s->size / 2);
		double yb = map_y(f, s->c[j] + s->size / 2);
		double y0 = fmin(ya, yb), y1 = fmax(ya, yb);

		if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1))
			continue;
		if (x1 - x0 < 0.6) {
			double c = (x0 + x1) / 2;

			x0 = c - 0.3;
			x1 = c + 0.3;
		}
		if (y1 - y0 < 0.25) {
			double c = (y0 + y1) / 2;

			y0 = c - 0.125;
			y1 = c + 0.125;
		}
		x0 = floor(x0 / q) * q;
		x1 = ceil(x1 / q) * q;
		if (open && x0 == px0 && x1 == px1 && y0 <= py1 + 0.01 &&
		    y1 >= py0 - 0.01) {
			py0 = fmin(py0, y0);
			py1 = fmax(py1, y1);
			continue;
		}
		if (open)
			cairo_rectangle(cr, px0, py0, px1 - px0, py1 - py0);
		px0 = x0;
		px1 = x1;
		py0 = y0;
		py1 = y1;
		open = true;
	}
	if (open)
		cairo_rectangle(cr, px0, py0, px1 - px0, py1 - py0);
	set_color(cr, s->color);
	cairo_fill(cr);
}

static void draw_box(cairo_t *cr, const struct frame *f,
		     const struct series *s)
{
	const st_plot_box_stats *b = &s->box;
	double xl = map_x(f, s->x - s->size / 2), xr = map_x(f, s->x + s->size / 2);
	double xm = map_x(f, s->x), cap = (xr - xl) / 4;
	st_plot_rgba fill = s->color;

	if (b->n == 0)
		return;
	fill.a = 0.35;
	cairo_rectangle(cr, xl, map_y(f, b->q3), xr - xl,
			map_y(f, b->q1) - map_y(f, b->q3));
	set_color(cr, fill);
	cairo_fill_preserve(cr);
	set_color(cr, s->color);
	cairo_set_line_width(cr, 1.2);
	cairo_stroke(cr);
	/* whiskers with caps */
	cairo_move_to(cr, xm, map_y(f, b->q3));
	cairo_line_to(cr, xm, map_y(f, b->whisker_hi));
	cairo_move_to(cr, xm - cap, map_y(f, b->whisker_hi));
	cairo_line_to(cr, xm + cap, map_y(f, b->whisker_hi));
	cairo_move_to(cr, xm, map_y(f, b->q1));
	cairo_line_to(cr, xm, map_y(f, b->whisker_lo));
	cairo_move_to(cr, xm - cap, map_y(f, b->whisker_lo));
	cairo_line_to(cr, xm + cap, map_y(f, b->whisker_lo));
	cairo_stroke(cr);
	/* median */
	cairo_move_to(cr, xl, map_y(f, b->median));
	cairo_line_to(cr, xr, map_y(f, b->median));
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 2.0);
	cairo_stroke(cr);
	/* outliers: open circles, drawn once per distinct value */
	cairo_set_line_width(cr, 0.8);
	set_color(cr, s->color);
	for (size_t j = 0; j < s->n; j++) {
		bool seen = false;

		for (size_t k = 0; k < j && !seen && k < 64; k++)
			seen = s->a[k] == s->a[j];
		if (seen)
			continue;
		cairo_new_sub_path(cr);
		cairo_arc(cr, xm, map_y(f, s->a[j]), 2.4, 0, 2 * M_PI);
	}
	cairo_stroke(cr);
}

/* The swatch of S at (X, Y), SIZE points high. */
static void swatch(cairo_t *cr, const struct series *s, double x, double y,
		   double size)
{
	set_color(cr, s->color);
	switch (s->kind) {
	case K_POINTS:
		cairo_arc(cr, x + size / 2, y + size / 2, size / 3, 0, 2 * M_PI);
		cairo_fill(cr);
		break;
	case K_LINE:
		cairo_move_to(cr, x, y + size / 2);
		cairo_line_to(cr, x + size, y + size / 2);
		cairo_set_line_width(cr, 2);
		cairo_stroke(cr);
		break;
	default:
		cairo_rectangle(cr, x, y, size, size);
		cairo_fill(cr);
		break;
	}
}

#define SWATCH 9.0

/* The legend of AX's labelled series: in a box at corner LOC of F, or, with
 * F NULL, in one row centred on CX at baseline top Y. */
static void draw_legend(cairo_t *cr, const st_plot_axes *ax,
			const struct frame *f, double cx, double y)
{
	double size = f && f->inset ? INSET_TICK_PT : LEGEND_PT;
	double line = size * 1.45, wmax = 0, total = 0, bw, bh, x0, y0;
	size_t n = 0;

	for (size_t i = 0; i < ax->ns; i++) {
		double w;

		if (!ax->s[i].label)
			continue;
		w = text_width(cr, ax->s[i].label, size) + SWATCH + 6;
		wmax = fmax(wmax, w);
		total += w + 18;
		n++;
	}
	if (n == 0)
		return;
	if (!f) {
		double x = cx - (total - 18) / 2;

		for (size_t i = 0; i < ax->ns; i++) {
			const struct series *s = &ax->s[i];

			if (!s->label)
				continue;
			swatch(cr, s, x, y, SWATCH);
			set_color(cr, ink);
			text(cr, s->label, size, false, x + SWATCH + 6,
			     y + SWATCH / 2, 0, 0.5, 0);
			x += text_width(cr, s->label, size) + SWATCH + 6 + 18;
		}
		return;
	}
	bw = wmax + 12;
	bh = (double)n * line + 8;
	x0 = ax->legend_loc == ST_PLOT_UPPER_LEFT ||
	     ax->legend_loc == ST_PLOT_LOWER_LEFT ? f->x + 6 : f->x + f->w - 6 - bw;
	y0 = ax->legend_loc == ST_PLOT_UPPER_LEFT ||
	     ax->legend_loc == ST_PLOT_UPPER_RIGHT ? f->y + 6 : f->y + f->h - 6 - bh;
	cairo_rectangle(cr, x0, y0, bw, bh);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
	cairo_fill_preserve(cr);
	cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
	cairo_set_line_width(cr, 0.6);
	cairo_stroke(cr);
	y0 += 4;
	for (size_t i = 0; i < ax->ns; i++) {
		const struct series *s = &ax->s[i];

		if (!s->label)
			continue;
		swatch(cr, s, x0 + 6, y0 + (line - SWATCH) / 2, SWATCH);
		set_color(cr, ink);
		text(cr, s->label, size, false, x0 + 6 + SWATCH + 6, y0 + line / 2,
		     0, 0.5, 0);
		y0 += line;
	}
}

/* A note (lines split at '\n') on a white box in corner LOC of F. */
static void draw_note(cairo_t *cr, const char *note, enum st_plot_loc loc,
		      const struct frame *f)
{
	double size = f->inset ? INSET_TICK_PT : NOTE_PT, line = size * 1.4;
	double wmax = 0, bw, bh, x0, y0;
	char buf[512], *p, *save = NULL;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", note);
	for (p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		wmax = fmax(wmax, text_width(cr, p, size));
		n++;
	}
	if (n == 0)
		return;
	bw = wmax + 10;
	bh = (double)n * line + 6;
	x0 = loc == ST_PLOT_UPPER_LEFT || loc == ST_PLOT_LOWER_LEFT
	     ? f->x + 6 : f->x + f->w - 6 - bw;
	y0 = loc == ST_PLOT_UPPER_LEFT || loc == ST_PLOT_UPPER_RIGHT
	     ? f->y + 6 : f->y + f->h - 6 - bh;
	cairo_rectangle(cr, x0, y0, bw, bh);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
	cairo_fill(cr);
	snprintf(buf, sizeof(buf), "%s", note);
	set_color(cr, ink);
	y0 += 3;
	for (p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		text(cr, p, size, false, x0 + 5, y0 + line / 2, 0, 0.5, 0);
		y0 += line;
	}
}

/* The plot area of AX in FIG (points). */
static void place(const st_plot_fig *fig, const st_plot_axes *ax,
		  struct frame *f)
{
	if (ax->parent) {
		struct frame pf;
		double x, y, w, h;

		place(fig, ax->parent, &pf);
		f->bx = x = pf.x + ax->ix * pf.w;
		f->by = y = pf.y + ax->iy * pf.h;
		f->bw = w = ax->iw * pf.w;
		f->bh = h = ax->ih * pf.h;
		/* room inside the box for the inset's own labels */
		f->x = x + 30;
		f->y = y + (ax->title ? 16 : 5);
		f->w = w - 34;
		f->h = h - (f->y - y) - (ax->xlabel ? 28 : 16);
		f->inset = true;
		return;
	}
	{
		double header = 8 + (fig->title ? 26 : 0) +
				(fig->legend_from ? 20 : 0);
		double cw = fig->w / ax->cols, ch = (fig->h - header) / ax->rows;
		double cx = cw * ax->col, cy = header + ch * ax->row;
		double mt = ax->title ? MARGIN_TITLE : MARGIN_TOP;
		double mb = ax->xlabel ? MARGIN_XLABEL : MARGIN_BOTTOM;

		f->x = cx + MARGIN_LEFT;
		f->y = cy + mt;
		f->w = cw - MARGIN_LEFT - MARGIN_RIGHT;
		f->h = ch - mt - mb;
		f->inset = false;
	}
}

static void draw_axes(cairo_t *cr, const st_plot_fig *fig,
		      const st_plot_axes *ax)
{
	struct frame f = { 0 };
	struct tick xt[MAX_TICKS], yt[MAX_TICKS];
	size_t nx, ny;
	double tick_pt, tick_len, spacing;

	place(fig, ax, &f);
	if (!(f.w > 4 && f.h > 4))
		return;
	limits(ax, &f);
	tick_pt = f.inset ? INSET_TICK_PT : TICK_PT;
	tick_len = f.inset ? 2.5 : 4;
	spacing = f.inset ? 45 : 75;

	if (f.inset) {
		/* white under the inset and its labels */
		cairo_rectangle(cr, f.bx, f.by, f.bw, f.bh);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_fill(cr);
	}

	/* ticks */
	if (ax->ncats) {
		nx = 0;
		for (size_t i = 0; i < ax->ncats && nx < MAX_TICKS; i++) {
			xt[nx].v = (double)i;
			snprintf(xt[nx].text, sizeof(xt[nx].text), "%s",
				 ax->cats[i] ? ax->cats[i] : "");
			nx++;
		}
	} else if (ax->xdates) {
		nx = date_ticks(f.xlo, f.xhi, (int)(f.w / 90), xt);
	} else {
		nx = numeric_ticks(f.xlo, f.xhi, f.w, spacing, false, xt);
	}
	ny = numeric_ticks(fmin(f.ylo, f.yhi), fmax(f.ylo, f.yhi), f.h,
			   f.inset ? 22 : 40, ax->yinteger, yt);
	if (!f.has_data && !ax->has_ylim)
		ny = 0;       /* an empty axes says "no data", not "0 to 1" */
	if (!f.has_data && !ax->has_xlim && !ax->ncats)
		nx = 0;

	/* grid */
	if (!f.inset && f.has_data) {
		for (size_t i = 0; i < ny; i++) {
			double y = round(map_y(&f, yt[i].v) * 2) / 2;

			cairo_move_to(cr, f.x, y);
			cairo_line_to(cr, f.x + f.w, y);
		}
		set_color(cr, gridline);
		cairo_set_line_width(cr, 0.6);
		cairo_stroke(cr);
	}

	/* data, clipped to the plot area */
	cairo_save(cr);
	cairo_rectangle(cr, f.x, f.y, f.w, f.h);
	cairo_clip(cr);
	for (size_t i = 0; i < ax->ns; i++) {
		const struct series *s = &ax->s[i];

		switch (s->kind) {
		case K_HIST: draw_hist(cr, &f, s); break;
		case K_POINTS: break;
		case K_LINE: draw_line(cr, &f, s); break;
		case K_HBARS: draw_hbars(cr, &f, s); break;
		case K_BOX: draw_box(cr, &f, s); break;
		}
	}
	cairo_restore(cr);
	/* markers are not clipped (a clip makes cairo's SVG output of
	 * thousands of them twice as slow); draw_points keeps their centres
	 * inside the plot area */
	for (size_t i = 0; i < ax->ns; i++)
		if (ax->s[i].kind == K_POINTS)
			draw_points(cr, &f, &ax->s[i], ax->has_ylim);

	/* frame and ticks */
	cairo_rectangle(cr, f.x, f.y, f.w, f.h);
	for (size_t i = 0; i < nx; i++) {
		double x = map_x(&f, xt[i].v);

		cairo_move_to(cr, x, f.y + f.h);
		cairo_line_to(cr, x, f.y + f.h + tick_len);
	}
	for (size_t i = 0; i < ny; i++) {
		double y = map_y(&f, yt[i].v);

		cairo_move_to(cr, f.x, y);
		cairo_line_to(cr, f.x - tick_len, y);
	}
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_set_line_width(cr, f.inset ? 0.6 : 0.9);
	cairo_stroke(cr);
	set_color(cr, ink);
	for (size_t i = 0; i < nx; i++)
		text(cr, xt[i].text, tick_pt, false, map_x(&f, xt[i].v),
		     f.y + f.h + tick_len + 3, 0.5, 0, 0);
	for (size_t i = 0; i < ny; i++)
		text(cr, yt[i].text, tick_pt, false, f.x - tick_len - 3,
		     map_y(&f, yt[i].v), 1, 0.5, 0);

	/* labels and title */
	if (f.inset) {
		text(cr, ax->title, INSET_TITLE_PT, false, f.x + f.w / 2, f.y - 4,
		     0.5, 1, 0);
		text(cr, ax->xlabel, INSET_TICK_PT, false, f.x + f.w / 2,
		     f.y + f.h + 16, 0.5, 0, 0);
	} else {
		text(cr, ax->title, TITLE_PT, true, f.x + f.w / 2, f.y - 9, 0.5,
		     1, 0);
		text(cr, ax->xlabel, LABEL_PT, false, f.x + f.w / 2,
		     f.y + f.h + tick_len + 20, 0.5, 0, 0);
		text(cr, ax->ylabel, LABEL_PT, false, f.x - MARGIN_LEFT + 6,
		     f.y + f.h / 2, 0.5, 0, -M_PI / 2);
	}
	if (!f.has_data) {
		set_color(cr, grey);
		text(cr, f.out_of_range ? "values out of range" :
			 ax->empty ? ax->empty : "no data",
		     f.inset ? INSET_TITLE_PT : 16, false, f.x + f.w / 2,
		     f.y + f.h / 2, 0.5, 0.5, 0);
	}
	if (ax->note)
		draw_note(cr, ax->note, ax->note_loc, &f);
	if (ax->legend)
		draw_legend(cr, ax, &f, 0, 0);
}

/* The one drawing path: FIG on CR, whose unit is the point. */
static void render(const st_plot_fig *fig, cairo_t *cr)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	set_color(cr, ink);
	text(cr, fig->title, FIG_TITLE_PT, true, fig->w / 2, 10, 0.5, 0, 0);
	if (fig->legend_from)
		draw_legend(cr, fig->legend_from, NULL, fig->w / 2,
			    fig->title ? 33 : 8);
	/* main axes first, insets over them */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < fig->naxes; i++)
			if ((fig->axes[i]->parent != NULL) == (pass == 1))
				draw_axes(cr, fig, fig->axes[i]);
}

/* ---- output ------------------------------------------------------------- */

static double png_scale(const st_plot_fig *fig)
{
	return PNG_WIDTH / fig->w;
}

void st_plot_png_size(const st_plot_fig *fig, int *width, int *height)
{
	double s = png_scale(fig);

	*width = (int)ceil(fig->w * s - 1e-6);
	*height = (int)ceil(fig->h * s - 1e-6);
}

static cairo_status_t write_stream(void *closure, const unsigned char *data,
				   unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS
						    : CAIRO_STATUS_WRITE_ERROR;
}

int st_plot_write(const st_plot_fig *fig, enum st_plot_format fmt, FILE *f,
		  st_error *err)
{
	cairo_surface_t *surface;
	cairo_t *cr;
	cairo_status_t status;
	int rc = 0;

	if (fig->failed)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (fmt == ST_PLOT_PNG) {
		int w, h;

		st_plot_png_size(fig, &w, &h);
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	} else {
		surface = cairo_svg_surface_create_for_stream(write_stream, f,
							      fig->w, fig->h);
		cairo_svg_surface_restrict_to_version(surface, CAIRO_SVG_VERSION_1_1);
	}
	cr = cairo_create(surface);
	if (fmt == ST_PLOT_PNG)
		cairo_scale(cr, png_scale(fig), png_scale(fig));
	render(fig, cr);
	status = cairo_status(cr);
	cairo_destroy(cr);
	if (fmt == ST_PLOT_PNG) {
		cairo_surface_flush(surface);
	} else {
		cairo_surface_finish(surface);    /* writes the SVG document */
	}
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(surface);
	if (status != CAIRO_STATUS_SUCCESS)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot draw the figure: %s",
				  cairo_status_to_string(status));
	/* before the surface goes: finishing an image surface frees its pixels */
	else if (fmt == ST_PLOT_PNG)
		rc = st_png_write_rgb24(f, cairo_image_surface_get_data(surface),
					cairo_image_surface_get_width(surface),
					cairo_image_surface_get_height(surface),
					cairo_image_surface_get_stride(surface),
					72.0 * png_scale(fig), err);
	cairo_surface_destroy(surface);
	return rc;
}

int st_plot_save_prepared(const st_plot_fig *fig, enum st_plot_format fmt,
			  const char *path, st_atomic_file *af, st_error *err)
{
	if (st_atomic_open(af, path, err) < 0)
		return -1;
	if (st_plot_write(fig, fmt, af->fp, err) < 0) {
		st_error_prefix(err, "%s", path);
		st_atomic_abort(af);
		return -1;
	}
	if (ferror(af->fp)) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s", path);
		st_atomic_abort(af);
		return -1;
	}
	return st_atomic_prepare(af, err);
}

int st_plot_save(const st_plot_fig *fig, enum st_plot_format fmt,
		 const char *path, st_error *err)
{
	st_atomic_file af;

	if (st_plot_save_prepared(fig, fmt, path, &af, err) < 0)
		return -1;
	return st_atomic_commit(&af, err);
}
