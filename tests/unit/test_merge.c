/* Unit tests: merge transfer, offload and streaming on small in-memory
 * tables.  Expected outputs are written out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/merge.h"

static void parse(st_table *t, const char *name, const char *text)
{
	st_error err;

	st_table_init(t);
	if (st_table_parse(t, name, text, strlen(text), &err) < 0)
		fail_msg("%s", err.text);
}

/* Output of a merge, captured with open_memstream. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *cap_open(struct capture *c)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static const char *cap_text(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

#define JOBS_HDR "Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End," \
		 "ReqNodes,QOS,User,ExitCode\n"
#define JOB(id) "distiller-count-1," id ",00:30:00,00:01:00,2023-10-13T09:00:00," \
		"2023-10-13T09:00:05,2023-10-13T09:01:05,4,realtime_x,u,0:0\n"
#define OUT_HDR "Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes," \
		"QOS,User,ExitCode,id,elapsed,size\n"
#define ROW(id) "distiller-count-1," id ",00:30:00,00:01:00,2023-10-13T09:00:00," \
		"2023-10-13T09:00:05,2023-10-13T09:01:05,4,realtime_x,u,0:0,"

static void test_db_size_from_name(void **state)
{
	(void)state;
	assert_int_equal(st_db_size_from_name("x/128_128.csv"), 128);
	assert_int_equal(st_db_size_from_name("1024_1024.csv"), 1024);
	assert_int_equal(st_db_size_from_name("128_256.csv"), 0);
	assert_int_equal(st_db_size_from_name("128_128.csv.bak"), 0);
	assert_int_equal(st_db_size_from_name("jobs.csv"), 0);
	assert_int_equal(st_db_size_from_name("0_0.csv"), 0);
}

/* Issue 13 item 15: strtoll saturates, so a name of two overflowing equal
 * numbers read as size INT64_MAX (found by fuzz_db_size). */
static void test_db_size_overflowing_name_is_no_size(void **state)
{
	(void)state;
	assert_int_equal(st_db_size_from_name(
		"99999999999999999999_99999999999999999999.csv"), 0);
	assert_int_equal(st_db_size_from_name(
		"9223372036854775808_9223372036854775808.csv"), 0);
	assert_int_equal(st_db_size_from_name(
		"9223372036854775807_9223372036854775807.csv"), INT64_MAX);
	assert_int_equal(st_db_size_from_name("007_7.csv"), 7);
}

static void test_transfer_join_order_and_filters(void **state)
{
	st_table jobs, d128, d256;
	struct capture c;
	st_error err;
	size_t rows;
	/* job 30 has two Distiller rows (one per size), job 40 none, job 50's
	 * elapsed is over the limit, job 60's is empty, 70 sits exactly at the
	 * limit, "80_1" is an array task that can never match */
	parse(&jobs, "jobs.csv", JOBS_HDR JOB("30") JOB("40") JOB("50") JOB("60")
	      JOB("70") JOB("80_1") JOB("20"));
	parse(&d256, "256_256.csv", "id,slurm_id,elapsed\n"
	      "9,30,00:02:00\n11,,00:01:00\n");
	parse(&d128, "128_128.csv", "id,slurm_id,elapsed\n"
	      "5,20.0,0 days 00:00:30\n6,30,00:01:00\n7,50,00:29:01\n8,60,\n"
	      "10,70,00:29:00\n12,80,00:01:00\n");
	st_db_table db[] = { { 128, &d128 }, { 256, &d256 } };

	(void)state;
	assert_int_equal(st_merge_transfer(&jobs, db, 2, 29 * 60 * ST_NS_PER_SEC,
					   cap_open(&c), &rows, &err), 0);
	assert_string_equal(cap_text(&c), OUT_HDR
			    ROW("30") "6,00:01:00,128\n"
			    ROW("30") "9,00:02:00,256\n"
			    ROW("70") "10,00:29:00,128\n"
			    ROW("20") "5,00:00:30,128\n");
	assert_int_equal(rows, 4);
	free(c.buf);
	st_table_release(&jobs);
	st_table_release(&d128);
	st_table_release(&d256);
}

static void test_transfer_size_column(void **state)
{
	st_table jobs, d;
	struct capture c;
	st_error err;

	parse(&jobs, "jobs.csv", JOBS_HDR JOB("30"));
	parse(&d, "all.csv", "size,slurm_id,id,elapsed,extra\n512,30,4,00:03:00,x\n");
	st_db_table db[] = { { 0, &d } };

	(void)state;
	assert_int_equal(st_merge_transfer(&jobs, db, 1, INT64_MAX, cap_open(&c),
					   NULL, &err), 0);
	assert_string_equal(cap_text(&c), OUT_HDR ROW("30") "4,00:03:00,512\n");
	free(c.buf);
	st_table_release(&d);

	/* no size in the name and no size column: a clear error */
	parse(&d, "all.csv", "slurm_id,id,elapsed\n30,4,00:03:00\n");
	db[0].t = &d;
	assert_int_equal(st_merge_transfer(&jobs, db, 1, INT64_MAX, cap_open(&c),
					   NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "all.csv: no size"));
	fclose(c.f);
	free(c.buf);
	st_table_release(&d);
	st_table_release(&jobs);
}

static void test_transfer_errors_name_file_line_column(void **state)
{
	st_table jobs, d;
	struct capture c;
	st_error err;
	st_db_table db[] = { { 128, &d } };

	(void)state;
	parse(&jobs, "jobs.csv", JOBS_HDR JOB("30"));
	parse(&d, "128_128.csv", "id,slurm_id,elapsed\n1,30,00:01:00\n2,3x,00:01:00\n");
	assert_int_equal(st_merge_transfer(&jobs, db, 1, INT64_MAX, cap_open(&c),
					   NULL, &err), -1);
	assert_string_equal(err.text, "128_128.csv:3: column 'slurm_id': '3x' is "
			    "not an integer");
	fclose(c.f);
	free(c.buf);
	st_table_release(&d);

	parse(&d, "128_128.csv", "id,slurm_id\n1,30\n");
	assert_int_equal(st_merge_transfer(&jobs, db, 1, INT64_MAX, cap_open(&c),
					   NULL, &err), -1);
	assert_string_equal(err.text, "128_128.csv: missing column 'elapsed'");
	fclose(c.f);
	free(c.buf);
	st_table_release(&d);
	st_table_release(&jobs);
}

/* Issue 13 item 12: a negative Distiller `elapsed` passed the limit test
 * (-00:05:00 <= 29:00) and was written as a job's run time. */
static void test_transfer_negative_distiller_elapsed_is_65(void **state)
{
	st_table jobs, d;
	struct capture c;
	st_error err;
	st_db_table db[] = { { 128, &d } };

	(void)state;
	parse(&jobs, "jobs.csv", JOBS_HDR JOB("30") JOB("40"));
	parse(&d, "128_128.csv", "id,slurm_id,elapsed\n1,30,00:01:00\n"
	      "2,40,-00:05:00\n");
	assert_int_equal(st_merge_transfer(&jobs, db, 1, 29 * 60 * ST_NS_PER_SEC,
					   cap_open(&c), NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "128_128.csv:3: column 'elapsed': "
			       "'-00:05:00' is negative"));
	fclose(c.f);
	free(c.buf);
	st_table_release(&d);
	/* pandas' form of a negative interval too */
	parse(&d, "128_128.csv", "id,slurm_id,elapsed\n2,40,-1 days +23:59:00\n");
	assert_int_equal(st_merge_transfer(&jobs, db, 1, 29 * 60 * ST_NS_PER_SEC,
					   cap_open(&c), NULL, &err), -1);
	assert_non_null(strstr(err.text, "128_128.csv:2: column 'elapsed'"));
	fclose(c.f);
	free(c.buf);
	st_table_release(&d);
	st_table_release(&jobs);
}

/* Issue 13 item 11: a job row with a NaN Submit (or empty Start, negative
 * Elapsed) went into merged_job_info.csv, and `stats queue` then named that
 * intermediate file.  merge transfer names the jobs file's line. */
static void test_transfer_bad_job_values_name_jobs_file(void **state)
{
	static const struct { const char *row, *col; } bad[] = {
		{ "distiller-count-1,30,00:30:00,00:01:00,NaN,"
		  "2023-10-13T09:00:05,2023-10-13T09:01:05,4,realtime_x,u,0:0\n",
		  "column 'Submit'" },
		{ "distiller-count-1,30,00:30:00,00:01:00,2023-10-13T09:00:00,,"
		  "2023-10-13T09:01:05,4,realtime_x,u,0:0\n", "column 'Start'" },
		{ "distiller-count-1,30,00:30:00,-00:01:00,2023-10-13T09:00:00,"
		  "2023-10-13T09:00:05,2023-10-13T09:01:05,4,realtime_x,u,0:0\n",
		  "column 'Elapsed'" },
	};
	st_table d;

	(void)state;
	parse(&d, "128_128.csv", "id,slurm_id,elapsed\n1,30,00:01:00\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st_db_table db[] = { { 128, &d } };
		char text[512];
		st_table jobs;
		struct capture c;
		st_error err;

		snprintf(text, sizeof(text), "%s%s%s", JOBS_HDR, JOB("20"),
			 bad[i].row);
		parse(&jobs, "jobs.csv", text);
		assert_int_equal(st_merge_transfer(&jobs, db, 1, INT64_MAX,
						   cap_open(&c), NULL, &err), -1);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		if (!strstr(err.text, "jobs.csv:3: ") ||
		    !strstr(err.text, bad[i].col))
			fail_msg("case %zu: %s", i, err.text);
		fclose(c.f);
		free(c.buf);
		st_table_release(&jobs);
	}
	st_table_release(&d);
}

static void test_offload_means_and_missing_receiver(void **state)
{
	st_table wt;
	struct capture c, ps;
	st_error err;
	/* scan 1: min receiver 10:00:00, last write 10:00:03 -> 3 s
	 * scan 2: receiver 1 missing (empty cell), min 10:01:00.5, last
	 *         10:01:05 -> 4.5 s
	 * scan 3: outside every range, and its junk time is never parsed
	 * scan 9: size 256, 20 s with an explicit +02:00 offset */
	parse(&wt, "write_times.csv",
	      "scan_number,time0,time1,time_last_written\n"
	      "1,2023-10-16T10:00:01+00:00,2023-10-16T10:00:00Z,2023-10-16T10:00:03+00:00\n"
	      "2,2023-10-16T10:01:00.5+00:00,,2023-10-16T10:01:05+00:00\n"
	      "3,junk,junk,junk\n"
	      "9,2023-10-16T12:00:00+02:00,2023-10-16T10:00:10+00:00,2023-10-16T10:00:20+00:00\n");
	st_size_range r[] = { { 128, { 1, 2 } }, { 256, { 9, 9 } } };

	(void)state;
	assert_int_equal(st_merge_offload(&wt, r, 2, NULL, cap_open(&c), cap_open(&ps),
					  NULL, &err), 0);
	assert_string_equal(cap_text(&c), "size,offload_time\n128,3.75\n256,20.0\n");
	assert_string_equal(cap_text(&ps), "size,scan_number,offload_time\n"
			    "128,1,3.0\n128,2,4.5\n256,9,20.0\n");
	free(c.buf);
	free(ps.buf);

	/* a range without scans is an error, not a NaN */
	st_size_range none[] = { { 512, { 100, 200 } } };
	assert_int_equal(st_merge_offload(&wt, none, 1, NULL, cap_open(&c), NULL, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_string_equal(err.text, "write_times.csv: no scan of range 100-200 "
			    "(size 512)");
	fclose(c.f);
	free(c.buf);

	/* the junk row inside a range: file, line and column named */
	st_size_range bad[] = { { 128, { 3, 3 } } };
	assert_int_equal(st_merge_offload(&wt, bad, 1, NULL, cap_open(&c), NULL, NULL, &err), -1);
	assert_non_null(strstr(err.text, "write_times.csv:4: column 'time0': "
			       "cannot parse time 'junk'"));
	fclose(c.f);
	free(c.buf);
	st_table_release(&wt);
}

static void test_streaming_time_zones_and_sign(void **state)
{
	st_table created, h5;
	struct capture c;
	st_streaming_result res;
	st_error err;
	st_tz *la = st_tz_load("America/Los_Angeles", &err);
	/* scan 10: created 2023-10-13 16:45:09Z; NERSC 09:45:14 PDT = 16:45:14Z: +5 s
	 * scan 11: created 2024-01-10 17:00:00Z; NERSC 09:00:04 PST = 17:00:04Z: +4 s
	 *          (a fixed 7 h shift would say -3596 s)
	 * scan 12: NERSC before NCEM: -2 s, counted as negative
	 * scan 13: not in the created file
	 * scan 14: outside the range */
	parse(&created, "created.csv", "scan_number,time0,time1\n"
	      "11,2024-01-10T17:00:01+00:00,2024-01-10T17:00:00+00:00\n"
	      "10,2023-10-13T16:45:09+00:00,2023-10-13T16:45:10+00:00\n"
	      "12,2023-10-13T16:50:00.250+00:00,2023-10-13T16:50:01+00:00\n"
	      "14,2023-10-13T16:50:00+00:00,2023-10-13T16:50:01+00:00\n");
	parse(&h5, "h5.csv", "distiller_id,scan_number,datetime\n"
	      "00042,10,2023-10-13 09:45:14\n"
	      "00043,11,2024-01-10 09:00:04\n"
	      "00044,12,2023-10-13 09:49:58.25\n"
	      "00045,13,2023-10-13 09:49:58\n"
	      "00046,14,2023-10-13 09:49:58\n");
	st_range range = { 10, 13 };

	(void)state;
	assert_non_null(la);
	assert_int_equal(st_merge_streaming(&created, &h5, la, &range, NULL, cap_open(&c),
					    &res, NULL, &err), 0);
	assert_string_equal(cap_text(&c),
		"distiller_id,scan_number,nersc_write_time,ncem_created_time,"
		"time_difference_seconds,latency_seconds\n"
		"42,10,2023-10-13T16:45:14+00:00,2023-10-13T16:45:09+00:00,5.0,5.0\n"
		"43,11,2024-01-10T17:00:04+00:00,2024-01-10T17:00:00+00:00,4.0,4.0\n"
		"44,12,2023-10-13T16:49:58.250000+00:00,2023-10-13T16:50:00.250000+00:00,2.0,-2.0\n");
	assert_int_equal(res.rows, 3);
	assert_int_equal(res.negative, 1);
	assert_int_equal(res.unmatched, 1);
	assert_int_equal(res.gaps, 0);
	free(c.buf);
	st_table_release(&created);
	st_table_release(&h5);
	st_tz_free(la);
}

static void warn_sink(void *ctx, const char *msg)
{
	snprintf(ctx, 256, "%s", msg);
}

static void test_streaming_dst_overlap_warns(void **state)
{
	st_table created, h5;
	struct capture c;
	st_streaming_result res;
	char last[256] = "";
	st_log log = { warn_sink, last, 0 };
	st_error err;
	st_tz *la = st_tz_load("America/Los_Angeles", &err);

	(void)state;
	/* 01:30 on 2024-11-03 happens twice in Los Angeles: PDT is taken
	 * (08:30Z) and a warning names the line */
	parse(&created, "created.csv", "scan_number,time0\n1,2024-11-03T08:30:00+00:00\n");
	parse(&h5, "h5.csv", "distiller_id,scan_number,datetime\n00001,1,2024-11-03 01:30:03\n");
	assert_int_equal(st_merge_streaming(&created, &h5, la, NULL, NULL, cap_open(&c),
					    &res, &log, &err), 0);
	assert_non_null(strstr(cap_text(&c), ",3.0,3.0\n"));
	assert_int_equal(res.gaps, 1);
	assert_int_equal(log.count, 1);
	assert_non_null(strstr(last, "h5.csv:2"));
	assert_non_null(strstr(last, "ambiguous"));
	free(c.buf);
	st_table_release(&created);
	st_table_release(&h5);
	st_tz_free(la);
}

/* Issue 17 item 2: on a fresh clone the data files' mtimes are the
 * checkout's, so offload times came out near 87,000,000 s with no word.
 * Negative or longer-than-a-day offloads are one warning that counts them
 * and names the scans; plausible ones say nothing. */
static void test_offload_checkout_mtimes_warn(void **state)
{
	st_table wt;
	struct capture c;
	char last[512] = "";
	st_log log = { warn_sink, last, 0 };
	st_error err;
	st_size_range r[] = { { 128, { 1, 9 } } };

	(void)state;
	parse(&wt, "write_times.csv",
	      "scan_number,time0,time_last_written\n"
	      "1,2023-10-16T10:00:00+00:00,2023-10-16T10:00:03+00:00\n"
	      "2,2023-10-16T10:00:00+00:00,2026-06-01T00:00:00+00:00\n"
	      "3,2023-10-16T10:00:00+00:00,2023-10-16T09:59:55+00:00\n"
	      "4,2023-10-16T10:00:00+00:00,2023-10-17T10:00:00+00:00\n"
	      "5,2023-10-16T10:00:00+00:00,2023-10-17T10:00:01+00:00\n");
	assert_int_equal(st_merge_offload(&wt, r, 1, NULL, cap_open(&c), NULL,
					  &log, &err), 0);
	free((void *)cap_text(&c));
	/* scan 4 is a day exactly: plausible; 2 (about 2.6 years), 3 (-5 s)
	 * and 5 (a day and a second) are not; 2 is the worst */
	assert_int_equal(log.count, 1);
	assert_non_null(strstr(last, "write_times.csv: 3 of 5 scans have an "
			       "offload time that is negative or longer than "
			       "a day (scan 2: "));
	assert_non_null(strstr(last, "scans 2, 3, 5)"));
	st_table_release(&wt);

	parse(&wt, "write_times.csv",
	      "scan_number,time0,time_last_written\n"
	      "1,2023-10-16T10:00:00+00:00,2023-10-16T10:00:03+00:00\n");
	log.count = 0;
	assert_int_equal(st_merge_offload(&wt, r, 1, NULL, cap_open(&c), NULL,
					  &log, &err), 0);
	free((void *)cap_text(&c));
	assert_int_equal(log.count, 0);
	st_table_release(&wt);
}

/* Issue 13 item 10 (the merges): times more than 292 years apart
 * overflowed the int64 ns difference (undefined behaviour, then garbage
 * offload and latency values). */
static void test_merges_time_span_overflow_is_65(void **state)
{
	st_table wt, created, h5;
	struct capture c;
	st_error err;
	st_size_range r[] = { { 128, { 1, 2 } } };

	(void)state;
	parse(&wt, "write_times.csv", "scan_number,time0,time_last_written\n"
	      "1,2023-10-16T10:00:00+00:00,2023-10-16T10:00:03+00:00\n"
	      "2,1700-01-01T00:00:00+00:00,2260-01-01T00:00:00+00:00\n");
	assert_int_equal(st_merge_offload(&wt, r, 1, NULL, cap_open(&c), NULL,
					  NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "write_times.csv:3:"));
	fclose(c.f);
	free(c.buf);
	st_table_release(&wt);

	parse(&created, "created.csv", "scan_number,time0\n"
	      "5,1700-01-01T00:00:00+00:00\n");
	parse(&h5, "h5.csv", "distiller_id,scan_number,datetime\n"
	      "00042,5,2260-01-01 00:00:00\n");
	assert_int_equal(st_merge_streaming(&created, &h5, NULL, NULL, NULL,
					    cap_open(&c), NULL, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "h5.csv:2:"));
	fclose(c.f);
	free(c.buf);
	st_table_release(&created);
	st_table_release(&h5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_db_size_from_name),
		cmocka_unit_test(test_db_size_overflowing_name_is_no_size),
		cmocka_unit_test(test_transfer_join_order_and_filters),
		cmocka_unit_test(test_transfer_size_column),
		cmocka_unit_test(test_transfer_errors_name_file_line_column),
		cmocka_unit_test(test_transfer_negative_distiller_elapsed_is_65),
		cmocka_unit_test(test_transfer_bad_job_values_name_jobs_file),
		cmocka_unit_test(test_offload_means_and_missing_receiver),
		cmocka_unit_test(test_streaming_time_zones_and_sign),
		cmocka_unit_test(test_streaming_dst_overlap_warns),
		cmocka_unit_test(test_merges_time_span_overflow_is_65),
		cmocka_unit_test(test_offload_checkout_mtimes_warn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
