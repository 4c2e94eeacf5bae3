/* Unit tests: slurmrestd job lists of v0.0.38..v0.0.41 to sacct-form rows,
 * and the fetch against a loopback HTTP server that scripts its answers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "streamtime/slurmrest.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

static st_tz *la;

/* ---- helpers ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

struct warnings {
	int n;
	char last[ST_ERROR_TEXT_MAX];
};

static void on_warn(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

#define LOG(w) { .warn = on_warn, .ctx = &(w) }

typedef const char *row_t[ST_SLURM_NFIELDS];

static void expect_rows(const st_slurm_jobs *js, const row_t *rows, size_t n)
{
	assert_int_equal(js->n, n);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < ST_SLURM_NFIELDS; k++) {
			if (strcmp(js->v[i].f[k], rows[i][k]) != 0)
				print_error("row %zu field %s\n", i,
					    st_slurm_header[k]);
			assert_string_equal(js->v[i].f[k], rows[i][k]);
		}
}

/* Parse tests/unit/slurmrest/VERSION[SUFFIX].json in Los Angeles time. */
static int parse_fixture(const char *version, const char *suffix,
			 st_slurm_jobs *js, st_log *log, st_error *err)
{
	char path[128];
	size_t len;
	char *body;
	int rc;

	snprintf(path, sizeof(path), "slurmrest/%s%s.json", version, suffix);
	body = slurp(path, &len);
	rc = st_slurmrest_parse(body, len, version, la, js, log, err);
	free(body);
	return rc;
}

/* ---- the fixtures ---- */

#define R_NORMAL "distiller-count-4dstem-4858", "1201", "00:30:00", \
	"00:19:38", "2023-03-16T13:50:00", "2023-03-16T13:50:05", \
	"2023-03-16T14:09:43", "4", "realtime_test", "dstlr"
#define R_FAILED "distiller-count-4dstem-4859", "1202", "00:30:00", \
	"00:00:42", "2023-03-16T13:51:00", "2023-03-16T13:51:01", \
	"2023-03-16T13:51:43", "4", "realtime_test", "dstlr"
#define R_ARRAY "distiller-count-array", "1210_3", "00:20:00", "00:10:00", \
	"2023-03-16T13:52:00", "2023-03-16T13:55:00", "2023-03-16T14:05:00", \
	"4", "realtime_test", "dstlr", "0:0"
#define R_PIPE "distiller-count|scan 88", "1215", "01:30:00", "01:02:05", \
	"2023-03-16T13:53:20", "2023-03-16T14:06:40", "2023-03-16T15:08:45", \
	"4", "realtime_test", "dstlr", "0:0"
/* cancelled while pending, in January: PST, and Start Unknown */
#define R_PENDING "distiller-count-4dstem-4001", "1100", "00:30:00", \
	"00:00:00", "2023-01-10T09:15:07", "Unknown", "2023-01-10T10:15:07", \
	"4", "realtime_test", "dstlr"

static void test_v0038(void **state)
{
	/* Slurm 22.05 (Debian 12): the failed job reads 0:0, the known bug;
	 * its state FAILED (and the cancelled one's) give 1:0 instead */
	static const row_t rows[] = {
		{ R_NORMAL, "0:0" },
		{ R_FAILED, "1:0" },
		{ R_ARRAY },
		{ R_PIPE },
		{ R_PENDING, "1:0" },
		{ "distiller-count-long", "1230", "UNLIMITED", "1-01:01:01",
		  "2023-03-16T13:56:40", "2023-03-16T13:56:50",
		  "2023-03-17T14:57:51", "2", "normal", "dstlr", "0:9" },
		{ "distiller-count-array2", "1220_[1-2]", "00:10:00",
		  "00:00:00", "2023-03-16T13:58:20", "Unknown", "Unknown", "1",
		  "realtime_test", "dstlr", "0:0" },
	};
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse_fixture("v0.0.38", "", &js, &log, &err), 0);
	expect_rows(&js, rows, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "v0.0.38"));
	assert_non_null(strstr(w.last, "exit code 0"));
	/* 1202 FAILED, 1100 CANCELLED; 1230 has its signal, no guess */
	assert_non_null(strstr(w.last, ": 2 jobs whose state is a failure"));
	assert_non_null(strstr(w.last, "given ExitCode 1:0"));
	st_slurm_jobs_release(&js);
}

static void test_v0039(void **state)
{
	static const row_t rows[] = {
		{ R_NORMAL, "0:0" },
		{ R_FAILED, "1:0" },
		{ R_ARRAY },
		{ R_PIPE },
		{ R_PENDING, "1:0" },
	};
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse_fixture("v0.0.39", "", &js, &log, &err), 0);
	expect_rows(&js, rows, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "v0.0.39"));
	assert_non_null(strstr(w.last, ": 2 jobs whose state is a failure"));
	st_slurm_jobs_release(&js);
}

/* The bug: slurmrestd v0.0.38/39 say 0:0 for a failed job, so the paper's
 * exit-code filter 0:0 kept it.  Its state decides now, in either schema
 * of state.current; v0.0.40 on report the true code and are left alone. */
static void test_failed_job_exit_code_0_kept(void **state)
{
	static const struct {
		const char *version, *state, *want;
	} cases[] = {
		{ "v0.0.38", "\"FAILED\"", "1:0" },
		{ "v0.0.38", "\"TIMEOUT\"", "1:0" },
		{ "v0.0.38", "\"NODE_FAIL\"", "1:0" },
		{ "v0.0.38", "\"OUT_OF_MEMORY\"", "1:0" },
		{ "v0.0.38", "\"COMPLETED\"", "0:0" },
		{ "v0.0.38", "\"RUNNING\"", "0:0" },
		{ "v0.0.39", "\"CANCELLED\"", "1:0" },
		{ "v0.0.39", "[\"TIMEOUT\"]", "1:0" },
		{ "v0.0.39", "\"COMPLETED\"", "0:0" },
		{ "v0.0.40", "[\"FAILED\"]", "0:0" },
		{ "v0.0.41", "[\"TIMEOUT\"]", "0:0" },
	};
	const st_slurm_filter f = { .exit_code = "0:0" };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char job[512];
		struct warnings w = { 0 };
		st_log log = LOG(w);
		st_slurm_jobs js = { 0 };
		st_error err = { 0 };
		bool failed = strcmp(cases[i].want, "0:0") != 0;

		snprintf(job, sizeof(job), "{\"jobs\":[{\"job_id\":5,\"state\":"
			 "{\"current\":%s,\"reason\":\"None\"},\"exit_code\":"
			 "{\"status\":\"SUCCESS\",\"return_code\":0}}]}",
			 cases[i].state);
		assert_int_equal(st_slurmrest_parse(job, strlen(job),
						    cases[i].version, NULL,
						    &js, &log, &err), 0);
		assert_int_equal(js.n, 1);
		if (strcmp(js.v[0].f[ST_SLURM_EXITCODE], cases[i].want) != 0)
			print_error("case %zu: %s %s\n", i, cases[i].version,
				    cases[i].state);
		assert_string_equal(js.v[0].f[ST_SLURM_EXITCODE],
				    cases[i].want);
		/* said on stderr with the count, only when it happened */
		assert_int_equal(w.n, failed ? 1 : 0);
		if (failed)
			assert_non_null(strstr(w.last, ": 1 job whose"));
		/* and the default filter drops it */
		assert_int_equal(st_slurm_filter_apply(&js, &f), failed);
		st_slurm_jobs_release(&js);
	}
}

static void test_v0040(void **state)
{
	static const row_t rows[] = {
		{ R_NORMAL, "0:0" },
		{ R_FAILED, "1:0" },
		{ R_ARRAY },
		{ R_PIPE },
		{ R_PENDING, "0:0" },
		{ "distiller-count-het", "1240+0", "00:15:00", "00:01:01",
		  "2023-03-16T14:01:40", "2023-03-16T14:01:45",
		  "2023-03-16T14:02:46", "1", "realtime_test", "dstlr", "0:0" },
		{ "distiller-count-het", "1240+1", "00:15:00", "00:01:01",
		  "2023-03-16T14:01:40", "2023-03-16T14:01:45",
		  "2023-03-16T14:02:46", "3", "realtime_test", "dstlr", "0:0" },
	};
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse_fixture("v0.0.40", "", &js, &log, &err), 0);
	expect_rows(&js, rows, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(w.n, 0);
	st_slurm_jobs_release(&js);
}

static void test_v0041(void **state)
{
	static const row_t rows[] = {
		{ R_NORMAL, "0:0" },
		{ R_FAILED, "1:0" },
		{ R_ARRAY },
		{ R_PIPE },
		{ R_PENDING, "0:0" },
		{ "distiller-count-4dstem-5000", "1250", "UNLIMITED",
		  "1-03:46:40", "2023-03-16T14:03:20", "2023-03-16T14:03:21",
		  "2023-03-17T17:50:01", "4", "realtime_test", "dstlr", "0:15" },
	};
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse_fixture("v0.0.41", "", &js, &log, &err), 0);
	expect_rows(&js, rows, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(w.n, 0);
	st_slurm_jobs_release(&js);
}

/* "Nothing found" is HTTP 200 with error 9003: an empty result. */
static void test_nothing_found(void **state)
{
	static const char *const v[] = {
		"v0.0.38", "v0.0.39", "v0.0.40", "v0.0.41",
	};
	const char *bare = "{\"errors\":[{\"error_number\":9003}]}";

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct warnings w = { 0 };
		st_log log = LOG(w);
		st_slurm_jobs js = { 0 };
		st_error err = { 0 };

		assert_int_equal(parse_fixture(v[i], "-empty", &js, &log, &err), 0);
		assert_int_equal(js.n, 0);
		assert_int_equal(w.n, 0);
		/* even without a jobs[] */
		assert_int_equal(st_slurmrest_parse(bare, strlen(bare), v[i], la,
						    &js, &log, &err), 0);
		assert_int_equal(js.n, 0);
	}
}

/* No zone: UTC. */
static void test_utc(void **state)
{
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };
	size_t len;
	char *body = slurp("slurmrest/v0.0.40.json", &len);

	(void)state;
	assert_int_equal(st_slurmrest_parse(body, len, "v0.0.40", NULL, &js,
					    &log, &err), 0);
	assert_string_equal(js.v[0].f[ST_SLURM_SUBMIT], "2023-03-16T20:50:00");
	assert_string_equal(js.v[4].f[ST_SLURM_SUBMIT], "2023-01-10T17:15:07");
	free(body);
	st_slurm_jobs_release(&js);
}

/* One job of JSON (inside {"jobs":[...]}), parsed as VERSION in UTC. */
static void parse_one(const char *job, const char *version, st_slurm_jobs *js)
{
	char body[2048];
	st_error err = { 0 };

	snprintf(body, sizeof(body), "{\"jobs\":[%s]}", job);
	if (st_slurmrest_parse(body, strlen(body), version, NULL, js, NULL,
			       &err) < 0)
		fail_msg("%s: %s", job, err.text);
}

static void test_edges(void **state)
{
	static const struct {
		const char *job;
		int field;
		const char *want;
	} cases[] = {
		/* NO_VAL time limit: sacct's Partition_Limit; 0: nothing */
		{ "{\"job_id\":1,\"time\":{\"limit\":{\"set\":false,"
		  "\"infinite\":false,\"number\":0}}}", ST_SLURM_TIMELIMIT,
		  "Partition_Limit" },
		{ "{\"job_id\":1,\"time\":{\"limit\":0}}", ST_SLURM_TIMELIMIT, "" },
		{ "{\"job_id\":1,\"time\":{\"limit\":4320}}", ST_SLURM_TIMELIMIT,
		  "3-00:00:00" },
		{ "{\"job_id\":1,\"time\":{\"limit\":4294967295}}",
		  ST_SLURM_TIMELIMIT, "UNLIMITED" },
		{ "{\"job_id\":1,\"time\":{\"limit\":{\"set\":true,"
		  "\"infinite\":false,\"number\":61}}}", ST_SLURM_TIMELIMIT,
		  "01:01:00" },
		/* NO_VAL times print None, 0 and missing ones Unknown */
		{ "{\"job_id\":1,\"time\":{\"end\":{\"set\":false}}}",
		  ST_SLURM_END, "None" },
		{ "{\"job_id\":1,\"time\":{\"end\":0}}", ST_SLURM_END, "Unknown" },
		{ "{\"job_id\":1}", ST_SLURM_START, "Unknown" },
		{ "{\"job_id\":1,\"time\":{\"elapsed\":86400}}", ST_SLURM_ELAPSED,
		  "1-00:00:00" },
		/* exit codes */
		{ "{\"job_id\":1,\"exit_code\":{\"status\":\"PENDING\","
		  "\"return_code\":null}}", ST_SLURM_EXITCODE, "" },
		{ "{\"job_id\":1,\"exit_code\":{\"status\":[\"PENDING\"],"
		  "\"return_code\":{\"set\":false,\"infinite\":false,"
		  "\"number\":0}}}", ST_SLURM_EXITCODE, "" },
		{ "{\"job_id\":1,\"exit_code\":{\"status\":[\"ERROR\"],"
		  "\"return_code\":{\"set\":true,\"infinite\":false,"
		  "\"number\":137}}}", ST_SLURM_EXITCODE, "9:0" },
		{ "{\"job_id\":1,\"exit_code\":{\"status\":[\"ERROR\"],"
		  "\"return_code\":{\"set\":true,\"infinite\":false,"
		  "\"number\":2},\"signal\":{\"id\":{\"set\":false,"
		  "\"infinite\":false,\"number\":0},\"name\":\"\"}}}",
		  ST_SLURM_EXITCODE, "2:0" },
		{ "{\"job_id\":1,\"exit_code\":{\"status\":\"SIGNALED\","
		  "\"signal\":{\"signal_id\":6,\"name\":\"Aborted\"}}}",
		  ST_SLURM_EXITCODE, "0:6" },
		{ "{\"job_id\":1}", ST_SLURM_EXITCODE, "" },
		/* ids: non-array jobs of every schema, het leaders, arrays */
		{ "{\"job_id\":7,\"array\":{\"job_id\":0,\"task_id\":null},"
		  "\"het\":{\"job_id\":0,\"job_offset\":null}}", ST_SLURM_ID, "7" },
		{ "{\"job_id\":7,\"array\":{\"job_id\":0,\"task_id\":{\"set\":"
		  "false,\"infinite\":false,\"number\":0},\"task\":\"\"}}",
		  ST_SLURM_ID, "7" },
		{ "{\"job_id\":9,\"array\":{\"job_id\":7,\"task\":\"0x1d\","
		  "\"task_id\":null}}", ST_SLURM_ID, "7_[0,2-4]" },
		{ "{\"job_id\":9,\"array\":{\"job_id\":7,\"task\":\"5-9%2\","
		  "\"task_id\":null}}", ST_SLURM_ID, "7_[5-9%2]" },
		{ "{\"job_id\":12,\"het\":{\"job_id\":12,\"job_offset\":0}}",
		  ST_SLURM_ID, "12+0" },
		/* ReqNodes only from the requested TRES */
		{ "{\"job_id\":1,\"allocation_nodes\":3}", ST_SLURM_REQNODES, "" },
		{ "{\"job_id\":1,\"tres\":{\"requested\":[{\"type\":\"cpu\","
		  "\"count\":8},{\"type\":\"node\",\"count\":2}]}}",
		  ST_SLURM_REQNODES, "2" },
		/* null strings are empty */
		{ "{\"job_id\":1,\"qos\":null,\"name\":null}", ST_SLURM_QOS, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_slurm_jobs js = { 0 };

		parse_one(cases[i].job, "v0.0.40", &js);
		assert_int_equal(js.n, 1);
		if (strcmp(js.v[0].f[cases[i].field], cases[i].want) != 0)
			print_error("case %zu: %s\n", i, cases[i].job);
		assert_string_equal(js.v[0].f[cases[i].field], cases[i].want);
		st_slurm_jobs_release(&js);
	}
}

static void test_errors(void **state)
{
	static const struct {
		const char *body;
		int code;
		const char *msg;
	} cases[] = {
		{ "{\"jobs\":[{\"job_id\":1},", 65,
		  "cannot parse slurmrestd v0.0.40 response: " },
		{ "", 65, "cannot parse slurmrestd v0.0.40 response" },
		{ "[]", 65, "slurmrestd v0.0.40 response is not a JSON object" },
		{ "{\"meta\":{},\"errors\":[]}", 65,
		  "slurmrestd v0.0.40 response has no jobs[]" },
		{ "{\"jobs\":{}}", 65, "'jobs' is not an array" },
		{ "{\"jobs\":[1]}", 65, "jobs[0] is not an object" },
		{ "{\"jobs\":[{\"name\":\"x\"}]}", 65,
		  "jobs[0]: 'job_id' is missing" },
		{ "{\"jobs\":[{\"job_id\":\"7\"}]}", 65,
		  "jobs[0]: 'job_id' is not a job id" },
		{ "{\"jobs\":[{\"job_id\":7,\"time\":{\"limit\":\"30\"}}]}", 65,
		  "job 7: 'time.limit' is not a number" },
		{ "{\"jobs\":[{\"job_id\":7,\"name\":7}]}", 65,
		  "job 7: 'name' is not a string" },
		{ "{\"jobs\":[{\"job_id\":7,\"tres\":{\"requested\":{}}}]}", 65,
		  "job 7: 'tres.requested' is not an array" },
		{ "{\"jobs\":[{\"job_id\":7,\"time\":{\"start\":-5}}]}", 65,
		  "job 7: 'time.start' is out of range" },
		{ "{\"jobs\":[],\"errors\":[{\"error_number\":1007,"
		  "\"description\":\"Unable to query jobs\"}]}", 69,
		  "slurmrestd v0.0.40 reported an error: Unable to query jobs" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_slurm_jobs js = { 0 };
		st_error err = { 0 };
		const char *keep[ST_SLURM_NFIELDS] = { "kept" };

		/* a failure leaves what was there and adds nothing */
		assert_int_equal(st_slurm_jobs_add(&js, keep, &err), 0);
		assert_int_equal(st_slurmrest_parse(cases[i].body,
						    strlen(cases[i].body),
						    "v0.0.40", la, &js, NULL,
						    &err), -1);
		assert_int_equal(err.code, cases[i].code);
		if (!strstr(err.text, cases[i].msg))
			print_error("case %zu: %s\n", i, err.text);
		assert_non_null(strstr(err.text, cases[i].msg));
		assert_int_equal(js.n, 1);
		assert_string_equal(js.v[0].f[0], "kept");
		st_slurm_jobs_release(&js);
	}
}

/* Good jobs before a bad one are taken back. */
static void test_all_or_nothing(void **state)
{
	const char *body = "{\"jobs\":[{\"job_id\":1},{\"job_id\":2},"
			   "{\"job_id\":3,\"user\":[]}]}";
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };

	(void)state;
	assert_int_equal(st_slurmrest_parse(body, strlen(body), "v0.0.41", la,
					    &js, NULL, &err), -1);
	assert_int_equal(err.code, 65);
	assert_non_null(strstr(err.text, "job 3: 'user' is not a string"));
	assert_int_equal(js.n, 0);
	st_slurm_jobs_release(&js);
}

/* ---- fetch, against a loopback server ---- */

enum scenario {
	SC_DETECT,      /* 404 for v0.0.41, .40; v0.0.39 answers */
	SC_RETRY,       /* 503 once, then the v0.0.40 fixture */
	SC_401,         /* always 401 with an errors[] */
	SC_500,         /* always 500 */
	SC_ALL_404,     /* no version at all */
	SC_BAD_SECOND,  /* window 1 fine, window 2 not JSON */
	SC_V38,         /* the v0.0.38 fixture, whatever the query */
};

static struct {
	pid_t pid;
	char log[64];
	enum scenario sc;
	char *v38, *v39, *v40, *empty39;
} srv;

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void respond(int c, int status, const char *body)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Type: "
			 "application/json\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, strlen(body));

	write_all(c, head, (size_t)n);
	write_all(c, body, strlen(body));
}

/* The child: answer request number N (0-based) as the scenario says. */
static void serve_one(int c, int n, const char *req)
{
	const char *notfound = "Unable to find requested URL";
	bool v41 = strstr(req, "/v0.0.41/"), v40 = strstr(req, "/v0.0.40/");

	switch (srv.sc) {
	case SC_DETECT:
		if (v41 || v40)
			respond(c, 404, notfound);
		else if (n == 3)        /* 0, 1: 404 probes; 2: v0.0.39's */
			respond(c, 200, srv.v39);
		else
			respond(c, 200, srv.empty39);
		return;
	case SC_RETRY:
		if (n == 0)
			respond(c, 503, "{\"errors\":[]}");
		else
			respond(c, 200, srv.v40);
		return;
	case SC_401:
		respond(c, 401, "{\"errors\":[{\"error_number\":1007,\"error\":"
			"\"Protocol authentication error\",\"description\":"
			"\"Authentication failure\"}]}");
		return;
	case SC_500:
		respond(c, 500, "oops");
		return;
	case SC_ALL_404:
		respond(c, 404, notfound);
		return;
	case SC_BAD_SECOND:
		respond(c, 200, n == 0 ? srv.v40 : "{\"jobs\":[");
		return;
	case SC_V38:
		respond(c, 200, srv.v38);
		return;
	}
}

static int server_start(enum scenario sc)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, lfd;

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	snprintf(srv.log, sizeof(srv.log), "/tmp/st_slurmrest_XXXXXX");
	lfd = mkstemp(srv.log);
	assert_true(lfd >= 0);
	srv.sc = sc;
	srv.pid = fork();
	assert_true(srv.pid >= 0);
	if (srv.pid == 0) {
		for (int n = 0;; n++) {
			char req[8192];
			size_t len = 0;
			int c = accept(fd, NULL, NULL);

			if (c < 0)
				_exit(1);
			while (len < sizeof(req) - 1) {
				ssize_t r = read(c, req + len,
						 sizeof(req) - 1 - len);

				if (r <= 0)
					break;
				len += (size_t)r;
				req[len] = '\0';
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			req[len] = '\0';
			write_all(lfd, req, len);
			write_all(lfd, "----\n", 5);
			serve_one(c, n, req);
			close(c);
		}
	}
	close(fd);
	close(lfd);
	return ntohs(a.sin_port);
}

/* Stop the server; its request log, new. */
static char *server_stop(void)
{
	char *log;

	kill(srv.pid, SIGKILL);
	waitpid(srv.pid, NULL, 0);
	log = slurp(srv.log, NULL);
	unlink(srv.log);
	return log;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

static int64_t local_epoch(const char *s)
{
	st_instant t;

	assert_int_equal(st_time_parse(s, la, &t, NULL, NULL), 0);
	return t / ST_NS_PER_SEC;
}

static void test_fetch_detect_and_windows(void **state)
{
	char url[64];
	st_slurmrest_opts o = { .url = url, .user = "alice",
				.token = "s3cr3t-jwt", .timeout_s = 5,
				.tz = la };
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };
	int64_t since = local_epoch("2023-03-16T00:00:00");
	char *req;

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/",
		 server_start(SC_DETECT));
	assert_int_equal(st_slurmrest_fetch(&o, since, since + 2 * 86400,
					    86400, "a b,c", &js, &log, &err), 0);
	req = server_stop();
	/* three probes, then two one-day windows */
	assert_int_equal(count(req, "----\n"), 5);
	assert_non_null(strstr(req, "GET /slurmdb/v0.0.41/jobs?start_time="
			       "2023-03-16T00%3A00%3A00&end_time="
			       "2023-03-16T00%3A00%3A01 HTTP/1.1"));
	assert_non_null(strstr(req, "GET /slurmdb/v0.0.39/jobs?start_time="
			       "2023-03-16T00%3A00%3A00&end_time="
			       "2023-03-17T00%3A00%3A00&users=a%20b%2Cc "));
	assert_non_null(strstr(req, "GET /slurmdb/v0.0.39/jobs?start_time="
			       "2023-03-17T00%3A00%3A00&end_time="
			       "2023-03-18T00%3A00%3A00&users=a%20b%2Cc "));
	assert_int_equal(count(req, "X-SLURM-USER-NAME: alice\r\n"), 5);
	assert_int_equal(count(req, "X-SLURM-USER-TOKEN: s3cr3t-jwt\r\n"), 5);
	assert_int_equal(js.n, 5);
	assert_string_equal(js.v[2].f[ST_SLURM_ID], "1210_3");
	/* one warning for the whole fetch */
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "v0.0.39"));
	free(req);
	st_slurm_jobs_release(&js);
}

static void test_fetch_retry(void **state)
{
	char url[64];
	st_slurmrest_opts o = { .url = url, .version = "v0.0.40",
				.timeout_s = 5, .retries = 1, .tz = la };
	struct warnings w = { 0 };
	st_log log = LOG(w);
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };
	char *req;

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d",
		 server_start(SC_RETRY));
	assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000, 0,
					    NULL, &js, &log, &err), 0);
	req = server_stop();
	assert_int_equal(count(req, "----\n"), 2);
	/* no token: no auth headers (rest_auth/local) */
	assert_null(strstr(req, "X-SLURM-USER"));
	assert_int_equal(js.n, 7);
	assert_string_equal(js.v[1].f[ST_SLURM_EXITCODE], "1:0");
	assert_int_equal(w.n, 0);
	free(req);
	st_slurm_jobs_release(&js);
}

/* v0.0.38 has no users query: the rows are kept by their User instead. */
static void test_fetch_v0038_users(void **state)
{
	static const struct {
		const char *users;
		size_t n;
	} cases[] = {
		{ "alice", 0 }, { "bob,dstlr", 7 }, { "dstl", 0 },
		{ "dstlr2,x", 0 }, { "", 7 },
	};
	char url[64];
	st_slurmrest_opts o = { .url = url, .version = "v0.0.38",
				.timeout_s = 5, .tz = la };

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", server_start(SC_V38));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct warnings w = { 0 };
		st_log log = LOG(w);
		st_slurm_jobs js = { 0 };
		st_error err = { 0 };

		assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000,
						    0, cases[i].users, &js,
						    &log, &err), 0);
		assert_int_equal(js.n, cases[i].n);
		/* the warning only when there are rows to warn about */
		assert_int_equal(w.n, cases[i].n ? 1 : 0);
		st_slurm_jobs_release(&js);
	}
	{
		/* two windows list the same jobs: each failed one counted
		 * once, the count that the filter will drop */
		struct warnings w = { 0 };
		st_log log = LOG(w);
		st_slurm_jobs js = { 0 };
		st_error err = { 0 };

		assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000,
						    50000, NULL, &js, &log,
						    &err), 0);
		assert_int_equal(js.n, 14);
		assert_int_equal(w.n, 1);
		assert_non_null(strstr(w.last, ": 2 jobs whose"));
		st_slurm_jobs_release(&js);
	}
	{
		char *req = server_stop();

		assert_int_equal(count(req, "----\n"), 7);
		assert_null(strstr(req, "users="));
		free(req);
	}
}

static void test_fetch_errors(void **state)
{
	char url[64];
	st_slurmrest_opts o = { .url = url, .user = "alice",
				.token = "s3cr3t-jwt", .version = "v0.0.38",
				.timeout_s = 5, .tz = la };
	st_slurm_jobs js = { 0 };
	st_error err = { 0 };
	const char *keep[ST_SLURM_NFIELDS] = { "kept" };
	int port;
	char *req;

	(void)state;
	assert_int_equal(st_slurm_jobs_add(&js, keep, &err), 0);

	/* HTTP 401: the status and the description, never the token */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", server_start(SC_401));
	assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000, 0,
					    NULL, &js, NULL, &err), -1);
	free(server_stop());
	assert_int_equal(err.code, 69);
	assert_non_null(strstr(err.text, "HTTP 401"));
	assert_non_null(strstr(err.text, "/slurmdb/v0.0.38/jobs"));
	assert_non_null(strstr(err.text, "Authentication failure"));
	assert_null(strstr(err.text, "s3cr3t"));

	/* 5xx: retried, then reported */
	o.retries = 1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", server_start(SC_500));
	assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000, 0,
					    NULL, &js, NULL, &err), -1);
	req = server_stop();
	assert_int_equal(count(req, "----\n"), 2);
	free(req);
	assert_int_equal(err.code, 69);
	assert_non_null(strstr(err.text, "HTTP 500"));

	/* no version answers */
	o.version = NULL;
	o.retries = 0;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d",
		 server_start(SC_ALL_404));
	assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000, 0,
					    NULL, &js, NULL, &err), -1);
	req = server_stop();
	assert_int_equal(count(req, "----\n"), 4);
	free(req);
	assert_int_equal(err.code, 69);
	assert_non_null(strstr(err.text, "serves none of v0.0.41"));

	/* a bad second window takes back the first one's jobs */
	o.version = "v0.0.40";
	snprintf(url, sizeof(url), "http://127.0.0.1:%d",
		 server_start(SC_BAD_SECOND));
	assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000, 50000,
					    NULL, &js, NULL, &err), -1);
	free(server_stop());
	assert_int_equal(err.code, 65);
	assert_non_null(strstr(err.text, "v0.0.40"));

	/* nobody listening: the URL, not the token */
	{
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET };
		socklen_t al = sizeof(a);

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
		assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
		port = ntohs(a.sin_port);
		close(fd);
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	assert_int_equal(st_slurmrest_fetch(&o, 1678950000, 1679050000, 0,
					    NULL, &js, NULL, &err), -1);
	assert_int_equal(err.code, 69);
	assert_non_null(strstr(err.text, "cannot reach slurmrestd at "));
	assert_non_null(strstr(err.text, url));
	assert_null(strstr(err.text, "s3cr3t"));

	/* options */
	o.version = "v0.0.37";
	assert_int_equal(st_slurmrest_fetch(&o, 1, 2, 0, NULL, &js, NULL, &err),
			 -1);
	assert_int_equal(err.code, 64);
	o.version = "v0.0.41";
	assert_int_equal(st_slurmrest_fetch(&o, 2, 2, 0, NULL, &js, NULL, &err),
			 -1);
	assert_int_equal(err.code, 64);
	o.token = "bad\r\nX-Evil: 1";
	assert_int_equal(st_slurmrest_fetch(&o, 1, 2, 0, NULL, &js, NULL, &err),
			 -1);
	assert_int_equal(err.code, 64);
	assert_null(strstr(err.text, "Evil"));

	/* whatever failed, OUT is as it was */
	assert_int_equal(js.n, 1);
	assert_string_equal(js.v[0].f[0], "kept");
	st_slurm_jobs_release(&js);
}

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	la = st_tz_load("America/Los_Angeles", NULL);
	srv.v38 = slurp("slurmrest/v0.0.38.json", NULL);
	srv.v39 = slurp("slurmrest/v0.0.39.json", NULL);
	srv.v40 = slurp("slurmrest/v0.0.40.json", NULL);
	srv.empty39 = slurp("slurmrest/v0.0.39-empty.json", NULL);
	return la ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	st_tz_free(la);
	free(srv.v38);
	free(srv.v39);
	free(srv.v40);
	free(srv.empty39);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v0038),
		cmocka_unit_test(test_v0039),
		cmocka_unit_test(test_failed_job_exit_code_0_kept),
		cmocka_unit_test(test_v0040),
		cmocka_unit_test(test_v0041),
		cmocka_unit_test(test_nothing_found),
		cmocka_unit_test(test_utc),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_all_or_nothing),
		cmocka_unit_test(test_fetch_detect_and_windows),
		cmocka_unit_test(test_fetch_retry),
		cmocka_unit_test(test_fetch_v0038_users),
		cmocka_unit_test(test_fetch_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
