/* Summary partials (sum_partial.h): written by
 * st_sum_partial_new and _write over small traces made here, merged with
 * st_sum_merge_*, and held against st_trace_summarize over all the
 * traces at once; the edge cases of the serialisation (an empty share, a
 * process split across shares whose intervals overlap, times and sums
 * near the limits, strings that are not UTF-8) and the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "streamtime/file.h"
#include "streamtime/sum_partial.h"
#include "streamtime/trace.h"

#define TMPDIR_NAME "sum_partial"
#include "tmpdir.h"

/* A trace file NAME of LINES in dir; its path into PATH. */
static void trace_file(char *path, size_t size, const char *name,
		       const char *lines)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(lines, f);
	fclose(f);
}

#define EV(name, cat, pid, tid, ts, dur, args) \
	"{\"name\":\"" name "\",\"cat\":\"" cat "\",\"pid\":" #pid \
	",\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur ",\"ph\":\"X\"," \
	"\"args\":{\"hostname\":\"h\"" args "}}\n"

/* The partial of PATHS[0..N) with O into partial file PART. */
static void save(const char *part, const char **paths, size_t n,
		 const st_trace_opts *o, const char *group, const char *per)
{
	st_trace_summary s;
	st_sum_partial *p;
	st_error err = { 0 };
	FILE *f;

	assert_non_null(p = st_sum_partial_new(paths, n, o, group, per, &s,
					       &err));
	assert_int_equal(s.n_files, n);
	assert_non_null(f = fopen(part, "w"));
	assert_int_equal(st_sum_partial_write(f, p, &s, &err), 0);
	assert_int_equal(fclose(f), 0);
	st_sum_partial_free(p);
	st_trace_summary_release(&s);
}

/* Partial file PATH into MG: the return of st_sum_merge_add. */
static int add(st_sum_merge *mg, const char *path, st_error *err)
{
	size_t len;
	char *text = st_file_read(path, &len, err);
	int rc;

	assert_non_null(text);
	rc = st_sum_merge_add(mg, text, len, path, err);
	free(text);
	return rc;
}

static void same_stats(const st_trace_stat *a, const st_trace_stat *b,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(a[i].key, b[i].key);
		assert_int_equal(a[i].count, b[i].count);
		assert_int_equal(a[i].dur_us, b[i].dur_us);
		assert_int_equal(a[i].bytes, b[i].bytes);
		assert_int_equal(a[i].max_proc_dur_us, b[i].max_proc_dur_us);
		assert_int_equal(a[i].max_per_bytes, b[i].max_per_bytes);
		assert_int_equal(a[i].sized, b[i].sized);
		assert_true(a[i].q1 == b[i].q1 && a[i].median == b[i].median &&
			    a[i].q3 == b[i].q3);
		assert_true((!a[i].max_dur_key && !b[i].max_dur_key) ||
			    strcmp(a[i].max_dur_key, b[i].max_dur_key) == 0);
	}
}

/* Everything a summary shows, equal. */
static void same(const st_trace_summary *a, const st_trace_summary *b)
{
	assert_int_equal(a->events, b->events);
	assert_int_equal(a->bad_lines, b->bad_lines);
	assert_int_equal(a->hosts, b->hosts);
	assert_int_equal(a->processes, b->processes);
	assert_int_equal(a->threads, b->threads);
	assert_int_equal(a->files, b->files);
	assert_int_equal(a->first_us, b->first_us);
	assert_int_equal(a->end_us, b->end_us);
	assert_int_equal(a->io_us, b->io_us);
	assert_int_equal(a->compute_us, b->compute_us);
	assert_int_equal(a->io_unoverlapped_us, b->io_unoverlapped_us);
	assert_int_equal(a->compute_unoverlapped_us,
			 b->compute_unoverlapped_us);
	assert_int_equal(a->io_max_us, b->io_max_us);
	assert_int_equal(a->compute_max_us, b->compute_max_us);
	assert_int_equal(a->saturated, b->saturated);
	assert_int_equal(a->n_cat, b->n_cat);
	assert_int_equal(a->n_name, b->n_name);
	assert_int_equal(a->n_groups, b->n_groups);
	assert_int_equal(a->n_bins, b->n_bins);
	assert_int_equal(a->n_procs, b->n_procs);
	assert_int_equal(a->n_files, b->n_files);
	same_stats(a->by_cat, b->by_cat, a->n_cat);
	same_stats(a->by_name, b->by_name, a->n_name);
	same_stats(a->groups, b->groups, a->n_groups);
	assert_memory_equal(a->bins, b->bins, a->n_bins * sizeof(*a->bins));
	for (size_t i = 0; i < a->n_procs; i++) {
		assert_string_equal(a->procs[i].host, b->procs[i].host);
		assert_int_equal(a->procs[i].pid, b->procs[i].pid);
		assert_int_equal(a->procs[i].events, b->procs[i].events);
		assert_int_equal(a->procs[i].io_us, b->procs[i].io_us);
		assert_int_equal(a->procs[i].compute_us,
				 b->procs[i].compute_us);
		assert_int_equal(a->procs[i].ntids, b->procs[i].ntids);
		assert_memory_equal(a->procs[i].tids, b->procs[i].tids,
				    a->procs[i].ntids * sizeof(int64_t));
	}
}

/* One summary of PATHS[0..N) with O against the merge of a partial per
 * path, written in the order given and merged backwards: equal; the
 * merged summary into *OUT (released by the caller) when not NULL. */
static void merge_equals_one(const char **paths, size_t n,
			     const st_trace_opts *o, const char *group,
			     const char *per, st_trace_summary *out)
{
	st_trace_summary one, m;
	st_sum_merge mg = { 0 };
	st_error err = { 0 };
	char part[8][256];

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) {
		snprintf(part[i], sizeof(part[i]), "%s/part.%zu.json", dir, i);
		save(part[i], &paths[i], 1, o, group, per);
	}
	for (size_t i = n; i-- > 0;)
		assert_int_equal(add(&mg, part[i], &err), 0);
	assert_int_equal(st_sum_merge_finish(&mg, 10, &m, &err), 0);
	assert_int_equal(st_trace_summarize(paths, n, o, &one, &err), 0);
	same(&one, &m);
	st_trace_summary_release(&one);
	if (out)
		*out = m;
	else
		st_trace_summary_release(&m);
	st_sum_merge_release(&mg);
}

/* Process (h, 1) in two shares, its I/O intervals [100, 300) and [200,
 * 500) overlapping across them, compute [250, 350): one process, I/O 400
 * (not 500), compute not overlapped by I/O 0; two threads. */
static void test_process_split_across_shares_overlap(void **state)
{
	char a[256], b[256];
	const char *paths[2] = { a, b };
	st_trace_opts o = { .jobs = 1, .max_bad = 10 };
	st_trace_summary m;

	(void)state;
	trace_file(a, sizeof(a), "a.pfw", "[\n"
		   EV("read", "POSIX", 1, 10, 100, 200, ",\"ret\":4096")
		   EV("compute", "compute", 1, 10, 250, 100, "")
		   "]\n");
	trace_file(b, sizeof(b), "b.pfw", "[\n"
		   EV("write", "POSIX", 1, 11, 200, 300, ",\"ret\":8")
		   EV("read", "POSIX", 2, 20, 0, 50, ",\"ret\":1")
		   "]\n");
	merge_equals_one(paths, 2, &o, NULL, NULL, &m);
	assert_int_equal(m.processes, 2);
	assert_int_equal(m.threads, 3);
	assert_int_equal(m.procs[0].pid, 1);
	assert_int_equal(m.procs[0].io_us, 400);
	assert_int_equal(m.procs[0].compute_us, 100);
	assert_int_equal(m.io_us, 450);
	assert_int_equal(m.compute_unoverlapped_us, 0);
	assert_int_equal(m.io_max_us, 400);
	assert_int_equal(m.n_files, 2);
	st_trace_summary_release(&m);
}

/* A share whose events the filter all drops is an empty partial: it
 * changes nothing, first or last; and alone it is the zero summary. */
static void test_empty_share(void **state)
{
	char a[256], b[256], c[256];
	const char *paths[3] = { a, b, c };
	st_trace_filter f = { 0 };
	st_trace_opts o = { .jobs = 2, .max_bad = 10, .filter = &f,
			    .granularity_us = 100 };
	st_trace_summary m;
	st_error err = { 0 };

	(void)state;
	assert_int_equal(st_trace_filter_parse(&f, "cat=POSIX", &err), 0);
	trace_file(a, sizeof(a), "e1.pfw", "[\n"
		   EV("compute", "compute", 3, 1, 10, 5, "") "]\n");
	trace_file(b, sizeof(b), "e2.pfw", "[\n"
		   EV("read", "POSIX", 3, 1, 10, 500, ",\"ret\":10")
		   EV("read", "POSIX", 3, 2, 300, 5, ",\"ret\":30") "]\n");
	trace_file(c, sizeof(c), "e3.pfw", "[\n"
		   EV("compute", "compute", 4, 1, 10, 5, "") "]\n");
	o.group = (st_trace_keys){ .v = { { ST_TRACE_KEY_NAME, 0 } }, .n = 1 };
	merge_equals_one(paths, 3, &o, "name", NULL, &m);
	assert_int_equal(m.events, 2);
	assert_int_equal(m.n_bins, 6);
	assert_int_equal(m.by_name[0].sized, 2);
	assert_true(m.by_name[0].median == 20.0);
	st_trace_summary_release(&m);
	merge_equals_one(paths, 1, &o, "name", NULL, &m);
	assert_int_equal(m.events, 0);
	assert_int_equal(m.processes, 0);
	assert_int_equal(m.first_us, 0);
	st_trace_summary_release(&m);
	st_trace_filter_release(&f);
}

/* Sums near INT64_MAX, times far from 0 and names that need escapes
 * cross the partial exactly; a sum that passes INT64_MAX in the merge is
 * capped and said, as in one process. */
#define ODD "q\\\"\\\\\\u0001\xc3\xa9"   /* q"\, U+0001, e acute */

static void test_limits_round_trip(void **state)
{
	char a[256], b[256];
	const char *paths[2] = { a, b };
	st_trace_opts o = { .jobs = 1, .max_bad = 10 };
	st_trace_summary m;

	(void)state;
	trace_file(a, sizeof(a), "l1.pfw", "[\n"
		   EV(ODD, "POSIX", -5, -7, -9007199254740000, 3,
		      ",\"size\":4611686018427387904")
		   EV("read", "POSIX", 9223372036854775807, 1,
		      9007199254740000, 3, ",\"ret\":4611686018427387904")
		   "]\n");
	trace_file(b, sizeof(b), "l2.pfw", "[\n"
		   EV("read", "POSIX", 9223372036854775807, 1, 1, 3,
		      ",\"ret\":4611686018427387904")
		   EV(ODD, "POSIX", -5, -7, 1, 3,
		      ",\"size\":4611686018427387903")
		   "]\n");
	merge_equals_one(paths, 2, &o, NULL, NULL, &m);
	assert_true(m.saturated);
	assert_int_equal(m.first_us, -9007199254740000);
	assert_int_equal(m.by_name[0].bytes, INT64_MAX);
	/* as shown (text.h): the backslash doubled, U+0001 escaped */
	assert_string_equal(m.by_name[0].key, "q\"\\\\\\u0001\xc3\xa9");
	assert_int_equal(m.by_name[1].bytes, INT64_MAX);
	st_trace_summary_release(&m);
}

/* What is refused is 65 naming the partial, and leaves the merge as it
 * was: a second add of the good partial then gives twice its events. */
static void refused(const char *good, const char *text, const char *want)
{
	st_sum_merge mg = { 0 };
	st_trace_summary s;
	st_error err = { 0 };

	assert_int_equal(add(&mg, good, &err), 0);
	if (st_sum_merge_add(&mg, text, strlen(text), "bad.json", &err) == 0)
		fail_msg("taken: want '%s'", want);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	if (!strstr(err.text, want))
		fail_msg("'%s' not in '%s'", want, err.text);
	assert_int_equal(add(&mg, good, &err), 0);
	assert_int_equal(st_sum_merge_finish(&mg, 10, &s, &err), 0);
	assert_int_equal(s.events, 4);
	assert_int_equal(s.n_files, 2);
	st_trace_summary_release(&s);
	st_sum_merge_release(&mg);
}

/* The good partial's text with FROM replaced by TO. */
static char *edit(const char *good, const char *from, const char *to)
{
	size_t len;
	char *t = st_file_read(good, &len, &(st_error){ 0 }), *at, *r;

	assert_non_null(t);
	assert_non_null(at = strstr(t, from));
	assert_non_null(r = malloc(len + strlen(to) + 1));
	memcpy(r, t, (size_t)(at - t));
	strcpy(r + (at - t), to);
	strcat(r, at + strlen(from));
	free(t);
	return r;
}

static void test_refused(void **state)
{
	char a[256], part[256];
	const char *paths[1] = { a };
	st_trace_opts o = { .jobs = 1, .max_bad = 10 };
	struct { const char *from, *to, *want; } cases[] = {
		{ "\"events\":2", "\"events\":-2", "totals are malformed" },
		{ "[\"read\",2,", "[\"read\",2,-", "tables are malformed" },
		{ "\"cat\":[\n[\"POSIX\"", "\"cat\":[\n[\"read\",1,1,1],"
		  "[\"read\"", "tables are malformed" },
		{ "\"procs\":[\n[", "\"procs\":[\n[7,1,1,[],[]],[",
		  "processes are malformed" },
		{ ",[100,300", ",[300,100", "processes are malformed" },
		{ ",[100,300", ",[100,1152921504606846977",
		  "processes are malformed" },
		{ "\"sizes\":[", "\"sizes\":[[99,1,1],", "sizes" },
		{ "\"bins\":[]", "\"bins\":[[1,0,1]]", "bins" },
		{ "\"command\":\"trace summary\"",
		  "\"command\":\"trace compare\"", "not a partial of trace "
		  "summary" },
		{ "\"streamtime_partial\":2", "\"streamtime_partial\":9",
		  "version 9" },
		{ "\"group_by\":null", "\"group_by\":\"name\"",
		  "other options than" },
		{ "\"files\":[", "\"files\":[{\"path\":1},", "inputs" },
		{ "\"bad\":[", "\"bad\":[{\"file\":5,\"line\":1,\"why\":\"x\"}",
		  "inputs" },
	};

	(void)state;
	trace_file(a, sizeof(a), "g.pfw", "[\n"
		   EV("read", "POSIX", 1, 10, 100, 200, ",\"ret\":4096")
		   EV("read", "POSIX", 1, 10, 150, 150, ",\"ret\":4096")
		   "]\n");
	snprintf(part, sizeof(part), "%s/good.json", dir);
	save(part, paths, 1, &o, NULL, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = edit(part, cases[i].from, cases[i].to);

		refused(part, t, cases[i].want);
		free(t);
	}
	refused(part, "{\"streamtime_partial\":1,\n\"comm", "bad.json:2:");
}

/* Options that change the summary must agree: the second partial names
 * the first and the option; a first partial refused leaves no options. */
static void test_other_options(void **state)
{
	char a[256], p1[256], p2[256];
	const char *paths[1] = { a };
	st_trace_opts o = { .jobs = 1, .max_bad = 10 };
	st_trace_opts o2 = o;
	st_sum_merge mg = { 0 };
	st_error err = { 0 };

	(void)state;
	trace_file(a, sizeof(a), "o.pfw", "[\n"
		   EV("read", "POSIX", 1, 10, 100, 200, "") "]\n");
	snprintf(p1, sizeof(p1), "%s/o1.json", dir);
	snprintf(p2, sizeof(p2), "%s/o2.json", dir);
	save(p1, paths, 1, &o, NULL, NULL);
	o2.granularity_us = 10;
	save(p2, paths, 1, &o2, NULL, NULL);
	assert_int_equal(st_sum_merge_add(&mg, "{", 1, "x.json", &err), -1);
	assert_null(mg.o);
	assert_int_equal(add(&mg, p1, &err), 0);
	assert_int_equal(add(&mg, p2, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "o2.json: computed with other "
			       "options than"));
	assert_non_null(strstr(err.text, "o1.json"));
	assert_non_null(strstr(err.text, "time_granularity_us"));
	st_sum_merge_release(&mg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process_split_across_shares_overlap),
		cmocka_unit_test(test_empty_share),
		cmocka_unit_test(test_limits_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_other_options),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
