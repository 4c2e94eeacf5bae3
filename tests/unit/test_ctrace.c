/* test_ctrace.c - the Chrome trace writer (output/ctrace.c), JSON and
 * Perfetto's protobuf (output/pftrace.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/ctrace.h"
#include "streamtime/pftrace.h"

/* Events written and parsed back: separators, fields, escapes, args. */
static void test_ctrace_events(void **state)
{
	static st_ctrace w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_error err;
	json_t *root, *ev, *args;

	(void)state;
	st_ctrace_init(&w, f);
	st_ctrace_raw(&w, "{\"traceEvents\":[");
	st_ctrace_meta(&w, "process_name", 3, -1, "name", "a \"b\"", 0);
	st_ctrace_meta(&w, "thread_sort_index", 3, 7, "sort_index", NULL, -2);
	st_ctrace_slice(&w, "re\nad", 5, "POSIX", 5, 3, 7, -5, 10);
	st_ctrace_end(&w);
	st_ctrace_slice(&w, "x", 1, "c", 1, 1, 2, 3, 4);
	st_ctrace_arg_str(&w, "file", "/a\\b", 4);
	st_ctrace_arg_int(&w, "bytes", INT64_MAX);
	st_ctrace_arg_real(&w, "s", 0.1);
	st_ctrace_arg_bool(&w, "ok", false);
	st_ctrace_end(&w);
	st_ctrace_raw(&w, "\n]}\n");
	assert_int_equal(st_ctrace_finish(&w, "the test", &err), 0);
	assert_int_equal(w.n, 4);
	fclose(f);
	root = json_loads(buf, 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "traceEvents")),
			 4);
	ev = json_array_get(json_object_get(root, "traceEvents"), 0);
	assert_null(json_object_get(ev, "tid"));
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(ev, "args"), "name")), "a \"b\"");
	ev = json_array_get(json_object_get(root, "traceEvents"), 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "tid")), 7);
	assert_int_equal(json_integer_value(json_object_get(
		json_object_get(ev, "args"), "sort_index")), -2);
	ev = json_array_get(json_object_get(root, "traceEvents"), 2);
	assert_string_equal(json_string_value(json_object_get(ev, "name")),
			    "re\nad");
	assert_string_equal(json_string_value(json_object_get(ev, "ph")), "X");
	assert_int_equal(json_integer_value(json_object_get(ev, "ts")), -5);
	assert_int_equal(json_object_size(json_object_get(ev, "args")), 0);
	ev = json_array_get(json_object_get(root, "traceEvents"), 3);
	args = json_object_get(ev, "args");
	assert_string_equal(json_string_value(json_object_get(args, "file")),
			    "/a\\b");
	assert_true(json_integer_value(json_object_get(args, "bytes")) ==
		    INT64_MAX);
	assert_true(json_real_value(json_object_get(args, "s")) == 0.1);
	assert_true(json_is_false(json_object_get(args, "ok")));
	json_decref(root);
	free(buf);
}

/* Counter (C) and instant (i) events: their fields, their args. */
static void test_ctrace_counter_instant(void **state)
{
	static st_ctrace w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_error err;
	json_t *root, *ev;

	(void)state;
	st_ctrace_init(&w, f);
	st_ctrace_raw(&w, "{\"traceEvents\":[");
	st_ctrace_counter(&w, "CPU %", 5, 9, 1000);
	st_ctrace_arg_real(&w, "usr", 12.5);
	st_ctrace_arg_real(&w, "idle", 80.0);
	st_ctrace_end(&w);
	st_ctrace_instant(&w, "seed", 4, "mllog", 5, 9, 1, 2000);
	st_ctrace_arg_str(&w, "value", "42", 2);
	st_ctrace_end(&w);
	st_ctrace_raw(&w, "\n]}\n");
	assert_int_equal(st_ctrace_finish(&w, "the test", &err), 0);
	fclose(f);
	assert_non_null(root = json_loads(buf, 0, NULL));
	ev = json_array_get(json_object_get(root, "traceEvents"), 0);
	assert_string_equal(json_string_value(json_object_get(ev, "ph")), "C");
	assert_null(json_object_get(ev, "tid"));
	assert_null(json_object_get(ev, "cat"));
	assert_int_equal(json_integer_value(json_object_get(ev, "pid")), 9);
	assert_int_equal(json_integer_value(json_object_get(ev, "ts")), 1000);
	assert_true(json_real_value(json_object_get(json_object_get(ev, "args"),
						    "usr")) == 12.5);
	ev = json_array_get(json_object_get(root, "traceEvents"), 1);
	assert_string_equal(json_string_value(json_object_get(ev, "ph")), "i");
	assert_string_equal(json_string_value(json_object_get(ev, "s")), "t");
	assert_string_equal(json_string_value(json_object_get(ev, "cat")),
			    "mllog");
	assert_int_equal(json_integer_value(json_object_get(ev, "tid")), 1);
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(ev, "args"), "value")), "42");
	json_decref(root);
	free(buf);
}

/* Reals come out as jansson writes them (the timeline's args were
 * jansson's before the writer). */
static void test_ctrace_real_as_jansson(void **state)
{
	const double v[] = { 0.0, -0.0, 1.0, 0.1, 1.0 / 3, 123456.789, 1e20,
			     1e-7, -2.5e-300, 1.7976931348623157e308, 42.0,
			     3600.5 };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		static st_ctrace w;
		char *buf = NULL, *want;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		json_t *j = json_real(v[i]);
		st_error err;

		st_ctrace_init(&w, f);
		st_ctrace_arg_real(&w, "k", v[i]);
		assert_int_equal(st_ctrace_finish(&w, "x", &err), 0);
		fclose(f);
		want = json_dumps(j, JSON_ENCODE_ANY);
		assert_non_null(want);
		assert_true(strncmp(buf, "\"k\":", 4) == 0);
		assert_string_equal(buf + 4, want);
		free(want);
		json_decref(j);
		free(buf);
	}
}

/* A write that fails (a full disk) is an error 74 at the end. */
static void test_ctrace_write_error(void **state)
{
	static st_ctrace w;
	FILE *f = fopen("/dev/full", "w");
	st_error err;

	(void)state;
	if (!f)
		skip();
	st_ctrace_init(&w, f);
	for (int i = 0; i < 10000; i++)
		st_ctrace_meta(&w, "thread_name", 1, i, "name", "tid", 0);
	assert_int_equal(st_ctrace_finish(&w, "the test", &err), -1);
	assert_int_equal(err.code, 74);
	assert_non_null(strstr(err.text, "cannot write the test"));
	fclose(f);
}

/* A Perfetto trace BUF[0..LEN) is its first packet (the clocks) and then
 * WANT[0..N). */
static void assert_after_clocks(const char *buf, size_t len,
				const unsigned char *want, size_t n)
{
	size_t first;

	/* the first packet: field 1, its length in one or two bytes */
	assert_true(len > 3 && (unsigned char)buf[0] == 0x0a);
	first = (unsigned char)buf[1] < 0x80
		? 2 + (size_t)(unsigned char)buf[1]
		: 3 + (((size_t)(unsigned char)buf[1] & 0x7f) |
		       (size_t)(unsigned char)buf[2] << 7);
	assert_int_equal(len, first + n);
	assert_memory_equal(buf + first, want, n);
}

/* The Perfetto form, byte for byte against an encoding worked out by hand
 * from data/perfetto/streamtime_trace.proto: after the first packet (the
 * clocks), a process's descriptor, its thread's, and one slice with its
 * interned strings, a string arg and an int arg. */
#define PERFETTO_FIRST_SLICE \
	/* process: track_descriptor (60) { uuid 1, process { pid 1, \
	 * process_name "p" } }, sequence 1 */ \
	"\x0a\x0e" "\xe2\x03\x09" "\x08\x01" "\x1a\x05\x08\x01\x32\x01p" \
	"\x50\x01" \
	/* thread: { uuid 2, parent 1, thread { pid 1, tid 7, name "t" } } */ \
	"\x0a\x12" "\xe2\x03\x0d" "\x08\x02" "\x28\x01" \
	"\x22\x07\x08\x01\x10\x07\x2a\x01t" "\x50\x01" \
	/* the slice: timestamp 1000 (clock 64 from 0) */ \
	"\x0a\x55" "\x40\xe8\x07" \
	/* interned_data (12): category 1 POSIX, name 1 read, string 1 \
	 * "/f", arg names 1 file and 2 bytes */ \
	"\x62\x33" "\x0a\x09\x08\x01\x12\x05POSIX" \
	"\x12\x08\x08\x01\x12\x04read" \
	"\xea\x01\x06\x08\x01\x12\x02/f" \
	"\x1a\x08\x08\x01\x12\x04" "file" \
	"\x1a\x09\x08\x02\x12\x05" "bytes" \
	/* sequence 1; track_event (11): category 1, name 1, track 2, \
	 * {file: string 1}, {bytes: 42}, legacy_event { phase 'X', \
	 * duration 5 } */ \
	"\x50\x01" "\x5a\x19" "\x18\x01\x50\x01\x58\x02" \
	"\x22\x05\x08\x01\x88\x01\x01" "\x22\x04\x08\x02\x20\x2a" \
	"\x32\x04\x10\x58\x18\x05"

static void test_ctrace_perfetto_bytes(void **state)
{
	static st_ctrace w;
	static const unsigned char want[] = PERFETTO_FIRST_SLICE;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_error err;

	(void)state;
	assert_int_equal(st_ctrace_init_format(&w, f, ST_CTRACE_PERFETTO,
					       &err), 0);
	st_ctrace_raw(&w, "{\"not\":\"written\"");
	st_ctrace_meta(&w, "process_name", 1, -1, "name", "p", 0);
	st_ctrace_meta(&w, "thread_name", 1, 7, "name", "t", 0);
	st_ctrace_slice(&w, "read", 4, "POSIX", 5, 1, 7, 1000, 5);
	st_ctrace_arg_str(&w, "file", "/f", 2);
	st_ctrace_arg_int(&w, "bytes", 42);
	st_ctrace_end(&w);
	assert_int_equal(st_ctrace_finish(&w, "the trace", &err), 0);
	st_ctrace_release(&w);
	fclose(f);
	assert_after_clocks(buf, len, want, sizeof(want) - 1);
	free(buf);
}

/* The bytes of st_pftrace_slice_iid, worked out by hand from
 * data/perfetto/streamtime_trace.proto: the first slice's are those of
 * test_ctrace_perfetto_bytes (the same event through st_ctrace_slice);
 * then its strings by iid only, two-byte varints, a slice without
 * category or args, and one earlier than the default clock. */
static void test_pftrace_slice_iid_bytes(void **state)
{
	static st_ctrace w;
	static const unsigned char want[] = PERFETTO_FIRST_SLICE
		/* ts 1003 (delta 3), the string value 2 interned since,
		 * bytes 200 (c8 01), dur 300 (ac 02): packet 43 bytes,
		 * track_event 27 */
		"\x0a\x2b" "\x40\x03" "\x62\x08\xea\x01\x05\x08\x02\x12\x01\xff"
		"\x50\x01" "\x5a\x1b"
		"\x18\x01\x50\x01\x58\x02"
		"\x22\x05\x08\x01\x88\x01\x01" "\x22\x05\x08\x02\x20\xc8\x01"
		"\x32\x05\x10\x58\x18\xac\x02"
		/* no category, file or bytes; ts 1003 again (delta 0), dur 0 */
		"\x0a\x10" "\x40\x00" "\x50\x01" "\x5a\x0a"
		"\x50\x01\x58\x02" "\x32\x04\x10\x58\x18\x00"
		/* ts 500, before clock 64 (at 1003): clock 65 (at 0) made
		 * the default (59 { 58: 65 }), delta 500 (f4 03) */
		"\x0a\x19" "\xda\x03\x03\xd0\x03\x41" "\x40\xf4\x03" "\x50\x01"
		"\x5a\x0c" "\x18\x01\x50\x01\x58\x02" "\x32\x04\x10\x58\x18\x01";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	st_pftrace_call c = { .bytes = 42, .pid = 1, .tid = 7, .ts = 1000,
			      .dur = 5 };
	bool utf8 = false;
	st_error err;

	(void)state;
	assert_int_equal(st_ctrace_init_format(&w, f, ST_CTRACE_PERFETTO,
					       &err), 0);
	st_ctrace_meta(&w, "process_name", 1, -1, "name", "p", 0);
	st_ctrace_meta(&w, "thread_name", 1, 7, "name", "t", 0);
	c.cat = st_pftrace_iid(w.pf, ST_PFTRACE_CATEGORY, "POSIX", 5, NULL);
	c.name = st_pftrace_iid(w.pf, ST_PFTRACE_NAME, "read", 4, NULL);
	c.file = st_pftrace_iid(w.pf, ST_PFTRACE_VALUE, "/f", 2, &utf8);
	assert_true(c.cat == 1 && c.name == 1 && c.file == 1 && utf8);
	st_pftrace_slice_iid(w.pf, &c);
	assert_int_equal(st_pftrace_iid(w.pf, ST_PFTRACE_VALUE, "\xff", 1,
					&utf8), 2);
	assert_false(utf8);
	c.ts = 1003;
	c.bytes = 200;
	c.dur = 300;
	st_pftrace_slice_iid(w.pf, &c);
	st_pftrace_slice_iid(w.pf, &(st_pftrace_call){
		.name = 1, .bytes = -1, .pid = 1, .tid = 7, .ts = 1003 });
	st_pftrace_slice_iid(w.pf, &(st_pftrace_call){
		.name = 1, .cat = 1, .bytes = -1, .pid = 1, .tid = 7,
		.ts = 500, .dur = 1 });
	assert_int_equal(st_ctrace_finish(&w, "the trace", &err), 0);
	st_ctrace_release(&w);
	fclose(f);
	assert_after_clocks(buf, len, want, sizeof(want) - 1);
	free(buf);
}

/* A slice earlier than all 64 incremental clocks: its time absolute, in
 * ns on BOOTTIME (6), the same once more when the least clock is known;
 * then one just after the least clock, a delta on it, the default.
 * Bytes worked out by hand from data/perfetto/streamtime_trace.proto. */
static void test_pftrace_time_before_every_clock(void **state)
{
	static st_ctrace w;
	/* name 1, track 1 (the thread's, made before its process's) */
	static const unsigned char te[] = "\x5a\x0a" "\x50\x01\x58\x01"
					  "\x32\x04\x10\x58\x18\x00";
	static const unsigned char want[] =
		/* 30 µs: 30000 ns (b0 ea 01), clock 6 (58: d0 03) */
		"\x0a\x15" "\x40\xb0\xea\x01" "\xd0\x03\x06" "\x50\x01"
		"#TE"
		/* 20 µs: 20000 ns (a0 9c 01) */
		"\x0a\x15" "\x40\xa0\x9c\x01" "\xd0\x03\x06" "\x50\x01"
		"#TE"
		/* 38 µs: 1 after clock 127 (at 37), the default since */
		"\x0a\x10" "\x40\x01" "\x50\x01" "#TE";
	unsigned char full[2 * 23 + 18];
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);
	st_pftrace_call c = { .bytes = -1, .pid = 1, .tid = 1 };
	st_error err;

	(void)state;
	/* the pieces of WANT, "#TE" the track event */
	for (size_t i = 0; i < sizeof(want) - 1; i++) {
		if (want[i] == '#') {
			memcpy(full + n, te, sizeof(te) - 1);
			n += sizeof(te) - 1;
			i += 2;
			continue;
		}
		full[n++] = want[i];
	}
	assert_int_equal(n, sizeof(full));
	assert_int_equal(st_ctrace_init_format(&w, f, ST_CTRACE_PERFETTO,
					       &err), 0);
	c.name = st_pftrace_iid(w.pf, ST_PFTRACE_NAME, "n", 1, NULL);
	/* clock 64 at 100, then clock 64 + k at 100 - k: all at 37..100 */
	for (int k = 0; k < 64; k++) {
		c.ts = 100 - k;
		st_pftrace_slice_iid(w.pf, &c);
	}
	c.ts = 30;
	st_pftrace_slice_iid(w.pf, &c);
	c.ts = 20;
	st_pftrace_slice_iid(w.pf, &c);
	c.ts = 38;
	st_pftrace_slice_iid(w.pf, &c);
	assert_int_equal(st_ctrace_finish(&w, "the trace", &err), 0);
	st_ctrace_release(&w);
	fclose(f);
	assert_true(len > n);
	assert_memory_equal(buf + len - n, full, n);
	free(buf);
}

/* An event before time 0 cannot be a Perfetto timestamp (unsigned):
 * the output fails with 65 naming the time, through both slice paths;
 * the same event is fine in JSON.  (It wrapped to 2^64 - 5000000 ns.) */
static void test_pftrace_before_time_0_refused(void **state)
{
	static st_ctrace w;
	char *buf = NULL;
	size_t len = 0;
	st_pftrace_call c = { .bytes = -1, .pid = 1, .tid = 1, .ts = -5000 };
	st_error err;

	(void)state;
	for (int path = 0; path < 3; path++) {
		FILE *f = open_memstream(&buf, &len);

		assert_int_equal(st_ctrace_init_format(&w, f, path == 2 ?
			ST_CTRACE_JSON : ST_CTRACE_PERFETTO, &err), 0);
		if (path == 0) {
			c.name = st_pftrace_iid(w.pf, ST_PFTRACE_NAME, "n", 1,
						NULL);
			st_pftrace_slice_iid(w.pf, &c);
		} else {
			st_ctrace_slice(&w, "n", 1, "c", 1, 1, 1, -5000, 10);
			st_ctrace_end(&w);
		}
		if (path == 2) {
			assert_int_equal(st_ctrace_finish(&w, "the trace",
							  &err), 0);
		} else {
			assert_int_equal(st_ctrace_finish(&w, "the trace",
							  &err), -1);
			assert_int_equal(err.code, ST_EXIT_DATAERR);
			assert_non_null(strstr(err.text, "cannot write the "
					       "trace as Perfetto's protobuf: "
					       "an event at ts -5000 us"));
		}
		st_ctrace_release(&w);
		fclose(f);
		free(buf);
		buf = NULL;
	}
}

/* The output's format from --format and the name. */
static void test_ctrace_format_of(void **state)
{
	st_ctrace_format fmt;
	bool gz;
	st_error err;

	(void)state;
	assert_int_equal(st_ctrace_format_of("t.pftrace", NULL, &fmt, &gz,
					     &err), 0);
	assert_true(fmt == ST_CTRACE_PERFETTO && !gz);
	assert_int_equal(st_ctrace_format_of("t.perfetto-trace.gz", NULL, &fmt,
					     &gz, &err), 0);
	assert_true(fmt == ST_CTRACE_PERFETTO && gz);
	assert_int_equal(st_ctrace_format_of("t.json.gz", NULL, &fmt, &gz,
					     &err), 0);
	assert_true(fmt == ST_CTRACE_JSON && gz);
	assert_int_equal(st_ctrace_format_of("-", "perfetto", &fmt, &gz,
					     &err), 0);
	assert_true(fmt == ST_CTRACE_PERFETTO && !gz);
	assert_int_equal(st_ctrace_format_of("t.pftrace", "json", &fmt, &gz,
					     &err), 0);
	assert_true(fmt == ST_CTRACE_JSON);
	assert_int_equal(st_ctrace_format_of("t", "xml", &fmt, &gz, &err), -1);
	assert_int_equal(err.code, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctrace_events),
		cmocka_unit_test(test_ctrace_counter_instant),
		cmocka_unit_test(test_ctrace_real_as_jansson),
		cmocka_unit_test(test_ctrace_write_error),
		cmocka_unit_test(test_ctrace_perfetto_bytes),
		cmocka_unit_test(test_pftrace_slice_iid_bytes),
		cmocka_unit_test(test_pftrace_time_before_every_clock),
		cmocka_unit_test(test_pftrace_before_time_0_refused),
		cmocka_unit_test(test_ctrace_format_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
