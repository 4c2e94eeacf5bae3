/* Unit tests: trace compare as a library (trace_compare.h): the metrics
 * parser (what it takes, each error's code and words), and the reduce on
 * its edge cases: no event selected (no value, not 0), one key, min and
 * mean over keys, sums past INT64_MAX (stopped, said), keys of events
 * without a file or host (a key of their own, not "" nor "?"), the same
 * key across two files of a case, a case whose input is missing; by
 * metrics' rows; an events metric's stream against trace events;
 * --events-dir and --save-partial against the metrics. */
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

/* More distinct filters than one set holds (63; here 140, so three
 * sets), mixing terms on strings and on numbers, one of them repeated:
 * each metric's count or sum against the events counted here. */
static void test_many_filters(void **state)
{
	enum { NEV = 300, NM = 140 };
	/* counts over the 300 events: name read (even e) or write (odd);
	 * a file /a/f<e % 7> when e % 4 < 2, else none; no host */
	static const struct {
		const char *filter;
		int64_t want;
	} more[] = {
		{ "\"file!^/a/\"", 150 },          /* the events without a file */
		{ "\"basename=f3\"", 21 },         /* e % 4 < 2, e % 7 == 3 */
		{ "\"pattern=f*\"", 150 },
		{ "\"pattern!=f*\"", 150 },
		{ "\"host=h\"", 0 },
		{ "\"host!=h\"", 300 },
		{ "[\"name!=read\",\"file^/a/\"]", 75 },   /* e % 4 == 1 */
		{ "[\"basename$3\",\"dur<100\"]", 14 },
	};
	char p1[64], line[256];
	const char *paths[1] = { p1 };
	char *text = calloc(NEV, sizeof(line)), *mt = calloc(NM + 10, 128);
	size_t tn = 0, mn = 0;
	st_metrics m;
	st_compare_case c;

	(void)state;
	assert_non_null(text);
	assert_non_null(mt);
	for (int e = 0; e < NEV; e++)
		tn += (size_t)snprintf(text + tn, sizeof(line),
			"{\"name\":\"%s\",\"cat\":\"POSIX\",\"pid\":1,"
			"\"tid\":1,\"ts\":%d,\"dur\":%d,\"ph\":\"X\","
			"\"args\":{%s%d%s}}\n", e % 2 ? "write" : "read",
			e, e % 150, e % 4 < 2 ? "\"fname\":\"/a/f" : "\"x\":",
			e % 7, e % 4 < 2 ? "\"" : "");
	trace_file(p1, text);
	mn += (size_t)snprintf(mt + mn, 128, "[");
	for (int i = 0; i < NM; i++)
		mn += (size_t)snprintf(mt + mn, 128,
			i % 3 == 0 ? "{\"name\":\"m%d\",\"filter\":[\"name=read\","
				     "\"dur>=%d\"],\"value\":\"count\"},"
			: i % 3 == 1 ? "{\"name\":\"m%d\",\"filter\":[\"file^/a/\","
				       "\"dur>=%d\"],\"value\":\"count\"},"
			: "{\"name\":\"m%d\",\"filter\":\"dur<%d\","
			  "\"value\":\"dur\"},", i, i);
	mn += (size_t)snprintf(mt + mn, 128, "{\"name\":\"again\",\"filter\":"
			       "[\"file^/a/\",\"dur>=4\"],\"value\":\"count\"},");
	/* negations, basename and pattern terms, a field no event has */
	for (size_t x = 0; x < sizeof(more) / sizeof(more[0]); x++)
		mn += (size_t)snprintf(mt + mn, 128, "{\"name\":\"x%zu\","
				       "\"filter\":%s,\"value\":\"count\"}%s",
				       x, more[x].filter,
				       x + 1 < sizeof(more) / sizeof(more[0])
				       ? "," : "]");
	compute(mt, paths, 1, &m, &c);
	for (size_t x = 0; x < sizeof(more) / sizeof(more[0]); x++) {
		const st_metric_result *r = &c.res[NM + 1 + x];

		if (r->has ? r->v != more[x].want : more[x].want != 0) {
			print_error("%s: %lld, not %lld\n", more[x].filter,
				    r->has ? (long long)r->v : -1LL,
				    (long long)more[x].want);
			fail();
		}
	}
	assert_int_equal(c.events, NEV);
	for (int i = 0; i <= NM; i++) {
		int k = i < NM ? i : 4;
		int64_t want = 0;

		for (int e = 0; e < NEV; e++) {
			int dur = e % 150;

			if (k % 3 == 0 && e % 2 == 0 && dur >= k)
				want++;
			else if (k % 3 == 1 && e % 4 < 2 && dur >= k)
				want++;
			else if (k % 3 == 2 && dur < k)
				want += dur;
		}
		if (!want && k % 3 != 2) {
			assert_false(c.res[i].has);
			continue;
		}
		assert_true(c.res[i].has || want == 0);
		assert_int_equal(c.res[i].v, want);
	}
	st_compare_case_release(&c);
	st_metrics_release(&m);
	unlink(p1);
	free(text);
	free(mt);
}

/* A by metric: a row per by key, each reduced over its own per keys,
 * sorted by the key as shown; "host" without a value is "(none)", pid
 * without a host "?:PID"; the same by key in two files is one row. */
static void test_by_rows(void **state)
{
	char p1[64], p2[64];
	const char *paths[2] = { p1, p2 };
	st_metrics m;
	st_compare_case c;
	const st_metric_result *r;

	(void)state;
	trace_file(p1,
		EV("read", 1, 1, 10, "\"hostname\":\"h\",\"fname\":\"/a/f1\","
		   "\"ret\":5")
		EV("read", 1, 2, 30, "\"hostname\":\"h\",\"fname\":\"/a/f1\","
		   "\"ret\":7")
		EV("read", 3, 3, 8, "\"fname\":\"/a/f2\"")
		EV("stat", 1, 2, 6, ""));
	trace_file(p2, EV("read", 1, 1, 100, "\"hostname\":\"h\","
			  "\"fname\":\"/a/f1\",\"ret\":1"));
	compute("["
		"{\"name\":\"f\",\"filter\":\"name=read\",\"value\":\"dur\","
		" \"by\":\"file\",\"per\":\"thread\",\"reduce\":\"max\"},"
		"{\"name\":\"p\",\"value\":\"bytes\",\"by\":[\"pid\"]},"
		"{\"name\":\"h\",\"value\":\"count\",\"by\":\"host\","
		" \"per\":\"thread\",\"reduce\":\"mean\"},"
		"{\"name\":\"none\",\"filter\":\"name=nope\",\"value\":\"dur\","
		" \"by\":\"file\"}"
		"]", paths, 2, &m, &c);
	assert_int_equal(m.v[0].by.n, 1);
	assert_int_equal(m.v[0].by.v[0].kind, ST_TRACE_KEY_FILE);
	/* f: /a/f1 threads h:1:1 110, h:1:2 30 -> 110; /a/f2 8 */
	r = &c.res[0];
	assert_true(r->has);
	assert_int_equal(r->keys, 3);
	assert_int_equal(r->n_rows, 2);
	assert_string_equal(r->rows[0].key, "/a/f1");
	assert_int_equal(r->rows[0].r.keys, 2);
	assert_int_equal(r->rows[0].r.v, 110);
	assert_string_equal(r->rows[1].key, "/a/f2");
	assert_int_equal(r->rows[1].r.v, 8);
	/* p: ?:1 (the stat, no host) and ?:3 no bytes (rows of 0), h:1
	 * 5 + 7 + 1 */
	r = &c.res[1];
	assert_int_equal(r->n_rows, 3);
	assert_string_equal(r->rows[0].key, "?:1");
	assert_int_equal(r->rows[0].r.v, 0);
	assert_string_equal(r->rows[1].key, "?:3");
	assert_int_equal(r->rows[1].r.v, 0);
	assert_string_equal(r->rows[2].key, "h:1");
	assert_int_equal(r->rows[2].r.v, 13);
	/* h: (none) one thread ?:3:3 and the stat's ?:1:2: 2 events over 2
	 * threads; h: h:1:1 2 events, h:1:2 1 -> mean 1.5 */
	r = &c.res[2];
	assert_int_equal(r->n_rows, 2);
	assert_string_equal(r->rows[0].key, "(none)");
	assert_true(r->rows[0].r.mean == 1.0);
	assert_string_equal(r->rows[1].key, "h");
	assert_true(r->rows[1].r.mean == 1.5);
	/* nothing selected: no row, no value */
	assert_false(c.res[3].has);
	assert_int_equal(c.res[3].n_rows, 0);
	st_compare_case_release(&c);
	st_metrics_release(&m);
	unlink(p1);
	unlink(p2);
}

/* An events metric writes to the case's stream what trace events writes
 * over the same paths, in their order whatever the threads; without a
 * stream it is a usage error. */
static void test_events_stream(void **state)
{
	char p[3][64], *got = NULL, *want = NULL;
	const char *paths[9];
	size_t gn = 0, wn = 0;
	st_metrics m;
	st_compare_case c;
	st_compare_opts o = { .metrics = &m, .jobs = 3, .max_bad = 4 };
	st_trace_events_opts eo = { .format = ST_TRACE_EVENTS_JSONL,
				    .max_bad = 4 };
	st_trace_events_result res;
	st_trace_filter f = { 0 };
	st_error err = { 0 };
	FILE *out[2] = { NULL, NULL }, *w;

	(void)state;
	trace_file(p[0], EV("write", 1, 1, 10, "\"fname\":\"/a/f1\"")
			 EV("read", 1, 1, 10, "\"fname\":\"/a/f1\""));
	trace_file(p[1], EV("write", 2, 1, 3, "\"fname\":\"/b\""));
	trace_file(p[2], EV("stat", 2, 1, 3, "\"fname\":\"/b\""));
	for (int i = 0; i < 9; i++)
		paths[i] = p[i % 3];
	assert_int_equal(parse(&m, "[{\"name\":\"n\",\"value\":\"count\"},"
			       "{\"name\":\"e\",\"filter\":\"name=write\","
			       "\"value\":\"count\",\"events\":\"jsonl\","
			       "\"keys\":\"pattern\"}]", &err), 0);
	memset(&c, 0, sizeof(c));
	c.name = "c";
	c.paths = paths;
	c.n = 9;
	assert_int_equal(st_trace_compare(&c, 1, &o, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_non_null(strstr(err.text, "metric 'e' writes events"));
	st_compare_case_release(&c);
	memset(&c, 0, sizeof(c));
	c.name = "c";
	c.paths = paths;
	c.n = 9;
	assert_non_null(out[1] = open_memstream(&got, &gn));
	c.events_out = out;
	assert_int_equal(st_trace_compare(&c, 1, &o, &err), 0);
	fclose(out[1]);
	assert_int_equal(c.res[1].v, 6);
	assert_non_null(w = open_memstream(&want, &wn));
	assert_int_equal(st_trace_filter_parse(&f, "name=write", &err), 0);
	eo.filter = &f;
	eo.keys = &m.v[1].cols;
	assert_int_equal(st_trace_events_write(paths, 9, &eo, w, &res, &err),
			 0);
	fclose(w);
	assert_int_equal(res.rows, 6);
	assert_int_equal(gn, wn);
	assert_memory_equal(got, want, wn);
	st_trace_events_result_release(&res);
	st_trace_filter_release(&f);
	st_compare_case_release(&c);
	st_metrics_release(&m);
	free(got);
	free(want);
	for (int i = 0; i < 3; i++)
		unlink(p[i]);
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


/* gather_bad null memcpy: with two threads, one reading a file with a
 * corrupt line and the other a clean file, the corrupt lines were
 * gathered with memcpy(dst, NULL, 0) from the clean thread's pass
 * (undefined; UBSan stops there).  Many rounds, so that the threads
 * take one file each in some of them. */
static void test_gather_bad_null_memcpy(void **state)
{
	char p1[64], p2[64];
	const char *paths[2] = { p1, p2 };
	st_metrics m;
	st_compare_case c;

	(void)state;
	trace_file(p1, EV("read", 1, 2, 10, "\"size\":4") "{broken\n");
	trace_file(p2, EV("read", 1, 3, 7, "\"size\":4"));
	jobs = 2;
	for (int round = 0; round < 40; round++) {
		compute("[{\"name\":\"n\",\"value\":\"count\"}]", paths, 2, &m,
			&c);
		assert_int_equal(c.res[0].v, 2);
		assert_int_equal(c.bad_lines, 1);
		assert_int_equal(c.n_bad, 1);
		assert_int_equal(c.bad[0].file, 0);
		st_compare_case_release(&c);
		st_metrics_release(&m);
	}
	jobs = 1;
	unlink(p1);
	unlink(p2);
}

/* ---- partials: st_compare_merge_* on partials written here by hand --- */

#define PM "[{\\\"name\\\":\\\"mx\\\",\\\"value\\\":\\\"dur\\\"," \
	"\\\"per\\\":\\\"thread\\\",\\\"reduce\\\":\\\"max\\\"}," \
	"{\\\"name\\\":\\\"mn\\\",\\\"value\\\":\\\"dur\\\"," \
	"\\\"per\\\":\\\"file\\\",\\\"reduce\\\":\\\"min\\\"}," \
	"{\\\"name\\\":\\\"av\\\",\\\"value\\\":\\\"bytes\\\"," \
	"\\\"per\\\":\\\"file\\\",\\\"reduce\\\":\\\"mean\\\"}]"

/* A partial of metrics PM: case NAME with its three metrics' key lists
 * and sums (each "KEYS], \"sums\": [SUMS" as text). */
static char *part(char *buf, size_t size, const char *cases)
{
	snprintf(buf, size, "{\"streamtime_partial\":1,\"command\":"
		 "\"trace compare\",\"metrics\":\"" PM "\",\"cases\":[%s]}",
		 cases);
	return buf;
}

#define CASE(name, mx, mn, av) \
	"{\"name\":\"" name "\",\"events\":3,\"bad_lines\":0," \
	"\"saturated\":false,\"files\":[{\"path\":\"" name ".pfw\"," \
	"\"lines\":3,\"events\":3,\"meta\":0,\"other\":0,\"bad\":0," \
	"\"fast\":0,\"err_code\":0,\"err_text\":null,\"not_trace\":false," \
	"\"first_us\":0,\"end_us\":1}],\"bad\":[]," \
	"\"metrics\":[{\"name\":\"mx\",\"keys\":[" mx "]}," \
	"{\"name\":\"mn\",\"keys\":[" mn "]}," \
	"{\"name\":\"av\",\"keys\":[" av "]}]}"

static void add(st_compare_merge *mg, const char *text, const char *what)
{
	st_error err = { 0 };

	if (st_compare_merge_add(mg, text, strlen(text), what, &err) != 0)
		fail_msg("%s refused: %s", what, err.text);
}

static st_compare_case *find(st_compare_merge *mg, const char *name)
{
	for (size_t c = 0; c < mg->n; c++)
		if (strcmp(mg->cases[c].name, name) == 0)
			return &mg->cases[c];
	fail_msg("no case %s", name);
	return NULL;
}

/* Keys in several partials are one key: nodeA:1:10 is 100 in one and 50
 * in the other, so the largest thread is 150 (not nodeB's 120); min and
 * mean over the files seen in either; a case only in one partial; an
 * empty partial changes nothing. */
static void test_merge_keys_across_partials(void **state)
{
	char a[4096], b[4096], e[512];
	st_compare_merge mg = { 0 };
	st_error err = { 0 };
	st_compare_case *c;

	(void)state;
	add(&mg, part(a, sizeof(a), CASE("A",
		"[\"nodeA\",1,10],[\"nodeB\",2,10]], \"sums\": [100,120",
		"[\"/f1\"],[null]], \"sums\": [30,7",
		"[\"/f1\"],[null]], \"sums\": [10,0") ","
		CASE("only1", "[\"h\",1,1]], \"sums\": [5",
		     "], \"sums\": [", "], \"sums\": [")), "p1.json");
	add(&mg, part(e, sizeof(e), ""), "empty.json");
	add(&mg, part(b, sizeof(b), CASE("A",
		"[\"nodeA\",1,10]], \"sums\": [50",
		"[\"/f2\"],[\"/f1\"]], \"sums\": [20,1",
		"[\"/f2\"]], \"sums\": [4")), "p2.json");
	assert_int_equal(st_compare_merge_finish(&mg, 10, &err), 0);
	assert_int_equal(mg.n, 2);
	c = find(&mg, "A");
	assert_true(c->res[0].has);
	assert_int_equal(c->res[0].v, 150);
	assert_int_equal(c->res[0].keys, 2);
	/* /f1 30 + 1 = 31, /f2 20, none 7: the smallest is 7 */
	assert_int_equal(c->res[1].v, 7);
	assert_int_equal(c->res[1].keys, 3);
	/* bytes /f1 10, none 0, /f2 4: mean 14 / 3 */
	assert_true(c->res[2].mean > 4.6666 && c->res[2].mean < 4.6667);
	assert_int_equal(c->n_files, 2);
	assert_string_equal(c->files_in[1].path, "A.pfw");
	assert_int_equal(c->events, 6);
	c = find(&mg, "only1");
	assert_int_equal(c->res[0].v, 5);
	assert_false(c->res[1].has);
	assert_false(c->res[2].has);
	st_compare_merge_release(&mg);

	/* only empty partials: no case at all */
	add(&mg, part(e, sizeof(e), ""), "e1.json");
	add(&mg, part(e, sizeof(e), ""), "e2.json");
	assert_int_equal(st_compare_merge_finish(&mg, 10, &err), 0);
	assert_int_equal(mg.n, 0);
	st_compare_merge_release(&mg);
}

/* TEXT is refused (65, a message holding WANT) and MG, holding one
 * partial, is left as it was. */
static void refused(const char *text, const char *want)
{
	char a[4096];
	st_compare_merge mg = { 0 };
	st_error err = { 0 };

	add(&mg, part(a, sizeof(a), CASE("A", "[\"n\",1,1]], \"sums\": [9",
					 "], \"sums\": [", "], \"sums\": [")),
	    "good.json");
	assert_int_equal(st_compare_merge_add(&mg, text, strlen(text),
					      "bad.json", &err), -1);
	assert_int_equal(err.code, 65);
	if (!strstr(err.text, want))
		fail_msg("'%s' lacks '%s'", err.text, want);
	assert_int_equal(mg.n, 1);
	assert_int_equal(mg.cases[0].n_files, 1);
	assert_int_equal(st_compare_merge_finish(&mg, 10, &err), 0);
	assert_int_equal(mg.cases[0].res[0].v, 9);
	st_compare_merge_release(&mg);
}

static void test_merge_refused(void **state)
{
	char a[4096], t[4096];

	(void)state;
	refused("{\"streamtime_partial\":1,\n\"command\":", "bad.json:2:");
	refused("not json", "bad.json:1:");
	refused("[]", "not a streamtime partial");
	refused("{\"streamtime_partial\":2,\"command\":\"trace compare\"}",
		"partial version 2");
	refused("{\"streamtime_partial\":1,\"command\":\"trace summary\","
		"\"metrics\":\"[]\",\"cases\":[]}", "not a partial of trace "
		"compare");
	refused("{\"streamtime_partial\":1,\"command\":\"trace compare\","
		"\"metrics\":\"[{\\\"name\\\":\\\"x\\\",\\\"value\\\":"
		"\\\"dur\\\"}]\",\"cases\":[]}",
		"bad.json: computed with other metrics than good.json");
	/* a key of the wrong width, after a good case: nothing of it kept */
	refused(part(a, sizeof(a), CASE("A", "[\"n\",1,1]], \"sums\": [1",
					 "], \"sums\": [", "], \"sums\": [") ","
		     CASE("B", "[\"n\",1]], \"sums\": [1", "], \"sums\": [",
			  "], \"sums\": [")), "bad.json: case 2: the sums");
	refused(part(a, sizeof(a), CASE("A", "[\"n\",1,1]], \"sums\": [1,2",
					 "], \"sums\": [", "], \"sums\": [")),
		"bad.json: case 1: the sums");
	/* truncated anywhere: refused, never half taken */
	part(a, sizeof(a), CASE("A", "[\"n\",1,1]], \"sums\": [1",
				"], \"sums\": [", "], \"sums\": ["));
	for (size_t n = 1; n < strlen(a); n += 7) {
		memcpy(t, a, n);
		t[n] = 0;
		refused(t, "bad.json:");
	}
}

/* A partial written by st_compare_partial_write of a computed case reads
 * back to the same answers. */
static void test_partial_round_trip(void **state)
{
	char p1[64], out[64];
	const char *paths[1] = { p1 };
	const char *mt = "[{\"name\":\"t\",\"value\":\"dur\",\"per\":"
		"\"thread,file\",\"reduce\":\"max\"},{\"name\":\"b\",\"value\":"
		"\"bytes\",\"per\":\"basename\",\"reduce\":\"mean\"}]";
	st_compare_opts o = { .jobs = 1, .max_bad = 4, .keep = true };
	st_compare_merge mg = { 0 };
	st_metrics m;
	st_compare_case c = { 0 };
	st_error err = { 0 };
	FILE *f;
	char *text;
	long len;
	int fd;

	(void)state;
	trace_file(p1, EV("read", 1, 2, 10, "\"fname\":\"/a/x\\u00e9\"")
		   EV("read", 1, 2, 5, "\"fname\":\"/a/x\\u00e9\"")
		   EV("write", 1, 3, 7, "\"size\":4")
		   "{broken\n");
	assert_int_equal(parse(&m, mt, &err), 0);
	o.metrics = &m;
	c.name = "c";
	c.paths = paths;
	c.n = 1;
	assert_int_equal(st_trace_compare(&c, 1, &o, &err), 0);
	strcpy(out, "/tmp/test_trace_compare.XXXXXX");
	assert_true((fd = mkstemp(out)) >= 0);
	assert_non_null(f = fdopen(fd, "w+"));
	assert_int_equal(st_compare_partial_write(f, mt, &m, &c, 1), 0);
	len = ftell(f);
	rewind(f);
	assert_non_null(text = calloc(1, (size_t)len + 1));
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	add(&mg, text, out);
	assert_int_equal(st_compare_merge_finish(&mg, 10, &err), 0);
	assert_int_equal(mg.n, 1);
	assert_int_equal(mg.cases[0].res[0].v, 15);
	assert_int_equal(mg.cases[0].res[0].keys, 2);
	assert_int_equal(mg.cases[0].res[1].keys, 2);
	assert_true(mg.cases[0].res[1].mean == c.res[1].mean);
	assert_int_equal(mg.cases[0].bad_lines, 1);
	assert_int_equal(mg.cases[0].n_bad, 1);
	assert_int_equal(mg.cases[0].bad[0].line, 4);
	assert_string_equal(mg.cases[0].files_in[0].path, p1);
	free(text);
	st_compare_merge_release(&mg);
	st_compare_case_release(&c);
	st_metrics_release(&m);
	unlink(p1);
	unlink(out);
}

/* --events-dir exactly when a metric writes events, not empty, and no
 * --save-partial then: each refusal 64, naming the metric. */
static void test_events_check(void **state)
{
	st_metrics ev = { 0 }, plain = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(parse(&ev, "[{\"name\":\"n\",\"value\":\"count\"},"
			       "{\"name\":\"w\",\"value\":\"count\","
			       "\"events\":\"csv\"}]", &err), 0);
	assert_int_equal(parse(&plain, "[{\"name\":\"n\",\"value\":"
			       "\"count\"}]", &err), 0);
	assert_int_equal(st_metrics_events_check(&ev, "d", false, &err), 0);
	assert_int_equal(st_metrics_events_check(&plain, NULL, true, &err), 0);
	assert_int_equal(st_metrics_events_check(&ev, "d", true, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_string_equal(err.text, "--save-partial: metric 'w' writes "
			    "events, which a partial cannot hold (run the "
			    "metrics with 'events' in one process)");
	assert_int_equal(st_metrics_events_check(&ev, NULL, false, &err), -1);
	assert_string_equal(err.text, "metric 'w' writes events: give "
			    "--events-dir DIR");
	assert_int_equal(st_metrics_events_check(&plain, "d", false, &err),
			 -1);
	assert_string_equal(err.text, "--events-dir: no metric writes events "
			    "(give one \"events\": \"csv\")");
	assert_int_equal(st_metrics_events_check(&ev, "", false, &err), -1);
	assert_string_equal(err.text, "--events-dir needs a directory");
	st_metrics_release(&ev);
	st_metrics_release(&plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_events_check),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_reduce_edges),
		cmocka_unit_test(test_reduce_edges_threads),
		cmocka_unit_test(test_many_filters),
		cmocka_unit_test(test_by_rows),
		cmocka_unit_test(test_events_stream),
		cmocka_unit_test(test_missing_input),
		cmocka_unit_test(test_gather_bad_null_memcpy),
		cmocka_unit_test(test_merge_keys_across_partials),
		cmocka_unit_test(test_merge_refused),
		cmocka_unit_test(test_partial_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
