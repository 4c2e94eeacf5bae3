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
#include <sys/stat.h>
#include <unistd.h>

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

static void put(const char *sub, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool exists(const char *sub, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	return access(path, F_OK) == 0;
}

#define MERGED_HDR "size,Elapsed\n"
#define SAVE "Size,Type,Stat,save_time\n128,Real,mean,1.5\n128,Blank,mean,0.5\n" \
	     "256,Real,mean,2.0\n256,Blank,mean,1.0\n"
#define STREAM_HDR "time_difference_seconds\n"

/* Run stats transfers over the tables given as text; the streaming files
 * are in DIR/SUB_in, the outputs go to DIR/SUB. */
static int transfers(const char *sub, const char *merged, const char *offload,
		     st_compare_row *rows, size_t *n, st_error *err)
{
	st_table mt, ot, st;
	char sdir[256], odir[256];
	st_transfers_input in = { &mt, &ot, &st, sdir, NULL, 0 };
	int rc;

	snprintf(sdir, sizeof(sdir), "%s/%s_in", dir, sub);
	snprintf(odir, sizeof(odir), "%s/%s", dir, sub);
	st_table_init(&mt);
	st_table_init(&ot);
	st_table_init(&st);
	assert_int_equal(st_table_parse(&mt, "merged.csv", merged, strlen(merged),
					err), 0);
	assert_int_equal(st_table_parse(&ot, "offload.csv", offload,
					strlen(offload), err), 0);
	assert_int_equal(st_table_parse(&st, "save.csv", SAVE, strlen(SAVE), err), 0);
	rc = st_transfers_stats(&in, odir, rows, n, err);
	st_table_release(&mt);
	st_table_release(&ot);
	st_table_release(&st);
	return rc;
}

/* Issue 13 item 10: inputs of 1e308 gave inf, -inf and nan in
 * statistics_table.csv with exit 0.  Each is now error 65 naming the file
 * and line behind it, and no output is written. */
static void test_transfers_huge_values_are_65_naming_input(void **state)
{
	st_compare_row rows[2];
	size_t n;
	st_error err;
	char sname[64];

	(void)state;
	/* streaming: 1e308 + 1e308 overflows the mean */
	put("huge_in", "streaming_times_128.csv", STREAM_HDR "4\n1e308\n1e308\n5\n");
	assert_int_equal(transfers("huge", MERGED_HDR "128,00:01:00\n128,00:02:00\n",
				   "size,offload_time\n128,2.5\n", rows, &n,
				   &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	snprintf(sname, sizeof(sname), "huge_in/streaming_times_128.csv:3:");
	if (!strstr(err.text, sname))
		fail_msg("'%s' lacks '%s'", err.text, sname);
	assert_false(exists("huge", "statistics_table.csv"));
	assert_false(exists("huge", "statistics_transfers_128.csv"));

	/* streaming: 1e308 and -1e308, whose spread overflows */
	put("spread_in", "streaming_times_128.csv", STREAM_HDR "1e308\n-1e308\n");
	assert_int_equal(transfers("spread", MERGED_HDR "128,00:01:00\n",
				   "size,offload_time\n128,2.5\n", rows, &n,
				   &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "streaming_times_128.csv:2:"));

	/* file transfer: offload times of 1.7e308 add up past DBL_MAX */
	put("ft_in", "streaming_times_128.csv", STREAM_HDR "4\n5\n");
	assert_int_equal(transfers("ft", MERGED_HDR "256,00:01:00\n128,00:01:00\n"
				   "128,00:02:00\n", "size,offload_time\n128,1.7e308\n",
				   rows, &n, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "merged.csv:3:"));
	assert_non_null(strstr(err.text, "offload.csv"));
	assert_false(exists("ft", "statistics_table.csv"));

	/* file transfer: one job time itself overflows (2 x (Real - Blank)) */
	{
		static const char save[] = "Size,Type,Stat,save_time\n"
			"128,Real,mean,1e308\n128,Blank,mean,-1e308\n";
		static const char merged[] = MERGED_HDR "128,00:01:00\n";
		st_table mt, sv;
		double out[2];

		st_table_init(&mt);
		st_table_init(&sv);
		assert_int_equal(st_table_parse(&mt, "merged.csv", merged,
						strlen(merged), &err), 0);
		assert_int_equal(st_table_parse(&sv, "save.csv", save, strlen(save),
						&err), 0);
		assert_int_equal(st_transfer_job_times(&mt, &sv, 128, 2.5, out, &n,
						       &err), -1);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		assert_non_null(strstr(err.text, "merged.csv:2:"));
		assert_non_null(strstr(err.text, "save.csv"));
		st_table_release(&mt);
		st_table_release(&sv);
	}

	/* a mean streaming time of 0: no infinite enhancement */
	put("zero_in", "streaming_times_128.csv", STREAM_HDR "0\n0\n");
	assert_int_equal(transfers("zero", MERGED_HDR "128,00:01:00\n",
				   "size,offload_time\n128,2.5\n", rows, &n,
				   &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "streaming_times_128.csv"));
	assert_false(exists("zero", "statistics_table.md"));
}

/* Issue 13 item 12: a group with no values printed "nan ± nan" in the
 * table, Markdown, TeX and the comparison on stdout.  It is "no data" there
 * and empty cells in the CSV files; a single value's std is "n/a". */
static void test_transfers_group_without_values_is_no_data(void **state)
{
	static const char *const files[] = {
		"statistics_table.csv", "statistics_table.md", "statistics_table.tex",
		"statistics_transfers_128.csv", "statistics_transfers_256.csv",
	};
	st_compare_row rows[2];
	size_t n;
	st_error err;
	char *md = NULL;
	size_t mdlen;
	FILE *f;

	(void)state;
	/* 128: streaming values but no job; 256: one job, no streaming value */
	put("nodata_in", "streaming_times_128.csv", STREAM_HDR "4\n5\n6\n");
	put("nodata_in", "streaming_times_256.csv", STREAM_HDR);
	assert_int_equal(transfers("nodata", MERGED_HDR "256,00:01:00\n",
				   "size,offload_time\n128,2.5\n256,3\n", rows,
				   &n, &err), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char name[128];

		snprintf(name, sizeof(name), "nodata/%s", files[i]);
		if (strstr(slurp(name), "nan") || strstr(slurp(name), "inf"))
			fail_msg("%s: %s", files[i], slurp(name));
	}
	assert_non_null(strstr(slurp("nodata/statistics_table.md"),
			       "| 128 | no data | 5.0 ± 1.0 | no data |\n"
			       "| 256 | 61.0 ± n/a | no data | no data |\n"));
	assert_non_null(strstr(slurp("nodata/statistics_table.tex"),
			       "& no data & $5.0 \\pm 1.0$ & no data \\\\\n"));
	/* the size to a tenth of a GB (173.9 was cut to 173), and the
	 * packages the table needs said first */
	assert_non_null(strstr(slurp("nodata/statistics_table.tex"),
			       "128 x 128 x 576 x 576 & 10.9 GB &"));
	assert_non_null(strstr(slurp("nodata/statistics_table.tex"),
			       "% needs \\usepackage{booktabs}"));
	assert_non_null(strstr(slurp("nodata/statistics_table.csv"),
			       "\n128,10.871635968,,,5.0,1.0,\n"));
	assert_non_null(strstr(slurp("nodata/statistics_transfers_128.csv"),
			       "Statistics for 128x128 Original with Outliers,128,0"
			       ",,,,,,,\n"));
	/* what reproduce and stats transfers print */
	f = open_memstream(&md, &mdlen);
	assert_non_null(f);
	assert_int_equal(st_compare_write_md(f, rows, n), 0);
	fclose(f);
	assert_null(strstr(md, "nan"));
	assert_non_null(strstr(md, "| 256 | 61.0 ± n/a | no data | no data |"));
	free(md);
}

/* A Start more than 292 years after Submit overflowed the int64 ns
 * difference (undefined behaviour). */
static void test_queue_time_overflow_is_65(void **state)
{
	st_table t;
	st_error err;
	const char *csv = "Submit,Start\n2023-10-13T09:00:00,2023-10-13T09:00:10\n"
			  "1700-01-01T00:00:00,2260-01-01T00:00:00\n";

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_parse(&t, "m.csv", csv, strlen(csv), &err), 0);
	assert_int_equal(st_queue_stats(&t, NULL, dir, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "m.csv:3: column 'Start'"));
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
		cmocka_unit_test(test_transfers_huge_values_are_65_naming_input),
		cmocka_unit_test(test_transfers_group_without_values_is_no_data),
		cmocka_unit_test(test_queue_time_overflow_is_65),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
