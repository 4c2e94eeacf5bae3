/* test_figures.c - what a reader of the figures stumbled on (issue 17
 * item 5), checked on the figures' descriptions (plot_int.h) built from the
 * shipped sample: the analysis runs into a temporary directory first.
 * Runs in tests/unit; the sample is ../../data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cairo.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/plot_int.h"
#include "streamtime/session.h"
#include "streamtime/atomic.h"
#include "streamtime/figures.h"
#include "streamtime/pipeline.h"

#define DATA "../../data"

static char tmpdir[] = "/tmp/st_figures_XXXXXX";
static st_figures *set;

static char *join(const char *a, const char *b)
{
	char *p = st_path_join(a, b);

	assert_non_null(p);
	return p;
}

static int setup(void **state)
{
	st_experiments ex;
	st_error err;
	st_analysis_result res;
	char *out_ft, *out_st, *out_stats, *merged, *offload, *per_scan;
	int rc;

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	out_ft = join(tmpdir, "file_transfer");
	out_st = join(tmpdir, "streaming");
	out_stats = join(tmpdir, "statistics");
	merged = join(out_ft, "merged_job_info.csv");
	offload = join(out_ft, "ncem_offload_times.csv");
	per_scan = join(out_ft, "ncem_offload_per_scan.csv");
	if (st_experiments_load(&ex, DATA "/experiments.json", &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return -1;
	}
	rc = st_analysis_run(&(st_analysis_paths){
		.jobs = DATA "/file_transfer/slurm_job_info.csv",
		.db = DATA "/file_transfer/distiller_db",
		.write_times = DATA "/file_transfer/write_times.csv",
		.save_stats = DATA "/file_transfer/save_time_stats.csv",
		.created = DATA "/streaming/ncem_file_created_times.csv",
		.streaming = DATA "/streaming", .out_ft = out_ft,
		.out_st = out_st, .out_stats = out_stats, .merged = merged,
		.offload = offload, .per_scan = per_scan,
	}, &ex, &res, NULL, NULL, &err);
	if (rc == 0) {
		set = st_figures_build(&(st_figures_input){
			.results = tmpdir, .data = DATA, .ex = &ex }, &err);
		if (!set)
			rc = -1;
	}
	if (rc < 0)
		fprintf(stderr, "%s\n", err.text);
	free(res.rows);
	st_experiments_release(&ex);
	free(out_ft);
	free(out_st);
	free(out_stats);
	free(merged);
	free(offload);
	free(per_scan);
	return rc;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	st_figures_free(set);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const st_plot_fig *figure(const char *name)
{
	for (size_t i = 0; i < st_figures_count(set); i++)
		if (!strcmp(st_figures_name(set, i), name))
			return st_figures_get(set, i);
	fail_msg("no figure %s", name);
	abort();
}

/* The largest right end of AX's horizontal bars. */
static double bars_right(const st_plot_axes *ax)
{
	double m = -INFINITY;

	for (size_t i = 0; i < ax->ns; i++)
		if (ax->s[i].kind == K_HBARS)
			for (size_t k = 0; k < ax->s[i].n; k++)
				m = fmax(m, ax->s[i].b[k]);
	return m;
}

/* Issue 17 item 5: experiment_timeline's streaming panel shared the jobs'
 * 30-minute axis, its bars (3 minutes at most) in the first tenth.  Now
 * it has its own scale, and its slowest scan reaches past half of it. */
static void test_timeline_streaming_panel_90_percent_empty(void **state)
{
	const st_plot_fig *fig = figure("experiment_timeline");
	const st_plot_axes *st = fig->axes[0], *jobs = fig->axes[1];
	double r = bars_right(st);

	(void)state;
	assert_true(st->has_xlim && jobs->has_xlim);
	assert_true(r > 0 && r <= st->xhi);
	if (r / st->xhi < 0.5)
		fail_msg("streaming bars end at %g of an axis to %g", r, st->xhi);
	assert_true(st->xhi != jobs->xhi);
	assert_non_null(strstr(st->xlabel, "seconds"));
	assert_non_null(strstr(jobs->xlabel, "minutes"));
}

/* Width of S in DejaVu Sans bold at SIZE points. */
static double bold_width(const char *s, double size)
{
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
							 4, 4);
	cairo_t *cr = cairo_create(sf);
	cairo_text_extents_t e;

	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	return e.x_advance;
}

/* Issue 17 item 5: streaming_box's panel titles ("median 100.5 s, n = 10")
 * ran past the figure's right edge; and the 128 and 256 panels (IQR 0)
 * showed no box and nothing else of their data.  Each title, centred on
 * its plot area, fits in its cell; every panel draws its scans as dots
 * and says when the IQR is 0. */
static void test_streaming_box_title_clipped_no_box(void **state)
{
	const st_plot_fig *fig = figure("streaming_box");
	size_t panels = 0;

	(void)state;
	for (size_t i = 0; i < fig->naxes; i++) {
		const st_plot_axes *ax = fig->axes[i];
		double cw = fig->w / ax->cols;
		double centre = MARGIN_LEFT + (cw - MARGIN_LEFT - MARGIN_RIGHT) / 2;
		bool dots = false;

		if (ax->parent || !ax->title)
			continue;
		panels++;
		if (centre + bold_width(ax->title, TITLE_PT) / 2 > cw)
			fail_msg("panel %zu title '%s' is clipped", i, ax->title);
		for (size_t k = 0; k < ax->ns; k++)
			dots |= ax->s[k].kind == K_POINTS && ax->s[k].n > 0;
		assert_true(dots);
	}
	assert_int_equal(panels, 4);
	/* the sample's 128x128 and 256x256 latencies: IQR 0 */
	assert_non_null(strstr(fig->axes[0]->xlabel, "IQR 0"));
	assert_non_null(strstr(fig->axes[1]->xlabel, "IQR 0"));
	assert_null(strstr(fig->axes[2]->xlabel, "IQR 0"));
}

/* Issue 17 item 5: queue_hist's axis ran to 4,800 s (the interpolated
 * 99th percentile of 85 jobs) for data shown up to about 1,500 s.  The
 * axis now ends at the last bin that holds a value. */
static void test_queue_hist_axis_past_data(void **state)
{
	const st_plot_fig *fig = figure("queue_hist");
	const st_plot_axes *ax = fig->axes[0];
	const struct series *h = NULL;
	size_t last = 0;

	(void)state;
	for (size_t k = 0; k < ax->ns; k++)
		if (ax->s[k].kind == K_HIST)
			h = &ax->s[k];
	if (!h)
		fail_msg("queue_hist has no histogram");
	for (size_t b = 0; h && b < h->n; b++)
		if (h->b[b] > 0)
			last = b;
	assert_true(ax->has_xlim);
	/* the last non-empty bin is the last bin */
	if (!h || last + 1 != h->n || h->a[h->n] != ax->xhi)
		fail_msg("axis to %g, last bar ends at %g", ax->xhi,
			 h ? h->a[last + 1] : NAN);
	assert_true(ax->xhi < 2000);
}

/* Issue 17 item 5: every label of every figure: no "1 jobs", "1 scans",
 * "1 outliers"; the histograms' x labels no longer call streaming a
 * "transfer and count time". */
static void test_figure_labels_plural_and_transfer(void **state)
{
	regex_t re;

	(void)state;
	assert_int_equal(regcomp(&re, "(^|[^0-9.])1 (jobs|scans|outliers)",
				 REG_EXTENDED | REG_NOSUB), 0);
	for (size_t i = 0; i < st_figures_count(set); i++) {
		const st_plot_fig *fig = st_figures_get(set, i);

		for (size_t a = 0; a < fig->naxes; a++) {
			const char *t[] = { fig->axes[a]->title,
					    fig->axes[a]->xlabel,
					    fig->axes[a]->ylabel };

			for (size_t k = 0; k < 3; k++) {
				if (!t[k])
					continue;
				if (regexec(&re, t[k], 0, NULL, 0) == 0)
					fail_msg("%s: '%s'", st_figures_name(set, i),
						 t[k]);
				if (strstr(t[k], "transfer and count"))
					fail_msg("%s: '%s'", st_figures_name(set, i),
						 t[k]);
			}
		}
	}
	regfree(&re);
	/* the sample's 1024 panel leaves out one streamed scan */
	{
		const st_plot_fig *fig = figure("transfer_hist_1024");

		assert_non_null(strstr(fig->axes[0]->xlabel, "1 scan"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline_streaming_panel_90_percent_empty),
		cmocka_unit_test(test_streaming_box_title_clipped_no_box),
		cmocka_unit_test(test_queue_hist_axis_past_data),
		cmocka_unit_test(test_figure_labels_plural_and_transfer),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
