/* Unit tests: stats queue on a small table; expected files written out by
 * hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/analysis.h"

static char dir[] = "/tmp/st-analysis-XXXXXX";

static char *slurp(const char *name)
{
	static char buf[4096];
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_queue_days_ranked(void **state)
{
	st_table t;
	st_error err;
	st_queue_result res;
	/* queue times: 10 and 30 on 2023-10-13 (mean 20), 5 on 2023-10-14,
	 * 40 on 2023-11-02, 0 on 2023-11-03; the Unknown/None starts never
	 * ran and are left out, as pandas' dropna did */
	const char *csv =
		"Submit,Start,extra\n"
		"2023-10-13T09:00:00,2023-10-13T09:00:10,a\n"
		"2023-10-13T23:59:50,2023-10-14T00:00:20,b\n"
		"2023-10-14T08:00:00,2023-10-14T08:00:05,c\n"
		"2023-10-14T08:00:00,Unknown,d\n"
		"2023-10-15T08:00:00,None,e\n"
		"2023-11-02T12:00:00,2023-11-02T12:00:40,f\n"
		"2023-11-03T12:00:00,2023-11-03T12:00:00,g\n";

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_parse(&t, "m.csv", csv, strlen(csv), &err), 0);
	assert_int_equal(st_queue_stats(&t, NULL, dir, &res, &err), 0);
	assert_int_equal(res.with_outliers.n, 5);
	assert_true(res.with_outliers.mean == 17.0);      /* 85 / 5 */
	assert_true(res.with_outliers.median == 10.0);    /* 0 5 10 30 40 */
	assert_int_equal(res.days, 4);
	assert_string_equal(slurp("ranked_days.csv"),
			    "Submit_date,queue_time\n"
			    "2023-11-02,40.0\n"
			    "2023-10-13,20.0\n"
			    "2023-10-14,5.0\n"
			    "2023-11-03,0.0\n");
	assert_string_equal(slurp("ranked_days_by_month.csv"),
			    "Submit_month_year,Submit_date,queue_time\n"
			    "2023-10,2023-10-14,5.0\n"
			    "2023-10,2023-10-13,20.0\n"
			    "2023-11,2023-11-03,0.0\n"
			    "2023-11,2023-11-02,40.0\n");
	/* q25 = 5, q75 = 30, IQR 25: bounds -32.5..67.5, nothing removed;
	 * std = sqrt(((-17)^2 + (-12)^2 + (-7)^2 + 13^2 + 23^2) / 4) */
	assert_int_equal(res.without_outliers.n, 5);
	assert_true(fabs(res.with_outliers.std - sqrt(1180.0 / 4)) < 1e-12);
	assert_non_null(strstr(slurp("queue_time_statistics.csv"),
			       "statistics,n,mean,median,std,min,max,q25,q75\n"
			       "with_outliers,5,17.0,10.0,"));
	st_table_release(&t);
}

static void test_queue_across_dst_uses_zone(void **state)
{
	st_table t;
	st_error err;
	st_queue_result res;
	st_tz *la = st_tz_load("America/Los_Angeles", &err);
	/* submitted 01:59:00 PST on 2024-03-10, started 03:01:00 PDT: two
	 * minutes of real time, though the wall clocks say 62 */
	const char *csv = "Submit,Start\n2024-03-10T01:59:00,2024-03-10T03:01:00\n";

	(void)state;
	assert_non_null(la);
	st_table_init(&t);
	assert_int_equal(st_table_parse(&t, "m.csv", csv, strlen(csv), &err), 0);
	assert_int_equal(st_queue_stats(&t, la, dir, &res, &err), 0);
	assert_true(res.with_outliers.mean == 120.0);
	assert_int_equal(st_queue_stats(&t, NULL, dir, &res, &err), 0);
	assert_true(res.with_outliers.mean == 3720.0);
	st_table_release(&t);
	st_tz_free(la);
}

static void test_queue_bad_time_names_line(void **state)
{
	st_table t;
	st_error err;
	const char *csv = "Submit,Start\n2023-10-13T09:00:00,2023-10-13T09:00:10\n"
			  "2023-10-13T09:00:00,soon\n";

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_parse(&t, "m.csv", csv, strlen(csv), &err), 0);
	assert_int_equal(st_queue_stats(&t, NULL, dir, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "m.csv:3:"));
	assert_non_null(strstr(err.text, "'soon'"));
	st_table_release(&t);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_days_ranked),
		cmocka_unit_test(test_queue_across_dst_uses_zone),
		cmocka_unit_test(test_queue_bad_time_names_line),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
