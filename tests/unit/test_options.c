/* test_options.c - unit tests for the command layer's option parser
 * (src/cmd/options.h): kinds, bundling, "--", prefixes, required options,
 * errors (exit 64) and the "did you mean" suggestions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "streamtime/merge.h"

static const struct st_cmd_desc desc = {
	.path = "streamtime test cmd",
	.args = "FILE...",
	.min_args = 1,
	.max_args = -1,
	.args_missing = "no file given",
};

static const char *const formats[] = { "text", "json", NULL };

struct vals {
	const char *out, *tz;
	bool json;
	int64_t jobs;
	st_duration settle;
	int format;
	struct st_strlist db;
	struct st_size_ranges ranges;
};

/* Parse the words of LINE (split at blanks) by a table over V; *NARGS
 * gets the positional count and ARGV (static) holds them. */
static char *argv_store[32];
static char words[512];

/* The table over V (8 rows and the end). */
#define TABLE(v)                                                             \
	{ ST_O("out", 0, ST_OPT_PATH, &(v)->out, "FILE", "the output",       \
	       ST_OPT_REQUIRED) },                                           \
	{ ST_O("tz", 0, ST_OPT_ZONE, &(v)->tz, "ZONE", "a zone", 0) },        \
	{ ST_O("json", 0, ST_OPT_FLAG, &(v)->json, NULL, "as JSON", 0) },     \
	{ ST_O("jobs", 'j', ST_OPT_INT, &(v)->jobs, "N", "jobs", 0),          \
	  .min = 1, .max = 256 },                                            \
	{ ST_O("settle", 0, ST_OPT_SECONDS, &(v)->settle, "S", "quiet time",  \
	       ST_OPT_ZERO_OK), .max = 1000 },                               \
	{ ST_O("format", 0, ST_OPT_CHOICE, &(v)->format, "F", "the format",  \
	       0), .choices = formats },                                     \
	{ ST_O("db", 0, ST_OPT_LIST, &(v)->db, "FILE", "repeatable", 0) },    \
	{ ST_O("range", 0, ST_OPT_SIZE_RANGE, &(v)->ranges,                  \
	       "SIZE:FIRST-LAST", "a long help text that has to be wrapped "  \
	       "at the 79th column, under the column where help starts", 0) },\
	ST_OPT_END_ROW

static int run(struct vals *v, const char *line, int *nargs)
{
	const struct st_option opts[] = {
		TABLE(v),
	};
	int argc = 0;

	snprintf(words, sizeof(words), "cmd %s", line);
	for (char *w = strtok(words, " "); w; w = strtok(NULL, " "))
		argv_store[argc++] = w;
	argv_store[argc] = NULL;
	memset(v, 0, sizeof(*v));
	return st_opt_parse(&desc, opts, argc, argv_store, nargs);
}

static void release(struct vals *v)
{
	st_strlist_release(&v->db);
	st_size_ranges_release(&v->ranges);
}

static void test_long_short_bundled_and_equals(void **state)
{
	struct vals v;
	int n = 0;

	(void)state;
	assert_int_equal(run(&v, "a.pfw --out=o.txt -qj4 --json b.pfw "
			     "--settle 2.5 --format json --db x --db y "
			     "--range 128:1-9", &n), ST_OPT_CONTINUE);
	assert_int_equal(n, 2);
	assert_string_equal(argv_store[1], "a.pfw");
	assert_string_equal(argv_store[2], "b.pfw");
	assert_string_equal(v.out, "o.txt");
	assert_int_equal(v.jobs, 4);
	assert_true(v.json);
	assert_int_equal(v.settle, 2500000000LL);
	assert_int_equal(v.format, 1);
	assert_int_equal(v.db.n, 2);
	assert_string_equal(v.db.v[1], "y");
	assert_int_equal(v.ranges.n, 1);
	assert_int_equal(v.ranges.v[0].size, 128);
	assert_int_equal(v.ranges.v[0].range.last, 9);
	release(&v);
}

static void test_double_dash_ends_options(void **state)
{
	struct vals v;
	int n = 0;

	(void)state;
	assert_int_equal(run(&v, "--out o -- --json -", &n), ST_OPT_CONTINUE);
	assert_int_equal(n, 2);
	assert_string_equal(argv_store[1], "--json");
	assert_string_equal(argv_store[2], "-");
	assert_false(v.json);
	release(&v);
}

static void test_unique_prefix_accepted(void **state)
{
	struct vals v;
	int n = 0;

	(void)state;
	assert_int_equal(run(&v, "f --ou o --js", &n), ST_OPT_CONTINUE);
	assert_string_equal(v.out, "o");
	assert_true(v.json);
	release(&v);
}

static void test_usage_errors_exit_64(void **state)
{
	static const char *const bad[] = {
		"f --out o --grup-by x",      /* unknown */
		"f --out o -x",               /* unknown short */
		"f",                          /* --out missing */
		"--out o",                    /* no FILE */
		"f --out",                    /* no value */
		"f --out o --json=1",         /* a flag with a value */
		"f --out o -j 0",             /* out of range */
		"f --out o -j 1.5",           /* not whole */
		"f --out o --settle -1",      /* negative seconds */
		"f --out o --format xml",     /* not a choice */
		"f --out o --range 128",      /* not SIZE:FIRST-LAST */
	};
	struct vals v;
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = run(&v, bad[i], &n);

		if (rc != ST_EXIT_USAGE)
			fail_msg("'%s': %d, expected 64", bad[i], rc);
		release(&v);
	}
}

static void test_distance_counts_a_swap_as_one(void **state)
{
	(void)state;
	assert_int_equal(st_opt_distance("reprodcue", "reproduce"), 1);
	assert_int_equal(st_opt_distance("grup-by", "group-by"), 1);
	assert_int_equal(st_opt_distance("", "abc"), 3);
	assert_int_equal(st_opt_distance("kitten", "sitting"), 3);
}

static void test_suggest_only_close_unique_names(void **state)
{
	static const char *const cmds[] = {
		"clock", "collect", "merge", "reproduce", "report", NULL,
	};
	static const char *const opts[] = { "group-by", "json", "jobs", NULL };

	(void)state;
	assert_string_equal(st_opt_suggest("reprodcue", cmds, (size_t)-1),
			    "reproduce");
	assert_string_equal(st_opt_suggest("grup-by", opts, (size_t)-1),
			    "group-by");
	assert_null(st_opt_suggest("frobnicate", cmds, (size_t)-1));
	assert_string_equal(st_opt_suggest("jsob", opts, (size_t)-1), "json");
	/* a tie names neither: "jobn" is one edit from jobs and from jogn */
	{
		static const char *const tie[] = { "jobs", "jogn", NULL };

		assert_null(st_opt_suggest("jobn", tie, (size_t)-1));
	}
}

static void test_help_generated_from_table(void **state)
{
	struct vals v = { 0 };
	const struct st_option opts[] = { TABLE(&v) };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	st_opt_help(f, &desc, opts);
	assert_int_equal(fclose(f), 0);
	assert_true(strncmp(text, "usage: streamtime test cmd FILE... --out FILE "
			    "[--tz ZONE] [--json] [--jobs N]\n", 78) == 0);
	assert_non_null(strstr(text, "[--format text|json]"));
	assert_non_null(strstr(text, "\n  --out FILE            the output\n"));
	assert_non_null(strstr(text, "\n  -j, --jobs N          jobs\n"));
	assert_non_null(strstr(text, "\n  --range SIZE:FIRST-LAST  a long help"));
	assert_non_null(strstr(text, "\n                        column, under the column"));
	assert_non_null(strstr(text, "\n  -q, --quiet / -v, --verbose / -h, "
			       "--help\n"));
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		if (nl - line > 79)
			fail_msg("a line of %d characters: %.*s", (int)(nl - line),
				 (int)(nl - line), line);
	free(text);
}

static void test_dump_lists_every_row(void **state)
{
	struct vals v = { .jobs = 7 };
	const struct st_option opts[] = { TABLE(&v) };
	char *args[] = { "cmd", "--bogus", NULL };
	json_t *sink = json_array(), *cmd, *rows;
	int n;

	(void)state;
	st_opt_dump_sink = sink;
	/* dump mode parses nothing: --bogus is no error */
	assert_int_equal(st_opt_parse(&desc, opts, 2, args, &n), 0);
	st_opt_dump_sink = NULL;
	assert_int_equal(json_array_size(sink), 1);
	cmd = json_array_get(sink, 0);
	assert_string_equal(json_string_value(json_object_get(cmd, "path")),
			    "streamtime test cmd");
	rows = json_object_get(cmd, "options");
	assert_int_equal(json_array_size(rows), 8);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(rows, 0), "complete")), "file");
	assert_true(json_is_true(json_object_get(json_array_get(rows, 0),
						 "required")));
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(rows, 1), "complete")), "zone");
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(rows, 3), "default")), 7);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(rows, 3), "short")), "j");
	assert_int_equal(json_array_size(json_object_get(
		json_array_get(rows, 5), "choices")), 2);
	assert_true(json_is_true(json_object_get(json_array_get(rows, 6),
						 "repeatable")));
	json_decref(sink);
}

/* st_i64list_push: the shared --size list of distiller jobs and stats
 * transfers keeps every value in order. */
static void test_i64list_push_appends_in_order(void **state)
{
	struct st_i64list l = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_i64list_push(&l, 128, &err), 0);
	assert_int_equal(st_i64list_push(&l, 256, &err), 0);
	assert_int_equal(st_i64list_push(&l, 128, &err), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.v[0], 128);
	assert_int_equal(l.v[1], 256);
	assert_int_equal(l.v[2], 128);
	free(l.v);
}

/* st_opt_go: false with *RC the usage error's 64 (the command returns at
 * once), true with the arguments moved when parsing goes on. */
static void test_opt_go_returns_status_of_help(void **state)
{
	const char *out = NULL;
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE", "x", 0) },
		ST_OPT_END_ROW,
	};
	char a0[] = "cmd", a1[] = "--bogus", a2[] = "f", a3[] = "--out",
	     a4[] = "o";
	char *bad[] = { a0, a1, NULL };
	char *good[] = { a0, a2, a3, a4, NULL };
	int n = 0, rc = 0;

	(void)state;
	assert_false(st_opt_go(&desc, opts, 2, bad, &n, &rc));
	assert_int_equal(rc, 64);
	assert_true(st_opt_go(&desc, opts, 4, good, &n, &rc));
	assert_int_equal(rc, ST_OPT_CONTINUE);
	assert_int_equal(n, 1);
	assert_string_equal(good[1], "f");
	assert_string_equal(out, "o");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_short_bundled_and_equals),
		cmocka_unit_test(test_double_dash_ends_options),
		cmocka_unit_test(test_unique_prefix_accepted),
		cmocka_unit_test(test_usage_errors_exit_64),
		cmocka_unit_test(test_distance_counts_a_swap_as_one),
		cmocka_unit_test(test_suggest_only_close_unique_names),
		cmocka_unit_test(test_help_generated_from_table),
		cmocka_unit_test(test_dump_lists_every_row),
		cmocka_unit_test(test_i64list_push_appends_in_order),
		cmocka_unit_test(test_opt_go_returns_status_of_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
