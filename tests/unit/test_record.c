/* Unit tests of trace record's pieces that need no tracer: the split of
 * bpftrace's combined output into the trace_*.out files of
 * docs/systrace.md, and the clock measurement. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "streamtime/record.h"

struct outs {
	FILE *f[ST_RF_COUNT];
	char *buf[ST_RF_COUNT];
	size_t len[ST_RF_COUNT];
};

/* Split IN into memory (kinds with DROP's bit set get a NULL output). */
static int split(const char *in, unsigned drop, struct outs *o,
		 uint64_t *lost, uint64_t *bad)
{
	FILE *f = fmemopen((void *)in, strlen(in), "r");
	st_error err;
	int rc;

	memset(o, 0, sizeof(*o));
	for (int k = 0; k < ST_RF_COUNT; k++)
		if (!(drop & (1u << k)))
			o->f[k] = open_memstream(&o->buf[k], &o->len[k]);
	rc = st_record_split(f, o->f, lost, bad, &err);
	fclose(f);
	for (int k = 0; k < ST_RF_COUNT; k++)
		if (o->f[k])
			fclose(o->f[k]);
	return rc;
}

static void outs_free(struct outs *o)
{
	for (int k = 0; k < ST_RF_COUNT; k++)
		free(o->buf[k]);
}

static void test_split_kinds_headers_attaching(void **state)
{
	struct outs o;
	uint64_t lost, bad;

	(void)state;
	assert_int_equal(split(
		"Attaching 20 probes...\n"
		"P 100 exec 7 -1 python3\n"
		"R 200 7 7 3 832 2394 /lib/libc.so.6\n"
		"W 300 7 8 1 18 4908 \n"
		"O 150 7 7 3 5879 /a path/with spaces\n"
		"C 400 7 7 3 0 2263 /a path/with spaces\n"
		"Lost 17 events\n"
		"Lost 3 events\n"
		"R 10807520258449 22888 228R 10807520258450 1 1 1 1 1 x\n"
		"garbage\n"
		"\n"
		"@follow[7]: 1\n", 0, &o, &lost, &bad), 0);
	assert_string_equal(o.buf[ST_RF_READ],
		"Attaching 20 probes...\n"
		"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
		"200 7 7 3 832 2394 /lib/libc.so.6\n"
		/* interleaved lines are passed on, for the readers to count */
		"10807520258449 22888 228R 10807520258450 1 1 1 1 1 x\n");
	assert_string_equal(o.buf[ST_RF_WRITE],
		"Attaching 20 probes...\n"
		"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
		"300 7 8 1 18 4908 \n");
	assert_string_equal(o.buf[ST_RF_OPENAT],
		"Attaching 20 probes...\n"
		"TIMESTAMP PID TID FD LAT(ns) FILENAME\n"
		"150 7 7 3 5879 /a path/with spaces\n");
	assert_string_equal(o.buf[ST_RF_CLOSE],
		"Attaching 20 probes...\n"
		"TIMESTAMP PID TID FD RET LAT(ns) FILENAME\n"
		"400 7 7 3 0 2263 /a path/with spaces\n");
	assert_string_equal(o.buf[ST_RF_PROC],
		"Attaching 20 probes...\n"
		"TIMESTAMP EVENT PID PPID COMM\n"
		"100 exec 7 -1 python3\n");
	assert_int_equal(lost, 20);
	assert_int_equal(bad, 1);      /* "garbage"; not "", not "@..." */
	outs_free(&o);
}

static void test_split_no_attaching_line(void **state)
{
	struct outs o;
	uint64_t lost, bad;

	(void)state;
	assert_int_equal(split("R 1 2 2 3 4 5 f\n", 0, &o, &lost, &bad), 0);
	assert_string_equal(o.buf[ST_RF_READ],
		"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
		"1 2 2 3 4 5 f\n");
	assert_string_equal(o.buf[ST_RF_PROC],
		"TIMESTAMP EVENT PID PPID COMM\n");
	outs_free(&o);
}

/* bpftrace killed mid-line: the torn last line is kept and ended */
static void test_split_torn_last_line_gets_newline(void **state)
{
	struct outs o;
	uint64_t lost, bad;

	(void)state;
	assert_int_equal(split("Attaching 1 probe...\nW 9 9 9 9 9 9 /tr",
			       0, &o, &lost, &bad), 0);
	assert_string_equal(o.buf[ST_RF_WRITE],
		"Attaching 1 probe...\n"
		"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
		"9 9 9 9 9 9 /tr\n");
	outs_free(&o);
}

static void test_split_empty_input_headers_only(void **state)
{
	struct outs o;
	uint64_t lost = 9, bad = 9;
	FILE *f = fopen("/dev/null", "r");
	st_error err;

	(void)state;
	memset(&o, 0, sizeof(o));
	for (int k = 0; k < ST_RF_COUNT; k++)
		o.f[k] = open_memstream(&o.buf[k], &o.len[k]);
	assert_non_null(f);
	assert_int_equal(st_record_split(f, o.f, &lost, &bad, &err), 0);
	fclose(f);
	for (int k = 0; k < ST_RF_COUNT; k++)
		fclose(o.f[k]);
	assert_string_equal(o.buf[ST_RF_CLOSE],
		"TIMESTAMP PID TID FD RET LAT(ns) FILENAME\n");
	assert_int_equal(lost, 0);
	assert_int_equal(bad, 0);
	outs_free(&o);
}

static void test_split_dropped_kind(void **state)
{
	struct outs o;
	uint64_t lost, bad;

	(void)state;
	assert_int_equal(split("P 1 fork 2 1 sh\nR 1 2 2 3 4 5 f\n",
			       1u << ST_RF_PROC, &o, &lost, &bad), 0);
	assert_null(o.buf[ST_RF_PROC]);
	assert_int_equal(bad, 0);
	assert_string_equal(o.buf[ST_RF_READ],
		"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME\n"
		"1 2 2 3 4 5 f\n");
	outs_free(&o);
}

static int64_t now(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* the pair is taken now, the bound is small and positive, and the offset
 * agrees with a plain reading of both clocks to within a millisecond */
static void test_clock_pair(void **state)
{
	st_clock_pair p;
	int64_t m0 = now(CLOCK_MONOTONIC), off;

	(void)state;
	st_record_clock_pair(1000, &p);
	assert_true(p.mono_ns >= m0 && p.mono_ns <= now(CLOCK_MONOTONIC));
	assert_true(p.bound_ns > 0 && p.bound_ns < 1000000);
	off = now(CLOCK_REALTIME) - now(CLOCK_MONOTONIC);
	assert_true(llabs((p.real_ns - p.mono_ns) - off) < 1000000);
}

static void test_tracer_names(void **state)
{
	(void)state;
	assert_string_equal(st_record_tracer_names[ST_REC_IO], "io");
	assert_string_equal(st_record_tracer_names[ST_REC_GPU], "gpu");
	assert_null(st_record_tracer_names[ST_REC_NTRACERS]);
	assert_string_equal(st_record_file_names[ST_RF_PROC],
			    "trace_proc.out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_kinds_headers_attaching),
		cmocka_unit_test(test_split_no_attaching_line),
		cmocka_unit_test(test_split_torn_last_line_gets_newline),
		cmocka_unit_test(test_split_empty_input_headers_only),
		cmocka_unit_test(test_split_dropped_kind),
		cmocka_unit_test(test_clock_pair),
		cmocka_unit_test(test_tracer_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
