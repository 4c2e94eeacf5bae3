/* Unit tests: experiments configuration (built-in paper table and JSON). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/session.h"

static char path[] = "/tmp/st-exp-XXXXXX";

static void write_json(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_default_is_the_papers_table(void **state)
{
	st_experiments ex;
	const st_experiment *e;

	(void)state;
	assert_int_equal(st_experiments_default(&ex, NULL), 0);
	assert_int_equal(ex.n, 4);
	/* SPEC 4.5 */
	e = st_experiments_find(&ex, 512);
	assert_non_null(e);
	assert_int_equal(e->offload.first, 4798);
	assert_int_equal(e->offload.last, 4827);
	assert_int_equal(e->streaming.first, 4227);
	assert_int_equal(e->streaming.last, 4644);
	assert_string_equal(e->h5, "scan_times_4227_4644.csv");
	assert_string_equal(ex.tz, "America/Los_Angeles");
	assert_string_equal(ex.slurm_tz, "UTC");
	assert_true(ex.max_elapsed == 29 * 60 * ST_NS_PER_SEC);
	assert_null(st_experiments_find(&ex, 2048));
	st_experiments_release(&ex);
}

static void test_load_full(void **state)
{
	st_experiments ex;
	st_error err;

	(void)state;
	write_json("{\"tz\": \"Europe/Berlin\", \"slurm_tz\": \"America/Denver\","
		   " \"max_elapsed\": \"1:00:00\", \"experiments\": ["
		   "{\"size\": 64, \"offload\": [1, 5], \"streaming\": [10, 20],"
		   " \"h5\": \"h.csv\", \"description\": \"small\"}]}");
	assert_int_equal(st_experiments_load(&ex, path, &err), 0);
	assert_int_equal(ex.n, 1);
	assert_int_equal(ex.v[0].size, 64);
	assert_int_equal(ex.v[0].offload.last, 5);
	assert_int_equal(ex.v[0].streaming.first, 10);
	assert_string_equal(ex.tz, "Europe/Berlin");
	assert_string_equal(ex.slurm_tz, "America/Denver");
	assert_true(ex.max_elapsed == 3600 * ST_NS_PER_SEC);
	st_experiments_release(&ex);
}

static void test_defaults_for_optional_keys(void **state)
{
	st_experiments ex;
	st_error err;

	(void)state;
	write_json("{\"experiments\": [{\"size\": 128, \"offload\": [1, 2],"
		   " \"streaming\": [3, 4], \"h5\": \"x.csv\"}]}");
	assert_int_equal(st_experiments_load(&ex, path, &err), 0);
	assert_string_equal(ex.tz, "America/Los_Angeles");
	assert_string_equal(ex.slurm_tz, "UTC");
	assert_true(ex.max_elapsed == 29 * 60 * ST_NS_PER_SEC);
	st_experiments_release(&ex);
}

/* Each bad config: exit 78 and a message naming the problem. */
static void expect_bad(const char *json, const char *needle)
{
	st_experiments ex;
	st_error err;

	write_json(json);
	assert_int_equal(st_experiments_load(&ex, path, &err), -1);
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	if (!strstr(err.text, needle))
		fail_msg("'%s' lacks '%s'", err.text, needle);
	assert_int_equal(ex.n, 0);
	assert_null(ex.v);
}

static void test_bad_configs(void **state)
{
	(void)state;
	expect_bad("{\"experiments\": [{\"size\": 128, \"streaming\": [3, 4],"
		   " \"h5\": \"x.csv\"}]}", "experiments[0] has no 'offload'");
	expect_bad("{\"experiments\": [{\"size\": 128, \"offload\": [5, 4],"
		   " \"streaming\": [3, 4], \"h5\": \"x.csv\"}]}",
		   "experiments[0].offload must be [first, last]");
	expect_bad("{\"experiments\": [{\"size\": 128, \"offload\": [1, 2, 3],"
		   " \"streaming\": [3, 4], \"h5\": \"x.csv\"}]}",
		   "experiments[0].offload");
	expect_bad("{\"experiments\": [{\"size\": \"128\", \"offload\": [1, 2],"
		   " \"streaming\": [3, 4], \"h5\": \"x.csv\"}]}",
		   "experiments[0].size must be a positive integer");
	expect_bad("{\"experiments\": [{\"size\": 128, \"offload\": [1, 2],"
		   " \"streaming\": [3, 4]}]}", "experiments[0].h5");
	expect_bad("{\"experiments\": [{\"size\": 128, \"offload\": [1, 2],"
		   " \"streaming\": [3, 4], \"h5\": \"a\"}, {\"size\": 128,"
		   " \"offload\": [1, 2], \"streaming\": [3, 4], \"h5\": \"b\"}]}",
		   "size 128 appears twice");
	expect_bad("{\"experiments\": []}", "non-empty array");
	expect_bad("{\"tz\": 7, \"experiments\": []}", "'tz' must be a string");
	expect_bad("{\"max_elapsed\": \"soon\", \"experiments\": []}",
		   "'max_elapsed' must be a duration");
	expect_bad("{\"experiment\": []}", "unknown key 'experiment'");
	expect_bad("[1, 2]", "expected a JSON object");
	expect_bad("{\"tz\": ", path);
}

/* Issue 13 item 12: max_elapsed "-29:00" was accepted; merge transfer then
 * kept no job and the table read "nan ± nan". */
static void test_negative_max_elapsed_is_78(void **state)
{
	(void)state;
	expect_bad("{\"max_elapsed\": \"-29:00\", \"experiments\": [{\"size\":"
		   " 128, \"offload\": [1, 2], \"streaming\": [3, 4], \"h5\":"
		   " \"x.csv\"}]}", "'max_elapsed' \"-29:00\" is negative");
	expect_bad("{\"max_elapsed\": \"-1 days +23:00:00\", \"experiments\":"
		   " [{\"size\": 128, \"offload\": [1, 2], \"streaming\": [3, 4],"
		   " \"h5\": \"x.csv\"}]}", "is negative");
}

static void test_missing_file_is_66(void **state)
{
	st_experiments ex;
	st_error err;

	(void)state;
	assert_int_equal(st_experiments_load(&ex, "/nonexistent/e.json", &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	assert_non_null(strstr(err.text, "/nonexistent/e.json"));
}

static int setup(void **state)
{
	int fd;

	(void)state;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* st_experiments_alloc: room for N zeroed experiments, none counted yet,
 * the two zones copied; a second fill replaces the first. */
static void test_alloc_zeroed_with_zones(void **state)
{
	char tz[] = "Europe/Berlin";
	st_experiments ex;

	(void)state;
	memset(&ex, 0xff, sizeof(ex));
	assert_int_equal(st_experiments_alloc(&ex, 3, tz, "UTC"), 0);
	tz[0] = 'X';
	assert_int_equal(ex.n, 0);
	assert_string_equal(ex.tz, "Europe/Berlin");
	assert_string_equal(ex.slurm_tz, "UTC");
	assert_int_equal(ex.max_elapsed, 0);
	for (size_t i = 0; i < 3; i++) {
		assert_null(ex.v[i].h5);
		assert_int_equal(ex.v[i].size, 0);
	}
	st_experiments_release(&ex);
	assert_null(ex.v);
}

static int teardown(void **state)
{
	(void)state;
	return unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_is_the_papers_table),
		cmocka_unit_test(test_load_full),
		cmocka_unit_test(test_defaults_for_optional_keys),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_negative_max_elapsed_is_78),
		cmocka_unit_test(test_missing_file_is_66),
		cmocka_unit_test(test_alloc_zeroed_with_zones),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
