/* test_sysplot.c - the helpers of `trace plot` (sysplot.h): the busy
 * share per column, the clock ticks, and the SVG's text layer with row
 * names and span labels (plot.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/plot_int.h"
#include "streamtime/plot.h"
#include "streamtime/sysplot.h"

/* 10 columns of 1 over [0, 10). */
static void test_bin_inside_and_across(void **state)
{
	double busy[10] = { 0 };
	uint32_t count[10] = { 0 };

	(void)state;
	st_sysplot_bin(busy, count, 10, 0, 10, 2.25, 2.75);
	assert_true(fabs(busy[2] - 0.5) < 1e-12);
	assert_int_equal(count[2], 1);
	/* 3.5 .. 6.25: half of 3, all of 4 and 5, a quarter of 6 */
	st_sysplot_bin(busy, count, 10, 0, 10, 3.5, 6.25);
	assert_true(fabs(busy[3] - 0.5) < 1e-12);
	assert_true(fabs(busy[4] - 1.0) < 1e-12);
	assert_true(fabs(busy[5] - 1.0) < 1e-12);
	assert_true(fabs(busy[6] - 0.25) < 1e-12);
	assert_int_equal(count[3] + count[4] + count[5] + count[6], 4);
	assert_int_equal(count[7], 0);
	assert_int_equal(count[2], 1);
}

static void test_bin_edges(void **state)
{
	double busy[10] = { 0 };
	uint32_t count[10] = { 0 };

	(void)state;
	/* ends where column 8 begins: 7 only */
	st_sysplot_bin(busy, count, 10, 0, 10, 7.5, 8.0);
	assert_int_equal(count[7], 1);
	assert_int_equal(count[8], 0);
	assert_true(fabs(busy[7] - 0.5) < 1e-12);
	/* a call of no length: its column's count, no time */
	st_sysplot_bin(busy, count, 10, 0, 10, 1.5, 1.5);
	assert_int_equal(count[1], 1);
	assert_true(busy[1] == 0);
	/* the end of the axis is in the last column */
	st_sysplot_bin(busy, count, 10, 0, 10, 10, 10);
	assert_int_equal(count[9], 1);
	/* outside: nothing; across the start: clipped */
	st_sysplot_bin(busy, count, 10, 0, 10, -5, -1);
	st_sysplot_bin(busy, count, 10, 0, 10, 11, 12);
	st_sysplot_bin(busy, count, 10, 0, 10, -1, 0.5);
	assert_int_equal(count[0], 1);
	assert_true(fabs(busy[0] - 0.5) < 1e-12);
	/* no columns or an empty axis: nothing, no crash */
	st_sysplot_bin(busy, count, 0, 0, 10, 1, 2);
	st_sysplot_bin(busy, count, 10, 5, 5, 1, 2);
	assert_int_equal(count[1], 1);
}

/* Clock ticks: round steps of seconds labelled HH:MM:SS of the UTC day. */
static void test_clock_ticks(void **state)
{
	struct tick t[MAX_TICKS];
	double day = 19675.0 * 86400;          /* a midnight */
	size_t n;

	(void)state;
	/* 10:00:05.3 .. 10:00:35.3, about 6: every 5 s from 10:00:10 */
	n = plot_clock_ticks(day + 36005.3, day + 36035.3, 6, t);
	assert_int_equal(n, 6);
	assert_string_equal(t[0].text, "10:00:10");
	assert_string_equal(t[5].text, "10:00:35");
	/* a second and a half: tenths */
	n = plot_clock_ticks(day + 59.0, day + 60.5, 4, t);
	assert_true(n >= 3 && n <= 4);
	assert_string_equal(t[0].text, "00:00:59.0");
	assert_string_equal(t[n - 1].text, n == 4 ? "00:01:00.5"
						  : "00:01:00.0");
	/* three hours: hourly */
	n = plot_clock_ticks(day + 3600, day + 4 * 3600, 5, t);
	assert_int_equal(n, 4);
	assert_string_equal(t[3].text, "04:00:00");
	/* three years (two sets recorded far apart): dates, a few */
	n = plot_clock_ticks(day, day + 3 * 365 * 86400.0, 6, t);
	assert_true(n >= 2 && n <= 8);
	assert_non_null(strchr(t[0].text, '-'));
	assert_null(strchr(t[0].text, ':'));
}

/* The SVG holds every text as a transparent <text>: the figure's title,
 * the row names, a span's label, escaped. */
static void test_svg_text_layer(void **state)
{
	const char *rows[] = { "trainer 100 \xc2\xb7 read", "write" };
	double x0[] = { 1.0 }, x1[] = { 2.0 }, y[] = { 0 };
	st_plot_fig *fig = st_plot_fig_new(600, 300);
	st_plot_axes *ax;
	st_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	st_plot_fig_title(fig, "a & <b>");
	ax = st_plot_fig_grid(fig, 1, 1, 0, 0);
	st_plot_axes_ycategories(ax, rows, 2);
	st_plot_vspan(ax, 0.5, 1.5, st_plot_hex(0xc6dbef, 0.5), "epoch 1");
	st_plot_hbars(ax, x0, x1, y, 1, 0.7, st_plot_hex(0x1f77b4, 1), NULL);
	st_plot_axes_xlim(ax, 0, 3);
	st_plot_fig_caption(fig, "line one\nline two");
	assert_int_equal(st_plot_write(fig, ST_PLOT_SVG, f, &err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "class=\"text-layer\""));
	assert_non_null(strstr(buf, ">a &amp; &lt;b&gt;</text>"));
	assert_non_null(strstr(buf, ">trainer 100 \xc2\xb7 read</text>"));
	assert_non_null(strstr(buf, ">write</text>"));
	assert_non_null(strstr(buf, ">epoch 1</text>"));
	assert_non_null(strstr(buf, ">line two</text>"));
	/* the layer sits inside the document */
	assert_true(strstr(buf, "text-layer") < strstr(buf, "</svg>"));
	free(buf);
	st_plot_fig_free(fig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bin_inside_and_across),
		cmocka_unit_test(test_bin_edges),
		cmocka_unit_test(test_clock_ticks),
		cmocka_unit_test(test_svg_text_layer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
