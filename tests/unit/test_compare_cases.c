/* Unit tests: the cases of `trace compare` as given (compare_cases.h):
 * what is not NAME=PATH[,PATH...] (64, the message naming it); a case's
 * paths and name into its st_compare_case; a name given twice, or unfit
 * to name events files (64); a missing path an error note (66), the
 * name then not checked; a case that is not one before a good one (its
 * name unset: the good one's check once read it, a crash); a path list
 * that ends in ',' (once taken as if the ',' were not there); a
 * binding's case of a name and paths. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/compare_cases.h"

#define TMPDIR_NAME "cases"
#include "tmpdir.h"

#define N 3

static char *trace;             /* DIR/x.pfw */

/* Open ARG as case I of CI and CS with no system-trace options; NT
 * released after *STATUS took its status. */
static int open_case(st_compare_input *ci, st_compare_case *cs, size_t i,
		     const char *arg, bool events, int *status, st_error *err)
{
	static char args[N][512];
	st_trace_notes nt = { 0 };
	struct st_trace_sys_opts so = { 0 };
	int rc;

	snprintf(args[i], sizeof(args[i]), "%s", arg);
	rc = st_compare_case_open(ci, cs, i, args[i], &so, 10, events, &nt,
				  err);
	*status = st_trace_notes_status(&nt);
	st_trace_notes_release(&nt);
	return rc;
}

static void release(st_compare_input *ci)
{
	for (size_t i = 0; i < N; i++)
		st_compare_input_release(&ci[i]);
	memset(ci, 0, N * sizeof(*ci));
}

static void test_case_not_a_case(void **state)
{
	static const struct { const char *arg, *msg; } bad[] = {
		{ "a", "--case 'a': expected NAME=PATH[,PATH...]" },
		{ "=x.pfw", "--case '=x.pfw': expected NAME=PATH[,PATH...]" },
		{ "a=", "--case 'a=': expected NAME=PATH[,PATH...]" },
		{ "a=x,,y", "--case a: an empty path in 'x,,y'" },
		{ "a=,x", "--case a: an empty path in ',x'" },
		{ "a=x,", "--case a: an empty path in 'x,'" },
	};
	st_compare_input ci[N] = { 0 };
	st_compare_case cs[N] = { 0 };
	st_error err;
	int status;

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_int_equal(open_case(ci, cs, 0, bad[k].arg, false,
					   &status, &err), ST_EXIT_USAGE);
		assert_string_equal(err.text, bad[k].msg);
		assert_int_equal(cs[0].n, 0);
		release(ci);
	}
}

/* A good case: its name, its one path; the same name again is 64; a
 * case that is not one (no name) before a good one is no harm. */
static void test_case_names(void **state)
{
	st_compare_input ci[N] = { 0 };
	st_compare_case cs[N] = { 0 };
	char arg[512];
	st_error err;
	int status;

	(void)state;
	snprintf(arg, sizeof(arg), "a=%s", trace);
	assert_int_equal(open_case(ci, cs, 0, arg, false, &status, &err), 0);
	assert_int_equal(status, 0);
	assert_string_equal(cs[0].name, "a");
	assert_int_equal(cs[0].n, 1);
	assert_string_equal(cs[0].paths[0], trace);
	assert_null(cs[0].src);
	assert_int_equal(open_case(ci, cs, 1, arg, false, &status, &err),
			 ST_EXIT_USAGE);
	assert_string_equal(err.text, "--case a given twice");
	release(ci);
	assert_int_equal(open_case(ci, cs, 0, "bad", false, &status, &err),
			 ST_EXIT_USAGE);
	assert_null(cs[0].name);
	assert_int_equal(open_case(ci, cs, 1, arg, false, &status, &err), 0);
	assert_string_equal(cs[1].name, "a");
	release(ci);
}

/* With events a name names files: no '/', no '.' first. */
static void test_case_events_names(void **state)
{
	static const char *const names[] = { ".a", "a/b" };
	st_compare_input ci[N] = { 0 };
	st_compare_case cs[N] = { 0 };
	char arg[512], want[128];
	st_error err;
	int status;

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		snprintf(arg, sizeof(arg), "%s=%s", names[k], trace);
		assert_int_equal(open_case(ci, cs, 0, arg, false, &status,
					   &err), 0);
		release(ci);
		assert_int_equal(open_case(ci, cs, 0, arg, true, &status,
					   &err), ST_EXIT_USAGE);
		snprintf(want, sizeof(want), "--case %s: the name of a case "
			 "names its events files: no '/' in it, and no '.' "
			 "first", names[k]);
		assert_string_equal(err.text, want);
		release(ci);
	}
}

/* A missing path: an error note (66), the other path still collected,
 * and the name not checked (the same name twice is no usage error). */
static void test_case_missing_path(void **state)
{
	st_compare_input ci[N] = { 0 };
	st_compare_case cs[N] = { 0 };
	char arg[512];
	st_error err;
	int status;

	(void)state;
	snprintf(arg, sizeof(arg), "a=%s/gone.pfw,%s", dir, trace);
	assert_int_equal(open_case(ci, cs, 0, arg, false, &status, &err), 0);
	assert_int_equal(status, ST_EXIT_NOINPUT);
	assert_int_equal(cs[0].n, 1);
	assert_string_equal(cs[0].paths[0], trace);
	assert_int_equal(open_case(ci, cs, 1, arg, false, &status, &err), 0);
	assert_int_equal(status, ST_EXIT_NOINPUT);
	release(ci);
}

/* A binding's case (st_compare_case_paths): its paths as given, a ','
 * inside one kept (--case would cut there); no name, no path or a name
 * given twice 64; a missing path an error note (66). */
static void test_case_paths(void **state)
{
	st_compare_input ci[N] = { 0 };
	st_compare_case cs[N] = { 0 };
	struct st_trace_sys_opts so = { 0 };
	st_trace_notes nt = { 0 };
	char comma[512], gone[512], *paths[2];
	char a[] = "a", b[] = "", none[] = "n";
	st_error err;
	FILE *f;

	(void)state;
	snprintf(comma, sizeof(comma), "%s/x,y.pfw", dir);
	f = fopen(comma, "w");
	assert_non_null(f);
	fputs("[\n", f);
	fclose(f);
	paths[0] = comma;
	paths[1] = trace;
	assert_int_equal(st_compare_case_paths(ci, cs, 0, a, paths, 2, &so, 10,
					       &nt, &err), 0);
	assert_int_equal(st_trace_notes_status(&nt), 0);
	assert_string_equal(cs[0].name, "a");
	assert_int_equal(cs[0].n, 2);
	assert_string_equal(cs[0].paths[0], comma);
	assert_string_equal(cs[0].paths[1], trace);
	assert_int_equal(st_compare_case_paths(ci, cs, 1, a, paths, 1, &so, 10,
					       &nt, &err), ST_EXIT_USAGE);
	assert_string_equal(err.text, "--case a given twice");
	st_compare_input_release(&ci[1]);
	memset(&ci[1], 0, sizeof(ci[1]));
	assert_int_equal(st_compare_case_paths(ci, cs, 1, b, paths, 1, &so, 10,
					       &nt, &err), ST_EXIT_USAGE);
	assert_string_equal(err.text, "case '': no name");
	assert_int_equal(st_compare_case_paths(ci, cs, 2, none, paths, 0, &so,
					       10, &nt, &err), ST_EXIT_USAGE);
	assert_string_equal(err.text, "case 'n': no path");
	release(ci);
	snprintf(gone, sizeof(gone), "%s/gone.pfw", dir);
	paths[0] = gone;
	assert_int_equal(st_compare_case_paths(ci, cs, 0, a, paths, 2, &so, 10,
					       &nt, &err), 0);
	assert_int_equal(st_trace_notes_status(&nt), ST_EXIT_NOINPUT);
	assert_int_equal(cs[0].n, 1);
	st_trace_notes_release(&nt);
	release(ci);
	unlink(comma);
}

static int group_setup(void **state)
{
	FILE *f;

	if (setup(state) < 0 || !(trace = st_path_join(dir, "x.pfw")) ||
	    !(f = fopen(trace, "w")))
		return -1;
	fputs("[\n", f);
	return fclose(f);
}

static int group_teardown(void **state)
{
	free(trace);
	return teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_not_a_case),
		cmocka_unit_test(test_case_names),
		cmocka_unit_test(test_case_events_names),
		cmocka_unit_test(test_case_missing_path),
		cmocka_unit_test(test_case_paths),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
