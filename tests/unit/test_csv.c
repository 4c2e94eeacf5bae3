/* test_csv.c - unit tests for include/streamtime/csv.h (SPEC section 3, CSV). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/csv.h"
#include "streamtime/error.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Parse the C string BUF as file NAME; must succeed. */
static void parse_ok(st_table *t, const char *name, const char *buf)
{
	st_error err = { 0 };

	st_table_init(t);
	if (st_table_parse(t, name, buf, strlen(buf), &err) != 0)
		fail_msg("parse of %s failed: %s", name, err.text);
}

/* Parse BUF as NAME; must fail with CODE.  Leaves the message in ERR. */
static void parse_bad(const char *name, const char *buf, size_t len, int code,
		      st_error *err)
{
	st_table t;

	st_table_init(&t);
	memset(err, 0, sizeof(*err));
	if (st_table_parse(&t, name, buf, len, err) != -1)
		fail_msg("parse of %s should fail", name);
	if (err->code != code)
		fail_msg("%s: code %d, expected %d (%s)", name, err->code, code,
			 err->text);
	st_table_release(&t);
}

/* TEXT names "NAME:LINE" with LINE not followed by another digit. */
static void assert_location(const char *text, const char *name, unsigned line)
{
	char loc[256];
	const char *p;
	size_t n;

	n = (size_t)snprintf(loc, sizeof(loc), "%s:%u", name, line);
	for (p = strstr(text, loc); p; p = strstr(p + 1, loc))
		if (p[n] < '0' || p[n] > '9')
			return;
	fail_msg("\"%s\" does not name %s", text, loc);
}

static void assert_contains(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("\"%s\" does not contain \"%s\"", text, needle);
}

static void assert_row(const st_table *t, size_t row, size_t n,
		       const char *const expect[])
{
	assert_int_equal(t->ncols, n);
	for (size_t c = 0; c < n; c++)
		assert_string_equal(st_table_get(t, row, (int)c), expect[c]);
}

/* ---- parsing ---------------------------------------------------------------- */

static void test_csv_parse_header_and_rows(void **state)
{
	st_table t;
	static const char *const h[] = { "name", "size", "time" };
	static const char *const r0[] = { "alpha", "1", "2.5" };
	static const char *const r1[] = { "beta", "2", "3.5" };

	(void)state;
	parse_ok(&t, "a.csv", "name,size,time\nalpha,1,2.5\nbeta,2,3.5\n");
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 2);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(t.header[i], h[i]);
	assert_row(&t, 0, 3, r0);
	assert_row(&t, 1, 3, r1);
	assert_int_equal(t.lines[0], 2);
	assert_int_equal(t.lines[1], 3);
	assert_string_equal(t.name, "a.csv");
	st_table_release(&t);
}

static void test_csv_lookup_by_name(void **state)
{
	st_table t;

	(void)state;
	parse_ok(&t, "a.csv", "name,size,time\nalpha,1,2.5\n");
	assert_int_equal(st_table_col(&t, "name"), 0);
	assert_int_equal(st_table_col(&t, "size"), 1);
	assert_int_equal(st_table_col(&t, "time"), 2);
	assert_int_equal(st_table_col(&t, "Time"), -1);
	assert_int_equal(st_table_col(&t, "nope"), -1);
	assert_string_equal(st_table_get(&t, 0, st_table_col(&t, "time")), "2.5");
	st_table_release(&t);
}

static void test_csv_require_extra_columns_ignored(void **state)
{
	st_table t;
	st_error err = { 0 };
	static const char *const names[] = { "Elapsed", "JobID" };
	int idx[2] = { -7, -7 };

	(void)state;
	/* the wanted columns in another order, among extra ones */
	parse_ok(&t, "jobs.csv",
		 "User,JobID,Partition,Elapsed,State\n"
		 "bob,123,gpu,00:01:00,COMPLETED\n");
	assert_int_equal(st_table_require(&t, names, idx, 2, &err), 0);
	assert_int_equal(idx[0], 3);
	assert_int_equal(idx[1], 1);
	assert_string_equal(st_table_get(&t, 0, idx[0]), "00:01:00");
	assert_string_equal(st_table_get(&t, 0, idx[1]), "123");
	st_table_release(&t);
}

static void test_csv_require_missing_column_names_file_and_column(void **state)
{
	st_table t;
	st_error err = { 0 };
	static const char *const names[] = { "JobID", "Elapsed" };
	int idx[2];

	(void)state;
	parse_ok(&t, "jobs.csv", "JobID,Start\n1,2\n");
	assert_int_equal(st_table_require(&t, names, idx, 2, &err), -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_contains(err.text, "jobs.csv");
	assert_contains(err.text, "Elapsed");
	/* NULL err tolerated */
	assert_int_equal(st_table_require(&t, names, idx, 2, NULL), -1);
	st_table_release(&t);
}

static void test_csv_quoted_fields(void **state)
{
	st_table t;
	static const char *const r0[] = { "x, y", "say \"hi\"" };
	static const char *const r1[] = { "multi\nline", "z" };
	static const char *const r2[] = { "", "" };

	(void)state;
	parse_ok(&t, "q.csv",
		 "a,b\n"
		 "\"x, y\",\"say \"\"hi\"\"\"\n"
		 "\"multi\nline\",z\n"
		 "\"\",\n");
	assert_int_equal(t.nrows, 3);
	assert_row(&t, 0, 2, r0);
	assert_row(&t, 1, 2, r1);
	assert_row(&t, 2, 2, r2);
	/* a record's line is where it ends: the multi-line one ends on 4 */
	assert_int_equal(t.lines[0], 2);
	assert_int_equal(t.lines[1], 4);
	assert_int_equal(t.lines[2], 5);
	st_table_release(&t);
}

static void test_csv_line_number_after_multiline_field(void **state)
{
	st_error err;

	(void)state;
	/* line 1 header, lines 2-3 one record, line 4 has 3 fields */
	{
		static const char buf[] = "a,b\n\"multi\nline\",z\n1,2,3\n";

		parse_bad("m.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
		assert_location(err.text, "m.csv", 4);
	}
	/* two multi-line fields, then a short record on line 6 */
	{
		static const char buf[] = "a,b\n\"1\n2\",\"3\n4\"\nok,ok\nshort\n";

		parse_bad("m2.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
		assert_location(err.text, "m2.csv", 6);
	}
}

static void test_csv_crlf_line_endings(void **state)
{
	st_table t;
	static const char *const r0[] = { "1", "2" };
	static const char *const r1[] = { "3", "4" };

	(void)state;
	parse_ok(&t, "w.csv", "a,b\r\n1,2\r\n3,4\r\n");
	assert_int_equal(t.ncols, 2);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(t.header[1], "b");
	assert_row(&t, 0, 2, r0);
	assert_row(&t, 1, 2, r1);
	assert_int_equal(t.lines[0], 2);
	assert_int_equal(t.lines[1], 3);
	st_table_release(&t);
}

static void test_csv_crlf_error_line(void **state)
{
	st_error err;
	static const char buf[] = "a,b\r\n1,2\r\n3\r\n";

	(void)state;
	parse_bad("w.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "w.csv", 3);
}

static void test_csv_utf8_bom_skipped(void **state)
{
	st_table t;

	(void)state;
	parse_ok(&t, "bom.csv", "\xEF\xBB\xBFid,v\n1,2\n");
	assert_string_equal(t.header[0], "id");
	assert_int_equal(st_table_col(&t, "id"), 0);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(st_table_get(&t, 0, 0), "1");
	assert_int_equal(t.lines[0], 2);
	st_table_release(&t);
}

static void test_csv_final_record_without_newline(void **state)
{
	st_table t;
	static const char *const r1[] = { "3", "4" };
	static const char *const e1[] = { "1", "" };

	(void)state;
	parse_ok(&t, "n.csv", "a,b\n1,2\n3,4");
	assert_int_equal(t.nrows, 2);
	assert_row(&t, 1, 2, r1);
	assert_int_equal(t.lines[1], 3);
	st_table_release(&t);
	/* ... with an empty last field */
	parse_ok(&t, "n.csv", "a,b\n1,");
	assert_int_equal(t.nrows, 1);
	assert_row(&t, 0, 2, e1);
	st_table_release(&t);
	/* ... a quoted last field */
	parse_ok(&t, "n.csv", "a,b\n1,\"x,y\"");
	assert_int_equal(t.nrows, 1);
	assert_string_equal(st_table_get(&t, 0, 1), "x,y");
	st_table_release(&t);
}

static void test_csv_header_only(void **state)
{
	st_table t;

	(void)state;
	parse_ok(&t, "h.csv", "a,b,c\n");
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 0);
	assert_int_equal(st_table_col(&t, "c"), 2);
	st_table_release(&t);
	parse_ok(&t, "h.csv", "a,b,c");
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 0);
	st_table_release(&t);
}

static void test_csv_empty_file(void **state)
{
	st_error err;

	(void)state;
	parse_bad("e.csv", "", 0, ST_EXIT_DATAERR, &err);
	assert_contains(err.text, "e.csv");
	assert_contains(err.text, "empty");
	parse_bad("e.csv", "\n", 1, ST_EXIT_DATAERR, &err);
	assert_contains(err.text, "empty");
	parse_bad("e.csv", "\xEF\xBB\xBF", 3, ST_EXIT_DATAERR, &err);
	assert_contains(err.text, "empty");
}

static void test_csv_too_few_fields_names_line(void **state)
{
	st_error err;
	static const char buf[] = "a,b,c\n1,2,3\n4,5\n6,7,8\n";

	(void)state;
	parse_bad("f.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "f.csv", 3);
}

static void test_csv_too_many_fields_names_line(void **state)
{
	st_error err;
	static const char buf[] = "a,b\n1,2\n3,4\n5,6,7\n";
	static const char last[] = "a,b\n1,2\n5,6,7";

	(void)state;
	parse_bad("f.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "f.csv", 4);
	/* the bad record is the last one and has no newline */
	parse_bad("g.csv", last, sizeof(last) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "g.csv", 3);
}

/* Issue 13 item 9: a NUL byte in a field cut it short without a word
 * ("distiller-count-2003" read as "disti"), on the fast path and through
 * libcsv (quoted fields) alike. */
static void test_csv_nul_byte_in_field_is_65_naming_line(void **state)
{
	static const char plain[] = "Job Name,Job ID\nx,1\ndisti\0ller-count-2003,2\n";
	static const char quoted[] = "a,b\n1,2\n3,4\n\"x\ny\0z\",5\n";
	static const char header[] = "a\0b,c\n1,2\n";
	st_table t;
	st_error err;

	(void)state;
	parse_bad("jobs.csv", plain, sizeof(plain) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "jobs.csv", 3);
	assert_contains(err.text, "NUL");
	/* a NUL on the continuation line of a quoted field: its own line */
	parse_bad("q.csv", quoted, sizeof(quoted) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "q.csv", 5);
	parse_bad("h.csv", header, sizeof(header) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "h.csv", 1);
	for (unsigned flags = 0; flags <= ST_CSV_LIBCSV_ONLY; flags++) {
		st_table_init(&t);
		memset(&err, 0, sizeof(err));
		assert_int_equal(st_table_parse_ex(&t, "jobs.csv", plain,
						   sizeof(plain) - 1, flags,
						   &err), -1);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		assert_location(err.text, "jobs.csv", 3);
		st_table_release(&t);
	}
}

static void test_csv_unterminated_quote(void **state)
{
	st_error err;
	static const char buf[] = "a,b\n\"x,1\n2,3\n";

	(void)state;
	parse_bad("u.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
	assert_contains(err.text, "u.csv");
}

static void test_csv_stray_quote_is_malformed(void **state)
{
	st_error err;
	static const char buf[] = "a,b\n1,x\"y\n";
	static const char after[] = "a,b\n\"x\"y,1\n";

	(void)state;
	parse_bad("s.csv", buf, sizeof(buf) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "s.csv", 2);
	parse_bad("s.csv", after, sizeof(after) - 1, ST_EXIT_DATAERR, &err);
	assert_location(err.text, "s.csv", 2);
}

static void test_csv_reparse_same_table(void **state)
{
	st_table t;
	st_error err = { 0 };
	static const char second[] = "x\n9\n8\n";

	(void)state;
	parse_ok(&t, "one.csv", "a,b\n1,2\n");
	/* parsing again into an initialised, filled table replaces it */
	assert_int_equal(st_table_parse(&t, "two.csv", second,
					sizeof(second) - 1, &err), 0);
	assert_string_equal(t.name, "two.csv");
	assert_int_equal(t.ncols, 1);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(st_table_get(&t, 1, 0), "8");
	st_table_release(&t);
	/* release twice and release NULL are harmless */
	st_table_release(&t);
	st_table_release(NULL);
	assert_int_equal(t.nrows, 0);
	assert_null(t.cells);
}

/* ---- files ------------------------------------------------------------------- */

static void test_csv_read_missing_file_is_66(void **state)
{
	st_table t;
	st_error err = { 0 };
	const char *path = "/nonexistent-dir-streamtime/none.csv";

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_read(&t, path, &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	assert_contains(err.text, path);
	st_table_release(&t);
}

static void test_csv_read_directory_is_66(void **state)
{
	st_table t;
	st_error err = { 0 };

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_read(&t, "/", &err), -1);
	assert_int_equal(err.code, ST_EXIT_NOINPUT);
	st_table_release(&t);
}

static void test_csv_read_file(void **state)
{
	char path[] = "/tmp/test_csv_XXXXXX";
	int fd = mkstemp(path);
	static const char body[] = "JobID,Elapsed\n1,00:01:00\n2,\"1-00:00:00\"\n";
	st_table t;
	st_error err = { 0 };

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, body, sizeof(body) - 1), sizeof(body) - 1);
	close(fd);
	st_table_init(&t);
	assert_int_equal(st_table_read(&t, path, &err), 0);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(st_table_get(&t, 1, st_table_col(&t, "Elapsed")),
			    "1-00:00:00");
	assert_string_equal(t.name, path);
	st_table_release(&t);

	/* errors name the path given */
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("a,b\n1\n", f);
		fclose(f);
		assert_int_equal(st_table_read(&t, path, &err), -1);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		assert_location(err.text, path, 2);
		st_table_release(&t);
	}
	unlink(path);
}

/* ---- writing ----------------------------------------------------------------- */

/* Write one row to a memory stream; return the bytes (caller frees). */
static char *write_row(size_t n, const char *const fields[])
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(st_csv_write_row(f, n, fields), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_csv_write_plain_unquoted(void **state)
{
	static const char *const f[] = { "a", "1.5", "hello world", "x y" };
	char *out;

	(void)state;
	out = write_row(N(f), f);
	assert_string_equal(out, "a,1.5,hello world,x y\n");
	free(out);
}

static void test_csv_write_quotes_only_when_needed(void **state)
{
	static const char *const f[] = { "b,c", "d\"e", "x\ny", "cr\r", "plain" };
	char *out;

	(void)state;
	out = write_row(N(f), f);
	assert_string_equal(out,
			    "\"b,c\",\"d\"\"e\",\"x\ny\",\"cr\r\",plain\n");
	free(out);
}

static void test_csv_write_doubled_quotes(void **state)
{
	static const char *const f[] = { "\"", "say \"hi\"" };
	char *out;

	(void)state;
	out = write_row(N(f), f);
	assert_string_equal(out, "\"\"\"\",\"say \"\"hi\"\"\"\n");
	free(out);
}

static void test_csv_write_null_and_empty_fields(void **state)
{
	static const char *const f[] = { NULL, "a", "", NULL };
	static const char *const one[] = { NULL };
	char *out;

	(void)state;
	out = write_row(N(f), f);
	assert_string_equal(out, ",a,,\n");
	free(out);
	out = write_row(1, one);
	assert_string_equal(out, "\n");
	free(out);
}

static void test_csv_write_error_returns_minus_one(void **state)
{
	static const char *const f[] = { "a", "b" };
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	if (!full)
		skip();
	setvbuf(full, NULL, _IONBF, 0);
	errno = 0;
	assert_int_equal(st_csv_write_row(full, N(f), f), -1);
	assert_int_equal(errno, ENOSPC);
	fclose(full);
}

static void test_csv_write_parse_round_trip(void **state)
{
	static const char *const header[] = { "plain", "comma", "quote",
					      "newline", "crlf", "empty",
					      "utf8" };
	static const char *const row[] = { "v", "1,2", "a \"q\" b", "l1\nl2",
					   "x\r\ny", "", "caf\xC3\xA9" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_table t;
	st_error err = { 0 };

	(void)state;
	assert_non_null(f);
	assert_int_equal(st_csv_write_row(f, N(header), header), 0);
	assert_int_equal(st_csv_write_row(f, N(row), row), 0);
	assert_int_equal(st_csv_write_row(f, N(row), row), 0);
	assert_int_equal(fclose(f), 0);

	st_table_init(&t);
	if (st_table_parse(&t, "rt.csv", buf, len, &err) != 0)
		fail_msg("round trip parse failed: %s\n%s", err.text, buf);
	assert_int_equal(t.ncols, N(header));
	assert_int_equal(t.nrows, 2);
	for (size_t i = 0; i < N(header); i++)
		assert_string_equal(t.header[i], header[i]);
	assert_row(&t, 0, N(row), row);
	assert_row(&t, 1, N(row), row);
	/* header line 1; each record holds two embedded newlines (l1\nl2 and
	 * x\r\ny), so spans three lines: 2-4 and 5-7 */
	assert_int_equal(t.lines[0], 4);
	assert_int_equal(t.lines[1], 7);
	st_table_release(&t);
	free(buf);
}

/* csv.h: the reader trims blanks around unquoted fields (libcsv's rule),
 * so st_csv_write_row quotes a value with leading or trailing blanks, and
 * it survives write -> parse (it did not while only comma, quote, CR and
 * LF were quoted). */
static void test_csv_round_trip_keeps_leading_trailing_blanks(void **state)
{
	static const char *const header[] = { "a", "b" };
	static const char *const row[] = { " padded ", "\ttab" };
	char *buf = NULL, got0[32] = "", got1[32] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_table t;
	st_error err = { 0 };
	int rc;

	(void)state;
	assert_non_null(f);
	st_csv_write_row(f, 2, header);
	st_csv_write_row(f, 2, row);
	fclose(f);
	st_table_init(&t);
	rc = st_table_parse(&t, "sp.csv", buf, len, &err);
	if (rc == 0 && t.nrows == 1) {
		snprintf(got0, sizeof(got0), "%s", st_table_get(&t, 0, 0));
		snprintf(got1, sizeof(got1), "%s", st_table_get(&t, 0, 1));
	}
	st_table_release(&t);
	free(buf);
	assert_int_equal(rc, 0);
	assert_string_equal(got0, " padded ");
	assert_string_equal(got1, "\ttab");
}

/* ---- the hand-split fast path agrees with libcsv ------------------------------- */

/* Parse BUF both ways and compare everything: result, error, shape, cells
 * and lines. */
static void compare_fast_and_libcsv(const char *buf, size_t len)
{
	st_table a, b;
	st_error ea = { 0 }, eb = { 0 };
	int ra, rb;
	char why[4096] = "";

	st_table_init(&a);
	st_table_init(&b);
	ra = st_table_parse_ex(&a, "d.csv", buf, len, 0, &ea);
	rb = st_table_parse_ex(&b, "d.csv", buf, len, ST_CSV_LIBCSV_ONLY, &eb);
	if (ra != rb)
		snprintf(why, sizeof(why), "rc %d vs %d (%s | %s)", ra, rb,
			 ea.text, eb.text);
	else if (ra != 0 && (ea.code != eb.code || strcmp(ea.text, eb.text)))
		snprintf(why, sizeof(why), "error %d '%s' vs %d '%s'", ea.code,
			 ea.text, eb.code, eb.text);
	else if (ra == 0 && (a.ncols != b.ncols || a.nrows != b.nrows))
		snprintf(why, sizeof(why), "shape %zux%zu vs %zux%zu", a.nrows,
			 a.ncols, b.nrows, b.ncols);
	else if (ra == 0) {
		for (size_t c = 0; c < a.ncols && !why[0]; c++)
			if (strcmp(a.header[c], b.header[c]))
				snprintf(why, sizeof(why), "header %zu '%s' vs '%s'",
					 c, a.header[c], b.header[c]);
		for (size_t r = 0; r < a.nrows && !why[0]; r++) {
			if (a.lines[r] != b.lines[r])
				snprintf(why, sizeof(why), "row %zu line %zu vs %zu",
					 r, a.lines[r], b.lines[r]);
			for (size_t c = 0; c < a.ncols && !why[0]; c++)
				if (strcmp(st_table_get(&a, r, (int)c),
					   st_table_get(&b, r, (int)c)))
					snprintf(why, sizeof(why),
						 "cell %zu,%zu '%s' vs '%s'", r, c,
						 st_table_get(&a, r, (int)c),
						 st_table_get(&b, r, (int)c));
		}
	}
	st_table_release(&a);
	st_table_release(&b);
	if (why[0])
		fail_msg("fast path and libcsv differ on \"%.*s\": %s",
			 (int)len, buf, why);
}

static void test_csv_fast_path_matches_libcsv(void **state)
{
	static const char *const cases[] = {
		"a,b\n1,2\n",
		"a,b\n 1 ,\t2\t\n",
		"a , b\n1,2",
		"a,b\n\n1,2\n\n",
		"a,b\n   \n1,2\n\t\n3,4\n",
		"a,b\r\n1,2\r\n3,4",
		"a,b\r\n\r\n1,2\r\n",
		"a,b\n1\r2,3\n",
		"a,b\n1,2\r",
		"a,b\n1,\n,2\n,\n",
		"a,b\n\"1\",2\n3,\"4\"\n",
		"a,b\n\"x\ny\",2\n3,4\n",
		"a,b\n\"x\r\ny\",2\r\n3,4\r\n",
		"a,b\n1,2,3\n",
		"a,b\n1\n",
		"a,b\n\"1,2\n",
		"a,b\n1,x\"y\n",
		"\xEF\xBB\xBF a ,b\n1,2\n",
		"a\n\n\n",
		"",
		" \n",
		"a,b,c\n1,2,3\n4,5\n",
		"a,b\n\"\"\"q\"\"\",2\n",
		"a,b\n \"x\" ,2\n",
		"a,b\n  \r\n1,2\n",
		"a,b\n\t,\t\n",
		"a,b\n1,2 \r\n3 ,4\n",
		"a,b\n,\n",
		"a,b\n\"\"\n",
		"a,b\n1,2\n\"3\",4",
		"a,b\n1,2\n3,\"4",
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		compare_fast_and_libcsv(cases[i], strlen(cases[i]));
}

/* The same comparison on every CSV of the shipped sample (the test runs in
 * tests/unit). */
static void test_csv_fast_path_matches_libcsv_on_sample(void **state)
{
	static const char *const dirs[] = {
		"../../data/file_transfer", "../../data/file_transfer/distiller_db",
		"../../data/streaming",
	};
	size_t files = 0;

	(void)state;
	for (size_t i = 0; i < N(dirs); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d)) != NULL) {
			char path[512], *buf;
			size_t l = strlen(de->d_name);
			FILE *f;
			long n;

			if (l < 4 || strcmp(de->d_name + l - 4, ".csv") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			f = fopen(path, "rb");
			assert_non_null(f);
			fseek(f, 0, SEEK_END);
			n = ftell(f);
			fseek(f, 0, SEEK_SET);
			buf = malloc((size_t)n + 1);
			assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
			fclose(f);
			compare_fast_and_libcsv(buf, (size_t)n);
			free(buf);
			files++;
		}
		closedir(d);
	}
	assert_true(files >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_parse_header_and_rows),
		cmocka_unit_test(test_csv_lookup_by_name),
		cmocka_unit_test(test_csv_require_extra_columns_ignored),
		cmocka_unit_test(test_csv_require_missing_column_names_file_and_column),
		cmocka_unit_test(test_csv_quoted_fields),
		cmocka_unit_test(test_csv_line_number_after_multiline_field),
		cmocka_unit_test(test_csv_crlf_line_endings),
		cmocka_unit_test(test_csv_crlf_error_line),
		cmocka_unit_test(test_csv_utf8_bom_skipped),
		cmocka_unit_test(test_csv_final_record_without_newline),
		cmocka_unit_test(test_csv_header_only),
		cmocka_unit_test(test_csv_empty_file),
		cmocka_unit_test(test_csv_too_few_fields_names_line),
		cmocka_unit_test(test_csv_too_many_fields_names_line),
		cmocka_unit_test(test_csv_nul_byte_in_field_is_65_naming_line),
		cmocka_unit_test(test_csv_unterminated_quote),
		cmocka_unit_test(test_csv_stray_quote_is_malformed),
		cmocka_unit_test(test_csv_reparse_same_table),
		cmocka_unit_test(test_csv_read_missing_file_is_66),
		cmocka_unit_test(test_csv_read_directory_is_66),
		cmocka_unit_test(test_csv_read_file),
		cmocka_unit_test(test_csv_write_plain_unquoted),
		cmocka_unit_test(test_csv_write_quotes_only_when_needed),
		cmocka_unit_test(test_csv_write_doubled_quotes),
		cmocka_unit_test(test_csv_write_null_and_empty_fields),
		cmocka_unit_test(test_csv_write_error_returns_minus_one),
		cmocka_unit_test(test_csv_write_parse_round_trip),
		cmocka_unit_test(test_csv_fast_path_matches_libcsv),
		cmocka_unit_test(test_csv_fast_path_matches_libcsv_on_sample),
		cmocka_unit_test(test_csv_round_trip_keeps_leading_trailing_blanks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
