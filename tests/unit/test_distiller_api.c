/* Unit tests: the JSON of the Distiller REST API, a jobs page and a scan,
 * without HTTP (the fetch runs against a stand-in server in
 * tests/cli/distiller_rest_check.py). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "streamtime/distiller_api.h"

#define URL "http://d.example/api/v1/jobs?skip=0&limit=3"
#define US INT64_C(1000)
#define SEC ST_NS_PER_SEC

static int parse_jobs(const char *body, const char *type,
		      st_distiller_api_jobs *js, st_distiller_api_page *pg,
		      st_error *err)
{
	return st_distiller_api_parse_jobs(body, strlen(body), URL, type, js,
					   pg, err);
}

static void test_jobs(void **state)
{
	const char *body =
		"[{\"id\": 9, \"job_type\": \"count\", \"slurm_id\": 123,"
		"  \"elapsed\": 259.5, \"scan_ids\": [5, 3, 5], \"state\": \"X\"},"
		" {\"id\": 4, \"job_type\": \"count\", \"slurm_id\": null,"
		"  \"elapsed\": null, \"scan_ids\": []},"
		" {\"id\": 7, \"job_type\": \"count\", \"slurm_id\": 8,"
		"  \"elapsed\": 90061.0, \"scan_ids\": null},"
		" {\"id\": 8, \"job_type\": \"count\", \"slurm_id\": 9,"
		"  \"elapsed\": 60, \"scan_id\": 77},"
		" {\"id\": 10, \"job_type\": \"count\", \"slurm_id\": 10,"
		"  \"elapsed\": 0.1234567, \"scan_ids\": [1], \"scan_id\": 2}]";
	st_distiller_api_jobs js = { 0 };
	st_distiller_api_page pg;
	st_error err = { 0 };
	const st_distiller_api_job *j;

	(void)state;
	assert_int_equal(parse_jobs(body, NULL, &js, &pg, &err), 0);
	assert_int_equal(js.n, 5);
	assert_int_equal(pg.n_jobs, 5);
	assert_int_equal(pg.last_id, 10);

	j = &js.v[0];                   /* the page's order is kept */
	assert_int_equal(j->id, 9);
	assert_true(j->has_slurm_id);
	assert_int_equal(j->slurm_id, 123);
	assert_true(j->has_elapsed);
	assert_int_equal(j->elapsed, 259 * SEC + SEC / 2);
	/* sorted, the repeated 5 once */
	assert_int_equal(j->n_scan_ids, 2);
	assert_int_equal(j->scan_ids[0], 3);
	assert_int_equal(j->scan_ids[1], 5);

	j = &js.v[1];                   /* nulls */
	assert_false(j->has_slurm_id);
	assert_false(j->has_elapsed);
	assert_int_equal(j->n_scan_ids, 0);

	j = &js.v[2];                   /* over a day; scan_ids null: none */
	assert_int_equal(j->elapsed, INT64_C(90061) * SEC);
	assert_int_equal(j->n_scan_ids, 0);

	j = &js.v[3];                   /* an integer; the legacy scan_id */
	assert_int_equal(j->elapsed, 60 * SEC);
	assert_int_equal(j->n_scan_ids, 1);
	assert_int_equal(j->scan_ids[0], 77);

	/* rounded to the microsecond; scan_ids wins over scan_id */
	j = &js.v[4];
	assert_int_equal(j->elapsed, 123457 * US);
	assert_int_equal(j->n_scan_ids, 1);
	assert_int_equal(j->scan_ids[0], 1);
	st_distiller_api_jobs_release(&js);
	assert_null(js.v);
	assert_int_equal(js.n, 0);
}

static void test_jobs_edges(void **state)
{
	st_distiller_api_jobs js = { 0 };
	st_distiller_api_page pg = { .n_jobs = 9, .last_id = 9 };
	st_error err = { 0 };

	(void)state;
	/* an empty page */
	assert_int_equal(parse_jobs("[]", "count", &js, &pg, &err), 0);
	assert_int_equal(js.n, 0);
	assert_int_equal(pg.n_jobs, 0);
	assert_int_equal(pg.last_id, 0);
	/* zero and tiny durations, the largest accepted */
	assert_int_equal(parse_jobs(
		"[{\"id\": 1, \"job_type\": \"t\", \"slurm_id\": -1,"
		"  \"elapsed\": -0.0, \"scan_ids\": [-2]},"
		" {\"id\": 2, \"job_type\": \"t\", \"slurm_id\": 0,"
		"  \"elapsed\": 4e-7, \"scan_ids\": []},"
		" {\"id\": 3, \"job_type\": \"t\", \"slurm_id\": 0,"
		"  \"elapsed\": 9e9, \"scan_ids\": []},"
		" {\"id\": 4, \"job_type\": \"t\", \"slurm_id\": 0,"
		"  \"elapsed\": 1.0000004, \"scan_ids\": []}]",
		NULL, &js, NULL, &err), 0);
	assert_int_equal(js.n, 4);
	assert_int_equal(js.v[0].elapsed, 0);
	assert_int_equal(js.v[0].slurm_id, -1);
	assert_int_equal(js.v[0].scan_ids[0], -2);
	assert_int_equal(js.v[1].elapsed, 0);
	assert_true(js.v[1].has_elapsed);
	assert_int_equal(js.v[2].elapsed, INT64_C(9000000000) * SEC);
	assert_int_equal(js.v[3].elapsed, SEC);
	st_distiller_api_jobs_release(&js);
	st_distiller_api_jobs_release(NULL);
}

/* The job_type filter keeps the page's count and last id whole. */
static void test_jobs_type(void **state)
{
	const char *body =
		"[{\"id\": 1, \"job_type\": \"count\", \"slurm_id\": 1,"
		"  \"elapsed\": 1, \"scan_ids\": [1]},"
		" {\"id\": 2, \"job_type\": \"transfer\", \"slurm_id\": 2,"
		"  \"elapsed\": 2, \"scan_ids\": [1]},"
		" {\"id\": 3, \"job_type\": \"counting\", \"slurm_id\": 3,"
		"  \"elapsed\": 3, \"scan_ids\": [1]}]";
	st_distiller_api_jobs js = { 0 };
	st_distiller_api_page pg;
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse_jobs(body, "count", &js, &pg, &err), 0);
	assert_int_equal(js.n, 1);
	assert_int_equal(js.v[0].id, 1);
	assert_int_equal(pg.n_jobs, 3);
	assert_int_equal(pg.last_id, 3);
	/* appended after what OUT held */
	assert_int_equal(parse_jobs(body, "transfer", &js, &pg, &err), 0);
	assert_int_equal(js.n, 2);
	assert_int_equal(js.v[1].id, 2);
	assert_int_equal(parse_jobs(body, "streaming", &js, &pg, &err), 0);
	assert_int_equal(js.n, 2);
	st_distiller_api_jobs_release(&js);
}

/* issue 13: a job whose elapsed is negative was written as it came; now
 * the page fails naming the job, and nothing of it is kept. */
static void test_negative_elapsed_refused(void **state)
{
	st_distiller_api_jobs js = { 0 };
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse_jobs(
		"[{\"id\": 8, \"job_type\": \"count\", \"slurm_id\": 1,"
		"  \"elapsed\": 3, \"scan_ids\": [1]},"
		" {\"id\": 7, \"job_type\": \"count\", \"slurm_id\": 2,"
		"  \"elapsed\": -29.5, \"scan_ids\": [1]}]",
		NULL, &js, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "job 7: 'elapsed' is negative"));
	assert_int_equal(js.n, 0);
	st_distiller_api_jobs_release(&js);
}

/* X-Total-Count: digits only (it was strtoll: "+5", " 5" and 19-digit
 * values went through). */
static void test_total_count_parse(void **state)
{
	static const struct {
		const char *s;
		int ok;
		int64_t v;
	} cases[] = {
		{ "0", 1, 0 }, { "7", 1, 7 }, { "1000000", 1, 1000000 },
		{ "007", 1, 7 }, { "999999999999999999", 1, INT64_C(999999999999999999) },
		{ "", 0, 0 }, { "+5", 0, 0 }, { "-1", 0, 0 }, { " 5", 0, 0 },
		{ "5 ", 0, 0 }, { "5x", 0, 0 }, { "0x10", 0, 0 }, { "1e3", 0, 0 },
		{ "1000000000000000000", 0, 0 }, { "9223372036854775808", 0, 0 },
	};
	int64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = -1;
		assert_int_equal(st_distiller_api_parse_total(
			cases[i].s, strlen(cases[i].s), &v), cases[i].ok ? 0 : -1);
		if (cases[i].ok)
			assert_int_equal(v, cases[i].v);
	}
	assert_int_equal(st_distiller_api_parse_total("12\0003", 4, &v), -1);
}

static void test_jobs_errors(void **state)
{
	static const struct {
		const char *job;        /* after {"id": 5, ... or whole */
		const char *says;
	} cases[] = {
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1,"
		  "\"scan_ids\":[]}", NULL },   /* the good one */
		{ "\"slurm_id\":1,\"elapsed\":1,\"scan_ids\":[]}",
		  "job 5: 'job_type' is missing" },
		{ "\"job_type\":3,\"slurm_id\":1,\"elapsed\":1,\"scan_ids\":[]}",
		  "job 5: 'job_type' is not a string" },
		{ "\"job_type\":\"count\",\"elapsed\":1,\"scan_ids\":[]}",
		  "job 5: 'slurm_id' is missing" },
		{ "\"job_type\":\"count\",\"slurm_id\":\"12\",\"elapsed\":1,"
		  "\"scan_ids\":[]}", "job 5: 'slurm_id' is not an integer" },
		{ "\"job_type\":\"count\",\"slurm_id\":1.5,\"elapsed\":1,"
		  "\"scan_ids\":[]}", "job 5: 'slurm_id' is not an integer" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"scan_ids\":[]}",
		  "job 5: 'elapsed' is missing" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":\"259.5\","
		  "\"scan_ids\":[]}", "job 5: 'elapsed' is not a number" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":true,"
		  "\"scan_ids\":[]}", "job 5: 'elapsed' is not a number" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1e10,"
		  "\"scan_ids\":[]}", "job 5: 'elapsed' is out of range" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":-1e10,"
		  "\"scan_ids\":[]}", "job 5: 'elapsed' is out of range" },
		/* issue 13: a negative elapsed from the API was kept */
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":-1.5,"
		  "\"scan_ids\":[]}", "job 5: 'elapsed' is negative" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":-1e-7,"
		  "\"scan_ids\":[]}", "job 5: 'elapsed' is negative" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1}",
		  "job 5: 'scan_ids' is missing" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1,"
		  "\"scan_ids\":\"1\"}", "job 5: 'scan_ids' is not an array" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1,"
		  "\"scan_ids\":[1,\"2\"]}",
		  "job 5: 'scan_ids' holds a non-integer" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1,"
		  "\"scan_ids\":[1.0]}", "job 5: 'scan_ids' holds a non-integer" },
		{ "\"job_type\":\"count\",\"slurm_id\":1,\"elapsed\":1,"
		  "\"scan_id\":\"4\"}", "job 5: 'scan_id' is not an integer" },
	};
	st_distiller_api_jobs js = { 0 };
	st_error err = { 0 };
	char body[512];

	(void)state;
	/* a job kept before: a failed page leaves OUT as it was */
	assert_int_equal(parse_jobs("[{\"id\":1,\"job_type\":\"count\","
				    "\"slurm_id\":null,\"elapsed\":null,"
				    "\"scan_ids\":[1,2]}]", NULL, &js, NULL,
				    &err), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* the bad job comes second, after a good one */
		snprintf(body, sizeof(body), "[{\"id\":4,\"job_type\":\"count\","
			 "\"slurm_id\":1,\"elapsed\":1,\"scan_ids\":[3]},"
			 "{\"id\":5,%s]", cases[i].job);
		if (!cases[i].says) {
			st_distiller_api_jobs ok = { 0 };

			assert_int_equal(parse_jobs(body, NULL, &ok, NULL, &err),
					 0);
			assert_int_equal(ok.n, 2);
			st_distiller_api_jobs_release(&ok);
			continue;
		}
		err.code = 0;
		assert_int_equal(parse_jobs(body, NULL, &js, NULL, &err), -1);
		if (!strstr(err.text, cases[i].says))
			print_error("case %zu: %s\n", i, err.text);
		assert_int_equal(err.code, 65);
		assert_non_null(strstr(err.text, cases[i].says));
		assert_non_null(strstr(err.text, URL));
		assert_int_equal(js.n, 1);
		assert_int_equal(js.v[0].n_scan_ids, 2);
	}

	/* before the id is known the index names the job */
	assert_int_equal(parse_jobs("[{\"job_type\":\"count\"}]", NULL, &js,
				    NULL, &err), -1);
	assert_non_null(strstr(err.text, "jobs[0]: 'id' is missing"));
	assert_int_equal(parse_jobs("[{\"id\":1}, {\"id\":\"2\"}]", NULL, &js,
				    NULL, &err), -1);
	assert_non_null(strstr(err.text, "job 1: 'job_type' is missing"));
	assert_int_equal(parse_jobs("[{\"id\":1,\"job_type\":\"c\",\"slurm_id\":"
				    "1,\"elapsed\":1,\"scan_ids\":[]}, "
				    "{\"id\":\"2\"}]", NULL, &js, NULL, &err),
			 -1);
	assert_non_null(strstr(err.text, "jobs[1]: 'id' is not an integer"));
	assert_int_equal(parse_jobs("[1]", NULL, &js, NULL, &err), -1);
	assert_non_null(strstr(err.text, "jobs[0] is not an object"));
	/* the whole body */
	assert_int_equal(parse_jobs("{\"detail\":\"x\"}", NULL, &js, NULL,
				    &err), -1);
	assert_int_equal(err.code, 65);
	assert_non_null(strstr(err.text, "is not a JSON array of jobs"));
	assert_int_equal(parse_jobs("[{\"id\":1,", NULL, &js, NULL, &err), -1);
	assert_int_equal(err.code, 65);
	assert_non_null(strstr(err.text, "cannot parse the Distiller API "
			       "response of " URL));
	assert_int_equal(st_distiller_api_parse_jobs("", 0, URL, NULL, &js,
						     NULL, &err), -1);
	assert_int_equal(err.code, 65);
	assert_int_equal(js.n, 1);
	st_distiller_api_jobs_release(&js);
}

static int parse_scan(const char *body, st_distiller_api_scan *sc,
		      st_error *err)
{
	return st_distiller_api_parse_scan(body, strlen(body),
					   "http://d.example/api/v1/scans/4",
					   sc, err);
}

/* A scan's size under METADATA (a JSON object text). */
static int64_t size_of(const char *metadata)
{
	char body[512];
	st_distiller_api_scan sc = { .size = -1 };
	st_error err = { 0 };

	snprintf(body, sizeof(body), "{\"id\": 4, \"scan_id\": 88, "
		 "\"created\": \"2022-08-26T16:00:07+00:00\", "
		 "\"metadata\": %s}", metadata);
	assert_int_equal(parse_scan(body, &sc, &err), 0);
	assert_int_equal(sc.id, 4);
	return sc.size;
}

static void test_scan_size(void **state)
{
	(void)state;
	/* both spellings */
	assert_int_equal(size_of("{\"Dimensions 1\": 128, \"Dimensions 2\": 128,"
				 " \"Other\": [1]}"), 128);
	assert_int_equal(size_of("{\"Dimensions.1\": 256, \"Dimensions.2\": 256}"),
			 256);
	/* per dimension: one spaced, one dotted */
	assert_int_equal(size_of("{\"Dimensions 1\": 512, \"Dimensions.2\": 512}"),
			 512);
	/* the spaced key wins when both are there, even when not a number */
	assert_int_equal(size_of("{\"Dimensions 1\": 256, \"Dimensions.1\": 128,"
				 " \"Dimensions 2\": 256, \"Dimensions.2\": 128}"),
			 256);
	assert_int_equal(size_of("{\"Dimensions 1\": null, \"Dimensions.1\": 128,"
				 " \"Dimensions.2\": 128}"), 0);
	/* reals with an integer value count */
	assert_int_equal(size_of("{\"Dimensions 1\": 1024.0, \"Dimensions 2\": "
				 "1024}"), 1024);
	assert_int_equal(size_of("{\"Dimensions 1\": 1.024e3, \"Dimensions 2\": "
				 "1024.0}"), 1024);
	/* no size */
	assert_int_equal(size_of("{\"Dimensions 1\": 1024.5, \"Dimensions 2\": "
				 "1024.5}"), 0);
	assert_int_equal(size_of("{\"Dimensions 1\": 128, \"Dimensions 2\": 256}"),
			 0);
	assert_int_equal(size_of("{\"Dimensions 1\": \"128\", \"Dimensions 2\": "
				 "\"128\"}"), 0);
	assert_int_equal(size_of("{\"Dimensions 1\": 128}"), 0);
	assert_int_equal(size_of("{\"Dimensions 1\": [128], \"Dimensions 2\": "
				 "[128]}"), 0);
	assert_int_equal(size_of("{\"Dimensions 1\": true, \"Dimensions 2\": "
				 "true}"), 0);
	assert_int_equal(size_of("{\"Dimensions 1\": 0, \"Dimensions 2\": 0}"), 0);
	assert_int_equal(size_of("{\"Dimensions 1\": -4, \"Dimensions 2\": -4}"),
			 0);
	assert_int_equal(size_of("{\"Dimensions 1\": 1e300, \"Dimensions 2\": "
				 "1e300}"), 0);
	assert_int_equal(size_of("{\"dimensions 1\": 128, \"dimensions 2\": "
				 "128}"), 0);
	assert_int_equal(size_of("{}"), 0);
	assert_int_equal(size_of("null"), 0);
}

static void test_scan_errors(void **state)
{
	static const struct {
		const char *body, *says;
	} cases[] = {
		{ "[]", "is not a JSON object" },
		{ "{\"metadata\": {}}", "'id' is missing" },
		{ "{\"id\": \"4\", \"metadata\": {}}", "'id' is not an integer" },
		{ "{\"id\": 4.5, \"metadata\": {}}", "'id' is not an integer" },
		{ "{\"id\": -4, \"metadata\": {}}", "'id' is not an integer" },
		{ "{\"id\": 4}", "'metadata' is missing" },
		{ "{\"id\": 4, \"metadata\": {", "cannot parse the Distiller API "
		  "response of http://d.example/api/v1/scans/4" },
		{ "", "cannot parse" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_distiller_api_scan sc;
		st_error err = { 0 };

		assert_int_equal(parse_scan(cases[i].body, &sc, &err), -1);
		if (!strstr(err.text, cases[i].says))
			print_error("case %zu: %s\n", i, err.text);
		assert_int_equal(err.code, 65);
		assert_non_null(strstr(err.text, cases[i].says));
		assert_non_null(strstr(err.text, "scans/4"));
	}
}

/* Metadata that is no object has no size, as in the database; an integer
 * past 64 bits in it does not spoil the scan. */
static void test_scan_odd_metadata(void **state)
{
	static const char *const bodies[] = {
		"{\"id\": 4, \"metadata\": []}",
		"{\"id\": 4, \"metadata\": \"{}\"}",
		"{\"id\": 4, \"metadata\": 5}",
		"{\"id\": 4, \"metadata\": {\"x\": 18446744073709551615, "
		"\"Dimensions 1\": 1e300}}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		st_distiller_api_scan sc = { .size = -1 };
		st_error err = { 0 };

		assert_int_equal(parse_scan(bodies[i], &sc, &err), 0);
		assert_int_equal(sc.id, 4);
		assert_int_equal(sc.size, 0);
	}
	{
		st_distiller_api_scan sc;
		st_error err = { 0 };

		assert_int_equal(parse_scan("{\"id\": 4, \"metadata\": {\"x\": "
					    "18446744073709551615, \"Dimensions "
					    "1\": 256, \"Dimensions 2\": 256.0}}",
					    &sc, &err), 0);
		assert_int_equal(sc.size, 256);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_jobs_edges),
		cmocka_unit_test(test_jobs_type),
		cmocka_unit_test(test_scan_odd_metadata),
		cmocka_unit_test(test_jobs_errors),
		cmocka_unit_test(test_negative_elapsed_refused),
		cmocka_unit_test(test_total_count_parse),
		cmocka_unit_test(test_scan_size),
		cmocka_unit_test(test_scan_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
