/* test_plot.c - unit tests for plot.h (ticks, bins, box plots, rendering)
 * and figures.h (a results directory with headers only), plus the per-job
 * file-transfer times of analysis.h that the figures plot.
 *
 * The PNG encoder is checked against libpng: cairo reads our files back
 * with cairo_image_surface_create_from_png_stream, which verifies the CRCs,
 * the zlib stream and its Adler-32.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cairo.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/analysis.h"
#include "streamtime/atomic.h"
#include "streamtime/figures.h"
#include "streamtime/plot.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[] = "/tmp/st-plot-XXXXXX";

/* ---- nice ticks ---------------------------------------------------------- */

static void test_nice_step(void **state)
{
	(void)state;
	assert_true(st_plot_nice_step(10, 5) == 2);
	assert_true(st_plot_nice_step(100, 10) == 10);
	assert_true(st_plot_nice_step(7, 5) == 1);       /* 1.4 -> 1 */
	assert_true(st_plot_nice_step(12, 5) == 2);      /* 2.4 -> 2 */
	assert_true(st_plot_nice_step(20, 5) == 5);      /* 4 -> 5 */
	assert_true(st_plot_nice_step(35, 5) == 10);     /* 7 -> 10 */
	assert_true(fabs(st_plot_nice_step(1, 5) - 0.2) < 1e-15);
	assert_true(fabs(st_plot_nice_step(0.003, 3) - 0.001) < 1e-18);
	assert_true(st_plot_nice_step(101316, 5) == 20000);
	/* degenerate spans */
	assert_true(st_plot_nice_step(0, 5) == 1);
	assert_true(st_plot_nice_step(-4, 5) == 1);
	assert_true(st_plot_nice_step(NAN, 5) == 1);
	assert_true(st_plot_nice_step(INFINITY, 5) == 1);
	assert_true(st_plot_nice_step(10, 0) == 1);
}

static void test_ticks(void **state)
{
	double t[16];

	(void)state;
	assert_int_equal(st_plot_ticks(0, 10, 2, t, N(t)), 6);
	assert_true(t[0] == 0 && t[5] == 10);
	/* ticks inside the range only */
	assert_int_equal(st_plot_ticks(-3, 7.5, 5, t, N(t)), 2);
	assert_true(t[0] == 0 && t[1] == 5);
	/* 0.3 / 0.1 is 2.9999999999999996: the last tick is not lost */
	assert_int_equal(st_plot_ticks(0, 0.3, 0.1, t, N(t)), 4);
	/* no "-0" */
	assert_int_equal(st_plot_ticks(-1, 1, 1, t, N(t)), 3);
	assert_false(signbit(t[1]));
	/* counting only, and truncation to MAX */
	assert_int_equal(st_plot_ticks(0, 100, 1, NULL, 0), 101);
	assert_int_equal(st_plot_ticks(0, 100, 1, t, 4), 101);
	assert_true(t[3] == 3);
	/* bad input */
	assert_int_equal(st_plot_ticks(5, 1, 1, t, N(t)), 0);
	assert_int_equal(st_plot_ticks(0, 1, 0, t, N(t)), 0);
	assert_int_equal(st_plot_ticks(NAN, 1, 1, t, N(t)), 0);
}

/* ---- histogram binning --------------------------------------------------- */

static void test_hist_edges_and_counts(void **state)
{
	const double v[] = { 0, 0.999, 1, 2.5, 3, -0.1, 3.1, NAN, 2, 1.5 };
	double edges[4], c[3];

	(void)state;
	st_plot_hist_edges(0, 3, 3, edges);
	assert_true(edges[0] == 0 && edges[1] == 1 && edges[2] == 2 &&
		    edges[3] == 3);
	/* [0,1) [1,2) [2,3]: an edge value goes right, except HI */
	assert_int_equal(st_plot_hist_count(v, N(v), 0, 3, 3, c), 7);
	assert_true(c[0] == 2);     /* 0, 0.999 */
	assert_true(c[1] == 2);     /* 1, 1.5 */
	assert_true(c[2] == 3);     /* 2, 2.5, 3 */
}

/* Every edge from st_plot_hist_edges opens its own bin, even where
 * (x - lo) / width rounds the other way. */
static void test_hist_edges_land_in_their_bin(void **state)
{
	const struct { double lo, hi; size_t n; } cases[] = {
		{ 0, 0.3, 3 }, { 0, 0.7, 7 }, { -0.5, 30.5, 31 }, { 0.1, 1.1, 10 },
		{ 17.25, 112.75, 191 },
	};

	(void)state;
	for (size_t k = 0; k < N(cases); k++) {
		size_t n = cases[k].n;
		double *e = malloc((n + 1) * sizeof(*e));
		double *c = malloc(n * sizeof(*c));

		st_plot_hist_edges(cases[k].lo, cases[k].hi, n, e);
		assert_true(e[n] == cases[k].hi);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(st_plot_hist_count(&e[i], 1, cases[k].lo,
							    cases[k].hi, n, c), 1);
			if (c[i] != 1)
				fail_msg("case %zu: edge %zu (%.17g) not in bin %zu", k,
					 i, e[i], i);
			/* the largest value below the edge is in the bin before */
			if (i > 0) {
				double below = nextafter(e[i], -INFINITY);

				st_plot_hist_count(&below, 1, cases[k].lo, cases[k].hi,
						   n, c);
				if (c[i - 1] != 1)
					fail_msg("case %zu: %.17g not in bin %zu", k,
						 below, i - 1);
			}
		}
		free(e);
		free(c);
	}
}

static void test_hist_empty(void **state)
{
	double c[4] = { 9, 9, 9, 9 };

	(void)state;
	assert_int_equal(st_plot_hist_count(NULL, 0, 0, 1, 4, c), 0);
	assert_true(c[0] == 0 && c[3] == 0);
	/* an empty range counts nothing */
	assert_int_equal(st_plot_hist_count((double[]){ 1 }, 1, 1, 1, 4, c), 0);
}

/* ---- box plots ----------------------------------------------------------- */

static void test_box_stats(void **state)
{
	/* sorted: positions (n-1)p = 2.25, 4.5, 6.75: Q1 3.25, median 5.5,
	 * Q3 7.75; IQR 4.5, fences -3.5 and 14.5: 100 is the one outlier */
	const double v[] = { 100, 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	st_plot_box_stats b;

	(void)state;
	assert_int_equal(st_plot_box_stats_compute(v, N(v), &b), 0);
	assert_int_equal(b.n, 10);
	assert_true(b.q1 == 3.25 && b.median == 5.5 && b.q3 == 7.75);
	assert_true(b.whisker_lo == 1 && b.whisker_hi == 9);
	assert_int_equal(b.outliers, 1);
	assert_true(v[0] == 100);    /* not sorted in place */
}

static void test_box_stats_degenerate(void **state)
{
	const double same[] = { 4, 4, 4, 4, 5 };
	st_plot_box_stats b;

	(void)state;
	assert_int_equal(st_plot_box_stats_compute(NULL, 0, &b), 0);
	assert_true(isnan(b.median) && isnan(b.whisker_lo));
	assert_int_equal(b.outliers, 0);
	/* IQR 0: everything off the box is an outlier (as the 128x128 data) */
	assert_int_equal(st_plot_box_stats_compute(same, N(same), &b), 0);
	assert_true(b.q1 == 4 && b.q3 == 4 && b.whisker_hi == 4);
	assert_int_equal(b.outliers, 1);
}

/* ---- rendering ----------------------------------------------------------- */

struct buf {
	char *data;
	size_t len;
};

static struct buf render(const st_plot_fig *fig, enum st_plot_format fmt)
{
	struct buf b = { NULL, 0 };
	FILE *f = open_memstream(&b.data, &b.len);
	st_error err;

	assert_non_null(f);
	if (st_plot_write(fig, fmt, f, &err) != 0)
		fail_msg("st_plot_write: %s", err.text);
	assert_int_equal(fclose(f), 0);
	return b;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

struct reader {
	const struct buf *b;
	size_t off;
};

static cairo_status_t read_mem(void *closure, unsigned char *data,
			       unsigned int len)
{
	struct reader *r = closure;

	if (r->b->len - r->off < len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->b->data + r->off, len);
	r->off += len;
	return CAIRO_STATUS_SUCCESS;
}

/* Check the PNG B of FIG: signature, IHDR, chunk order, then decode it with
 * libpng (through cairo).  Returns the decoded image (destroy it). */
static cairo_surface_t *check_png(const st_plot_fig *fig, const struct buf *b)
{
	const unsigned char *p = (const unsigned char *)b->data;
	int w, h;
	struct reader r = { b, 0 };
	cairo_surface_t *img;

	st_plot_png_size(fig, &w, &h);
	assert_true(w >= 1200);
	assert_true(b->len > 8 + 25 + 12);
	assert_memory_equal(p, "\x89PNG\r\n\x1a\n", 8);
	assert_int_equal(be32(p + 8), 13);
	assert_memory_equal(p + 12, "IHDR", 4);
	assert_int_equal(be32(p + 16), (uint32_t)w);
	assert_int_equal(be32(p + 20), (uint32_t)h);
	assert_int_equal(p[24], 8);          /* bit depth */
	assert_int_equal(p[25], 2);          /* RGB */
	assert_memory_equal(p + b->len - 8, "IEND", 4);
	img = cairo_image_surface_create_from_png_stream(read_mem, &r);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS)
		fail_msg("libpng cannot read our PNG: %s",
			 cairo_status_to_string(cairo_surface_status(img)));
	assert_int_equal(cairo_image_surface_get_width(img), w);
	assert_int_equal(cairo_image_surface_get_height(img), h);
	return img;
}

/* How many pixels of IMG are exactly RGB. */
static size_t count_pixels(cairo_surface_t *img, uint32_t rgb)
{
	int w = cairo_image_surface_get_width(img);
	int h = cairo_image_surface_get_height(img);
	int stride = cairo_image_surface_get_stride(img);
	const unsigned char *d;
	size_t n = 0;

	cairo_surface_flush(img);
	d = cairo_image_surface_get_data(img);
	for (int y = 0; y < h; y++) {
		const uint32_t *row = (const uint32_t *)(const void *)(d + (size_t)y * (size_t)stride);

		for (int x = 0; x < w; x++)
			n += (row[x] & 0xffffff) == rgb;
	}
	return n;
}

static void check_svg(const struct buf *b)
{
	char *s = malloc(b->len + 1);

	memcpy(s, b->data, b->len);
	s[b->len] = '\0';
	assert_true(strncmp(s, "<?xml", 5) == 0);
	assert_non_null(strstr(s, "<svg"));
	assert_non_null(strstr(s, "viewBox="));
	assert_non_null(strstr(s, "width="));
	assert_non_null(strstr(s, "</svg>"));
	free(s);
}

/* A figure of every kind of series on 400 x 300 points. */
static st_plot_fig *tiny_figure(void)
{
	const double edges[] = { 0, 1, 2, 3 }, counts[] = { 2, 5, 1 };
	const double x[] = { 0.5, 1.5, 2.5 }, y[] = { 1, 9, 3 };
	const double x1[] = { 1, 2, 3 }, v[] = { 1, 2, 3, 4, 20 };
	st_plot_fig *fig = st_plot_fig_new(400, 300);
	st_plot_axes *ax = st_plot_fig_grid(fig, 1, 2, 0, 0);
	st_plot_axes *bx = st_plot_fig_grid(fig, 1, 2, 0, 1);
	st_plot_axes *in = st_plot_axes_inset(ax, 0.5, 0, 0.5, 0.5);

	assert_non_null(fig);
	st_plot_fig_title(fig, "tiny \xc3\x97 figure");
	st_plot_fig_legend(fig, ax);
	st_plot_axes_title(ax, "hist");
	st_plot_axes_labels(ax, "x (s)", "count");
	st_plot_axes_yinteger(ax);
	st_plot_hist(ax, edges, counts, 3, st_plot_hex(0xBB0700, 1.0), "red");
	st_plot_points(ax, x, y, 3, st_plot_hex(0x0762CF, 0.8), 2, "blue");
	st_plot_axes_ylim(ax, 0, 4);          /* clips a bar and a point */
	st_plot_axes_note(ax, ST_PLOT_UPPER_LEFT, "a note\ntwo lines");
	st_plot_line(in, x, y, 3, st_plot_hex(0, 1), 1, NULL);
	st_plot_hbars(bx, x, x1, y, 3, 0.8, st_plot_hex(0x1B9E77, 1), "bars");
	st_plot_box(bx, 2, v, N(v), 0.5, st_plot_hex(0x0762CF, 1), "box");
	st_plot_axes_legend(bx, ST_PLOT_LOWER_RIGHT);
	st_plot_axes_yinvert(bx);
	return fig;
}

static void test_render_png_and_svg(void **state)
{
	st_plot_fig *fig = tiny_figure();
	struct buf png = render(fig, ST_PLOT_PNG), svg = render(fig, ST_PLOT_SVG);
	cairo_surface_t *img = check_png(fig, &png);

	(void)state;
	/* the histogram's red, at full opacity, inside its bars */
	assert_true(count_pixels(img, 0xBB0700) > 100);
	assert_true(count_pixels(img, 0xFFFFFF) > 100000);
	cairo_surface_destroy(img);
	check_svg(&svg);
	free(png.data);
	free(svg.data);
	st_plot_fig_free(fig);
}

/* Does the SVG B hold the text layer's element for TEXT? */
static bool svg_has_text(const struct buf *b, const char *text)
{
	char want[64];
	char *z = strndup(b->data, b->len);
	bool r;

	snprintf(want, sizeof(want), ">%s</text>", text);
	r = z && strstr(z, want);
	free(z);
	return r;
}

/* A log10 y axis: ticks at powers of ten named by the quantity; within
 * a decade at 1, 2 and 5 times them (issue 26: call sizes, durations). */
static void test_ylog10_ticks(void **state)
{
	static const double x[] = { 0, 1 }, wide[] = { 0, 3.2 },
			    narrow[] = { 6.0, 6.6 };
	const double *ys[] = { wide, narrow };
	const char *const want[2][4] = { { "1", "10", "100", "1k" },
					 { "1M", "2M", NULL, NULL } };

	(void)state;
	for (int k = 0; k < 2; k++) {
		st_plot_fig *fig = st_plot_fig_new(400, 300);
		st_plot_axes *ax = st_plot_fig_grid(fig, 1, 1, 0, 0);
		struct buf svg;

		st_plot_axes_ylog10(ax);
		st_plot_axes_ylim(ax, ys[k][0], ys[k][1]);
		st_plot_points(ax, x, ys[k], 2, st_plot_hex(0, 1), 2, NULL);
		svg = render(fig, ST_PLOT_SVG);
		for (int i = 0; i < 4 && want[k][i]; i++)
			assert_true(svg_has_text(&svg, want[k][i]));
		assert_false(svg_has_text(&svg, k ? "5M" : "10k"));
		free(svg.data);
		st_plot_fig_free(fig);
	}
}

/* Figures saved as a set: every file of every figure, or none. */
static void test_save_set(void **state)
{
	st_plot_fig *figs[2] = { tiny_figure(), tiny_figure() };
	const char *names[2] = { "one", "two" };
	char sub[64], bad[80], path[96];
	size_t files = 0;
	st_error err = { 0 };
	FILE *f;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/set", dir);
	assert_int_equal(st_plot_save_set((const st_plot_fig *const *)figs,
					  names, 2, sub, ST_PLOT_PNG |
					  ST_PLOT_SVG, &files, &err), 0);
	assert_int_equal(files, 4);
	snprintf(path, sizeof(path), "%s/two.svg", sub);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(bad, sizeof(bad), "%s/afile", dir);
	assert_non_null(f = fopen(bad, "w"));
	fclose(f);
	strcat(bad, "/sub");
	assert_int_equal(st_plot_save_set((const st_plot_fig *const *)figs,
					  names, 2, bad, ST_PLOT_SVG, &files,
					  &err), -1);
	assert_int_equal(err.code, ST_EXIT_CANTCREAT);
	assert_int_equal(files, 4);
	st_plot_fig_free(figs[0]);
	st_plot_fig_free(figs[1]);
}

/* A figure with nothing on it decodes to all white: the encoder's runs and
 * rows round-trip exactly. */
static void test_png_blank_round_trip(void **state)
{
	st_plot_fig *fig = st_plot_fig_new(500, 333);
	struct buf png = render(fig, ST_PLOT_PNG);
	cairo_surface_t *img = check_png(fig, &png);
	int w, h;

	(void)state;
	st_plot_png_size(fig, &w, &h);
	assert_int_equal(count_pixels(img, 0xFFFFFF), (size_t)w * (size_t)h);
	cairo_surface_destroy(img);
	free(png.data);
	st_plot_fig_free(fig);
}

/* Axes without data (and empty series) say "no data", in both formats. */
static void test_render_empty(void **state)
{
	st_plot_fig *fig = st_plot_fig_new(600, 400);
	st_plot_axes *ax = st_plot_fig_grid(fig, 2, 2, 0, 0);
	st_plot_axes *dates = st_plot_fig_grid(fig, 2, 2, 0, 1);
	st_plot_axes *box = st_plot_fig_grid(fig, 2, 2, 1, 0);
	st_plot_axes *pts = st_plot_fig_grid(fig, 2, 2, 1, 1);
	struct buf png, svg;
	cairo_surface_t *img;

	(void)state;
	st_plot_fig_legend(fig, ax);
	st_plot_hist(ax, (double[]){ 0 }, NULL, 0, st_plot_hex(0, 1), "none");
	st_plot_axes_xdates(dates);
	st_plot_box(box, 0, NULL, 0, 0.5, st_plot_hex(0, 1), NULL);
	st_plot_points(pts, NULL, NULL, 0, st_plot_hex(0, 1), 2, NULL);
	st_plot_axes_empty_text(pts, "nothing here");
	/* calls on a NULL axes do nothing */
	st_plot_axes_title(NULL, "x");
	st_plot_hbars(NULL, NULL, NULL, NULL, 0, 1, st_plot_hex(0, 1), NULL);
	assert_null(st_plot_axes_inset(NULL, 0, 0, 1, 1));
	png = render(fig, ST_PLOT_PNG);
	svg = render(fig, ST_PLOT_SVG);
	img = check_png(fig, &png);
	cairo_surface_destroy(img);
	check_svg(&svg);
	free(png.data);
	free(svg.data);
	st_plot_fig_free(fig);
	st_plot_fig_free(NULL);
}

/* A PDF of FIG: a header, one page object of the figure's size in points
 * (W x H, what st_plot_fig_new was given), the trailer's %%EOF; cairo
 * 1.16 writes its objects uncompressed, only the page content is Flate. */
static void check_pdf(const struct buf *b, double w, double h)
{
	char *s = malloc(b->len + 1), *p, box[64];
	size_t pages = 0;

	memcpy(s, b->data, b->len);
	s[b->len] = '\0';
	assert_memory_equal(s, "%PDF-1.", 7);
	assert_true(b->len > 64);
	assert_memory_equal(s + b->len - 6, "%%EOF\n", 6);
	/* memmem: the binary comment and the streams hold NUL bytes */
	for (p = s; (p = memmem(p, b->len - (size_t)(p - s), "/Type /Page",
				11)) != NULL; p += 11)
		pages += p[11] != 's';
	assert_int_equal(pages, 1);
	snprintf(box, sizeof(box), "/MediaBox [ 0 0 %g %g ]", w, h);
	if (!memmem(s, b->len, box, strlen(box)))
		fail_msg("no %s in the PDF", box);
	free(s);
}

/* plot --format pdf (issue 25 item 9): every kind of series on a PDF
 * page of the figure's size; the same figure gives the same bytes (no
 * creation date). */
static void test_render_pdf(void **state)
{
	st_plot_fig *fig = tiny_figure();
	struct buf a = render(fig, ST_PLOT_PDF), b = render(fig, ST_PLOT_PDF);

	(void)state;
	check_pdf(&a, 400, 300);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	assert_null(memmem(a.data, a.len, "/CreationDate", 13));
	assert_string_equal(st_plot_format_ext(ST_PLOT_PDF), ".pdf");
	assert_string_equal(st_plot_format_ext(ST_PLOT_PNG), ".png");
	assert_string_equal(st_plot_format_ext(ST_PLOT_SVG), ".svg");
	free(a.data);
	free(b.data);
	st_plot_fig_free(fig);
}

/* A PDF that cannot be written is an error (74), not a short file:
 * /dev/full takes the FILE's buffer and fails each flush. */
static void test_pdf_write_error(void **state)
{
	st_plot_fig *fig = tiny_figure();
	FILE *f = fopen("/dev/full", "w");
	st_error err;

	(void)state;
	if (!f)
		skip();
	assert_int_equal(st_plot_write(fig, ST_PLOT_PDF, f, &err), -1);
	assert_int_equal(err.code, ST_EXIT_IOERR);
	fclose(f);
	st_plot_fig_free(fig);
}

/* Date ticks: a year of wall-clock seconds gets month labels. */
static void test_render_dates(void **state)
{
	/* 2022-09-01 .. 2023-09-01 */
	const double x[] = { 1661990400, 1693526400 }, y[] = { 1, 2 };
	st_plot_fig *fig = st_plot_fig_new(600, 400);
	st_plot_axes *ax = st_plot_fig_grid(fig, 1, 1, 0, 0);
	struct buf svg;

	(void)state;
	st_plot_axes_xdates(ax);
	st_plot_points(ax, x, y, 2, st_plot_hex(0, 1), 2, NULL);
	svg = render(fig, ST_PLOT_SVG);
	check_svg(&svg);
	free(svg.data);
	st_plot_fig_free(fig);
}

static size_t count_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(dp);
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

static void test_save_atomic(void **state)
{
	st_plot_fig *fig = tiny_figure();
	char *sub = st_path_join(dir, "save");
	char *path = st_path_join(sub, "f.svg");
	char *missing = st_path_join(dir, "no/such/dir/f.png");
	st_error err;

	(void)state;
	assert_int_equal(st_mkdir_p(sub, &err), 0);
	assert_int_equal(st_plot_save(fig, ST_PLOT_SVG, path, &err), 0);
	assert_true(st_path_is_file(path));
	assert_int_equal(count_entries(sub), 1);    /* no temporary left */
	assert_int_equal(st_plot_save(fig, ST_PLOT_PNG, missing, &err), -1);
	assert_int_equal(err.code, ST_EXIT_CANTCREAT);
	unlink(path);
	rmdir(sub);
	free(sub);
	free(path);
	free(missing);
	st_plot_fig_free(fig);
}

/* ---- figures and their inputs ------------------------------------------- */

static void write_file(const char *d, const char *name, const char *text)
{
	char *path = st_path_join(d, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* A results directory whose CSVs have headers only: every figure is built
 * and written, saying "no data". */
static void test_figures_empty_results(void **state)
{
	char *res = st_path_join(dir, "res"), *ft = st_path_join(res, "file_transfer");
	char *st = st_path_join(res, "streaming"), *data = st_path_join(dir, "data");
	char *dft = st_path_join(data, "file_transfer"), *out = st_path_join(dir, "figs");
	static const char *const sizes[] = { "128", "256", "512", "1024" };
	st_experiments ex;
	st_figures *set;
	st_error err;
	size_t files;

	(void)state;
	assert_int_equal(st_mkdir_p(ft, &err), 0);
	assert_int_equal(st_mkdir_p(st, &err), 0);
	assert_int_equal(st_mkdir_p(dft, &err), 0);
	write_file(ft, "merged_job_info.csv", "Job ID,Elapsed,Submit,Start,End,size\n");
	write_file(ft, "ncem_offload_times.csv", "size,offload_time\n");
	write_file(dft, "save_time_stats.csv", "Size,Type,Stat,save_time\n");
	for (size_t i = 0; i < N(sizes); i++) {
		char name[64];

		snprintf(name, sizeof(name), "streaming_times_%s.csv", sizes[i]);
		write_file(st, name, "distiller_id,scan_number,nersc_write_time,"
			   "ncem_created_time,time_difference_seconds\n");
	}
	assert_int_equal(st_experiments_default(&ex, &err), 0);
	set = st_figures_build(&(st_figures_input){ res, data, &ex, NULL, NULL, NULL }, &err);
	if (!set)
		fail_msg("st_figures_build: %s", err.text);
	assert_int_equal(st_figures_count(set), 10);
	assert_string_equal(st_figures_name(set, 0), "transfer_hist_128");
	assert_string_equal(st_figures_name(set, 4), "transfer_hist_combined");
	assert_string_equal(st_figures_name(set, 9), "experiment_timeline");
	assert_int_equal(st_figures_write(set, out, ST_PLOT_SVG, &files, &err), 0);
	assert_int_equal(files, 10);
	assert_int_equal(count_entries(out), 10);
	st_figures_free(set);

	/* a missing streaming file is named, exit 66 */
	{
		char *p = st_path_join(st, "streaming_times_512.csv");

		unlink(p);
		free(p);
	}
	assert_null(st_figures_build(&(st_figures_input){ res, data, &ex, NULL, NULL, NULL }, &err));
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	assert_non_null(strstr(err.text, "streaming_times_512.csv"));
	st_experiments_release(&ex);
	free(res);
	free(ft);
	free(st);
	free(data);
	free(dft);
	free(out);
}

static void load_table(st_table *t, const char *name, const char *csv)
{
	st_error err;

	st_table_init(t);
	if (st_table_parse(t, name, csv, strlen(csv), &err) != 0)
		fail_msg("%s", err.text);
}

/* Elapsed + offload - 2 (Real - Blank); the save stats are needed only
 * when the size has jobs. */
static void test_transfer_job_times(void **state)
{
	st_table merged, save, nosave;
	double out[4];
	size_t n;
	st_error err;

	(void)state;
	load_table(&merged, "merged.csv", "size,Elapsed\n128,00:00:30\n256,1:00\n"
		   "128,0 days 00:01:00\n");
	load_table(&save, "save.csv", "Size,Type,Stat,save_time\n"
		   "128,Real,mean,0.75\n128,Blank,mean,0.25\n128,Real,std,9\n");
	load_table(&nosave, "nosave.csv", "Size,Type,Stat,save_time\n");
	assert_int_equal(st_transfer_job_times(&merged, &save, 128, 2.5, out, &n,
					       &err), 0);
	assert_int_equal(n, 2);
	assert_true(out[0] == 30 + 2.5 - 1.0);
	assert_true(out[1] == 60 + 2.5 - 1.0);
	/* no job of 512: nothing looked up, no error */
	assert_int_equal(st_transfer_job_times(&merged, &nosave, 512, NAN, out,
					       &n, &err), 0);
	assert_int_equal(n, 0);
	/* jobs of 256 but no save_time means for it: 65 naming the file */
	assert_int_equal(st_transfer_job_times(&merged, &save, 256, 1, out, &n,
					       &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "save.csv"));
	st_table_release(&merged);
	st_table_release(&save);
	st_table_release(&nosave);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_step),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_hist_edges_and_counts),
		cmocka_unit_test(test_hist_edges_land_in_their_bin),
		cmocka_unit_test(test_hist_empty),
		cmocka_unit_test(test_box_stats),
		cmocka_unit_test(test_box_stats_degenerate),
		cmocka_unit_test(test_render_png_and_svg),
		cmocka_unit_test(test_ylog10_ticks),
		cmocka_unit_test(test_save_set),
		cmocka_unit_test(test_png_blank_round_trip),
		cmocka_unit_test(test_render_empty),
		cmocka_unit_test(test_render_dates),
		cmocka_unit_test(test_render_pdf),
		cmocka_unit_test(test_pdf_write_error),
		cmocka_unit_test(test_save_atomic),
		cmocka_unit_test(test_figures_empty_results),
		cmocka_unit_test(test_transfer_job_times),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
