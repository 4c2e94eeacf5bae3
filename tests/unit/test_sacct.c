/* Unit tests: sacct live output, the filters, the output CSV. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/sacct.h"
#include "streamtime/slurm.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
