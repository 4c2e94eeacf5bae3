/* plot_draw.c - drawing a figure description on a cairo context: series,
 * legends, notes, axes with their frames, ticks and labels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/stats.h"
#include "cairo_dyn.h"
#include "plot_int.h"

static const st_plot_rgba ink = { 0.1, 0.1, 0.1, 1.0 };
static const st_plot_rgba grey = { 0.45, 0.45, 0.45, 1.0 };
static const st_plot_rgba gridline = { 0.9, 0.9, 0.9, 1.0 };

static const cairo_user_data_key_t text_key;

#define CAPTION_LINE 13.0          /* points per caption line */

/* The height of FIG's caption with EXTRA more lines (points; 0 none). */
static double plot_caption_height(const st_plot_fig *fig, size_t extra)
{
	size_t lines = extra;

	if (fig->caption && *fig->caption) {
		lines++;
		for (const char *c = fig->caption; *c; c++)
			lines += *c == '\n';
	}
	return lines ? (double)lines * CAPTION_LINE + 8 : 0;
}

/* The spans whose texts have no room (the first 64), and how many in
 * all, for a line of the caption. */
struct unlabelled {
	const struct series *v[64];
	size_t n, all;
};

/* What the axes of a figure share: the left margin (room for the
 * longest row name) and the caption's height (the figure's, and a line
 * naming the span texts without room). */
struct layout {
	double left, caption_h;
	struct unlabelled un;
};

void plot_text_record(cairo_t *cr, struct text_layer *tl)
{
	cairo_set_user_data(cr, &text_key, tl, NULL);
}

/* Append the text S (SIZE points, its baseline start at (X, Y) in device
 * units, turned by ANGLE radians) to the layer of CR, if it has one. */
static void text_layer_add(cairo_t *cr, const char *s, double size, bool bold,
			   double x, double y, double angle)
{
	struct text_layer *tl = cairo_get_user_data(cr, &text_key);
	size_t need = strlen(s) * 6 + 200;
	char *p;
	int n;

	if (!tl || tl->failed)
		return;
	if (tl->len + need > tl->cap) {
		size_t cap = tl->cap ? tl->cap : 4096;

		while (cap < tl->len + need)
			cap *= 2;
		if (!(p = realloc(tl->buf, cap))) {
			tl->failed = true;
			return;
		}
		tl->buf = p;
		tl->cap = cap;
	}
	p = tl->buf + tl->len;
	if (angle != 0)
		n = sprintf(p, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\"%s "
			    "transform=\"rotate(%.1f %.2f %.2f)\">", x, y, size,
			    bold ? " font-weight=\"bold\"" : "",
			    angle * 180 / M_PI, x, y);
	else
		n = sprintf(p, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\"%s>",
			    x, y, size, bold ? " font-weight=\"bold\"" : "");
	p += n;
	for (; *s; s++) {
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" :
				*s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;
		unsigned char c = (unsigned char)*s;

		if (e)
			p += sprintf(p, "%s", e);
		else if (c < 0x20)
			*p++ = ' ';
		else
			*p++ = *s;
	}
	p += sprintf(p, "</text>\n");
	tl->len = (size_t)(p - tl->buf);
}

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
	{
		double dx = -e.x_advance * ax, dy = 0.73 * size * (1.0 - ay);

		cairo_user_to_device(cr, &dx, &dy);
		text_layer_add(cr, s, size, bold, dx, dy, angle);
	}
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

static void draw_vspan(cairo_t *cr, const struct frame *f,
		       const struct series *s)
{
	double x0 = fmax(map_x(f, s->x), f->x);
	double x1 = fmin(map_x(f, s->size), f->x + f->w);

	if (!isfinite(x0) || !isfinite(x1) || x1 <= x0)
		return;
	cairo_rectangle(cr, x0, f->y, fmax(x1 - x0, 0.5), f->h);
	set_color(cr, s->color);
	cairo_fill(cr);
}

#define SPAN_LINES 2
#define SPAN_GAP 4.0          /* points between two texts on a line */

/* Set CR's font to the span texts' of F, with unhinted metrics: a text
 * is then as wide in the PNG as in the SVG and the PDF, and every format
 * gives the same texts room.  The line pitch (points) into *PITCH and
 * the ascent into *ASCENT.  Between cairo_save and cairo_restore. */
static double span_font(cairo_t *cr, const struct frame *f, double *pitch,
			double *ascent)
{
	double size = f->inset ? INSET_TICK_PT : NOTE_PT - 0.5;
	cairo_font_options_t *o = cairo_font_options_create();
	cairo_font_extents_t fe;

	cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
	cairo_set_font_options(cr, o);
	cairo_font_options_destroy(o);
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_font_extents(cr, &fe);
	*pitch = fe.ascent + fe.descent + 1;
	*ascent = fe.ascent;
	return size;
}

/* The texts of AX's spans in F, in the order of the spans (the first
 * have the first choice): each at its span's start, inside its span (a
 * span narrower than its text is not labelled: its text would stand over
 * the next span, under that one's), on the first of SPAN_LINES lines
 * where it keeps SPAN_GAP from every text there; the lines a font's
 * height apart, so no two texts ever overlap.  Written when DRAW; the
 * texts of visible spans without room go to U (may be NULL). */
static void span_texts(cairo_t *cr, const struct frame *f,
		       const st_plot_axes *ax, bool draw, struct unlabelled *u)
{
	double taken[SPAN_LINES][64][2], pitch, ascent, size;
	size_t ntaken[SPAN_LINES] = { 0 };

	cairo_save(cr);
	size = span_font(cr, f, &pitch, &ascent);
	set_color(cr, ink);
	for (size_t i = 0; i < ax->ns; i++) {
		const struct series *s = &ax->s[i];
		double x0 = fmax(map_x(f, s->x), f->x);
		double x1 = fmin(map_x(f, s->size), f->x + f->w);
		int line = -1;
		double w;

		if (s->kind != K_VSPAN || !s->text || !(x1 > x0))
			continue;       /* no text, or the span is not shown */
		w = text_width(cr, s->text, size);
		for (int k = 0; k < SPAN_LINES && x0 + 2 + w + 2 <= x1 &&
				line < 0; k++) {
			bool clear = ntaken[k] < 64;

			for (size_t j = 0; clear && j < ntaken[k]; j++)
				clear = x0 + 2 + w + SPAN_GAP <= taken[k][j][0] ||
					x0 + 2 >= taken[k][j][1] + SPAN_GAP;
			if (clear)
				line = k;
		}
		if (line < 0) {
			if (u && u->n < sizeof(u->v) / sizeof(u->v[0]))
				u->v[u->n++] = s;
			if (u)
				u->all++;
			continue;
		}
		taken[line][ntaken[line]][0] = x0 + 2;
		taken[line][ntaken[line]++][1] = x0 + 2 + w;
		/* text() places the tops of capitals, 0.73 em under the line's
		 * top plus the ascent */
		if (draw)
			text(cr, s->text, size, false, x0 + 2, f->y + 2 +
			     line * pitch + ascent - 0.73 * size, 0, 0, 0);
	}
	cairo_restore(cr);
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
 * F NULL, in one row centred on CX (or, RIGHT > 0, ending at RIGHT) at
 * top Y. */
static void draw_legend(cairo_t *cr, const st_plot_axes *ax,
			const struct frame *f, double cx, double y,
			double right)
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
		double x = right > 0 ? right - (total - 18)
				     : cx - (total - 18) / 2;

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
		  struct frame *f, const struct layout *L)
{
	double left = L->left;

	if (ax->parent) {
		struct frame pf;
		double x, y, w, h;

		place(fig, ax->parent, &pf, L);
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
		double avail = fig->h - header - L->caption_h;
		double cw = fig->w / ax->cols, ch = avail / ax->rows;
		double cx = cw * ax->col, cy = header + ch * ax->row;
		double mt = ax->title ? MARGIN_TITLE : MARGIN_TOP;
		double mb = ax->xlabel ? MARGIN_XLABEL : MARGIN_BOTTOM;

		if (fig->nrow_w) {
			double all = 0, before = 0;

			for (int r = 0; r < ax->rows; r++) {
				double wr = (size_t)r < fig->nrow_w
					    ? fig->row_w[r] : 1;

				all += wr;
				if (r < ax->row)
					before += wr;
				if (r == ax->row)
					ch = wr;
			}
			ch = avail * ch / all;
			cy = header + avail * before / all;
		}
		f->x = cx + left;
		f->y = cy + mt;
		f->w = cw - left - MARGIN_RIGHT;
		f->h = ch - mt - mb;
		f->inset = false;
	}
}

/* The ticks of axes AX in frame F: categories, dates or numbers on x,
 * numbers on y; none on an axis of an empty axes without its limits
 * set (it says "no data", not "0 to 1"). */
static void axes_ticks(const st_plot_axes *ax, const struct frame *f,
		       struct tick *xt, size_t *nx, struct tick *yt, size_t *ny)
{
	if (ax->ncats) {
		*nx = 0;
		for (size_t i = 0; i < ax->ncats && *nx < MAX_TICKS; i++) {
			xt[*nx].v = (double)i;
			snprintf(xt[*nx].text, sizeof(xt[*nx].text), "%s",
				 ax->cats[i] ? ax->cats[i] : "");
			(*nx)++;
		}
	} else if (ax->xdates) {
		*nx = plot_date_ticks(f->xlo, f->xhi, (int)(f->w / 90), xt);
	} else if (ax->xclock) {
		*nx = plot_clock_ticks(f->xlo, f->xhi, (int)(f->w / 80), xt);
		/* a label centred at the right end would run off the figure */
		while (*nx && map_x(f, xt[*nx - 1].v) > f->x + f->w - 12)
			(*nx)--;
	} else {
		*nx = plot_numeric_ticks(f->xlo, f->xhi, f->w, f->inset ? 45 : 75,
				    false, xt);
	}
	if (ax->ylog10)
		*ny = plot_log10_ticks(fmin(f->ylo, f->yhi), fmax(f->ylo, f->yhi),
				       f->h, f->inset ? 22 : 40, yt);
	else
		*ny = plot_numeric_ticks(fmin(f->ylo, f->yhi), fmax(f->ylo, f->yhi),
					 f->h, f->inset ? 22 : 40, ax->yinteger,
					 yt);
	if ((!f->has_data && !ax->has_ylim) || ax->nycats)
		*ny = 0;
	if (!f->has_data && !ax->has_xlim && !ax->ncats)
		*nx = 0;
}

/* Horizontal grid lines at the y ticks (main axes with data only). */
static void draw_grid(cairo_t *cr, const struct frame *f,
		      const struct tick *yt, size_t ny)
{
	if (f->inset || !f->has_data)
		return;
	for (size_t i = 0; i < ny; i++) {
		double y = round(map_y(f, yt[i].v) * 2) / 2;

		cairo_move_to(cr, f->x, y);
		cairo_line_to(cr, f->x + f->w, y);
	}
	set_color(cr, gridline);
	cairo_set_line_width(cr, 0.6);
	cairo_stroke(cr);
}

#define YCAT_PT 9.0

/* The rows of AX's y categories: every other one on a light band, each
 * named left of the axis. */
static void draw_ycats(cairo_t *cr, const st_plot_axes *ax,
		       const struct frame *f, bool labels)
{
	for (size_t i = 0; i < ax->nycats; i++) {
		double ya = map_y(f, (double)i - 0.5), yb = map_y(f, (double)i + 0.5);
		double y0 = fmax(fmin(ya, yb), f->y), y1 = fmin(fmax(ya, yb), f->y + f->h);

		if (!(y1 > y0))
			continue;
		if (!labels) {
			if (i % 2)
				cairo_rectangle(cr, f->x, y0, f->w, y1 - y0);
			continue;
		}
		set_color(cr, ink);
		text(cr, ax->ycats[i], YCAT_PT, false, f->x - 5,
		     map_y(f, (double)i), 1, 0.5, 0);
	}
	if (!labels) {
		cairo_set_source_rgb(cr, 0.95, 0.95, 0.96);
		cairo_fill(cr);
	}
}

/* AX's series: all but markers clipped to the plot area.  Markers are
 * not clipped (a clip makes cairo's SVG output of thousands of them
 * twice as slow); draw_points keeps their centres inside it. */
static void draw_series(cairo_t *cr, const struct frame *f,
			const st_plot_axes *ax)
{
	cairo_save(cr);
	cairo_rectangle(cr, f->x, f->y, f->w, f->h);
	cairo_clip(cr);
	for (size_t i = 0; i < ax->ns; i++) {
		const struct series *s = &ax->s[i];

		switch (s->kind) {
		case K_HIST: draw_hist(cr, f, s); break;
		case K_POINTS: break;
		case K_LINE: draw_line(cr, f, s); break;
		case K_HBARS: draw_hbars(cr, f, s); break;
		case K_BOX: draw_box(cr, f, s); break;
		case K_VSPAN: draw_vspan(cr, f, s); break;
		}
	}
	cairo_restore(cr);
	span_texts(cr, f, ax, true, NULL);
	for (size_t i = 0; i < ax->ns; i++)
		if (ax->s[i].kind == K_POINTS)
			draw_points(cr, f, &ax->s[i], ax->has_ylim);
}

/* The frame, the tick marks and their labels. */
static void draw_frame(cairo_t *cr, const struct frame *f,
		       const struct tick *xt, size_t nx,
		       const struct tick *yt, size_t ny)
{
	double tick_pt = f->inset ? INSET_TICK_PT : TICK_PT;
	double tick_len = f->inset ? 2.5 : 4;

	cairo_rectangle(cr, f->x, f->y, f->w, f->h);
	for (size_t i = 0; i < nx; i++) {
		double x = map_x(f, xt[i].v);

		cairo_move_to(cr, x, f->y + f->h);
		cairo_line_to(cr, x, f->y + f->h + tick_len);
	}
	for (size_t i = 0; i < ny; i++) {
		double y = map_y(f, yt[i].v);

		cairo_move_to(cr, f->x, y);
		cairo_line_to(cr, f->x - tick_len, y);
	}
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_set_line_width(cr, f->inset ? 0.6 : 0.9);
	cairo_stroke(cr);
	set_color(cr, ink);
	for (size_t i = 0; i < nx; i++)
		text(cr, xt[i].text, tick_pt, false, map_x(f, xt[i].v),
		     f->y + f->h + tick_len + 3, 0.5, 0, 0);
	for (size_t i = 0; i < ny; i++)
		text(cr, yt[i].text, tick_pt, false, f->x - tick_len - 3,
		     map_y(f, yt[i].v), 1, 0.5, 0);
}

/* AX's title and axis labels, and what an empty axes says. */
static void draw_labels(cairo_t *cr, const st_plot_axes *ax,
			const struct frame *f)
{
	double tick_len = f->inset ? 2.5 : 4;

	if (f->inset) {
		text(cr, ax->title, INSET_TITLE_PT, false, f->x + f->w / 2,
		     f->y - 4, 0.5, 1, 0);
		text(cr, ax->xlabel, INSET_TICK_PT, false, f->x + f->w / 2,
		     f->y + f->h + 16, 0.5, 0, 0);
	} else {
		/* beside a legend above the axes, the title goes left */
		if (ax->legend && ax->legend_loc == ST_PLOT_ABOVE)
			text(cr, ax->title, TITLE_PT, true, f->x, f->y - 9, 0, 1, 0);
		else
			text(cr, ax->title, TITLE_PT, true, f->x + f->w / 2,
			     f->y - 9, 0.5, 1, 0);
		text(cr, ax->xlabel, LABEL_PT, false, f->x + f->w / 2,
		     f->y + f->h + tick_len + 20, 0.5, 0, 0);
		text(cr, ax->ylabel, LABEL_PT, false, f->x - MARGIN_LEFT + 6,
		     f->y + f->h / 2, 0.5, 0, -M_PI / 2);
	}
	if (!f->has_data) {
		set_color(cr, grey);
		text(cr, f->out_of_range ? "values out of range" :
			 ax->empty ? ax->empty : "no data",
		     f->inset ? INSET_TITLE_PT : 16, false, f->x + f->w / 2,
		     f->y + f->h / 2, 0.5, 0.5, 0);
	}
}

/* One axes: placed, limited, then drawn back to front. */
static void draw_axes(cairo_t *cr, const st_plot_fig *fig,
		      const st_plot_axes *ax, const struct layout *L)
{
	struct frame f = { 0 };
	struct tick xt[MAX_TICKS], yt[MAX_TICKS];
	size_t nx, ny;

	place(fig, ax, &f, L);
	if (!(f.w > 4 && f.h > 4))
		return;
	plot_limits(ax, &f);
	if (f.inset) {
		/* white under the inset and its labels */
		cairo_rectangle(cr, f.bx, f.by, f.bw, f.bh);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_fill(cr);
	}
	axes_ticks(ax, &f, xt, &nx, yt, &ny);
	draw_grid(cr, &f, yt, ny);
	draw_ycats(cr, ax, &f, false);
	draw_series(cr, &f, ax);
	draw_frame(cr, &f, xt, nx, yt, ny);
	draw_ycats(cr, ax, &f, true);
	draw_labels(cr, ax, &f);
	if (ax->note)
		draw_note(cr, ax->note, ax->note_loc, &f);
	if (ax->legend && ax->legend_loc == ST_PLOT_ABOVE)
		draw_legend(cr, ax, NULL, 0, f.y - 7 - SWATCH, f.x + f.w);
	else if (ax->legend)
		draw_legend(cr, ax, &f, 0, 0, 0);
}

/* The span texts of FIG that have no room, into L->un: their places
 * across the axes do not depend on the caption's height, which this
 * decides. */
static void find_unlabelled(cairo_t *cr, const st_plot_fig *fig,
			    struct layout *L)
{
	for (size_t i = 0; i < fig->naxes; i++) {
		const st_plot_axes *ax = fig->axes[i];
		struct frame f = { 0 };
		bool any = false;

		for (size_t k = 0; k < ax->ns && !any; k++)
			any = ax->s[k].kind == K_VSPAN && ax->s[k].text;
		if (!any)
			continue;
		place(fig, ax, &f, L);
		if (!(f.w > 4 && f.h > 4))
			continue;
		plot_limits(ax, &f);
		span_texts(cr, &f, ax, false, &L->un);
	}
}

static int cmp_span_start(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a;
	const struct series *y = *(const struct series *const *)b;

	return x->x < y->x ? -1 : x->x > y->x ? 1 : x < y ? -1 : x > y;
}

/* The caption's line of U into BUF: the texts in the order of their
 * spans' starts while the line stays short (about 120 characters), then
 * how many more.  Sorts U. */
static const char *unlabelled_line(struct unlabelled *u, char *buf,
				   size_t size)
{
	size_t len, shown = 0;

	qsort(u->v, u->n, sizeof(u->v[0]), cmp_span_start);
	len = (size_t)snprintf(buf, size, "shaded, not labelled (no room):");
	for (; shown < u->n && len + strlen(u->v[shown]->text) + 2 < 120 &&
	       len < size; shown++)
		len += (size_t)snprintf(buf + len, size - len, "%s %s",
					shown ? "," : "", u->v[shown]->text);
	if (shown < u->all && len < size)
		snprintf(buf + len, size - len, " and %zu more", u->all - shown);
	return buf;
}

/* The figure's caption: its lines, then the span texts without room. */
static void draw_caption(cairo_t *cr, const st_plot_fig *fig,
			 struct layout *L)
{
	char buf[2048], *p, *save = NULL;
	double y = fig->h - L->caption_h + 6;

	snprintf(buf, sizeof(buf), "%s", fig->caption ? fig->caption : "");
	set_color(cr, ink);
	for (p = strtok_r(buf, "\n", &save); p;
	     p = strtok_r(NULL, "\n", &save)) {
		text(cr, p, NOTE_PT, false, 12, y + CAPTION_LINE / 2, 0, 0.5, 0);
		y += CAPTION_LINE;
	}
	if (L->un.all)
		text(cr, unlabelled_line(&L->un, buf, sizeof(buf)), NOTE_PT,
		     false, 12, y + CAPTION_LINE / 2, 0, 0.5, 0);
}

/* The one drawing path: FIG on CR, whose unit is the point. */
void plot_render(const st_plot_fig *fig, cairo_t *cr)
{
	struct layout L = { .left = MARGIN_LEFT };

	/* room for the longest row name, the same for every axes */
	for (size_t i = 0; i < fig->naxes; i++)
		for (size_t k = 0; k < fig->axes[i]->nycats; k++)
			if (fig->axes[i]->ycats[k])
				L.left = fmax(L.left,
					      text_width(cr, fig->axes[i]->ycats[k],
							 YCAT_PT) + 12);
	find_unlabelled(cr, fig, &L);
	L.caption_h = plot_caption_height(fig, L.un.all ? 1 : 0);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	set_color(cr, ink);
	text(cr, fig->title, FIG_TITLE_PT, true, fig->w / 2, 10, 0.5, 0, 0);
	if (fig->legend_from)
		draw_legend(cr, fig->legend_from, NULL, fig->w / 2,
			    fig->title ? 33 : 8, 0);
	draw_caption(cr, fig, &L);
	/* main axes first, insets over them */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < fig->naxes; i++)
			if ((fig->axes[i]->parent != NULL) == (pass == 1))
				draw_axes(cr, fig, fig->axes[i], &L);
}
