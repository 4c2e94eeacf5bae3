/* Unit tests: the table of trace compare written out (compare_render.h),
 * on answers set by hand: each kind of cell (a dur sum in seconds with 6
 * decimals, a dur mean, GiB, a count, a count's mean, no value), a by
 * metric's rows over the union of the cases' keys, names escaped on one
 * line, the columns' widths; the JSON's numbers and nulls read back with
 * jansson; more cases than the command's old fixed array; a stream that
 * cannot be written (74). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/compare_render.h"

static const char metrics_json[] =
	"[{\"name\":\"read time\",\"value\":\"dur\",\"per\":\"pid\","
	"  \"reduce\":\"max\"},"
	" {\"name\":\"bytes\",\"value\":\"bytes\"},"
	" {\"name\":\"ops\",\"value\":\"count\",\"per\":\"pid\","
	"  \"reduce\":\"mean\"},"
	" {\"name\":\"dur mean\",\"value\":\"dur\",\"per\":\"pid\","
	"  \"reduce\":\"mean\"},"
	" {\"name\":\"per file\",\"value\":\"count\",\"by\":\"file\"},"
	" {\"name\":\"line\\nbreak\",\"value\":\"count\"}]";

/* The answers of the two cases, by hand. */
static st_metric_row rows_a[] = {
	{ (char *)"/a", { .has = true, .keys = 1, .v = 3 }, },
	{ (char *)"/b", { .has = true, .keys = 1, .v = 5 }, },
};
static st_metric_row rows_b[] = {
	{ (char *)"/b", { .has = true, .keys = 1, .v = 2 }, },
	{ (char *)"/c", { .has = true, .keys = 1, .v = 1 }, },
};
static st_metric_result res_a[] = {
	{ .has = true, .keys = 2, .v = 2500000 },          /* 2.5 s */
	{ .has = true, .keys = 1, .v = 1610612736 },       /* 1.5 GiB */
	{ .has = true, .keys = 3, .mean = 7.0 / 3 },
	{ .has = true, .keys = 2, .mean = 250000 },        /* 0.25 s */
	{ .has = true, .keys = 2, .rows = rows_a, .n_rows = 2 },
	{ .has = false },
};
static st_metric_result res_b[] = {
	{ .has = true, .keys = 1, .v = 1 },                /* 1 us */
	{ .has = false },
	{ .has = true, .keys = 2, .mean = 0.5 },
	{ .has = false },
	{ .has = true, .keys = 2, .rows = rows_b, .n_rows = 2 },
	{ .has = true, .keys = 1, .v = 42 },
};

static void two_cases(st_metrics *m, st_compare_case cs[2])
{
	st_error err = { 0 };

	assert_int_equal(st_metrics_parse(m, metrics_json,
					  strlen(metrics_json), "m.json",
					  &err), 0);
	memset(cs, 0, 2 * sizeof(*cs));
	cs[0].name = "A";
	cs[0].res = res_a;
	cs[0].n_res = 6;
	cs[1].name = "b\tx";
	cs[1].res = res_b;
	cs[1].n_res = 6;
}

/* What st_compare_render writes of CS[0..N) in FMT (new string). */
static char *render(const st_metrics *m, const st_compare_case *cs, size_t n,
		    enum st_compare_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_error err = { 0 };

	assert_non_null(f);
	assert_int_equal(st_compare_render(f, m, cs, n, fmt, &err), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* A line of the table: label 15 wide (the widest, "line\u000abreak"),
 * the unit 5, two cells 8 wide (the widest cell of A, and "b\u0009x"). */
static void row(char *b, size_t size, const char *label, const char *unit,
		const char *a, const char *bx)
{
	size_t n = strlen(b);

	snprintf(b + n, size - n, "%-15s  %-5s  %8s  %8s\n", label, unit, a,
		 bx);
}

static void test_compare_render_text(void **state)
{
	st_metrics m;
	st_compare_case cs[2];
	char want[2048] = "";
	char *got;

	(void)state;
	two_cases(&m, cs);
	row(want, sizeof(want), "metric", "unit", "A", "b\\u0009x");
	row(want, sizeof(want), "read time", "s", "2.500000", "0.000001");
	row(want, sizeof(want), "bytes", "GiB", "1.500000", "-");
	row(want, sizeof(want), "ops", "count", "2.333", "0.500");
	row(want, sizeof(want), "dur mean", "s", "0.250000", "-");
	row(want, sizeof(want), "per file[/a]", "count", "3", "-");
	row(want, sizeof(want), "per file[/b]", "count", "5", "2");
	row(want, sizeof(want), "per file[/c]", "count", "-", "1");
	row(want, sizeof(want), "line\\u000abreak", "count", "-", "42");
	strcat(want, "(s: dur in seconds; GiB: bytes / 2^30; '-': no event "
	       "selected)\n");
	got = render(&m, cs, 2, ST_COMPARE_TEXT);
	assert_string_equal(got, want);
	free(got);
	st_metrics_release(&m);
}

/* Member KEY of O as a number (integer or real). */
static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("'%s' is not a number", key);
	return json_number_value(v);
}

/* The table of two_cases as JSON, ROOT: the values written above. */
static void check_json(json_t *root)
{
	json_t *ms, *v;

	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "cases")), 2);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(root, "cases"), 1)), "b\\u0009x");
	ms = json_object_get(root, "metrics");
	assert_int_equal(json_array_size(ms), 6);

	v = json_object_get(json_array_get(ms, 0), "values");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(ms, 0), "name")), "read time");
	assert_null(json_object_get(json_array_get(ms, 0), "by"));
	assert_true(fabs(num(v, "A") - 2.5) < 1e-12);
	assert_true(fabs(num(v, "b\\u0009x") - 1e-6) < 1e-18);

	/* bytes and counts are integers, exactly */
	v = json_object_get(json_array_get(ms, 1), "values");
	assert_true(json_is_integer(json_object_get(v, "A")));
	assert_int_equal(json_integer_value(json_object_get(v, "A")),
			 INT64_C(1610612736));
	assert_true(json_is_null(json_object_get(v, "b\\u0009x")));

	v = json_object_get(json_array_get(ms, 2), "values");
	assert_true(fabs(num(v, "A") - 7.0 / 3) < 1e-12);
	assert_true(fabs(num(v, "b\\u0009x") - 0.5) < 1e-15);

	v = json_object_get(json_array_get(ms, 3), "values");
	assert_true(fabs(num(v, "A") - 0.25) < 1e-15);
	assert_true(json_is_null(json_object_get(v, "b\\u0009x")));

	/* a by metric: its keys, and per case its own rows only */
	assert_string_equal(json_string_value(json_array_get(json_object_get(
		json_array_get(ms, 4), "by"), 0)), "file");
	v = json_object_get(json_array_get(ms, 4), "values");
	assert_int_equal(json_object_size(json_object_get(v, "A")), 2);
	assert_int_equal(json_integer_value(json_object_get(
		json_object_get(v, "A"), "/b")), 5);
	assert_int_equal(json_integer_value(json_object_get(
		json_object_get(v, "b\\u0009x"), "/c")), 1);
	assert_null(json_object_get(json_object_get(v, "b\\u0009x"), "/a"));

	/* a metric's name is JSON's to escape */
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(ms, 5), "name")), "line\nbreak");
	v = json_object_get(json_array_get(ms, 5), "values");
	assert_true(json_is_null(json_object_get(v, "A")));
	assert_int_equal(json_integer_value(json_object_get(v, "b\\u0009x")),
			 42);
}

/* The JSON written, and the object a binding takes (st_compare_json). */
static void test_compare_render_json(void **state)
{
	st_metrics m;
	st_compare_case cs[2];
	json_error_t jerr;
	json_t *root;
	char *got;

	(void)state;
	two_cases(&m, cs);
	got = render(&m, cs, 2, ST_COMPARE_JSON);
	root = json_loads(got, 0, &jerr);
	check_json(root);
	json_decref(root);
	root = st_compare_json(&m, cs, 2);
	check_json(root);
	json_decref(root);
	free(got);
	st_metrics_release(&m);
}

/* A by metric no case has a key of: one row under its name, no value. */
static void test_compare_render_by_without_keys(void **state)
{
	static const char text[] =
		"[{\"name\":\"w\",\"value\":\"count\",\"by\":\"file\"}]";
	st_metric_result r[2] = { { .has = false }, { .has = false } };
	st_compare_case cs[2] = { { .name = "x", .res = &r[0], .n_res = 1 },
				  { .name = "y", .res = &r[1], .n_res = 1 } };
	st_metrics m;
	st_error err = { 0 };
	char *got;

	(void)state;
	assert_int_equal(st_metrics_parse(&m, text, strlen(text), "m.json",
					  &err), 0);
	got = render(&m, cs, 2, ST_COMPARE_TEXT);
	assert_non_null(strstr(got, "\nw       count  -  -\n"));
	free(got);
	got = render(&m, cs, 2, ST_COMPARE_JSON);
	assert_non_null(strstr(got, "\"x\": {}"));
	free(got);
	st_metrics_release(&m);
}

/* 300 cases (the command took at most 256 in a fixed array): a column
 * each, case c's count c. */
static void test_compare_render_many_cases(void **state)
{
	static const char text[] = "[{\"name\":\"n\",\"value\":\"count\"}]";
	enum { N = 300 };
	st_compare_case *cs = calloc(N, sizeof(*cs));
	st_metric_result *r = calloc(N, sizeof(*r));
	char (*names)[8] = calloc(N, sizeof(*names));
	st_metrics m;
	st_error err = { 0 };
	char *got, *line, want[16];
	size_t cells = 0;

	(void)state;
	assert_non_null(cs);
	assert_non_null(r);
	assert_non_null(names);
	assert_int_equal(st_metrics_parse(&m, text, strlen(text), "m.json",
					  &err), 0);
	for (size_t c = 0; c < N; c++) {
		snprintf(names[c], sizeof(names[c]), "c%zu", c);
		r[c] = (st_metric_result){ .has = true, .keys = 1,
					   .v = (int64_t)c };
		cs[c] = (st_compare_case){ .name = names[c], .res = &r[c],
					   .n_res = 1 };
	}
	got = render(&m, cs, N, ST_COMPARE_TEXT);
	assert_non_null(line = strstr(got, "\nn "));
	line++;
	*strchr(line, '\n') = 0;
	snprintf(want, sizeof(want), " %d", N - 1);
	assert_string_equal(line + strlen(line) - strlen(want), want);
	for (char *t = strtok(line, " "); t; t = strtok(NULL, " "))
		cells++;
	assert_int_equal(cells, 2 + N);   /* name, unit, the cells */
	free(got);
	free(names);
	free(r);
	free(cs);
	st_metrics_release(&m);
}

/* A stream that cannot be written: -1, 74, the reason. */
static void test_compare_render_write_error(void **state)
{
	st_metrics m;
	st_compare_case cs[2];
	st_error err = { 0 };
	FILE *f = fopen("/dev/null", "r");

	(void)state;
	assert_non_null(f);
	two_cases(&m, cs);
	assert_int_equal(st_compare_render(f, &m, cs, 2, ST_COMPARE_TEXT,
					   &err), -1);
	assert_int_equal(err.code, ST_EXIT_IOERR);
	assert_string_equal(err.text, strerror(EBADF));
	clearerr(f);
	memset(&err, 0, sizeof(err));
	assert_int_equal(st_compare_render(f, &m, cs, 2, ST_COMPARE_JSON,
					   &err), -1);
	assert_int_equal(err.code, ST_EXIT_IOERR);
	fclose(f);
	st_metrics_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_render_text),
		cmocka_unit_test(test_compare_render_json),
		cmocka_unit_test(test_compare_render_by_without_keys),
		cmocka_unit_test(test_compare_render_many_cases),
		cmocka_unit_test(test_compare_render_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
