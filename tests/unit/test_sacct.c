/* Unit tests: sacct live output, the filters, the output CSV. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/sacct.h"
#include "streamtime/slurm.h"
#include "streamtime/slurm_run.h"
#include "streamtime/tz.h"

#define D ST_SACCT_DELIM

static void test_live(void **state)
{
	static const char out[] =
		"11" D "00:30:00" D "00:10:40" D "2022-08-26T16:00:07" D
		"2022-08-26T16:00:15" D "2022-08-26T16:10:55" D "4" D "realtime_a"
		D "u" D "0:0" D "distiller-count-1\n"
		/* a name with '|', the usual delimiter, and one with newlines */
		"12_1" D "UNLIMITED" D "1-00:00:01" D "2022-08-26T16:00:07" D
		"Unknown" D "Unknown" D "4" D "realtime_a" D "u" D "0:0" D
		"a|b\n"
		"13+1" D "Partition_Limit" D "00:00:00" D "None" D "None" D "None"
		D "2" D "" D "u" D "0:15" D "line one\nline two\n\nline four\n";
	st_slurm_jobs js = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_sacct_parse_live(out, strlen(out), D, &js, &err), 0);
	assert_int_equal(js.n, 3);
	assert_string_equal(js.v[0].f[ST_SLURM_NAME], "distiller-count-1");
	assert_string_equal(js.v[0].f[ST_SLURM_ID], "11");
	assert_string_equal(js.v[0].f[ST_SLURM_ELAPSED], "00:10:40");
	assert_string_equal(js.v[0].f[ST_SLURM_EXITCODE], "0:0");
	assert_string_equal(js.v[1].f[ST_SLURM_NAME], "a|b");
	assert_string_equal(js.v[1].f[ST_SLURM_TIMELIMIT], "UNLIMITED");
	assert_string_equal(js.v[2].f[ST_SLURM_NAME],
			    "line one\nline two\n\nline four");
	assert_string_equal(js.v[2].f[ST_SLURM_QOS], "");
	st_slurm_jobs_release(&js);
	/* garbage before any job */
	assert_int_equal(st_sacct_parse_live("sacct: oops\n", 12, D, &js, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	st_slurm_jobs_release(&js);
	assert_int_equal(st_sacct_parse_live("", 0, D, &js, &err), 0);
	assert_int_equal(js.n, 0);
}

/* Parse the dump TEXT as "jobs.txt": expect error 65 naming LOC ("jobs.txt:3")
 * and the column COL. */
static void dump_bad(const char *text, const char *loc, const char *col)
{
	st_slurm_jobs js = { 0 };
	st_error err;
	char want[64];

	memset(&err, 0, sizeof(err));
	if (st_sacct_parse_dump(text, strlen(text), "jobs.txt", NULL, &js,
				&err) != -1)
		fail_msg("accepted: %s", text);
	st_slurm_jobs_release(&js);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	if (!strstr(err.text, loc))
		fail_msg("'%s' does not name %s", err.text, loc);
	snprintf(want, sizeof(want), "'%s'", col);
	if (!strstr(err.text, want))
		fail_msg("'%s' does not name column %s", err.text, col);
}

#define DUMP_HDR "JobID|JobName|Timelimit|Elapsed|Submit|Start|End|ReqNodes|" \
		 "QOS|User|ExitCode\n"
#define DUMP_OK "1|distiller-count-1|00:30:00|00:10:40|2022-08-26T16:00:07|" \
		"2022-08-26T16:00:15|2022-08-26T16:10:55|4|realtime_a|u|0:0\n"

/* Issue 13 item 11: `slurm jobs --input` let NaN or empty Submit/Start, an
 * empty Job ID and a negative Elapsed through, and `reproduce` failed later
 * naming its own intermediate file.  Now the dump's file, line and column
 * are named; Start "Unknown"/"None" stays a row for the Start filter. */
static void test_sacct_dump_bad_values_name_file_line(void **state)
{
	static const char unset[] = DUMP_HDR DUMP_OK
		"2|distiller-count-2|00:30:00|00:00:00|2022-08-26T16:00:07|"
		"Unknown|Unknown|4|realtime_a|u|0:0\n"
		"3|distiller-count-3|00:30:00|00:00:00|None|None|None|4|"
		"realtime_a|u|0:0\n";
	st_slurm_jobs js = { 0 };
	st_error err;

	(void)state;
	dump_bad(DUMP_HDR DUMP_OK "2|distiller-count-2|00:30:00|00:10:40|NaN|"
		 "2022-08-26T16:00:15|2022-08-26T16:10:55|4|realtime_a|u|0:0\n",
		 "jobs.txt:3", "Submit");
	dump_bad(DUMP_HDR DUMP_OK DUMP_OK "2|distiller-count-2|00:30:00|00:10:40|"
		 "|2022-08-26T16:00:15|2022-08-26T16:10:55|4|realtime_a|u|0:0\n",
		 "jobs.txt:4", "Submit");
	dump_bad(DUMP_HDR "2|distiller-count-2|00:30:00|00:10:40|"
		 "2022-08-26T16:00:07|NaN|2022-08-26T16:10:55|4|realtime_a|u|0:0\n",
		 "jobs.txt:2", "Start");
	dump_bad(DUMP_HDR "2|distiller-count-2|00:30:00|00:10:40|"
		 "2022-08-26T16:00:07||2022-08-26T16:10:55|4|realtime_a|u|0:0\n",
		 "jobs.txt:2", "Start");
	dump_bad(DUMP_HDR DUMP_OK "|distiller-count-2|00:30:00|00:10:40|"
		 "2022-08-26T16:00:07|2022-08-26T16:00:15|2022-08-26T16:10:55|4|"
		 "realtime_a|u|0:0\n", "jobs.txt:3", "JobID");
	dump_bad(DUMP_HDR DUMP_OK "2|distiller-count-2|00:30:00|-00:10:40|"
		 "2022-08-26T16:00:07|2022-08-26T16:00:15|2022-08-26T16:10:55|4|"
		 "realtime_a|u|0:0\n", "jobs.txt:3", "Elapsed");
	dump_bad(DUMP_HDR DUMP_OK "2|distiller-count-2|00:30:00|-29:00|"
		 "2022-08-26T16:00:07|2022-08-26T16:00:15|2022-08-26T16:10:55|4|"
		 "realtime_a|u|0:0\n", "jobs.txt:3", "Elapsed");
	dump_bad(DUMP_HDR DUMP_OK "2|distiller-count-2|00:30:00|00:10:40|"
		 "2022-08-26T16:00:07|2022-08-26T16:00:15|NaN|4|"
		 "realtime_a|u|0:0\n", "jobs.txt:3", "End");
	/* sacct's own words for unset times are rows, not errors */
	assert_int_equal(st_sacct_parse_dump(unset, strlen(unset), "jobs.txt",
					     NULL, &js, &err), 0);
	assert_int_equal(js.n, 3);
	assert_string_equal(js.v[1].f[ST_SLURM_START], "Unknown");
	assert_string_equal(js.v[2].f[ST_SLURM_SUBMIT], "None");
	st_slurm_jobs_release(&js);
}

/* The same checks on live sacct output, named by its line. */
static void test_sacct_live_bad_values_name_line(void **state)
{
	static const char out[] =
		"11" D "00:30:00" D "00:10:40" D "2022-08-26T16:00:07" D
		"2022-08-26T16:00:15" D "2022-08-26T16:10:55" D "4" D "realtime_a"
		D "u" D "0:0" D "distiller-count-1\n"
		"12" D "00:30:00" D "-00:00:05" D "2022-08-26T16:00:07" D
		"2022-08-26T16:00:15" D "2022-08-26T16:10:55" D "4" D "realtime_a"
		D "u" D "0:0" D "distiller-count-2\n";
	st_slurm_jobs js = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_sacct_parse_live(out, strlen(out), D, &js, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "sacct output line 2"));
	assert_non_null(strstr(err.text, "'Elapsed'"));
	st_slurm_jobs_release(&js);
}

/* Issue 13 item 9, for dumps: a NUL byte cut "distiller-count-2003" short. */
static void test_sacct_dump_nul_byte_is_65_naming_line(void **state)
{
	static const char text[] = DUMP_HDR DUMP_OK
		"2003|disti\0ller-count-2003|00:30:00|00:10:40|2022-08-26T16:00:07|"
		"2022-08-26T16:00:15|2022-08-26T16:10:55|4|realtime_a|u|0:0\n";
	st_slurm_jobs js = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_sacct_parse_dump(text, sizeof(text) - 1, "jobs.txt",
					     NULL, &js, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "jobs.txt:3"));
	st_slurm_jobs_release(&js);
	assert_int_equal(st_sacct_parse_live(text + sizeof(DUMP_HDR) - 1,
					     sizeof(text) - sizeof(DUMP_HDR),
					     "|", &js, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, ":2"));
	st_slurm_jobs_release(&js);
}

static void add(st_slurm_jobs *js, const char *name, const char *id,
		const char *start, const char *nodes, const char *qos,
		const char *exit, const char *user)
{
	const char *f[ST_SLURM_NFIELDS] = {
		name, id, "00:30:00", "00:01:00", "2022-08-26T16:00:07", start,
		"2022-08-26T16:01:07", nodes, qos, user, exit,
	};
	st_error err;

	assert_int_equal(st_slurm_jobs_add(js, f, &err), 0);
}

static void test_filter(void **state)
{
	st_slurm_jobs js = { 0 };
	st_slurm_filter f = {
		.name_contains = "distiller-count", .req_nodes = "4",
		.qos_contains = "realtime_", .exit_code = "0:0", .need_start = true,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	add(&js, "distiller-count-1", "1", "2022-08-26T16:00:15", "4", "realtime_a", "0:0", "u");
	add(&js, "distiller-count-1", "1.batch", "2022-08-26T16:00:15", "1", "", "0:0", "");
	add(&js, "distiller-count-2", "2", "Unknown", "4", "realtime_a", "0:0", "u");
	add(&js, "distiller-count-3", "3", "None", "4", "realtime_a", "0:0", "u");
	add(&js, "distiller-count-4", "4", "2022-08-26T16:00:15", "2", "realtime_a", "0:0", "u");
	add(&js, "distiller-count-5", "5", "2022-08-26T16:00:15", "4", "normal", "0:0", "u");
	add(&js, "distiller-count-6", "6", "2022-08-26T16:00:15", "4", "realtime_a", "1:0", "u");
	add(&js, "other", "7", "2022-08-26T16:00:15", "4", "realtime_a", "0:0", "u");
	add(&js, "distiller-count-1", "1", "2022-08-26T16:00:15", "4", "realtime_a", "0:0", "u");
	add(&js, "distiller-count-8", "8", "2022-08-26T16:00:15", "4", "realtime_a", "0:0", "v");
	f.user = "v";
	assert_int_equal(st_slurm_filter_apply(&js, &f), 9);
	assert_int_equal(js.n, 1);
	assert_string_equal(js.v[0].f[ST_SLURM_ID], "8");
	st_slurm_jobs_release(&js);

	add(&js, "distiller-count-1", "1", "2022-08-26T16:00:15", "4", "realtime_a", "0:0", "u");
	add(&js, "a,\"b\"", "9", "Unknown", "2", "", "1:0", "u");
	add(&js, "distiller-count-1", "1", "2022-08-26T16:00:15", "4", "realtime_a", "0:0", "u");
	/* every filter off: only the repeated id goes */
	memset(&f, 0, sizeof(f));
	assert_int_equal(st_slurm_filter_apply(&js, &f), 1);
	assert_int_equal(js.n, 2);
	mem = open_memstream(&buf, &len);
	assert_int_equal(st_slurm_jobs_write(mem, &js), 0);
	fclose(mem);
	assert_string_equal(buf,
		"Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,QOS,"
		"User,ExitCode\n"
		"distiller-count-1,1,00:30:00,00:01:00,2022-08-26T16:00:07,"
		"2022-08-26T16:00:15,2022-08-26T16:01:07,4,realtime_a,u,0:0\n"
		"\"a,\"\"b\"\"\",9,00:30:00,00:01:00,2022-08-26T16:00:07,Unknown,"
		"2022-08-26T16:01:07,2,,u,1:0\n");
	free(buf);
	st_slurm_jobs_release(&js);
}

/* st_slurm_jobs_run on a saved dump: the filter applied, the counts, the
 * CSV written; a live query with --since after --until is a usage error
 * naming the options, and no output is made. */
static void test_slurm_jobs_run(void **state)
{
	static const char dump[] = DUMP_HDR DUMP_OK
		"1.batch|batch|00:30:00|00:10:40|2022-08-26T16:00:07|"
		"2022-08-26T16:00:15|2022-08-26T16:10:55|1||u|0:0\n"
		"2|jupyter|04:00:00|00:10:40|2022-08-26T16:00:07|"
		"2022-08-26T16:00:15|2022-08-26T16:10:55|1|interactive|u|0:0\n";
	char dir[] = "/tmp/st_slurm_run_XXXXXX", in[64], out[64], line[256];
	st_slurm_jobs_opts o = {
		.filter = { .name_contains = "distiller-count", .req_nodes = "4",
			    .qos_contains = "realtime_", .exit_code = "0:0",
			    .need_start = true },
		.zone = "UTC",
	};
	st_slurm_jobs_result res;
	st_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/jobs.txt", dir);
	snprintf(out, sizeof(out), "%s/jobs.csv", dir);
	assert_non_null(f = fopen(in, "w"));
	fputs(dump, f);
	fclose(f);
	assert_non_null(o.tz = st_tz_load("UTC", &err));
	o.input = in;
	o.out = out;
	assert_int_equal(st_slurm_jobs_run(&o, &res, NULL, &err), 0);
	assert_int_equal(res.fetched, 3);
	assert_int_equal(res.kept, 1);
	assert_non_null(f = fopen(out, "r"));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "Job Name,Job ID,Timelimit,Elapsed,Submit,"
			    "Start,End,ReqNodes,QOS,User,ExitCode\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, "distiller-count-1,1,"));
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
	remove(out);

	o.input = NULL;
	o.since = "2024-01-02";
	o.until = "2024-01-01";
	assert_int_equal(st_slurm_jobs_run(&o, &res, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_string_equal(err.text, "--since must be before --until");
	o.since = "yesterday";
	assert_int_equal(st_slurm_jobs_run(&o, &res, NULL, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_string_equal(err.text, "--since 'yesterday': not a date/time");
	assert_null(fopen(out, "r"));
	st_tz_free((st_tz *)o.tz);
	remove(in);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_slurm_jobs_run),
		cmocka_unit_test(test_sacct_dump_bad_values_name_file_line),
		cmocka_unit_test(test_sacct_live_bad_values_name_line),
		cmocka_unit_test(test_sacct_dump_nul_byte_is_65_naming_line),
		cmocka_unit_test(test_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
