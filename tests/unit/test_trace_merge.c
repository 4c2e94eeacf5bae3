/* Unit tests: the partials of `trace merge` read in turn
 * (trace_merge.h): a trace compare partial written here by hand is
 * merged as one, twice its counts; one of trace summary after it is an
 * error (65) naming both files and both commands; a missing partial 66;
 * a first partial that names no command goes to trace compare's merge,
 * which refuses it (65). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/atomic.h"
#include "streamtime/trace_merge.h"

#define TMPDIR_NAME "merge"
#include "tmpdir.h"

/* A partial of `trace compare` over one case, "a", of one file with 12
 * events: the metric "n" (count) summed to 12 over one key. */
static const char compare_partial[] =
	"{\"streamtime_partial\":1,\"command\":\"trace compare\",\n"
	"\"metrics\":\"[{\\\"name\\\":\\\"n\\\",\\\"value\\\":\\\"count\\\"}]"
	"\\n\",\n"
	"\"cases\":[\n"
	"{\"name\":\"a\",\"events\":12,\"bad_lines\":0,\"saturated\":false,\n"
	"\"files\":[\n"
	"{\"path\":\"x.pfw\",\"lines\":13,\"events\":12,\"meta\":0,"
	"\"other\":0,\"bad\":0,\"fast\":12,\"err_code\":0,\"err_text\":null,"
	"\"not_trace\":false,\"first_us\":0,\"end_us\":0}],\n"
	"\"bad\":[],\n"
	"\"metrics\":[\n"
	"{\"name\":\"n\",\"keys\":[\n[]],\"sums\":[12]}]}]}\n";

/* The start of a summary partial: its command is all that is read of it
 * before the error. */
static const char summary_partial[] =
	"{\"streamtime_partial\":1,\"command\":\"trace summary\"}\n";

static char *put(const char *name, const char *text)
{
	char *p = st_path_join(dir, name);
	FILE *f;

	assert_non_null(p);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	return p;
}

/* Two compare partials of case "a" (files x.pfw and y.pfw): one case,
 * its two files, the count 12 + 12. */
static void test_merge_read_compare(void **state)
{
	char other[sizeof(compare_partial)], *at;
	char *a, *b, *paths[2];
	st_trace_merge m;
	st_error err;

	(void)state;
	memcpy(other, compare_partial, sizeof(other));
	assert_non_null(at = strstr(other, "x.pfw"));
	*at = 'y';
	paths[0] = a = put("a.json", compare_partial);
	paths[1] = b = put("b.json", other);
	assert_int_equal(st_trace_merge_read(&m, paths, 2, &err), 0);
	assert_false(m.summary);
	assert_int_equal(m.cm.n, 1);
	assert_string_equal(m.cm.cases[0].name, "a");
	assert_int_equal(st_compare_merge_finish(&m.cm, 10, &err), 0);
	assert_int_equal(m.cm.cases[0].n_files, 2);
	assert_true(m.cm.cases[0].res[0].has);
	assert_int_equal(m.cm.cases[0].res[0].v, 24);
	st_trace_merge_release(&m);
	free(a);
	free(b);
}

/* A summary partial after a compare one: 65, both named. */
static void test_merge_read_other_command(void **state)
{
	char *a = put("c.json", compare_partial), *b = put("s.json",
							   summary_partial);
	char *paths[] = { a, b };
	st_trace_merge m;
	st_error err;
	char want[512];

	(void)state;
	assert_int_equal(st_trace_merge_read(&m, paths, 2, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	snprintf(want, sizeof(want), "trace merge: %s is a partial of trace "
		 "summary and %s one of trace compare: they do not merge", b,
		 a);
	assert_string_equal(err.text, want);
	st_trace_merge_release(&m);
	free(a);
	free(b);
}

/* A missing partial: 66, named; a first one of no command: trace
 * compare's merge refuses it (65). */
static void test_merge_read_missing_and_none(void **state)
{
	char *gone = st_path_join(dir, "gone.json"), *x = put("x.json",
							      "{\"x\":1}\n");
	char *paths[] = { gone };
	st_trace_merge m;
	st_error err;

	(void)state;
	assert_int_equal(st_trace_merge_read(&m, paths, 1, &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	assert_non_null(strstr(err.text, gone));
	st_trace_merge_release(&m);
	paths[0] = x;
	assert_int_equal(st_trace_merge_read(&m, paths, 1, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_false(m.summary);
	st_trace_merge_release(&m);
	free(gone);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_read_compare),
		cmocka_unit_test(test_merge_read_other_command),
		cmocka_unit_test(test_merge_read_missing_and_none),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
