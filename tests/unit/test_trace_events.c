/* Unit tests: `trace events` as a library (trace_events.h): start and end
 * equal st_time_format_utc for instants around second boundaries, before
 * 1970 and at the reader's limits (the formatter caches a second);
 * every control character escaped in CSV and JSON, nothing else touched;
 * derived keys; --limit across files; what becomes of inputs that are
 * missing, empty or hold corrupt lines; a key that is a column already,
 * in the writer and in --keys (st_trace_events_keys_parse); the events
 * as columns (st_trace_events_cols). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/time.h"
#include "streamtime/trace_events.h"

#define TMPDIR_NAME "events"
#include "tmpdir.h"

/* A file NAME in the test directory holding TEXT; its path (static). */
static const char *file_with(const char *name, const char *text)
{
	static char path[4][128];
	static int k;
	char *p = path[k++ % 4];
	FILE *f;

	snprintf(p, 128, "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* The output of st_trace_events_write over PATHS with O (new string). */
static char *run(const char *const *paths, size_t n,
		 const st_trace_events_opts *o, st_trace_events_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_error err = { 0 };

	assert_non_null(f);
	if (st_trace_events_write(paths, n, o, f, res, &err) < 0)
		fail_msg("st_trace_events_write: %s", err.text);
	fclose(f);
	return buf;
}

static void test_times(void **state)
{
	static const int64_t ts[] = {
		0, 1, 999999, 1000000, 1000001, 1999999, 2000000, -1, -5,
		-999999, -1000000, -1000001, 1727387307981693,
		1727387307999999, 1727387308000000, 1727387308000001,
		INT64_C(1) << 53, -(INT64_C(1) << 53),
	};
	char text[8192], want[64];
	const char *paths[1];
	st_trace_keys keys = { .n = 0 };
	st_trace_events_opts o = { .keys = &keys, .max_bad = 10 };
	st_trace_events_result res;
	size_t k = 0, i = 0;
	char *out, *line, *save;

	(void)state;
	/* each event's dur takes it to the next one's ts */
	for (size_t j = 0; j < sizeof(ts) / sizeof(ts[0]); j++)
		k += (size_t)snprintf(text + k, sizeof(text) - k,
				      "{\"name\":\"n\",\"cat\":\"c\",\"pid\":1,"
				      "\"tid\":1,\"ts\":%" PRId64 ",\"dur\":%d,"
				      "\"ph\":\"X\"}\n", ts[j], (int)(j % 3));
	paths[0] = file_with("times.pfw", text);
	out = run(paths, 1, &o, &res);
	assert_int_equal(res.rows, sizeof(ts) / sizeof(ts[0]));
	line = strtok_r(out, "\n", &save);
	assert_string_equal(line, "ts,dur,start,end,host,pid,tid,name,cat,"
			    "file,bytes");
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *cell[11], *c = line;

		for (int j = 0; j < 11; j++) {
			cell[j] = c;
			c = strchr(c, ',');
			if (c)
				*c++ = 0;
			else
				assert_int_equal(j, 10);
		}
		assert_int_equal(strtoll(cell[0], NULL, 10), ts[i]);
		st_time_format_utc(ts[i] * 1000, want, sizeof(want));
		assert_string_equal(cell[2], want);
		st_time_format_utc((ts[i] + (int64_t)(i % 3)) * 1000, want,
				   sizeof(want));
		assert_string_equal(cell[3], want);
		/* no host, file or bytes: empty */
		assert_string_equal(cell[4], "");
		assert_string_equal(cell[9], "");
		assert_string_equal(cell[10], "");
		i++;
	}
	assert_int_equal(i, sizeof(ts) / sizeof(ts[0]));
	free(out);
	st_trace_events_result_release(&res);
}

/* A JSON string literal of every byte 1..127 and the C1 controls, as the
 * trace writes it: the reader decodes it to those bytes. */
static void test_escapes(void **state)
{
	char text[4096], name[512], want_csv[2048];
	const char *paths[1];
	st_trace_keys keys = { .n = 0 };
	st_trace_events_opts o = { .keys = &keys, .max_bad = 10 };
	st_trace_events_result res;
	size_t k = 0, n = 0, w = 0;
	char *out, *body;
	json_t *j;
	json_error_t jerr;

	(void)state;
	for (int c = 1; c < 128; c++)
		name[n++] = (char)c;
	for (int c = 0x80; c < 0xa0; c++) {
		name[n++] = (char)0xc2;
		name[n++] = (char)c;
	}
	memcpy(name + n, "\xc3\xa9\xe4\xb8\xad", 5);   /* é, U+4E2D */
	n += 5;
	name[n] = 0;
	/* the trace line, with jansson's escapes */
	j = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:{s:s}}", "name",
		      "n", "cat", "c", "pid", 1, "tid", 1, "ts", 5, "dur", 1,
		      "ph", "X", "args", "fname", name);
	assert_non_null(j);
	body = json_dumps(j, JSON_COMPACT);
	k = (size_t)snprintf(text, sizeof(text), "%s\n", body);
	assert_true(k < sizeof(text));
	free(body);
	json_decref(j);
	paths[0] = file_with("escapes.pfw", text);

	/* CSV: \u00XX for controls, \\ for a backslash, the rest as it is,
	 * and the cell quoted (it holds a comma and quotes, doubled) */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f) {
			w += (size_t)sprintf(want_csv + w, "\\u%04x", c);
		} else if (c == 0xc2 && (unsigned char)name[i + 1] < 0xa0) {
			w += (size_t)sprintf(want_csv + w, "\\u%04x",
					     (unsigned char)name[++i]);
		} else if (c == '\\') {
			w += (size_t)sprintf(want_csv + w, "\\\\");
		} else if (c == '"') {
			w += (size_t)sprintf(want_csv + w, "\"\"");
		} else {
			want_csv[w++] = (char)c;
		}
	}
	want_csv[w] = 0;
	out = run(paths, 1, &o, &res);
	assert_int_equal(res.rows, 1);
	{
		char *row = strchr(out, '\n') + 1, *cell;

		/* one line */
		assert_ptr_equal(strchr(row, '\n'), row + strlen(row) - 1);
		cell = strstr(row, ",\"");
		assert_non_null(cell);
		assert_memory_equal(cell + 2, want_csv, w);
		assert_string_equal(cell + 2 + w, "\",\n");
	}
	free(out);
	st_trace_events_result_release(&res);

	/* JSON lines: parsed back, the same bytes; no raw control byte */
	o.format = ST_TRACE_EVENTS_JSONL;
	out = run(paths, 1, &o, &res);
	for (const char *p = out; *p; p++) {
		unsigned char c = (unsigned char)*p;

		assert_false((c < 0x20 && c != '\n') || c == 0x7f ||
			     (c == 0xc2 && (unsigned char)p[1] < 0xa0));
	}
	j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "file")),
			    name);
	assert_true(json_is_null(json_object_get(j, "bytes")));
	assert_true(json_is_null(json_object_get(j, "host")));
	json_decref(j);
	free(out);
	st_trace_events_result_release(&res);
}

static void test_keys_limit_inputs(void **state)
{
	const char *ev = "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":1,"
			 "\"tid\":2,\"ts\":1,\"dur\":1,\"ph\":\"X\",\"args\":"
			 "{\"hostname\":\"h\",\"fname\":\"/a/ckpt-0001.pt\","
			 "\"ret\":8}}\n";
	char two[1024], corrupt[1024];
	const char *paths[4];
	st_trace_keys keys;
	st_trace_events_opts o = { .keys = &keys, .max_bad = 1 };
	st_trace_events_result res;
	st_error err;
	char *out;
	FILE *f;

	(void)state;
	snprintf(two, sizeof(two), "[\n%s%s]\n", ev, ev);
	snprintf(corrupt, sizeof(corrupt), "{\"x\n%s{bad\n", ev);
	assert_int_equal(st_trace_keys_parse(&keys, "thread,pattern,prefix:1,"
					     "phase", NULL), 0);
	paths[0] = file_with("two.pfw", two);
	paths[1] = file_with("corrupt.pfw", corrupt);
	paths[2] = file_with("empty.pfw", "");
	paths[3] = "/nonexistent/x.pfw";
	out = run(paths, 4, &o, &res);
	assert_string_equal(out,
		"ts,dur,start,end,host,pid,tid,name,cat,file,bytes,thread,"
		"pattern,prefix:1,phase\n"
		"1,1,1970-01-01T00:00:00.000001+00:00,1970-01-01T00:00:00."
		"000002+00:00,h,1,2,write,POSIX,/a/ckpt-0001.pt,8,h:1:2,"
		"ckpt*.pt,/a,\n"
		"1,1,1970-01-01T00:00:00.000001+00:00,1970-01-01T00:00:00."
		"000002+00:00,h,1,2,write,POSIX,/a/ckpt-0001.pt,8,h:1:2,"
		"ckpt*.pt,/a,\n"
		"1,1,1970-01-01T00:00:00.000001+00:00,1970-01-01T00:00:00."
		"000002+00:00,h,1,2,write,POSIX,/a/ckpt-0001.pt,8,h:1:2,"
		"ckpt*.pt,/a,\n");
	free(out);
	assert_int_equal(res.rows, 3);
	assert_int_equal(res.events, 3);
	assert_false(res.limited);
	assert_int_equal(res.n_files, 4);
	assert_int_equal(res.bad_lines, 2);
	assert_int_equal(res.n_bad, 1);          /* max_bad */
	assert_int_equal(res.bad[0].file, 1);
	assert_int_equal(res.bad[0].line, 1);
	assert_false(res.files_in[0].not_trace);
	assert_false(res.files_in[1].not_trace);
	assert_true(res.files_in[2].not_trace);
	assert_int_equal(res.files_in[3].err_code, ST_EXIT_NOINPUT);
	st_trace_events_result_release(&res);

	/* the limit: the third row is the second file's, the rest unread */
	o.limit = 3;
	o.format = ST_TRACE_EVENTS_JSONL;
	out = run(paths, 4, &o, &res);
	assert_int_equal(res.rows, 3);
	assert_true(res.limited);
	assert_int_equal(res.n_files, 2);
	assert_false(res.files_in[1].not_trace);
	free(out);
	st_trace_events_result_release(&res);

	/* a key that is a column already: 64, nothing written */
	assert_int_equal(st_trace_keys_parse(&keys, "pattern,file", NULL), 0);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(st_trace_events_write(paths, 1, &o, f, &res, &err),
			 -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_non_null(strstr(err.text, "'file'"));
	assert_int_equal(ftell(f), 0);
	fclose(f);
	st_trace_events_result_release(&res);
}

/* The events as columns (st_trace_events_cols): the values written
 * here by hand, a text as its bytes interned once (the same file, one
 * id; across inputs too), none for what an event lacks, the keys; the
 * filter, the limit and what became of the inputs as the writer's. */
static void test_cols(void **state)
{
	const char *a = "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":7,"
			"\"tid\":8,\"ts\":100,\"dur\":5,\"ph\":\"X\",\"args\":"
			"{\"hostname\":\"h\",\"fname\":\"/d/ckpt-0001.pt\","
			"\"ret\":4096}}\n";
	const char *b = "{\"name\":\"op\\tx\",\"cat\":\"app\",\"pid\":-1,"
			"\"tid\":0,\"ts\":-3,\"dur\":0,\"ph\":\"X\"}\n";
	char t1[1024], t2[1024];
	const char *paths[3];
	st_trace_keys keys;
	st_trace_filter filter = { 0 };
	st_trace_events_opts o = { .keys = &keys, .max_bad = 4 };
	st_trace_event_cols c;
	st_trace_events_result res;
	st_error err;
	size_t len;
	const char *s;

	(void)state;
	snprintf(t1, sizeof(t1), "[\n%s%s{bad\n]\n", a, b);
	snprintf(t2, sizeof(t2), "%s", a);
	paths[0] = file_with("c1.pfw", t1);
	paths[1] = file_with("c2.pfw", t2);
	paths[2] = "/nonexistent/c3.pfw";
	assert_int_equal(st_trace_keys_parse(&keys, "pattern,thread", NULL), 0);
	assert_int_equal(st_trace_events_cols(paths, 3, &o, &c, &res, &err), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.nkeys, 2);
	assert_string_equal(c.knames[0], "pattern");
	assert_string_equal(c.knames[1], "thread");
	assert_int_equal(c.ts[0], 100);
	assert_int_equal(c.dur[0], 5);
	assert_int_equal(c.pid[0], 7);
	assert_int_equal(c.tid[0], 8);
	assert_int_equal(c.bytes[0], 4096);
	assert_string_equal(st_strtab_str(&c.strs, c.host[0], NULL), "h");
	assert_string_equal(st_strtab_str(&c.strs, c.name[0], NULL), "write");
	assert_string_equal(st_strtab_str(&c.strs, c.cat[0], NULL), "POSIX");
	assert_string_equal(st_strtab_str(&c.strs, c.file[0], NULL),
			    "/d/ckpt-0001.pt");
	assert_string_equal(st_strtab_str(&c.strs, c.key[0][0], NULL),
			    "ckpt*.pt");
	assert_string_equal(st_strtab_str(&c.strs, c.key[1][0], NULL),
			    "h:7:8");
	/* the second event: a tab in its name, no host, file nor bytes */
	assert_int_equal(c.ts[1], -3);
	assert_int_equal(c.pid[1], -1);
	assert_int_equal(c.bytes[1], -1);
	s = st_strtab_str(&c.strs, c.name[1], &len);
	assert_int_equal(len, 4);
	assert_memory_equal(s, "op\tx", 4);
	assert_int_equal(c.host[1], ST_TRACE_COL_NONE);
	assert_int_equal(c.file[1], ST_TRACE_COL_NONE);
	assert_int_equal(c.key[0][1], ST_TRACE_COL_NONE);
	assert_string_equal(st_strtab_str(&c.strs, c.key[1][1], NULL),
			    "?:-1:0");
	/* the other input's event: the same texts, the same ids */
	assert_int_equal(c.file[2], c.file[0]);
	assert_int_equal(c.name[2], c.name[0]);
	assert_int_equal(c.key[0][2], c.key[0][0]);
	assert_int_equal(res.rows, 3);
	assert_int_equal(res.events, 3);
	assert_int_equal(res.n_files, 3);
	assert_int_equal(res.bad_lines, 1);
	assert_int_equal(res.bad[0].line, 4);
	assert_int_equal(res.files_in[2].err_code, ST_EXIT_NOINPUT);
	st_trace_event_cols_release(&c);
	st_trace_events_result_release(&res);

	/* a filter and a limit */
	assert_int_equal(st_trace_filter_parse(&filter, "name=write", &err), 0);
	o.filter = &filter;
	o.limit = 1;
	assert_int_equal(st_trace_events_cols(paths, 3, &o, &c, &res, &err), 0);
	assert_int_equal(c.n, 1);
	assert_true(res.limited);
	assert_int_equal(res.n_files, 1);
	st_trace_event_cols_release(&c);
	st_trace_events_result_release(&res);
	st_trace_filter_release(&filter);

	/* a key that is a column already: 64 */
	assert_int_equal(st_trace_keys_parse(&keys, "file", NULL), 0);
	o.filter = NULL;
	assert_int_equal(st_trace_events_cols(paths, 1, &o, &c, &res, &err),
			 -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	st_trace_event_cols_release(&c);
	st_trace_events_result_release(&res);
}

/* --keys: derived keys taken; a column (host, file, ...) 64, named. */
static void test_keys_parse(void **state)
{
	st_trace_keys k = { 0 };
	st_error err;

	(void)state;
	assert_int_equal(st_trace_events_keys_parse(&k, "thread,prefix:2",
						    &err), 0);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.v[0].kind, ST_TRACE_KEY_THREAD);
	assert_int_equal(st_trace_events_keys_parse(&k, "pattern,host", &err),
			 -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_string_equal(err.text, "'host': a column already (host, pid, "
			    "tid, name, cat and file always are)");
	assert_int_equal(st_trace_events_keys_parse(&k, "file", &err), -1);
	assert_string_equal(err.text, "'file': a column already (host, pid, "
			    "tid, name, cat and file always are)");
	assert_int_equal(st_trace_events_keys_parse(&k, "", &err), 0);
	assert_int_equal(k.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_keys_parse),
		cmocka_unit_test(test_keys_limit_inputs),
		cmocka_unit_test(test_cols),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
