/* test_ctrace.c - the Chrome trace writer (output/ctrace.c). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctrace_events),
		cmocka_unit_test(test_ctrace_counter_instant),
		cmocka_unit_test(test_ctrace_real_as_jansson),
		cmocka_unit_test(test_ctrace_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
