/* Unit tests: what `trace compare` and `trace merge` do once the cases
 * are computed (compare_out.h): the table written to a file whole (the
 * text by hand from the numbers put in), JSON read back; an output that
 * cannot be created fails with nothing left behind and a file there
 * before kept; the notes on the cases' inputs, case by case, a
 * saturated case's warning after its own notes, and 74 over 66 over 65
 * across cases. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/atomic.h"
#include "streamtime/compare_out.h"
#include "streamtime/file.h"

#define TMPDIR_NAME "compare-out"
#include "tmpdir.h"

static const char metrics_json[] = "[{\"name\":\"n\",\"value\":\"count\"}]";

static st_metric_result res_a[] = { { .has = true, .keys = 1, .v = 42 } };

static void one_case(st_metrics *m, st_compare_case *c)
{
	st_error err = { 0 };

	assert_int_equal(st_metrics_parse(m, metrics_json,
					  strlen(metrics_json), "m.json",
					  &err), 0);
	memset(c, 0, sizeof(*c));
	c->name = "A";
	c->res = res_a;
	c->n_res = 1;
}

static char *read_all(const char *path)
{
	st_error err;
	size_t len;
	char *t = st_file_read(path, &len, &err);

	assert_non_null(t);
	return t;
}

/* The files in the test's directory. */
static size_t entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The text: "metric" 6 wide, "count" 5, "42" 2, two spaces between. */
static void test_compare_out_save_text(void **state)
{
	st_metrics m;
	st_compare_case c;
	st_error err;
	char *out = st_path_join(dir, "t.txt"), *got;

	(void)state;
	one_case(&m, &c);
	assert_int_equal(st_compare_out_save(&m, &c, 1, false, NULL, out,
					     &err), 0);
	got = read_all(out);
	assert_string_equal(got, "metric  unit    A\n"
			    "n       count  42\n"
			    "(s: dur in seconds; GiB: bytes / 2^30; '-': no "
			    "event selected)\n");
	free(got);
	remove(out);
	free(out);
	st_metrics_release(&m);
}

static void test_compare_out_save_json(void **state)
{
	st_metrics m;
	st_compare_case c;
	st_error err;
	json_error_t je;
	json_t *j, *v;
	char *out = st_path_join(dir, "t.json");

	(void)state;
	one_case(&m, &c);
	assert_int_equal(st_compare_out_save(&m, &c, 1, true, NULL, out,
					     &err), 0);
	assert_non_null(j = json_load_file(out, 0, &je));
	v = json_object_get(json_array_get(json_object_get(j, "metrics"), 0),
			    "values");
	assert_int_equal(json_integer_value(json_object_get(v, "A")), 42);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(j, "cases"), 0)), "A");
	json_decref(j);
	remove(out);
	free(out);
	st_metrics_release(&m);
}

/* An output in a directory that is not there: -1, nothing left behind;
 * one there before a failed write is kept as it was. */
static void test_compare_out_save_fails_whole(void **state)
{
	st_metrics m;
	st_compare_case c;
	st_error err;
	char *out = st_path_join(dir, "none/t.txt");
	size_t before = entries();

	(void)state;
	one_case(&m, &c);
	assert_int_equal(st_compare_out_save(&m, &c, 1, false, NULL, out,
					     &err), -1);
	assert_int_not_equal(err.code, 0);
	assert_non_null(strstr(err.text, "none"));
	assert_int_equal(entries(), before);
	free(out);
	st_metrics_release(&m);
}

/* Two cases: a's file not a trace (65) and a's sums saturated (its
 * warning after its notes), b's file gone (66) and a read error (74):
 * 74 the status. */
static void test_compare_out_notes(void **state)
{
	st_trace_file fa[1] = { { .path = "a.pfw", .not_trace = true,
				  .st = { .lines = 1, .bad = 1 } } };
	st_trace_file fb[2] = {
		{ .path = "b.pfw", .err_code = ST_EXIT_NOINPUT,
		  .err_text = "cannot read b.pfw" },
		{ .path = "c.pfw", .err_code = ST_EXIT_IOERR,
		  .err_text = "c.pfw: read error" },
	};
	st_compare_case cs[2] = {
		{ .name = "a", .files_in = fa, .n_files = 1,
		  .saturated = true },
		{ .name = "b", .files_in = fb, .n_files = 2 },
	};
	st_trace_notes nt = { 0 };
	st_error err;
	size_t warn = SIZE_MAX, b = SIZE_MAX;

	(void)state;
	assert_int_equal(st_compare_out_notes(cs, 1, NULL, "trace merge", &nt,
					      &err), 0);
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_DATAERR);
	st_trace_notes_release(&nt);
	assert_int_equal(st_compare_out_notes(cs, 2, NULL, "trace merge", &nt,
					      &err), 0);
	for (size_t i = 0; i < nt.n; i++) {
		if (nt.v[i].level == ST_NOTE_WARN && !nt.v[i].path &&
		    strcmp(nt.v[i].reason, "trace merge: case a: a sum passed "
			   "2^63-1 and stopped there") == 0)
			warn = i;
		if (b == SIZE_MAX && nt.v[i].path &&
		    strcmp(nt.v[i].path, "b.pfw") == 0)
			b = i;
	}
	assert_int_not_equal(warn, SIZE_MAX);
	assert_int_not_equal(b, SIZE_MAX);
	assert_true(warn < b);
	assert_string_equal(nt.v[0].path, "a.pfw");
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_IOERR);
	st_trace_notes_release(&nt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_out_save_text),
		cmocka_unit_test(test_compare_out_save_json),
		cmocka_unit_test(test_compare_out_save_fails_whole),
		cmocka_unit_test(test_compare_out_notes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
