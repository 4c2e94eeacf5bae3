/* Unit tests: the clock exchange's arithmetic, wire format and targets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/clock_run.h"

/* A sample made from a true offset and two one-way delays (ns). */
static st_clock_sample make(int64_t theta, int64_t out, int64_t proc,
			    int64_t back)
{
	st_clock_sample s = { .remote_res = 1, .local_res = 1 };

	s.t1 = INT64_C(1700000000000000000);
	s.t2 = s.t1 + theta + out;
	s.t3 = s.t2 + proc;
	s.t4 = s.t3 - theta + back;
	return s;
}

static void test_offset_and_bound(void **state)
{
	(void)state;
	/* symmetric: exact */
	st_clock_sample s = make(1234000000, 5000, 300, 5000);

	assert_true(st_clock_sample_offset(&s) == 1234000000);
	assert_true(st_clock_sample_delay(&s) == 10000);
	assert_true(st_clock_sample_bound(&s) == 5002);
	/* asymmetric 2 ms out, 12 ms back: off by 5 ms, within the bound */
	s = make(-777000000, 2000000, 100, 12000000);
	assert_true(st_clock_sample_offset(&s) == -777000000 - 5000000);
	assert_true(st_clock_sample_bound(&s) >= 5000000);
	/* the bound holds for every split of the delay, odd ns included */
	for (int64_t out = 0; out <= 1001; out += 7) {
		s = make(999, out, 3, 1001 - out);
		int64_t err = st_clock_sample_offset(&s) - 999;

		assert_true(err <= st_clock_sample_bound(&s) && -err <= st_clock_sample_bound(&s));
	}
}

static void test_best(void **state)
{
	st_clock_sample v[4] = {
		make(0, 500, 0, 500), make(0, 100, 0, 90), make(0, 300, 0, 300),
		make(0, 50, 0, 40),
	};

	(void)state;
	assert_int_equal(st_clock_best(v, 4), 3);
	/* a clock that stepped back makes a negative delay: never chosen */
	v[0].t4 = v[0].t1 - 1000;
	assert_int_equal(st_clock_best(v, 1), 1);
	assert_int_equal(st_clock_best(v, 4), 3);
	assert_int_equal(st_clock_best(v, 0), 0);
}

static void test_wire(void **state)
{
	unsigned char req[ST_CLOCK_REQUEST_LEN], rep[ST_CLOCK_REPLY_LEN];
	st_clock_reply r = { .id = UINT64_C(0x0102030405060708), .t2 = 5,
			     .t3 = 7, .resolution = 1 }, back;
	uint64_t id;

	(void)state;
	st_clock_encode_request(42, req);
	assert_memory_equal(req, "STCK\1Q\0\0", 8);
	assert_true(st_clock_parse_request(req, sizeof(req), &id));
	assert_true(id == 42);
	/* wrong length, version, kind */
	assert_false(st_clock_parse_request(req, sizeof(req) - 1, &id));
	req[4] = 2;
	assert_false(st_clock_parse_request(req, sizeof(req), &id));
	st_clock_encode_reply(&r, rep);
	assert_true(st_clock_parse_reply(rep, sizeof(rep), &back));
	assert_true(back.id == r.id && back.t2 == 5 && back.t3 == 7 &&
		    back.resolution == 1);
	assert_false(st_clock_parse_request(rep, sizeof(rep), &id));
	/* a reply sent before it was received is not believed */
	r.t3 = 4;
	st_clock_encode_reply(&r, rep);
	assert_false(st_clock_parse_reply(rep, sizeof(rep), &back));
	/* resync in a byte stream */
	assert_int_equal(st_clock_sync((const unsigned char *)"hello\nSTCK", 10), 6);
	assert_int_equal(st_clock_sync((const unsigned char *)"xxST", 4), 2);
	assert_int_equal(st_clock_sync((const unsigned char *)"xxSX", 4), 4);
}

/* Issue 13: a reply of INT64_MAX overflowed half_sum and was stored as an
 * offset of -1.8e12 ms.  Such samples are refused before any arithmetic. */
static void test_clock_reply_int64_max_overflow_is_refused(void **state)
{
	st_clock_sample s = make(0, 5000, 300, 5000), t;
	unsigned char rep[ST_CLOCK_REPLY_LEN];
	st_clock_reply r = { .id = 9, .t2 = INT64_MAX, .t3 = INT64_MAX,
			     .resolution = 1 }, back;

	(void)state;
	assert_null(st_clock_sample_check(&s));
	/* the frame is well formed: only the check can refuse it */
	st_clock_encode_reply(&r, rep);
	assert_true(st_clock_decode_reply(rep, sizeof(rep), &back));
	t = s;
	t.t2 = t.t3 = back.t2;
	assert_non_null(st_clock_sample_check(&t));
	t.t2 = t.t3 = INT64_MIN;
	assert_non_null(st_clock_sample_check(&t));
	/* t3 < t2 */
	t = s;
	t.t3 = t.t2 - 1;
	assert_non_null(st_clock_sample_check(&t));
	/* before 1970 */
	t = s;
	t.t2 = 0;
	assert_non_null(st_clock_sample_check(&t));
	/* just within and just beyond ten years */
	t = make(ST_CLOCK_MAX_OFFSET - 10000, 5000, 0, 5000);
	assert_null(st_clock_sample_check(&t));
	assert_true(st_clock_sample_offset(&t) == ST_CLOCK_MAX_OFFSET - 10000);
	t = make(ST_CLOCK_MAX_OFFSET + 1, 5000, 0, 5000);
	assert_non_null(st_clock_sample_check(&t));
	t = make(-ST_CLOCK_MAX_OFFSET - 1, 5000, 0, 5000);
	assert_non_null(st_clock_sample_check(&t));
	/* a remote hold longer than the round trip: within the resolutions
	 * (a coarse clock) believed, beyond them not */
	t = s;
	t.remote_res = 4000000;
	t.t3 = t.t2 + 10300 + 4000001;     /* delay = -(both resolutions) */
	assert_null(st_clock_sample_check(&t));
	t.t3 += 1;
	assert_non_null(st_clock_sample_check(&t));
	/* our clock went back during the exchange */
	t = s;
	t.t4 = t.t1 - 1000;
	assert_non_null(st_clock_sample_check(&t));
	/* an absurd resolution */
	t = s;
	t.remote_res = 1000000001u;
	assert_non_null(st_clock_sample_check(&t));
}

/* Issue 13: `date +%s%N` printing INT64_MAX was taken as a time. */
static void test_clock_date_line_int64_max_overflow(void **state)
{
	static const char *const bad[] = {
		"", "\r", "0", "-1", "+1", " 1", "1 ", "12a", "1.5", "1700000000%N",
		"99999999999999999999", "9223372036854775808", "00000000000000000000",
	};
	st_instant t = 0;

	(void)state;
	assert_int_equal(st_clock_parse_date("1700000000123456789", 19, &t), 0);
	assert_true(t == INT64_C(1700000000123456789));
	assert_int_equal(st_clock_parse_date("42\r", 3, &t), 0);
	assert_true(t == 42);
	/* parses, but as a sample it is refused */
	assert_int_equal(st_clock_parse_date("9223372036854775807", 19, &t), 0);
	assert_true(t == INT64_MAX);
	/* only LEN bytes count */
	assert_int_equal(st_clock_parse_date("123x", 3, &t), 0);
	assert_true(t == 123);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (st_clock_parse_date(bad[i], strlen(bad[i]), &t) == 0)
			fail_msg("'%s' parsed", bad[i]);
	}
}

static void test_targets(void **state)
{
	st_clock_target t;
	st_error err;

	(void)state;
	assert_int_equal(st_clock_target_parse("udp://rec0.ncem:999", &t, &err), 0);
	assert_int_equal(t.kind, ST_CLOCK_UDP);
	assert_string_equal(t.host, "rec0.ncem");
	assert_string_equal(t.port, "999");
	assert_string_equal(t.name, "rec0.ncem");
	st_clock_target_release(&t);
	assert_int_equal(st_clock_target_parse("udp://[::1]", &t, &err), 0);
	assert_string_equal(t.host, "::1");
	assert_string_equal(t.port, "12123");
	st_clock_target_release(&t);
	assert_int_equal(st_clock_target_parse("r1=ssh://me@rec1", &t, &err), 0);
	assert_int_equal(t.kind, ST_CLOCK_SSH);
	assert_string_equal(t.name, "r1");
	assert_string_equal(t.host, "me@rec1");
	st_clock_target_release(&t);
	assert_int_equal(st_clock_target_parse("ssh-date://me@rec2", &t, &err), 0);
	assert_string_equal(t.name, "rec2");
	st_clock_target_release(&t);
	assert_int_equal(st_clock_target_parse("exec:a=b c", &t, &err), 0);
	assert_int_equal(t.kind, ST_CLOCK_EXEC);
	assert_string_equal(t.command, "a=b c");
	st_clock_target_release(&t);
	static const char *const bad[] = {
		"udp://", "udp://::1", "udp://h:", "udp://h:x", "udp://h:65536",
		"ssh://-oProxyCommand=x", "ssh://", "exec:", "=udp://h", "http://h",
		"ssh://a b", "udp://h/x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (st_clock_target_parse(bad[i], &t, &err) == 0)
			fail_msg("%s parsed", bad[i]);
		assert_int_equal(err.code, ST_EXIT_USAGE);
	}
}

static void test_clock_format_ms(void **state)
{
	char buf[32];

	(void)state;
	st_clock_format_ms(buf, sizeof(buf), 1234567);
	assert_string_equal(buf, "1.234567");
	st_clock_format_ms(buf, sizeof(buf), -5);
	assert_string_equal(buf, "-0.000005");
	st_clock_format_ms(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0.000000");
}

/* st_clock_probe_run refuses a bad target and an empty --ssh as usage
 * errors before it probes anything. */
static void test_clock_probe_run_usage(void **state)
{
	char *bad[] = { "udp://", NULL }, *good[] = { "exec:true", NULL };
	st_clock_run_opts o = { .probe = { .samples = 1 }, .ssh = "ssh",
				.targets = bad, .ntargets = 1 };
	st_clock_run_result res;
	st_error err;

	(void)state;
	assert_int_equal(st_clock_probe_run(&o, &res, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_null(res.rows);
	o.targets = good;
	o.ssh = " \t ";
	assert_int_equal(st_clock_probe_run(&o, &res, &err), -1);
	assert_int_equal(err.code, ST_EXIT_USAGE);
	assert_string_equal(err.text, "--ssh: empty command");
}

static char *slurp(const char *path)
{
	static char buf[512];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The offsets file: made with its header, appended to without a second
 * one, a torn last line cut off, another kind of file refused (65) and
 * left as it was. */
static void test_clock_offsets_append(void **state)
{
	char dir[] = "/tmp/st_clock_run_XXXXXX", path[64], other[64];
	const char *row = "2024-01-01T00:00:00Z,a,b,1.0,2.0,1.0,16,udp\n";
	char want[512];
	st_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/offsets.csv", dir);
	snprintf(other, sizeof(other), "%s/other.csv", dir);
	assert_int_equal(st_clock_offsets_append(path, row, strlen(row), &err), 0);
	snprintf(want, sizeof(want), "%s\n%s", ST_CLOCK_OFFSETS_HEADER, row);
	assert_string_equal(slurp(path), want);
	assert_non_null(f = fopen(path, "a"));
	fputs("2024-01-01T00:00:01Z,a,b,1.", f);       /* torn */
	fclose(f);
	assert_int_equal(st_clock_offsets_append(path, row, strlen(row), &err), 0);
	snprintf(want, sizeof(want), "%s\n%s%s", ST_CLOCK_OFFSETS_HEADER, row,
		 row);
	assert_string_equal(slurp(path), want);
	assert_non_null(f = fopen(other, "w"));
	fputs("a,b\n1,2\n", f);
	fclose(f);
	assert_int_equal(st_clock_offsets_append(other, row, strlen(row), &err),
			 -1);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_string_equal(slurp(other), "a,b\n1,2\n");
	remove(path);
	remove(other);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset_and_bound),
		cmocka_unit_test(test_best),
		cmocka_unit_test(test_wire),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_clock_format_ms),
		cmocka_unit_test(test_clock_probe_run_usage),
		cmocka_unit_test(test_clock_offsets_append),
		cmocka_unit_test(test_clock_reply_int64_max_overflow_is_refused),
		cmocka_unit_test(test_clock_date_line_int64_max_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
