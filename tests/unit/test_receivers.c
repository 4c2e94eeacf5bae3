/* Unit tests: receiver file names, status JSON, the completeness rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/receivers.h"
#include "streamtime/tz.h"

static void test_status_names(void **state)
{
	int r;
	int64_t n;

	(void)state;
	assert_true(st_receivers_parse_status_name("4dstem_rec_status_0_scan_4858.json",
						   &r, &n));
	assert_int_equal(r, 0);
	assert_int_equal(n, 4858);
	assert_true(st_receivers_parse_status_name("4dstem_rec_status_3_scan_0.json",
						   &r, &n));
	assert_int_equal(r, 3);
	assert_int_equal(n, 0);
	assert_true(st_receivers_parse_status_name(
		"4dstem_rec_status_12_scan_999999999999999.json", &r, &n));
	assert_int_equal(n, INT64_C(999999999999999));
	/* names that only look like ours */
	static const char *const bad[] = {
		"4dstem_rec_status_0_scan_04858.json",  /* zero padded */
		"4dstem_rec_status_00_scan_1.json",
		"4dstem_rec_status_0_scan_1.json.tmp",
		"4dstem_rec_status_0_scan_1.jso",
		"4dstem_rec_status_0_scan_.json",
		"4dstem_rec_status__scan_1.json",
		"4dstem_rec_status_-1_scan_1.json",
		"4dstem_rec_status_+1_scan_1.json",
		"4dstem_rec_status_0_scan_1x.json",
		"4dstem_rec_status_0_scan_1.JSON",
		"4dstem_rec_status_0_scan_1000000000000000.json", /* 16 digits */
		"4dstem_rec_status_10000_scan_1.json",
		"x4dstem_rec_status_0_scan_1.json",
		"4dstem_rec_status_0_scan_1",
		"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(st_receivers_parse_status_name(bad[i], &r, &n));
}

static void test_data_names(void **state)
{
	int64_t n;

	(void)state;
	assert_true(st_receivers_parse_data_name(
		"data_scan0000004858_module0to3_dst0_file0.data", &n));
	assert_int_equal(n, 4858);
	assert_true(st_receivers_parse_data_name(
		"data_scan0000000000_module12to15_dst3_file287.data", &n));
	assert_int_equal(n, 0);
	static const char *const bad[] = {
		"data_scan000004858_module0to3_dst0_file0.data",   /* 9 digits */
		"data_scan00000048580_module0to3_dst0_file0.data", /* 11 */
		"data_scan0000004858_module0to3_dst0_file0.data.part",
		"data_scan0000004858_module0to3_dst0_file.data",
		"data_scan0000004858_module0_dst0_file0.data",
		"data_scan0000004858_moduleto3_dst0_file0.data",
		"data_scan0000004858_module0to3_dst_file0.data",
		"data_scan0000004858_module0to3_dst0_file0.dat",
		"data_scan000000485x_module0to3_dst0_file0.data",
		"data_scan0000004858_module0to3_dst0_file0",
		"data_scan",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(st_receivers_parse_data_name(bad[i], &n));
}

static int parse(const char *json, const st_tz *tz, st_instant *t, st_error *err)
{
	return st_receivers_parse_status(json, strlen(json), tz, t, err);
}

static void test_status_json(void **state)
{
	st_instant t;
	st_error err;
	st_tz *la;

	(void)state;
	assert_int_equal(parse("{\"time\": \"2023-10-13T16:45:09+00:00\", "
			       "\"last_scan_number\": 4858, \"progress\": 1.0, "
			       "\"UUID\": \"x\"}", NULL, &t, &err), 0);
	assert_true(t == INT64_C(1697215509) * ST_NS_PER_SEC);
	/* the fraction is kept */
	assert_int_equal(parse("{\"time\": \"2023-10-13T16:45:09.123456789Z\"}",
			       NULL, &t, &err), 0);
	assert_true(t == INT64_C(1697215509123456789));
	/* the doubled offset */
	assert_int_equal(parse("{\"time\": \"2023-10-13T16:45:09+00:00+00:00\"}",
			       NULL, &t, &err), 0);
	assert_true(t == INT64_C(1697215509) * ST_NS_PER_SEC);
	/* naive: in the zone given; 01:30 at the DST end is the first one */
	la = st_tz_load("America/Los_Angeles", &err);
	assert_non_null(la);
	assert_int_equal(parse("{\"time\": \"2023-11-05T01:30:00\"}", la, &t, &err), 0);
	assert_true(t == INT64_C(1699173000) * ST_NS_PER_SEC);
	st_tz_free(la);

	struct { const char *json, *says; } bad[] = {
		{ "", "empty file" },
		{ "{\"time\": \"2023-10-13T16:4", "not valid JSON" },
		{ "[1, 2]", "not a JSON object" },
		{ "{\"last_scan_number\": 1}", "no 'time'" },
		{ "{\"time\": 1697215509}", "'time' is not a string" },
		{ "{\"time\": null}", "'time' is not a string" },
		{ "{\"time\": \"yesterday\"}", "cannot parse 'time'" },
		{ "{\"time\": \"2023-02-30T00:00:00Z\"}", "cannot parse 'time'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st_error_clear(&err);
		assert_int_equal(parse(bad[i].json, NULL, &t, &err), -1);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		if (!strstr(err.text, bad[i].says))
			fail_msg("%s: '%s' lacks '%s'", bad[i].json, err.text,
				 bad[i].says);
	}
}

/* A scratch acquisition directory. */
static char dir[] = "/tmp/st-receivers-XXXXXX";

static void put(const char *name, const char *text, int64_t mtime_s)
{
	char *p = st_path_join(dir, name);
	FILE *f = fopen(p, "w");
	struct timespec ts[2];

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	if (mtime_s) {
		ts[0].tv_sec = ts[1].tv_sec = mtime_s;
		ts[0].tv_nsec = ts[1].tv_nsec = 500;
		assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	}
	free(p);
}

static void scan(int64_t n, int receivers, int datafiles, int64_t mtime_s)
{
	char name[128];

	for (int r = 0; r < receivers; r++) {
		snprintf(name, sizeof(name), "4dstem_rec_status_%d_scan_%lld.json",
			 r, (long long)n);
		put(name, "{\"time\": \"2023-10-13T16:45:09Z\"}", 1600000000);
	}
	for (int f = 0; f < datafiles; f++) {
		snprintf(name, sizeof(name),
			 "data_scan%010lld_module0to3_dst0_file%d.data",
			 (long long)n, f);
		put(name, "", mtime_s + f);
	}
}

static void count_warning(void *ctx, const char *msg)
{
	(void)msg;
	(*(int *)ctx)++;
}

static void test_collect_rule(void **state)
{
	const int64_t now = 1700000000;
	int64_t skip[] = { 3 };
	int warnings = 0;
	st_log log = { .warn = count_warning, .ctx = &warnings };
	st_receivers_opts o = {
		.receivers = 4, .data = true, .settle = 30 * ST_NS_PER_SEC,
		.since = 2, .now = now * ST_NS_PER_SEC, .skip = skip, .nskip = 1,
	};
	st_receivers_result res;
	st_error err;

	(void)state;
	scan(1, 4, 2, now - 100);       /* below --since */
	scan(2, 4, 3, now - 100);       /* complete */
	scan(3, 4, 2, now - 100);       /* already written */
	scan(4, 3, 2, now - 100);       /* a receiver missing */
	scan(5, 4, 0, 0);               /* no data yet */
	scan(6, 4, 2, now - 30);        /* last file 29 s old: still settling */
	scan(7, 4, 2, now - 100);       /* a bad status file */
	put("4dstem_rec_status_2_scan_7.json", "{}", 1600000000);
	scan(8, 4, 1, now - 31);        /* 31 s old: settled */
	assert_int_equal(st_receivers_collect(dir, &o, &res, &log, &err), 0);
	assert_int_equal(res.nrows, 2);
	assert_int_equal(res.scans[0], 2);
	assert_int_equal(res.scans[1], 8);
	/* time_last_written: the newest of the three files, nanoseconds kept */
	assert_true(res.times[4] == (now - 98) * ST_NS_PER_SEC + 500);
	assert_true(res.times[0] == INT64_C(1697215509) * ST_NS_PER_SEC);
	assert_int_equal(res.pending, 3);
	assert_int_equal(res.bad, 1);
	assert_int_equal(warnings, 1);
	st_receivers_result_release(&res);

	/* without data: scan 5 is complete, 4 still is not */
	o.data = false;
	o.nskip = 0;
	assert_int_equal(st_receivers_collect(dir, &o, &res, NULL, &err), 0);
	assert_int_equal(res.nrows, 5);
	assert_int_equal(res.scans[0], 2);
	assert_int_equal(res.scans[2], 5);
	st_receivers_result_release(&res);

	/* fewer receivers: scan 4 is complete, and 7's bad file is receiver 2 */
	o.receivers = 2;
	assert_int_equal(st_receivers_collect(dir, &o, &res, NULL, &err), 0);
	assert_int_equal(res.nrows, 7);
	st_receivers_result_release(&res);

	/* a missing directory */
	assert_int_equal(st_receivers_collect("/nonexistent/acq", &o, &res, NULL,
					      &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	assert_non_null(strstr(err.text, "/nonexistent/acq"));
}

struct warnings {
	int n;
	char all[2048];
};

static void keep_warnings(void *ctx, const char *msg)
{
	struct warnings *w = ctx;
	size_t at = strlen(w->all);

	w->n++;
	snprintf(w->all + at, sizeof(w->all) - at, "%s\n", msg);
}

/* Issue 13: data-file and status-file mtimes after 2262 overflowed
 * `sec * 1e9` (time_last_written became 1715).  The scan is bad, with a
 * warning naming the file. */
static void test_receivers_mtime_after_2262_overflow(void **state)
{
	const int64_t now = 1700000000, y2300 = INT64_C(10413792000);
	struct warnings w = { 0 };
	st_log log = { .warn = keep_warnings, .ctx = &w };
	st_receivers_opts o = {
		.receivers = 1, .data = true, .settle = 30 * ST_NS_PER_SEC,
		.since = 100, .now = now * ST_NS_PER_SEC,
	};
	st_receivers_result res;
	st_error err;

	(void)state;
	scan(101, 1, 1, now - 100);     /* fine */
	scan(102, 1, 2, y2300);         /* data files in 2300 */
	scan(103, 1, 1, now - 100);
	put("4dstem_rec_status_0_scan_103.json",
	    "{\"time\": \"2023-10-13T16:45:09Z\"}", y2300);
	assert_int_equal(st_receivers_collect(dir, &o, &res, &log, &err), 0);
	assert_int_equal(res.nrows, 1);
	assert_int_equal(res.scans[0], 101);
	assert_true(res.times[1] == (now - 100) * ST_NS_PER_SEC + 500);
	assert_int_equal(res.bad, 2);
	assert_int_equal(w.n, 2);
	assert_non_null(strstr(w.all, "data_scan0000000102_module0to3_dst0_file"));
	assert_non_null(strstr(w.all, "4dstem_rec_status_0_scan_103.json: mtime"));
	assert_non_null(strstr(w.all, "outside the years"));
	st_receivers_result_release(&res);
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
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_data_names),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_collect_rule),
		cmocka_unit_test(test_receivers_mtime_after_2262_overflow),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
