/* Unit tests: trace compare as a library (trace_compare.h): the metrics
 * parser (what it takes, each error's code and words), and the reduce on
 * its edge cases: no event selected (no value, not 0), one key, min and
 * mean over keys, sums past INT64_MAX (stopped, said), keys of events
 * without a file or host (a key of their own, not "" nor "?"), the same
 * key across two files of a case, a case whose input is missing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/trace_compare.h"

static int parse(st_metrics *m, const char *text, st_error *err)
{
	return st_metrics_parse(m, text, strlen(text), "m.json", err);
}

static void test_parse_ok(void **state)
{
	st_metrics m;
	st_error err = { 0 };

	(void)state;
	assert_int_equal(parse(&m,
		"[{\"name\":\"a\",\"value\":\"count\"},"
		" {\"name\":\"b\",\"filter\":[\"cat=POSIX\",\"file~x\"],"
		"  \"value\":\"bytes\",\"per\":[\"pattern\",\"pid\"],"
		"  \"reduce\":\"mean\"},"
		" {\"name\":\"c\",\"filter\":\"name~ckpt\",\"value\":\"dur\","
		"  \"per\":\"thread,prefix:2\",\"reduce\":\"min\"}]", &err), 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.v[0].name, "a");
	assert_int_equal(m.v[0].value, ST_METRIC_COUNT);
	assert_int_equal(m.v[0].reduce, ST_REDUCE_SUM);
	assert_int_equal(m.v[0].filter.n, 0);
	assert_int_equal(m.v[0].per.n, 0);
	assert_int_equal(m.v[1].filter.n, 2);
	assert_int_equal(m.v[1].value, ST_METRIC_BYTES);
	assert_int_equal(m.v[1].per.n, 2);
	assert_int_equal(m.v[1].per.v[0].kind, ST_TRACE_KEY_PATTERN);
	assert_int_equal(m.v[1].per.v[1].kind, ST_TRACE_KEY_PID);
	assert_int_equal(m.v[1].reduce, ST_REDUCE_MEAN);
	assert_int_equal(m.v[2].per.v[1].kind, ST_TRACE_KEY_PREFIX);
	assert_int_equal(m.v[2].per.v[1].depth, 2);
	assert_int_equal(m.v[2].reduce, ST_REDUCE_MIN);
	assert_string_equal(st_metric_value_name(m.v[2].value), "dur");
	assert_string_equal(st_metric_reduce_name(m.v[2].reduce), "min");
	st_metrics_release(&m);
}

/* TEXT is refused with CODE and a message holding WANT. */
static void bad(const char *text, int code, const char *want)
{
	st_metrics m;
	st_error err = { 0 };

	if (parse(&m, text, &err) != -1)
		fail_msg("%s: taken", text);
	st_metrics_release(&m);
	assert_int_equal(err.code, code);
	if (!strstr(err.text, want))
		fail_msg("%s: '%s' lacks '%s'", text, err.text, want);
}

static void test_parse_errors(void **state)
{
	(void)state;
	bad("", 78, "m.json:1:");
	bad("{}", 78, "expected a JSON array");
	bad("[]", 78, "no metric");
	bad("[null]", 78, "metric 1: must be an object");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"reduse\":\"max\"}]", 78,
	    "metric 1 ('a'): unknown field 'reduse'; did you mean 'reduce'?");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"zzzzzz\":1}]", 78,
	    "unknown field 'zzzzzz' (the fields");
	bad("[{\"name\":7,\"value\":\"dur\"}]", 78, "'name' must be");
	bad("[{\"name\":\"a\",\"value\":\"dur\"},{\"name\":\"a\","
	    "\"value\":\"dur\"}]", 78, "metric 2 ('a'): 'name' given to "
	    "metric 1 already");
	bad("[{\"name\":\"a\",\"value\":\"count\",\"filter\":\"pid=x\"}]", 78,
	    "metric 1 ('a'): 'filter': ");
	bad("[{\"name\":\"a\",\"value\":\"count\",\"filter\":{}}]", 78,
	    "'filter' must be a string or an array");
	bad("[{\"name\":\"a\",\"value\":\"bites\"}]", 78,
	    "\"bites\" is not dur, bytes or count; did you mean 'bytes'?");
	bad("[{\"name\":\"a\"}]", 78, "'value' is missing");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"per\":\"tread\","
	    "\"reduce\":\"max\"}]", 78, "did you mean 'thread'");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"per\":\"pid,pid\","
	    "\"reduce\":\"max\"}]", 78, "'per': ");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"per\":5,\"reduce\":\"max\"}]",
	    78, "'per' must be a string or a non-empty array");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"per\":\"pid\"}]", 78,
	    "'reduce' is missing");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"reduce\":\"avg\"}]", 78,
	    "\"avg\" is not max, min, sum or mean");
	bad("[{\"name\":\"a\",\"value\":\"dur\",\"value\":\"dur\"}]", 78,
	    "duplicate");
}

static void test_load_missing(void **state)
{
	st_metrics m;
	st_error err = { 0 };

	(void)state;
	assert_int_equal(st_metrics_load(&m, "/nonexistent/m.json", &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	st_metrics_release(&m);
}

/* A trace file of LINES (a temporary path into PATH). */
static void trace_file(char *path, const char *lines)
{
	int fd;

	strcpy(path, "/tmp/test_trace_compare.XXXXXX");
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, lines, strlen(lines)),
			 (ssize_t)strlen(lines));
	close(fd);
}

#define EV(name, pid, tid, dur, args) \
	"{\"name\":\"" name "\",\"cat\":\"POSIX\",\"pid\":" #pid \
	",\"tid\":" #tid ",\"ts\":1,\"dur\":" #dur ",\"ph\":\"X\"," \
	"\"args\":{" args "}}\n"

static int jobs = 1;

/* Compute METRICS over PATHS[0..N) into C (released by the caller), in
 * `jobs` threads. */
static void compute(const char *metrics, const char **paths, size_t n,
		    st_metrics *m, st_compare_case *c)
{
	st_compare_opts o = { .metrics = m, .jobs = jobs, .max_bad = 4 };
	st_error err = { 0 };

	assert_int_equal(parse(m, metrics, &err), 0);
	memset(c, 0, sizeof(*c));
	c->name = "c";
	c->paths = paths;
	c->n = n;
	assert_int_equal(st_trace_compare(c, 1, &o, &err), 0);
}

static void test_reduce_edges(void **state)
{
	char p1[64], p2[64];
	const char *paths[2] = { p1, p2 };
	st_metrics m;
	st_compare_case c;

	(void)state;
	trace_file(p1,
		EV("read", 1, 1, 10, "\"hostname\":\"h\",\"fname\":\"/a/f1\","
		   "\"ret\":5")
		EV("read", 1, 2, 30, "\"hostname\":\"h\",\"fname\":\"/a/f2\","
		   "\"ret\":7")
		EV("stat", 1, 2, 4, "\"hostname\":\"?\"")
		EV("stat", 1, 2, 6, "")
		EV("write", 2, 1, 1, "\"hostname\":\"h\",\"fname\":\"/a/f1\","
		   "\"ret\":4611686018427387904")
		EV("write", 2, 1, 1, "\"hostname\":\"h\",\"fname\":\"/a/f1\","
		   "\"ret\":4611686018427387904"));
	trace_file(p2, EV("read", 1, 1, 100, "\"hostname\":\"h\","
			  "\"fname\":\"/a/f1\",\"ret\":1"));
	compute("["
		"{\"name\":\"none\",\"filter\":\"name=nope\",\"value\":\"dur\"},"
		"{\"name\":\"none_per\",\"filter\":\"name=nope\","
		" \"value\":\"count\",\"per\":\"thread\",\"reduce\":\"mean\"},"
		"{\"name\":\"total\",\"filter\":\"name=read\",\"value\":\"dur\"},"
		"{\"name\":\"tmax\",\"filter\":\"name=read\",\"value\":\"dur\","
		" \"per\":\"thread\",\"reduce\":\"max\"},"
		"{\"name\":\"tmin\",\"filter\":\"name=read\",\"value\":\"dur\","
		" \"per\":\"thread\",\"reduce\":\"min\"},"
		"{\"name\":\"tmean\",\"filter\":\"name=read\",\"value\":\"dur\","
		" \"per\":\"thread\",\"reduce\":\"mean\"},"
		"{\"name\":\"files\",\"value\":\"count\",\"per\":\"file\","
		" \"reduce\":\"min\"},"
		"{\"name\":\"hosts\",\"filter\":\"name=stat\",\"value\":\"dur\","
		" \"per\":\"pid\",\"reduce\":\"max\"},"
		"{\"name\":\"big\",\"filter\":\"name=write\",\"value\":\"bytes\"}"
		"]", paths, 2, &m, &c);
	assert_int_equal(c.events, 7);
	/* no event selected: no value, whatever the reduce */
	assert_false(c.res[0].has);
	assert_int_equal(c.res[0].keys, 0);
	assert_false(c.res[1].has);
	/* no per: one key, the total (the same thread in two files) */
	assert_true(c.res[2].has);
	assert_int_equal(c.res[2].keys, 1);
	assert_int_equal(c.res[2].v, 140);
	/* threads h:1:1 10 + 100 (both files), h:1:2 30 */
	assert_int_equal(c.res[3].keys, 2);
	assert_int_equal(c.res[3].v, 110);
	assert_int_equal(c.res[4].v, 30);
	assert_true(c.res[5].mean == 70.0);
	/* files: /a/f1 4 events, /a/f2 1, none (the stats) 2 */
	assert_int_equal(c.res[6].keys, 3);
	assert_int_equal(c.res[6].v, 1);
	/* host "?" and no host are two processes: 4 and 6, not 10 */
	assert_int_equal(c.res[7].keys, 2);
	assert_int_equal(c.res[7].v, 6);
	/* 2^62 + 2^62 stops at INT64_MAX, and says so */
	assert_int_equal(c.res[8].v, INT64_MAX);
	assert_true(c.saturated);
	st_compare_case_release(&c);
	st_metrics_release(&m);
	unlink(p1);
	unlink(p2);
}

/* The same answers when the two files go to two threads: the thread
 * h:1:1 of both files is one key after the threads' tables merge. */
static void test_reduce_edges_threads(void **state)
{
	jobs = 2;
	test_reduce_edges(state);
	jobs = 1;
}

static void test_missing_input(void **state)
{
	const char *paths[1] = { "/nonexistent/t.pfw" };
	st_metrics m;
	st_compare_case c;

	(void)state;
	compute("[{\"name\":\"n\",\"value\":\"count\"}]", paths, 1, &m, &c);
	assert_int_equal(c.n_files, 1);
	assert_int_equal(c.files_in[0].err_code, ST_EXIT_NOINPUT);
	assert_false(c.res[0].has);
	st_compare_case_release(&c);
	st_metrics_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_reduce_edges),
		cmocka_unit_test(test_reduce_edges_threads),
		cmocka_unit_test(test_missing_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
