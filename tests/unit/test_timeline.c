/* Unit tests: the timeline's slices, lanes and args on tiny inputs written
 * to a temporary directory; the output parsed back with jansson. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/atomic.h"
#include "streamtime/timeline.h"

#define TMPDIR_NAME "timeline"
#include "tmpdir.h"

static void put(const char *name, const char *text)
{
	char *p = st_path_join(dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* Run the timeline over IN; the parsed trace and the counts. */
static json_t *trace(const st_timeline_input *in, st_timeline_counts *c,
		     unsigned long *warnings)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_log log = { 0 };
	st_error err;
	json_t *root;

	assert_non_null(f);
	assert_int_equal(st_timeline_write(in, f, c, &log, &err), 0);
	fclose(f);
	root = json_loads(buf, 0, NULL);
	assert_non_null(root);
	free(buf);
	if (warnings)
		*warnings = log.count;
	return root;
}

/* The X events of process PID, in file order. */
static size_t slices(json_t *root, int pid, json_t **out, size_t max)
{
	json_t *ev;
	size_t i, n = 0;

	json_array_foreach(json_object_get(root, "traceEvents"), i, ev)
		if (!strcmp(json_string_value(json_object_get(ev, "ph")), "X") &&
		    json_integer_value(json_object_get(ev, "pid")) == pid &&
		    n < max)
			out[n++] = ev;
	return n;
}

/* Overlapping jobs of one size take separate lanes (tids); a job that
 * ends before it starts is kept with no length and one warning; naive
 * times are read in slurm_tz. */
static void test_jobs_lanes(void **state)
{
	st_experiment e = { .size = 128, .offload = { 1, 0 },
			    .streaming = { 1, 0 } };
	st_experiments ex = { .v = &e, .n = 1, .slurm_tz =
				      (char *)"America/Los_Angeles" };
	char *merged = st_path_join(dir, "m.csv");
	st_timeline_input in = { .merged = merged, .ex = &ex };
	st_timeline_counts c;
	unsigned long warnings;
	json_t *root, *q[8], *r[8];

	(void)state;
	put("m.csv", "Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,"
	    "ReqNodes,QOS,User,ExitCode,id,elapsed,size\n"
	    "a,1,,,2023-01-01T00:00:00,2023-01-01T00:00:10,"
	    "2023-01-01T00:01:00,4,q,u,0:0,11.0,,128.0\n"
	    "b,2,,,2023-01-01T00:00:05,2023-01-01T00:00:20,"
	    "2023-01-01T00:00:15,4,q,u,0:0,12,,128\n");
	root = trace(&in, &c, &warnings);
	assert_int_equal(c.transfer_jobs, 2);
	assert_int_equal(slices(root, 3, q, 8), 2);
	assert_int_equal(slices(root, 4, r, 8), 2);
	/* 00:00 Pacific in January is 08:00 UTC */
	assert_int_equal(json_integer_value(json_object_get(q[0], "ts")),
			 1672560000000000LL);
	assert_int_equal(json_integer_value(json_object_get(q[0], "dur")),
			 10000000);
	/* the queues overlap: two lanes */
	assert_int_not_equal(json_integer_value(json_object_get(q[0], "tid")),
			     json_integer_value(json_object_get(q[1], "tid")));
	/* job 2 ends before it starts: no length, one warning */
	assert_int_equal(json_integer_value(json_object_get(r[1], "dur")), 0);
	assert_int_equal(warnings, 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		r[0], "args"), "distiller_id")), 11);
	assert_non_null(strstr(json_string_value(json_object_get(r[0], "name")),
			       "job 1 (128x128"));
	json_decref(root);
	free(merged);
}

/* Streaming: the clock correction column shows in args; a size without
 * its file is empty; receivers only for joined scans, one slice per time
 * given; offload from the earliest receiver to the last write. */
static void test_streaming_and_receivers(void **state)
{
	st_experiment e[2] = {
		{ .size = 128, .offload = { 10, 11 }, .streaming = { 1, 5 } },
		{ .size = 256, .offload = { 20, 21 }, .streaming = { 6, 9 } },
	};
	st_experiments ex = { .v = e, .n = 2 };
	char *wt = st_path_join(dir, "w.csv"), *cr = st_path_join(dir, "c.csv");
	st_timeline_input in = { .write_times = wt, .created = cr,
				 .streaming_dir = dir, .ex = &ex };
	st_timeline_counts c;
	json_t *root, *v[16];

	(void)state;
	put("streaming_times_128.csv",
	    "distiller_id,scan_number,nersc_write_time,ncem_created_time,"
	    "time_difference_seconds,clock_correction_seconds\n"
	    "7,2,2023-10-13T16:45:14+00:00,2023-10-13T16:45:09+00:00,5.0,"
	    "-0.25\n");
	put("w.csv", "scan_number,time0,time1,time_last_written\n"
	    "10,2023-01-01T00:00:03Z,2023-01-01T00:00:01Z,2023-01-01T00:00:09Z\n"
	    "99,2023-01-01T00:00:03Z,2023-01-01T00:00:01Z,2023-01-01T00:00:09Z\n");
	put("c.csv", "scan_number,time0,time1\n"
	    "2,2023-10-13T16:45:09Z,\n3,2023-10-13T16:45:09Z,2023-10-13T16:45:10Z\n");
	root = trace(&in, &c, NULL);
	assert_int_equal(c.streaming_scans, 1);
	assert_int_equal(c.offload_scans, 1);
	assert_int_equal(slices(root, 6, v, 16), 1);
	assert_int_equal(json_integer_value(json_object_get(v[0], "dur")),
			 5000000);
	assert_true(json_is_true(json_object_get(json_object_get(v[0], "args"),
						 "clock_corrected")));
	assert_int_equal(slices(root, 2, v, 16), 1);     /* offload of 10 */
	assert_int_equal(json_integer_value(json_object_get(v[0], "dur")),
			 8000000);
	/* receivers: scan 10's two times, scan 2's one; not 3 nor 99 */
	assert_int_equal(slices(root, 1, v, 16), 3);
	json_decref(root);
	free(wt);
	free(cr);
}

/* Nothing at all: still the six processes and a closed document. */
static void test_empty(void **state)
{
	st_experiments ex = { 0 };
	st_timeline_input in = { .ex = &ex };
	st_timeline_counts c;
	json_t *root, *v[4];

	(void)state;
	root = trace(&in, &c, NULL);
	for (int p = 1; p <= ST_STAGE_N; p++)
		assert_int_equal(slices(root, p, v, 4), 0);
	assert_int_equal(c.events, 2 * ST_STAGE_N);
	assert_string_equal(st_stage_name(ST_STAGE_QUEUE), "Slurm queue");
	json_decref(root);
}

/* A bad cell: 65, naming the file and the column. */
static void test_bad_time(void **state)
{
	st_experiment e = { .size = 128 };
	st_experiments ex = { .v = &e, .n = 1 };
	char *merged = st_path_join(dir, "bad.csv");
	st_timeline_input in = { .merged = merged, .ex = &ex };
	FILE *f = fopen("/dev/null", "w");
	st_error err;

	(void)state;
	put("bad.csv", "Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,"
	    "ReqNodes,QOS,User,ExitCode,id,elapsed,size\n"
	    "a,1,,,2023-01-01T00:00:00,soon,2023-01-01T00:01:00,4,q,u,0:0,1,,"
	    "128\n");
	assert_non_null(f);
	assert_int_equal(st_timeline_write(&in, f, NULL, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "bad.csv"));
	assert_non_null(strstr(err.text, "Start"));
	fclose(f);
	free(merged);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs_lanes),
		cmocka_unit_test(test_streaming_and_receivers),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_time),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
