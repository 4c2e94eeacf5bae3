/* Unit tests: session files (session.h), the save-time statistics
 * (savetimes.h), the provenance's SHA-256 and the ratio of medians.
 * Expected values are worked out by hand in the comments. */
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
#include "streamtime/provenance.h"
#include "streamtime/savetimes.h"
#include "streamtime/session.h"

#define TMPDIR_NAME "session"
#include "tmpdir.h"

static char *in_dir(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static const char *put(const char *name, const char *text)
{
	const char *p = in_dir(name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* ---- the save-time map and statistics ---------------------------------- */

static void test_paper_rules_cycle(void **state)
{
	size_t n;
	const st_save_rule *r = st_save_rules_paper(&n);
	int64_t size;
	bool blank;

	(void)state;
	/* 14 is 128, 15 is 256, 17 is 1024, 18 is 128 again, 29 is 1024 */
	assert_int_equal(st_save_rule_find(r, n, 14, &size, &blank), 0);
	assert_int_equal(size, 128);
	assert_false(blank);
	assert_int_equal(st_save_rule_find(r, n, 15, &size, &blank), 0);
	assert_int_equal(size, 256);
	assert_int_equal(st_save_rule_find(r, n, 18, &size, &blank), 0);
	assert_int_equal(size, 128);
	assert_int_equal(st_save_rule_find(r, n, 29, &size, &blank), 0);
	assert_int_equal(size, 1024);
	/* 93..96 Blank at 128, 256, 512, 1024 */
	assert_int_equal(st_save_rule_find(r, n, 95, &size, &blank), 0);
	assert_int_equal(size, 512);
	assert_true(blank);
	assert_int_equal(st_save_rule_find(r, n, 13, &size, &blank), -1);
	assert_int_equal(st_save_rule_find(r, n, 30, &size, &blank), -1);
	assert_int_equal(st_save_rule_find(r, n, 97, &size, &blank), -1);
}

static char *stats_of(const char *json, const st_save_rule *rules, size_t n,
		      int *rc, st_save_stats_info *info, st_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	*rc = st_save_stats_write(put("st.json", json), rules, n, m, info, err);
	fclose(m);
	return buf;
}

static void test_save_stats_by_hand(void **state)
{
	/* Real 128: save 1, 2, 3 over scans 1 and 3 (mean 2, std 1);
	 * Blank 128: one record (std empty); scan 9 in no rule */
	static const st_save_rule rules[] = {
		{ { 1, 4 }, false, { 128, 256 }, 2 },
		{ { 5, 5 }, true, { 128 }, 1 },
	};
	st_save_stats_info info;
	st_error err;
	int rc;
	char *out = stats_of(
		"{\"00001\": [{\"total_time\": 10, \"count_time\": 4, "
		"\"save_time\": 1}, {\"total_time\": 20, \"count_time\": 5, "
		"\"save_time\": 2}],"
		" \"00003\": [{\"total_time\": 30, \"count_time\": 6, "
		"\"save_time\": 3, \"image\": \"x\"}],"
		" \"00002\": [{\"total_time\": 7, \"count_time\": 7, "
		"\"save_time\": 7}],"
		" \"5\": [{\"total_time\": 1.5, \"count_time\": 1, "
		"\"save_time\": 0.25}],"
		" \"9\": [{\"total_time\": 1, \"count_time\": 1, "
		"\"save_time\": 1}]}", rules, 2, &rc, &info, &err);

	(void)state;
	assert_int_equal(rc, 0);
	assert_int_equal(info.records, 5);
	assert_int_equal(info.groups, 3);
	assert_int_equal(info.unmapped, 1);
	assert_int_equal(info.first_unmapped, 9);
	/* sizes ascending, Real before Blank, mean before std; 256 Real is
	 * scan 2 alone; numbers as pandas writes them (20.0) */
	assert_string_equal(out,
		"Size,Type,Stat,total_time,count_time,save_time\n"
		"128,Real,mean,20.0,5.0,2.0\n"
		"128,Real,std,10.0,1.0,1.0\n"
		"128,Blank,mean,1.5,1.0,0.25\n"
		"128,Blank,std,,,\n"
		"256,Real,mean,7.0,7.0,7.0\n"
		"256,Real,std,,,\n");
	free(out);
}

static void test_save_stats_bad(void **state)
{
	size_t n;
	const st_save_rule *r = st_save_rules_paper(&n);
	st_error err;
	int rc;
	char *out;

	(void)state;
	out = stats_of("{\"00014\": [{\"total_time\": 1, \"count_time\": 1}]}",
		       r, n, &rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "\"00014\"[0]: 'save_time' is missing"));
	free(out);
	out = stats_of("{\"00014\": [{\"total_time\": 1, \"count_time\": 1, "
		       "\"save_time\": \"2\"}]}", r, n, &rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.text, "'save_time' is not a finite number"));
	free(out);
	out = stats_of("{\"14a\": []}", r, n, &rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.text, "key \"14a\" is not a scan number"));
	free(out);
	out = stats_of("{\"00014\": [\n{]}", r, n, &rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "st.json:2:"));
	free(out);
	/* nothing in the map: an error, not an empty table */
	out = stats_of("{\"00001\": [{\"total_time\": 1, \"count_time\": 1, "
		       "\"save_time\": 1}]}", r, n, &rc, NULL, &err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.text, "no record of a scan the save-time "
				      "map holds"));
	free(out);
	assert_int_equal(st_save_stats_write(in_dir("none.json"), r, n, stdout,
					     NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
}

/* ---- session files ------------------------------------------------------ */

static void test_session_inputs_relative(void **state)
{
	st_session s;
	st_error err;
	const char *path;
	st_session_input *in;
	size_t n;

	(void)state;
	mkdir(in_dir("sub"), 0777);
	path = put("sub/s.json",
		"{\"version\": 1, \"synthetic\": true,"
		" \"names\": {\"compute_site\": \"OLCF\"},"
		" \"experiments\": [{\"size\": 64, \"offload\": [1, 2],"
		"   \"streaming\": [3, 4]},"
		"  {\"size\": 32, \"offload\": [5, 6], \"streaming\": [7, 8],"
		"   \"h5\": \"/abs/h.csv\"}],"
		" \"save_time_map\": [{\"scans\": [1, 4], \"type\": \"Blank\","
		"   \"sizes\": [64]}],"
		" \"inputs\": {\"write_times\": \"w.csv\", \"created_times\":"
		"   \"c.csv\", \"scan_times\": \"h/s.csv\", \"slurm_jobs\": \"j.csv\","
		"   \"distiller\": \"db\", \"save_times\": \"st.json\","
		"   \"clock\": {\"offsets\": \"o.csv\", \"receiver_hosts\":"
		"     [\"a\", \"b\"], \"nersc_host\": \"n\"}}}");
	assert_int_equal(st_session_load(&s, path, &err), 0);
	assert_true(s.synthetic);
	assert_false(s.paper_layout);
	assert_string_equal(s.instrument, "4D Camera");
	assert_string_equal(s.compute_site, "OLCF");
	assert_string_equal(s.write_times, in_dir("sub/w.csv"));
	assert_string_equal(s.h5[0], in_dir("sub/h/s.csv"));
	assert_string_equal(s.h5[1], "/abs/h.csv");
	assert_string_equal(s.receiver_hosts, "a,b");
	assert_string_equal(s.nersc_host, "n");
	assert_null(s.data_host);
	assert_null(s.save_stats);
	assert_int_equal(s.nsave_rules, 1);
	assert_true(s.save_rules[0].blank);
	in = st_session_inputs(&s, &n);
	assert_non_null(in);
	/* session, slurm, distiller, write, created, 2 H5, save, clock */
	assert_int_equal(n, 9);
	assert_string_equal(in[0].key, "session");
	assert_string_equal(in[5].key, "inputs.scan_times");
	assert_string_equal(in[6].key, "experiments[1].h5");
	assert_string_equal(in[8].key, "inputs.clock.offsets");
	free(in);
	/* nothing there: the first input the chain needs, by key */
	assert_int_equal(st_session_check(&s, &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	assert_non_null(strstr(err.text, "inputs.slurm_jobs: cannot open"));
	st_session_release(&s);
}

static void test_session_bad(void **state)
{
	static const struct {
		const char *json, *says;
	} cases[] = {
		{ "{\"version\": 2, \"experiments\": []}", "version must be 1" },
		{ "{\"sinthetic\": true}", "unknown key 'sinthetic'" },
		{ "{\"synthetic\": 1, \"experiments\": [{\"size\": 1, "
		  "\"offload\": [1, 1], \"streaming\": [1, 1], \"h5\": \"h\"}]}",
		  "synthetic must be true or false" },
		{ "{\"names\": {\"site\": \"x\"}}", "unknown key 'site' in names" },
		{ "{\"save_time_map\": [{\"scans\": [2, 1], \"type\": \"Real\","
		  " \"sizes\": [1]}]}", "save_time_map[0].scans must be" },
		{ "{\"save_time_map\": [{\"scans\": [1, 2], \"type\": \"real\","
		  " \"sizes\": [1]}]}", "save_time_map[0].type must be" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"clock\": "
		  "{\"receiver_hosts\": [\"a\"]}}}", "needs \"offsets\"" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"clock\": "
		  "{\"offsets\": \"o\", \"receiver_hosts\": [\"a,b\"]}}}",
		  "without commas" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"save_times\": \"a\", "
		  "\"save_time_stats\": \"b\"}}", "not both" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"write_times\": 3}}",
		  "inputs.write_times must be a path" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {}}",
		  "has no \"h5\" and there is no inputs.scan_times" },
		{ "{\"a\": 1, \"a\": 2}", "duplicate" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"distiller\": "
		  "{\"postgresql\": {\"service\": \"x password=pw\"}}}}",
		  "service must be a pg_service.conf name" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"slurm_jobs\": "
		  "{\"slurmrestd\": {\"url\": \"http://u:pw@h:1\"}}}}",
		  "slurmrestd.url holds a password" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"slurm_jobs\": "
		  "{\"sacct\": {\"since\": 5}}}}",
		  "inputs.slurm_jobs.sacct.since must be" },
		{ "{\"experiments\": [{\"size\": 1, \"offload\": [1, 1], "
		  "\"streaming\": [1, 1]}], \"inputs\": {\"distiller\": "
		  "{\"postgresql\": {\"dsn\": \"host=h password=pw\"}}}}",
		  "unknown key 'dsn' in inputs.distiller.postgresql" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_session s;
		st_error err;
		const char *path = put("bad.json", cases[i].json);

		assert_int_equal(st_session_load(&s, path, &err), -1);
		assert_int_equal(err.code, ST_EXIT_CONFIG);
		/* a password is never echoed */
		assert_null(strstr(err.text, "pw"));
		if (!strstr(err.text, cases[i].says))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.text,
				 cases[i].says);
	}
}

static void test_paper_layout(void **state)
{
	st_session s;
	st_error err;

	(void)state;
	mkdir(in_dir("paper"), 0777);
	mkdir(in_dir("paper/file_transfer"), 0777);
	put("paper/file_transfer/save_time_stats.csv", "Size\n");
	/* no experiments.json: the paper's experiments and names */
	assert_int_equal(st_session_for_data(&s, in_dir("paper"), NULL, &err), 0);
	assert_true(s.paper_layout);
	assert_false(s.synthetic);
	assert_null(s.file);
	assert_int_equal(s.ex.n, 4);
	assert_string_equal(s.acquisition_site, "NCEM");
	assert_string_equal(s.save_stats,
			    in_dir("paper/file_transfer/save_time_stats.csv"));
	assert_null(s.save_times);
	assert_string_equal(s.h5[3],
			    in_dir("paper/streaming/scan_times_4653_4698.csv"));
	st_session_release(&s);
	/* without the statistics, the records */
	unlink(in_dir("paper/file_transfer/save_time_stats.csv"));
	put("paper/experiments.json", "{\"synthetic\": true, \"experiments\": "
	    "[{\"size\": 8, \"offload\": [1, 2], \"streaming\": [3, 4], "
	    "\"h5\": \"h8.csv\"}]}");
	assert_int_equal(st_session_for_data(&s, in_dir("paper"), NULL, &err), 0);
	assert_true(s.synthetic);
	assert_null(s.save_stats);
	assert_string_equal(s.save_times,
			    in_dir("paper/file_transfer/save_times.json"));
	assert_string_equal(s.h5[0], in_dir("paper/streaming/h8.csv"));
	st_session_release(&s);
}

/* ---- provenance and the headline ---------------------------------------- */

static void test_sha256(void **state)
{
	char hex[65];
	uint64_t size;
	st_error err;

	(void)state;
	/* FIPS 180-2's example: "abc" */
	assert_int_equal(st_sha256_file(put("abc", "abc"), hex, &size, &err), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
			    "b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(size, 3);
	assert_int_equal(st_sha256_file(put("empty", ""), hex, &size, &err), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb924"
			    "27ae41e4649b934ca495991b7852b855");
	assert_int_equal(st_sha256_file(in_dir("missing"), hex, &size, &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
}

static void test_median_ratio(void **state)
{
	double ft[7] = { 10, 20, 30, 40, 50, 60, 70 };
	double st[7] = { 1, 2, 3, 4, 5, 6, 7 };
	st_robust a, b;
	st_median_ratio_t m;

	(void)state;
	/* n = 7: P(B <= 0) = 1/128 <= 2.5 %, P(B <= 1) = 8/128 > 2.5 %: the
	 * 97.5 % intervals are [X(1), X(7)] with coverage 1 - 2/128 */
	assert_int_equal(st_stats_robust(ft, 7, &a), 0);
	assert_int_equal(st_stats_robust(st, 7, &b), 0);
	st_median_ratio(&a, &b, &m);
	assert_true(fabs(m.ratio - 10.0) < 1e-12);
	assert_true(fabs(m.lo - 10.0 / 7.0) < 1e-12);
	assert_true(fabs(m.hi - 70.0) < 1e-12);
	assert_true(fabs(m.level - (1.0 - 4.0 / 128.0)) < 1e-12);
	/* six values have no 97.5 % interval (2/64 > 2.5 %) */
	assert_int_equal(st_stats_robust(st, 6, &b), 0);
	st_median_ratio(&a, &b, &m);
	assert_true(isnan(m.lo) && isnan(m.hi) && isnan(m.level));
	assert_true(fabs(m.ratio - 40.0 / 3.5) < 1e-12);
	/* a streaming interval that reaches 0: no upper bound */
	st[0] = 0;
	assert_int_equal(st_stats_robust(st, 7, &b), 0);
	st_median_ratio(&a, &b, &m);
	assert_true(isnan(m.hi));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_rules_cycle),
		cmocka_unit_test(test_save_stats_by_hand),
		cmocka_unit_test(test_save_stats_bad),
		cmocka_unit_test(test_session_inputs_relative),
		cmocka_unit_test(test_session_bad),
		cmocka_unit_test(test_paper_layout),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_median_ratio),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
