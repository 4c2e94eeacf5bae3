/* test_num.c - unit tests for include/streamtime/num.h.
 *
 * Expected st_num_format strings are Python's repr() of the same double
 * (shortest round-trip digits; fixed notation for decimal exponents -4..15,
 * scientific with at least two exponent digits outside).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/num.h"
#include "streamtime/time.h"

static void assert_int_ok(const char *s, int64_t expect)
{
	int64_t v = -12345;

	if (st_num_parse_int(s, &v) != 0)
		fail_msg("st_num_parse_int(\"%s\") failed", s);
	if (v != expect)
		fail_msg("\"%s\": got %lld, expected %lld", s, (long long)v,
			 (long long)expect);
}

static void assert_int_bad(const char *s)
{
	int64_t v = 0;

	if (st_num_parse_int(s, &v) != -1)
		fail_msg("st_num_parse_int(\"%s\") should fail, got %lld", s,
			 (long long)v);
}

static void assert_double_ok(const char *s, double expect)
{
	double v = -12345.0;

	if (st_num_parse_double(s, &v) != 0)
		fail_msg("st_num_parse_double(\"%s\") failed", s);
	if (v != expect)
		fail_msg("\"%s\": got %.17g, expected %.17g", s, v, expect);
}

static void assert_double_bad(const char *s)
{
	double v = 0;

	if (st_num_parse_double(s, &v) != -1)
		fail_msg("st_num_parse_double(\"%s\") should fail, got %.17g", s, v);
}

static void assert_fmt(double v, const char *expect)
{
	char buf[32];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = st_num_format(v, buf, sizeof(buf));
	assert_string_equal(buf, expect);
	assert_int_equal(n, strlen(expect));
}

/* ---- st_num_parse_int ------------------------------------------------------ */

static void test_num_parse_int_plain(void **state)
{
	(void)state;
	assert_int_ok("42", 42);
	assert_int_ok("0", 0);
	assert_int_ok("-12", -12);
	assert_int_ok("+5", 5);
	assert_int_ok("007", 7);
}

static void test_num_parse_int_blanks_allowed(void **state)
{
	(void)state;
	assert_int_ok(" 7 ", 7);
	assert_int_ok("\t7\t", 7);
	assert_int_ok("   -3", -3);
}

static void test_num_parse_int_pandas_float_spelling(void **state)
{
	(void)state;
	assert_int_ok("3288.0", 3288);
	assert_int_ok("3288.00", 3288);
	assert_int_ok(" 3288.0 ", 3288);
	assert_int_ok("-2.0", -2);
}

static void test_num_parse_int_rejects_fraction(void **state)
{
	(void)state;
	assert_int_bad("3288.5");
	assert_int_bad("3288.05");
	assert_int_bad("0.1");
}

static void test_num_parse_int_rejects_junk(void **state)
{
	(void)state;
	assert_int_bad("");
	assert_int_bad("   ");
	assert_int_bad("x");
	assert_int_bad("1e3");
	assert_int_bad("12abc");
	assert_int_bad("1 2");
	assert_int_bad("-");
	assert_int_bad(".");
	assert_int_bad(".0");
	assert_int_bad("0x10");
	assert_int_bad("3288.0x");
}

static void test_num_parse_int_limits(void **state)
{
	(void)state;
	assert_int_ok("9223372036854775807", INT64_MAX);
	assert_int_ok("-9223372036854775808", INT64_MIN);
	assert_int_bad("9223372036854775808");
	assert_int_bad("-9223372036854775809");
	assert_int_bad("99999999999999999999");
}

/* ---- st_num_parse_double --------------------------------------------------- */

static void test_num_parse_double_ok(void **state)
{
	(void)state;
	assert_double_ok("1e-3", 0.001);
	assert_double_ok("2.5", 2.5);
	assert_double_ok(" 2.5 ", 2.5);
	assert_double_ok("-0.5", -0.5);
	assert_double_ok(".5", 0.5);
	assert_double_ok("5.", 5.0);
	assert_double_ok("42", 42.0);
	assert_double_ok("1E3", 1000.0);
	assert_double_ok("2.7333333333333334", 2.7333333333333334);
}

static void test_num_parse_double_rejects_nan_inf(void **state)
{
	(void)state;
	assert_double_bad("nan");
	assert_double_bad("NaN");
	assert_double_bad("-nan");
	assert_double_bad("inf");
	assert_double_bad("-inf");
	assert_double_bad("Infinity");
	/* overflows to infinity */
	assert_double_bad("1e999");
	assert_double_bad("-1e999");
}

static void test_num_parse_double_rejects_junk(void **state)
{
	(void)state;
	assert_double_bad("");
	assert_double_bad("   ");
	assert_double_bad("x");
	assert_double_bad("2.5x");
	assert_double_bad("2.5 3");
	assert_double_bad("1e");
	assert_double_bad("-");
}

/* num.h promises a *decimal* number; strtod also reads C99 hex floats. */
static void test_num_parse_double_rejects_hex_float(void **state)
{
	(void)state;
	assert_double_bad("0x10");
	assert_double_bad("0x1p3");
}

/* ---- st_num_format --------------------------------------------------------- */

static void test_num_format_integral_values_keep_point(void **state)
{
	(void)state;
	assert_fmt(5.0, "5.0");
	assert_fmt(100.0, "100.0");
	assert_fmt(0.0, "0.0");
	assert_fmt(-0.0, "-0.0");
	assert_fmt(123456789.0, "123456789.0");
	assert_fmt(1e15, "1000000000000000.0");
}

static void test_num_format_shortest_round_trip(void **state)
{
	(void)state;
	assert_fmt(2.7333333333333334, "2.7333333333333334");
	assert_fmt(0.1, "0.1");
	assert_fmt(0.3, "0.3");
	assert_fmt(0.1 + 0.2, "0.30000000000000004");
	assert_fmt(1.0 / 3.0, "0.3333333333333333");
	assert_fmt(2.0 / 3.0, "0.6666666666666666");
	assert_fmt(-3.5, "-3.5");
	assert_fmt(123.456, "123.456");
	assert_fmt(0.0001, "0.0001");
	assert_fmt(0.00012345, "0.00012345");
}

static void test_num_format_scientific(void **state)
{
	(void)state;
	assert_fmt(1e16, "1e+16");
	assert_fmt(1.5e16, "1.5e+16");
	assert_fmt(1e22, "1e+22");
	assert_fmt(1e-5, "1e-05");
	assert_fmt(1.2345e-7, "1.2345e-07");
	assert_fmt(-2.5e-10, "-2.5e-10");
	assert_fmt(5e-324, "5e-324");
	assert_fmt(1.7976931348623157e308, "1.7976931348623157e+308");
}

/* At a power of two the doubles below are twice as dense as above, so the
 * correctly rounded 16-digit decimal can miss while another 16-digit one
 * reads back: 2^-24 = 5.9604644775390625e-08 exactly; its 16-digit rounding
 * ...062e-08 is 5e-24 below, more than half the gap below (2^-78 = 3.3e-24),
 * but ...063e-08 is 5e-24 above, less than half the gap above (2^-77 =
 * 6.6e-24).  Python: repr(2**-24) == '5.960464477539063e-08'. */
/* Documented limitation (num.h): at exact powers of two whose shortest
 * form ends on a tie, snprintf rounds the tie to even and one digit more
 * than Python's repr is written.  Pinned: the value still reads back
 * exactly, and the string is Python's digits plus one. */
static void test_num_format_power_of_two_one_digit_longer(void **state)
{
	static const struct {
		double v;
		const char *python, *ours;
	} cases[] = {
		{ 0x1p-24, "5.960464477539063e-08", "5.9604644775390625e-08" },
		{ 0x1p-44, "5.684341886080802e-14", "5.6843418860808015e-14" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_num_format(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].ours);
		assert_true(strtod(buf, NULL) == cases[i].v);
		assert_int_equal(strlen(buf), strlen(cases[i].python) + 1);
	}
}

static void test_num_format_nan_inf(void **state)
{
	(void)state;
	assert_fmt(NAN, "nan");
	assert_fmt(-NAN, "nan");
	assert_fmt(INFINITY, "inf");
	assert_fmt(-INFINITY, "-inf");
}

static void test_num_format_parse_round_trip(void **state)
{
	static const double vs[] = {
		0.1, 2.7333333333333334, 1e16, 1e-5, 123.456, -3.5, 5e-324,
		1.7976931348623157e308, 9007199254740993.0, 0.30000000000000004,
	};
	char buf[32];
	double back;

	(void)state;
	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		st_num_format(vs[i], buf, sizeof(buf));
		assert_int_equal(st_num_parse_double(buf, &back), 0);
		if (back != vs[i])
			fail_msg("%.17g formatted as \"%s\" reads back as %.17g",
				 vs[i], buf, back);
	}
}

static void test_floor_div_rounds_toward_minus_infinity(void **state)
{
	(void)state;
	assert_true(st_floor_div(7, 2) == 3);
	assert_true(st_floor_div(-7, 2) == -4);
	assert_true(st_floor_div(7, -2) == -4);
	assert_true(st_floor_div(-7, -2) == 3);
	assert_true(st_floor_div(-8, 2) == -4);
	assert_true(st_floor_div(0, 5) == 0);
	assert_true(st_floor_div(-1, 400) == -1);
	assert_true(st_floor_div(INT64_MIN, 1) == INT64_MIN);
	assert_true(st_floor_div(INT64_MIN + 1, 2) == INT64_MIN / 2);
}

/* ST_CMP: -1, 0, 1 for less, equal, greater, with no overflow at the ends
 * of the range (a subtraction would wrap) and for unsigned types. */
static void test_st_cmp_three_way(void **state)
{
	size_t lo = 0, hi = SIZE_MAX;

	(void)state;
	assert_int_equal(ST_CMP(INT64_MIN, INT64_MAX), -1);
	assert_int_equal(ST_CMP(INT64_MAX, INT64_MIN), 1);
	assert_int_equal(ST_CMP((int64_t)7, (int64_t)7), 0);
	assert_int_equal(ST_CMP(lo, hi), -1);
	assert_int_equal(ST_CMP(hi, lo), 1);
	assert_int_equal(ST_CMP(-0.5, 0.25), -1);
}

static void test_cmp_i64_and_double_order_and_sort(void **state)
{
	int64_t a = INT64_MIN, b = -1, c = INT64_MAX;
	int64_t v[] = { 5, INT64_MIN, -3, INT64_MAX, 0, -3 };
	double x = -0.5, y = 2.0;
	double d[] = { 3.5, -1e300, 0.0, 2.25, -7.0 };

	(void)state;
	/* a difference would overflow here: the comparator must not subtract */
	assert_int_equal(st_cmp_i64(&a, &c), -1);
	assert_int_equal(st_cmp_i64(&c, &a), 1);
	assert_int_equal(st_cmp_i64(&b, &b), 0);
	assert_int_equal(st_cmp_double(&x, &y), -1);
	assert_int_equal(st_cmp_double(&y, &x), 1);
	assert_int_equal(st_cmp_double(&x, &x), 0);
	qsort(v, 6, sizeof(*v), st_cmp_i64);
	assert_true(v[0] == INT64_MIN && v[1] == -3 && v[2] == -3 &&
		    v[3] == 0 && v[4] == 5 && v[5] == INT64_MAX);
	qsort(d, 5, sizeof(*d), st_cmp_double);
	assert_true(d[0] == -1e300 && d[1] == -7.0 && d[2] == 0.0 &&
		    d[3] == 2.25 && d[4] == 3.5);
}

/* Seconds derived from nanosecond stamps carry no noise of the
 * arithmetic (issue 25 item 9): the values seen in reproduce's outputs. */
static void test_num_format_seconds_no_noise(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 46.50000000000001, "46.5" },
		{ 67.99999999999999, "68.0" },
		{ 63.99999999999998, "64.0" },
		{ 2.9680978700000002, "2.96809787" },
		{ 3.5276389999999997, "3.527639" },
		{ -0.1000000000000001, "-0.1" },
		{ 0.0000000004, "0.0" },        /* below a nanosecond */
		{ 1.0000000006, "1.000000001" },
		{ 123456.123456789, "123456.123456789" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		st_num_format_seconds(cases[i].v, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("%.17g gave %s, want %s", cases[i].v, buf,
				 cases[i].want);
	}
	assert_string_equal(st_num_format_seconds(NAN, buf, sizeof(buf)), "");
	/* beyond 9e6 s a double holds no nanoseconds: written as it is */
	st_num_format_seconds(1e7 + 0.25, buf, sizeof(buf));
	assert_string_equal(buf, "10000000.25");
	/* a duration in ns, converted once: the nearest double */
	st_num_format(st_duration_seconds(3527639000), buf, sizeof(buf));
	assert_string_equal(buf, "3.527639");
	st_num_format(st_duration_seconds(-1500000001), buf, sizeof(buf));
	assert_string_equal(buf, "-1.500000001");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num_parse_int_plain),
		cmocka_unit_test(test_num_parse_int_blanks_allowed),
		cmocka_unit_test(test_num_parse_int_pandas_float_spelling),
		cmocka_unit_test(test_num_parse_int_rejects_fraction),
		cmocka_unit_test(test_num_parse_int_rejects_junk),
		cmocka_unit_test(test_num_parse_int_limits),
		cmocka_unit_test(test_num_parse_double_ok),
		cmocka_unit_test(test_num_parse_double_rejects_nan_inf),
		cmocka_unit_test(test_num_parse_double_rejects_junk),
		cmocka_unit_test(test_num_parse_double_rejects_hex_float),
		cmocka_unit_test(test_num_format_integral_values_keep_point),
		cmocka_unit_test(test_num_format_shortest_round_trip),
		cmocka_unit_test(test_num_format_scientific),
		cmocka_unit_test(test_num_format_power_of_two_one_digit_longer),
		cmocka_unit_test(test_num_format_nan_inf),
		cmocka_unit_test(test_num_format_parse_round_trip),
		cmocka_unit_test(test_floor_div_rounds_toward_minus_infinity),
		cmocka_unit_test(test_cmp_i64_and_double_order_and_sort),
		cmocka_unit_test(test_st_cmp_three_way),
		cmocka_unit_test(test_num_format_seconds_no_noise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
