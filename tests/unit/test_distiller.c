/* Unit tests: the Distiller row's CSV form and the PostgreSQL source's
 * refusals that need no server (the server tests are tests/db/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/distiller.h"

static const char *line(const st_distiller_row *r)
{
	static char buf[128];
	size_t n = st_distiller_row_format(r, buf, sizeof(buf));

	assert_int_equal(n, strlen(buf));
	return buf;
}

static void test_row_format(void **state)
{
	st_distiller_row r = {
		.job_id = 7, .scan_id = 1930, .has_slurm_id = true,
		.slurm_id = 58250603, .has_elapsed = true,
		.elapsed = 259 * ST_NS_PER_SEC,
	};

	(void)state;
	assert_string_equal(line(&r), "1930,58250603,00:04:19\n");
	r.has_slurm_id = false;
	assert_string_equal(line(&r), "1930,,00:04:19\n");
	r.has_elapsed = false;
	assert_string_equal(line(&r), "1930,,\n");
	r.has_slurm_id = true;
	assert_string_equal(line(&r), "1930,58250603,\n");
	r.has_elapsed = true;
	r.elapsed = 0;
	assert_string_equal(line(&r), "1930,58250603,00:00:00\n");
}

/* Past a day the hours keep counting; fractions only when there is one,
 * at microseconds (PostgreSQL's resolution). */
static void test_elapsed_forms(void **state)
{
	static const struct {
		st_duration d;
		const char *want;
	} cases[] = {
		{ 86399 * ST_NS_PER_SEC, "1,2,23:59:59\n" },
		{ 86400 * ST_NS_PER_SEC, "1,2,24:00:00\n" },
		{ 93784 * ST_NS_PER_SEC, "1,2,26:03:04\n" },
		{ 360000 * ST_NS_PER_SEC + 1000, "1,2,100:00:00.000001\n" },
		{ 1500000000, "1,2,00:00:01.500000\n" },
		{ -5 * ST_NS_PER_SEC, "1,2,-00:00:05\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_distiller_row r = {
			.scan_id = 1, .has_slurm_id = true, .slurm_id = 2,
			.has_elapsed = true, .elapsed = cases[i].d,
		};

		assert_string_equal(line(&r), cases[i].want);
	}
}

static void test_schema_names(void **state)
{
	(void)state;
	assert_string_equal(st_distiller_schema_name(ST_DISTILLER_SCHEMA_LEGACY),
			    "legacy");
	assert_string_equal(st_distiller_schema_name(ST_DISTILLER_SCHEMA_CURRENT),
			    "current");
	assert_string_equal(st_distiller_schema_name(ST_DISTILLER_SCHEMA_AUTO),
			    "auto");
}

static int never(void *ctx, const st_distiller_row *row, st_error *err)
{
	(void)ctx;
	(void)row;
	return st_error_set(err, 70, "the sink must not be called");
}

/* No size, or a DSN libpq cannot read: refused before connecting, and the
 * message quotes nothing of the DSN (it may hold a password). */
static void test_pg_refusals(void **state)
{
	static const int64_t sizes[] = { 128 };
	st_distiller_query q = { .sizes = sizes, .n_sizes = 0 };
	st_distiller_pg_opts o = { .dsn = "host=/nonexistent" };
	st_error err;

	(void)state;
	assert_int_equal(st_distiller_pg_fetch(&o, &q, never, NULL, NULL, NULL,
					       &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	q.n_sizes = 1;
	o.dsn = "host=x password hunter2-secret";
	assert_int_equal(st_distiller_pg_fetch(&o, &q, never, NULL, NULL, NULL,
					       &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_null(strstr(err.text, "hunter2"));
	o.dsn = "postgresql://u:hunter2-secret@[::1";
	assert_int_equal(st_distiller_pg_fetch(&o, &q, never, NULL, NULL, NULL,
					       &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_null(strstr(err.text, "hunter2"));
	/* a socket directory that does not exist: 69, the password masked */
	o.dsn = "host=/nonexistent/dir user=u password=hunter2-secret";
	assert_int_equal(st_distiller_pg_fetch(&o, &q, never, NULL, NULL, NULL,
					       &err), -1);
	assert_int_equal(err.code, ST_EXIT_UNAVAILABLE);
	assert_non_null(strstr(err.text, "/nonexistent/dir"));
	assert_null(strstr(err.text, "hunter2"));
}

/* st_distiller_jobs_run against an API that is not there: error 69, no
 * file, and the directory it made is gone again; one that was there
 * stays. */
static void test_distiller_jobs_run_unreachable(void **state)
{
	static const int64_t sizes[] = { 128, 256 };
	char dir[] = "/tmp/st_distiller_run_XXXXXX", sub[64], f[96];
	st_distiller_jobs_opts o = {
		.query = { .sizes = sizes, .n_sizes = 2 },
		.use_api = true,
		.api = { .url = "http://127.0.0.1:1", .timeout_s = 5 },
	};
	st_distiller_jobs_result res;
	st_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/out", dir);
	o.out_dir = sub;
	assert_int_equal(st_distiller_jobs_run(&o, &res, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_UNAVAILABLE);
	assert_false(res.fetched);
	assert_int_equal(res.committed, 0);
	free(res.rows);
	assert_int_equal(access(sub, F_OK), -1);
	o.out_dir = dir;
	assert_int_equal(st_distiller_jobs_run(&o, &res, NULL, &err), -1);
	free(res.rows);
	snprintf(f, sizeof(f), "%s/128_128.csv", dir);
	assert_int_equal(access(f, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_format),
		cmocka_unit_test(test_distiller_jobs_run_unreachable),
		cmocka_unit_test(test_elapsed_forms),
		cmocka_unit_test(test_schema_names),
		cmocka_unit_test(test_pg_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
