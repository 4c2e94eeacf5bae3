/* plot.c - a small charting layer on cairo (see plot.h).
 *
 * A figure is a description (here); plot_render() (plot_draw.c) is the
 * one drawing path, with limits and ticks from plot_scale.c, run on a
 * cairo context whose unit is the point.  For SVG and PDF that context
 * draws on cairo's SVG or PDF surface; for PNG on an RGB image surface
 * scaled to PNG_WIDTH pixels, which png.c then encodes at settings for
 * plots (not cairo_surface_write_to_png: libpng at zlib's default level is
 * slow).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/atomic.h"
#include "streamtime/plot.h"
#include "streamtime/png.h"
#include "streamtime/stats.h"
#include "streamtime/time.h"
#include "cairo_dyn.h"
#include "plot_int.h"

/* ---- pure helpers ------------------------------------------------------ */

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
	free(s->text);
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
		for (size_t j = 0; j < ax->nycats; j++)
			free(ax->ycats[j]);
		free(ax->ycats);
		free(ax->s);
		free(ax->title);
		free(ax->xlabel);
		free(ax->ylabel);
		free(ax->empty);
		free(ax->note);
		free(ax);
	}
	free(fig->axes);
	free(fig->row_w);
	free(fig->title);
	free(fig->caption);
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

void st_plot_fig_caption(st_plot_fig *fig, const char *text)
{
	if (fig)
		set_str(fig, &fig->caption, text);
}

void st_plot_fig_legend(st_plot_fig *fig, const st_plot_axes *ax)
{
	if (fig)
		fig->legend_from = ax;
}

void st_plot_fig_row_weights(st_plot_fig *fig, const double *weights,
			     size_t n)
{
	if (!fig || fig->failed)
		return;
	for (size_t i = 0; i < n; i++)
		if (!(weights[i] > 0) || !isfinite(weights[i]))
			return;
	free(fig->row_w);
	fig->row_w = dup_doubles(fig, weights, n);
	fig->nrow_w = fig->row_w ? n : 0;
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

/* Replace *V (*N of them) by copies of NAMES[0..N). */
static void set_cats(st_plot_axes *ax, char ***v, size_t *nv,
		     const char *const *names, size_t n)
{
	char **c;

	if (!ax || ax->fig->failed)
		return;
	c = calloc(n + 1, sizeof(*c));
	if (!c) {
		ax->fig->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		set_str(ax->fig, &c[i], names[i]);
	for (size_t j = 0; j < *nv; j++)
		free((*v)[j]);
	free(*v);
	*v = c;
	*nv = n;
}

void st_plot_axes_xcategories(st_plot_axes *ax, const char *const *names,
			      size_t n)
{
	if (ax)
		set_cats(ax, &ax->cats, &ax->ncats, names, n);
}

void st_plot_axes_ycategories(st_plot_axes *ax, const char *const *names,
			      size_t n)
{
	if (ax)
		set_cats(ax, &ax->ycats, &ax->nycats, names, n);
}

void st_plot_axes_xclock(st_plot_axes *ax)
{
	if (ax)
		ax->xclock = true;
}

void st_plot_axes_ylog10(st_plot_axes *ax)
{
	if (ax)
		ax->ylog10 = true;
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

void st_plot_vspan(st_plot_axes *ax, double x0, double x1, st_plot_rgba color,
		   const char *text)
{
	struct series *s = series_add(ax, K_VSPAN, color, NULL);

	if (!s)
		return;
	s->x = fmin(x0, x1);
	s->size = fmax(x0, x1);
	set_str(ax->fig, &s->text, text);
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

/* The SVG document of cairo, held until the text layer goes in. */
struct svg_doc {
	char *buf;
	size_t len, cap;
};

static cairo_status_t svg_stream(void *closure, const unsigned char *data,
				 unsigned int len)
{
	struct svg_doc *d = closure;

	if (d->len + len + 1 > d->cap) {
		size_t cap = d->cap ? d->cap : 1 << 16;
		char *b;

		while (cap < d->len + len + 1)
			cap *= 2;
		if (!(b = realloc(d->buf, cap)))
			return CAIRO_STATUS_NO_MEMORY;
		d->buf = b;
		d->cap = cap;
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
	return CAIRO_STATUS_SUCCESS;
}

/* DOC to F with the text layer TL before its closing tag.  0 or -1. */
static int svg_finish(const struct svg_doc *d, const struct text_layer *tl,
		      FILE *f)
{
	static const char head[] = "<g class=\"text-layer\" fill-opacity=\"0\" "
				   "font-family=\"" FONT "\">\n";
	size_t end = d->len;

	while (end >= 6 && memcmp(d->buf + end - 6, "</svg>", 6) != 0)
		end--;
	if (end < 6)
		return -1;
	end -= 6;
	if (fwrite(d->buf, 1, end, f) != end ||
	    (tl->len && (fputs(head, f) == EOF ||
			 fwrite(tl->buf, 1, tl->len, f) != tl->len ||
			 fputs("</g>\n", f) == EOF)) ||
	    fwrite(d->buf + end, 1, d->len - end, f) != d->len - end)
		return -1;
	return 0;
}

/* cairo's PDF stream to the caller's FILE.  FAILED remembers a short
 * write: cairo 1.16 loses its stream's error when the page surface is
 * finished, so the status of a PDF surface says nothing of it. */
struct pdf_out {
	FILE *f;
	bool failed;
};

static cairo_status_t pdf_stream(void *closure, const unsigned char *data,
				 unsigned int len)
{
	struct pdf_out *o = closure;

	if (fwrite(data, 1, len, o->f) == len)
		return CAIRO_STATUS_SUCCESS;
	o->failed = true;
	return CAIRO_STATUS_WRITE_ERROR;
}

/* The surface FIG is drawn on as FMT: an image for PNG (its pixels
 * encoded after), an SVG surface into DOC (the text layer goes in after),
 * a PDF surface straight to PDF's file. */
static cairo_surface_t *surface_new(const st_plot_fig *fig,
				    enum st_plot_format fmt,
				    struct svg_doc *doc, struct pdf_out *pdf)
{
	cairo_surface_t *s;
	int w, h;

	switch (fmt) {
	case ST_PLOT_PNG:
		st_plot_png_size(fig, &w, &h);
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	case ST_PLOT_PDF:
		s = cairo_pdf_surface_create_for_stream(pdf_stream, pdf, fig->w,
							fig->h);
		/* no creation date (cairo takes "" as none; NULL it
		 * dereferences): the same figure gives the same bytes */
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE,
					       "");
		return s;
	case ST_PLOT_SVG:
	default:
		s = cairo_svg_surface_create_for_stream(svg_stream, doc, fig->w,
							fig->h);
		cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
		return s;
	}
}

int st_plot_write(const st_plot_fig *fig, enum st_plot_format fmt, FILE *f,
		  st_error *err)
{
	cairo_surface_t *surface;
	cairo_t *cr;
	cairo_status_t status;
	struct svg_doc doc = { 0 };
	struct text_layer tl = { 0 };
	struct pdf_out pdf = { f, false };
	int rc = 0;

	if (fig->failed)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_cairo_load(err) < 0)
		return -1;
	surface = surface_new(fig, fmt, &doc, &pdf);
	cr = cairo_create(surface);
	if (fmt == ST_PLOT_PNG)
		cairo_scale(cr, png_scale(fig), png_scale(fig));
	else if (fmt == ST_PLOT_SVG)
		plot_text_record(cr, &tl);
	plot_render(fig, cr);
	status = cairo_status(cr);
	cairo_destroy(cr);
	if (fmt == ST_PLOT_PNG)
		cairo_surface_flush(surface);
	else
		cairo_surface_finish(surface);    /* writes the document */
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(surface);
	if (status == CAIRO_STATUS_SUCCESS && tl.failed)
		status = CAIRO_STATUS_NO_MEMORY;
	if (fmt == ST_PLOT_PDF && pdf.failed)   /* before cairo's own word */
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot write the PDF "
				  "document");
	else if (status != CAIRO_STATUS_SUCCESS)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot draw the figure: %s",
				  cairo_status_to_string(status));
	/* before the surface goes: finishing an image surface frees its pixels */
	else if (fmt == ST_PLOT_PNG)
		rc = st_png_write_rgb24(f, cairo_image_surface_get_data(surface),
					cairo_image_surface_get_width(surface),
					cairo_image_surface_get_height(surface),
					cairo_image_surface_get_stride(surface),
					72.0 * png_scale(fig), err);
	else if (fmt == ST_PLOT_SVG && svg_finish(&doc, &tl, f) < 0)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot write the SVG "
				  "document");
	cairo_surface_destroy(surface);
	free(doc.buf);
	free(tl.buf);
	return rc;
}

const char *st_plot_format_ext(enum st_plot_format fmt)
{
	return fmt == ST_PLOT_PNG ? ".png" : fmt == ST_PLOT_PDF ? ".pdf"
								 : ".svg";
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

int st_plot_save_set(const st_plot_fig *const *figs,
		     const char *const *names, size_t n, const char *dir,
		     unsigned formats, size_t *files, st_error *err)
{
	st_atomic_set set = { 0 };
	size_t made = 0;

	if (st_mkdir_p(dir, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < ST_PLOT_NFORMATS; k++) {
			enum st_plot_format fmt = 1u << k;
			st_atomic_file af;
			char name[256], *path;
			int rc;

			if (!(formats & fmt))
				continue;
			snprintf(name, sizeof(name), "%s%s", names[i],
				 st_plot_format_ext(fmt));
			if (!(path = st_path_join(dir, name))) {
				st_atomic_set_abort(&set);
				return st_error_set(err, ST_EXIT_IOERR,
						    "out of memory");
			}
			rc = st_plot_save_prepared(figs[i], fmt, path, &af,
						   err);
			free(path);
			if (rc < 0 || st_atomic_set_add(&set, &af, err) < 0) {
				st_atomic_set_abort(&set);
				return -1;
			}
			made++;
		}
	if (st_atomic_set_commit(&set, err) < 0)
		return -1;
	*files += made;
	return 0;
}
