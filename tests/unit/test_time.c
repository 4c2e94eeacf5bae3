/* test_time.c - unit tests for st_time_* / st_duration_* (include/streamtime/time.h).
 *
 * Every expected instant below was worked out by hand:
 *   2023-01-01 is day 19358 (53 years since 1970, 13 of them leap: 1972..2020),
 *   2023-10-13 is 19358 + 273 (Jan..Sep) + 12 = day 19643 = 1697155200 s,
 *   16:45:09 is 60309 s, so 2023-10-13T16:45:09Z = 1697215509 s.
 *   2024-01-01 is day 19723 = 1704067200 s.
 *   2000-01-01 is day 10957 (30 years, 7 leap), 2000-02-29 day 11016,
 *   2000-03-01 day 11017.  1900-01-01 is day -25567 (70 years, 17 leap).
 * (Cross-checked with GNU date, never with the code under test.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "streamtime/error.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

#define S(x) ((int64_t)(x) * ST_NS_PER_SEC)

/* 2023-10-13T16:45:09Z in seconds */
#define T0 INT64_C(1697215509)

static st_tz *la;

static int setup_la(void **state)
{
	st_error err = { 0 };

	(void)state;
	la = st_tz_load("America/Los_Angeles", &err);
	if (!la) {
		fprintf(stderr, "cannot load America/Los_Angeles: %s\n", err.text);
		return -1;
	}
	return 0;
}

static int teardown_la(void **state)
{
	(void)state;
	st_tz_free(la);
	la = NULL;
	return 0;
}

/* Parse S in TZ; the call must succeed.  Returns the instant, FLAGS set. */
static st_instant parse_ok_tz(const char *s, const st_tz *tz, int *flags)
{
	st_error err = { 0 };
	st_instant t = INT64_MIN;
	int rc = st_time_parse(s, tz, &t, flags, &err);

	if (rc != 0)
		fail_msg("st_time_parse(\"%s\") failed: %s", s, err.text);
	assert_int_equal(err.code, 0);
	return t;
}

static st_instant parse_ok(const char *s)
{
	return parse_ok_tz(s, NULL, NULL);
}

#define assert_instant(s, expect) do {                                     \
		st_instant got_ = parse_ok(s);                             \
		if (got_ != (int64_t)(expect))                             \
			fail_msg("\"%s\": got %lld, expected %lld", (s),  \
				 (long long)got_, (long long)(expect));    \
	} while (0)

/* S must be rejected with code 65 and a message quoting S. */
static void assert_time_bad(const char *s)
{
	st_error err = { 0 };
	st_instant t = 0;
	char quoted[256];

	if (st_time_parse(s, NULL, &t, NULL, &err) != -1)
		fail_msg("st_time_parse(\"%s\") should fail, got %lld", s,
			 (long long)t);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	snprintf(quoted, sizeof(quoted), "'%s'", s);
	if (!strstr(err.text, quoted))
		fail_msg("message for \"%s\" does not quote it: %s", s, err.text);
}

static void assert_duration(const char *s, st_duration expect)
{
	st_error err = { 0 };
	st_duration d = INT64_MIN;

	if (st_duration_parse(s, &d, &err) != 0)
		fail_msg("st_duration_parse(\"%s\") failed: %s", s, err.text);
	if (d != expect)
		fail_msg("\"%s\": got %lld ns, expected %lld ns", s,
			 (long long)d, (long long)expect);
}

static void assert_duration_bad(const char *s)
{
	st_error err = { 0 };
	st_duration d = 0;
	char quoted[256];

	if (st_duration_parse(s, &d, &err) != -1)
		fail_msg("st_duration_parse(\"%s\") should fail, got %lld", s,
			 (long long)d);
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	snprintf(quoted, sizeof(quoted), "'%s'", s);
	if (!strstr(err.text, quoted))
		fail_msg("message for \"%s\" does not quote it: %s", s, err.text);
}

static void assert_fmt_utc(st_instant t, const char *expect)
{
	char buf[64];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = st_time_format_utc(t, buf, sizeof(buf));
	assert_string_equal(buf, expect);
	assert_int_equal(n, strlen(expect));
}

static void assert_fmt_naive(st_instant t, const st_tz *tz, const char *expect)
{
	char buf[64];
	size_t n;

	n = st_time_format_naive(t, tz, buf, sizeof(buf));
	assert_string_equal(buf, expect);
	assert_int_equal(n, strlen(expect));
}

static void assert_fmt_hms(st_duration d, const char *expect)
{
	char buf[64];
	size_t n;

	n = st_duration_format_hms(d, buf, sizeof(buf));
	assert_string_equal(buf, expect);
	assert_int_equal(n, strlen(expect));
}

/* ---- civil calendar ---------------------------------------------------- */

static void test_leap_years_and_month_lengths(void **state)
{
	(void)state;
	assert_true(st_is_leap_year(2000));
	assert_true(st_is_leap_year(2024));
	assert_true(st_is_leap_year(-4));
	assert_false(st_is_leap_year(1900));
	assert_false(st_is_leap_year(2023));
	assert_false(st_is_leap_year(2100));
	assert_int_equal(st_days_in_month(2024, 2), 29);
	assert_int_equal(st_days_in_month(2023, 2), 28);
	assert_int_equal(st_days_in_month(1900, 2), 28);
	assert_int_equal(st_days_in_month(2023, 1), 31);
	assert_int_equal(st_days_in_month(2023, 4), 30);
	assert_int_equal(st_days_in_month(2023, 12), 31);
	/* against the calendar itself: each month ends the day before the next */
	for (int64_t y = 1896; y <= 2104; y++)
		for (unsigned m = 1; m <= 12; m++)
			assert_true(st_days_from_civil(y, m, 1) +
				    st_days_in_month(y, m) ==
				    (m == 12 ? st_days_from_civil(y + 1, 1, 1) :
				     st_days_from_civil(y, m + 1, 1)));
}

static void test_days_from_civil_known_dates(void **state)
{
	(void)state;
	assert_int_equal(st_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(st_days_from_civil(1970, 1, 2), 1);
	assert_true(st_days_from_civil(1969, 12, 31) == -1);
	assert_int_equal(st_days_from_civil(2000, 1, 1), 10957);
	assert_int_equal(st_days_from_civil(2000, 2, 29), 11016);
	assert_int_equal(st_days_from_civil(2000, 3, 1), 11017);
	assert_int_equal(st_days_from_civil(2023, 1, 1), 19358);
	assert_int_equal(st_days_from_civil(2023, 10, 13), 19643);
	assert_int_equal(st_days_from_civil(2024, 1, 1), 19723);
	assert_true(st_days_from_civil(1900, 1, 1) == -25567);
}

static void test_civil_from_days_known_dates(void **state)
{
	int64_t y;
	unsigned m, d;

	(void)state;
	st_civil_from_days(0, &y, &m, &d);
	assert_true(y == 1970 && m == 1 && d == 1);
	st_civil_from_days(11017, &y, &m, &d);
	assert_true(y == 2000 && m == 3 && d == 1);
	st_civil_from_days(11016, &y, &m, &d);
	assert_true(y == 2000 && m == 2 && d == 29);
	st_civil_from_days(-1, &y, &m, &d);
	assert_true(y == 1969 && m == 12 && d == 31);
	st_civil_from_days(-25567, &y, &m, &d);
	assert_true(y == 1900 && m == 1 && d == 1);
}

static int leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Walk day by day from 1600-01-01 to 2400-12-31, checking that each day is
 * the calendar successor of the previous one (with an independent month
 * length table) and that both directions agree. */
static void test_civil_days_round_trip_1600_2400(void **state)
{
	static const unsigned dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
					  31, 30, 31 };
	int64_t y = 1600, gy;
	unsigned m = 1, d = 1, gm, gd;
	int64_t first = st_days_from_civil(1600, 1, 1);

	(void)state;
	/* 1600-01-01 .. 1970-01-01: 370 years, 90 leap (1600..1968 by 4 = 93,
	 * minus 1700, 1800, 1900) -> 370*365 + 90 = 135140 days */
	assert_true(first == -135140);
	for (int64_t z = first;; z++) {
		st_civil_from_days(z, &gy, &gm, &gd);
		if (gy != y || gm != m || gd != d)
			fail_msg("day %lld: got %lld-%u-%u, expected %lld-%u-%u",
				 (long long)z, (long long)gy, gm, gd,
				 (long long)y, m, d);
		if (st_days_from_civil(y, m, d) != z)
			fail_msg("days_from_civil(%lld-%u-%u) != %lld",
				 (long long)y, m, d, (long long)z);
		if (y == 2400 && m == 12 && d == 31)
			break;
		if (d < dim[m - 1] + (m == 2 && leap(y))) {
			d++;
		} else {
			d = 1;
			if (++m == 13) {
				m = 1;
				y++;
			}
		}
	}
}

/* ---- st_time_parse ------------------------------------------------------ */

static void test_time_parse_z(void **state)
{
	(void)state;
	assert_instant("2023-10-13T16:45:09Z", S(T0));
	assert_instant("2023-10-13T16:45:09z", S(T0));
	assert_instant("1970-01-01T00:00:00Z", 0);
}

static void test_time_parse_offsets(void **state)
{
	(void)state;
	assert_instant("2023-10-13T16:45:09+00:00", S(T0));
	assert_instant("2023-10-13T16:45:09-00:00", S(T0));
	/* 16:45:09+02:00 is 14:45:09Z */
	assert_instant("2023-10-13T16:45:09+02:00", S(T0 - 7200));
	/* 16:45:09-07:00 is 23:45:09Z */
	assert_instant("2023-10-13T16:45:09-07:00", S(T0 + 25200));
	/* +HHMM: 5 h 30 min = 19800 s */
	assert_instant("2023-10-13T16:45:09+0530", S(T0 - 19800));
	/* -HH:MM with minutes: 3 h 30 min = 12600 s */
	assert_instant("2023-10-13T16:45:09-03:30", S(T0 + 12600));
	/* +HH */
	assert_instant("2023-10-13T16:45:09+02", S(T0 - 7200));
	/* an offset crossing midnight: 00:30+01:00 is 23:30Z the day before */
	assert_instant("2023-10-14T00:30:00+01:00", S(1697155200 + 84600));
}

static void test_time_parse_fractions(void **state)
{
	(void)state;
	assert_instant("2023-10-13T16:45:09.5Z", S(T0) + 500000000);
	assert_instant("2023-10-13T16:45:09.12+00:00", S(T0) + 120000000);
	assert_instant("2023-10-13T16:45:09.123Z", S(T0) + 123000000);
	assert_instant("2023-10-13T16:45:09.123456Z", S(T0) + 123456000);
	assert_instant("2023-10-13T16:45:09.123456789Z", S(T0) + 123456789);
	assert_instant("2023-10-13T16:45:09.000000001Z", S(T0) + 1);
	assert_instant("2023-10-13T16:45:09.0Z", S(T0));
	/* a naive time with a fraction */
	assert_instant("2023-10-13 16:45:09.25", S(T0) + 250000000);
}

static void test_time_parse_fraction_more_than_9_digits_truncated(void **state)
{
	(void)state;
	assert_instant("2023-10-13T16:45:09.1234567899Z", S(T0) + 123456789);
	assert_instant("2023-10-13T16:45:09.999999999999Z", S(T0) + 999999999);
	assert_instant("2023-10-13T16:45:09.0000000009Z", S(T0));
}

static void test_time_parse_doubled_offset_first_wins(void **state)
{
	(void)state;
	assert_instant("2023-10-13T16:45:09+00:00+00:00", S(T0));
	assert_instant("2023-10-13T16:45:09.5+00:00+00:00", S(T0) + 500000000);
}

static void test_time_parse_doubled_offset_uses_first_not_second(void **state)
{
	(void)state;
	assert_instant("2023-10-13T16:45:09+02:00+00:00", S(T0 - 7200));
	assert_instant("2023-10-13T16:45:09+00:00+02:00", S(T0));
}

static void test_time_parse_space_separator(void **state)
{
	(void)state;
	assert_instant("2023-10-13 16:45:09", S(T0));
	assert_instant("2023-10-13 16:45:09Z", S(T0));
	assert_instant("2023-10-13 16:45:09+00:00", S(T0));
	assert_instant("2023-10-13t16:45:09Z", S(T0));
}

static void test_time_parse_without_seconds(void **state)
{
	/* time.h: "YYYY-MM-DD[T| ]HH:MM[:SS[.f{1,9}]]..." - seconds optional */
	(void)state;
	assert_instant("2023-10-13T16:45", S(T0 - 9));
	assert_instant("2023-10-13T16:45Z", S(T0 - 9));
	assert_instant("2023-10-13 16:45+02:00", S(T0 - 9 - 7200));
}

static void test_time_parse_date_only_is_midnight(void **state)
{
	int flags = -1;

	(void)state;
	assert_instant("2023-10-13", S(1697155200));
	assert_instant("1970-01-01", 0);
	/* midnight in LA on 2023-10-13 is 07:00Z (PDT, -7) */
	assert_true(parse_ok_tz("2023-10-13", la, &flags) ==
		    S(1697155200 + 7 * 3600));
	assert_int_equal(flags, 0);
}

static void test_time_parse_naive_utc_when_tz_null(void **state)
{
	int flags = -1;

	(void)state;
	assert_true(parse_ok_tz("2023-10-13T16:45:09", NULL, &flags) == S(T0));
	assert_int_equal(flags, 0);
	assert_true(parse_ok_tz("2024-03-10 02:30:00", NULL, &flags) ==
		    S(1710028800 + 9000));
	assert_int_equal(flags, 0);
}

static void test_time_parse_naive_los_angeles(void **state)
{
	int flags = -1;

	(void)state;
	/* summer, PDT (-7): 09:45:09 local = 16:45:09Z */
	assert_true(parse_ok_tz("2023-10-13 09:45:09", la, &flags) == S(T0));
	assert_int_equal(flags, 0);
	/* winter, PST (-8): 2024-01-15 12:00 local = 20:00Z;
	 * 2024-01-15 = day 19723 + 14 = 19737 -> 1705276800 + 72000 */
	flags = -1;
	assert_true(parse_ok_tz("2024-01-15T12:00:00", la, &flags) ==
		    S(1705348800));
	assert_int_equal(flags, 0);
	/* flags may be NULL */
	assert_true(parse_ok_tz("2024-01-15T12:00:00", la, NULL) ==
		    S(1705348800));
}

static void test_time_parse_la_dst_gap_2024_03_10(void **state)
{
	int flags = 0;

	(void)state;
	/* 02:30 does not exist; fold=0 uses PST (-8): 10:30Z.
	 * 2024-03-10 = day 19723 + 60 + 9 = 19792 -> 1710028800 + 37800 */
	assert_true(parse_ok_tz("2024-03-10 02:30:00", la, &flags) ==
		    S(1710066600));
	assert_int_equal(flags, ST_TZ_GAP);
	/* flags may be NULL */
	assert_true(parse_ok_tz("2024-03-10T02:30:00", la, NULL) ==
		    S(1710066600));
}

static void test_time_parse_la_dst_overlap_2024_11_03(void **state)
{
	int flags = 0;

	(void)state;
	/* 01:30 exists twice; the earlier (PDT, -7) is 08:30Z.
	 * 2024-11-03 = day 19723 + 305 + 2 = 20030 -> 1730592000 + 30600 */
	assert_true(parse_ok_tz("2024-11-03 01:30:00", la, &flags) ==
		    S(1730622600));
	assert_int_equal(flags, ST_TZ_AMBIGUOUS);
}

static void test_time_parse_explicit_offset_ignores_tz(void **state)
{
	int flags = -1;

	(void)state;
	/* 2024-03-10T02:30:00Z = 1710028800 + 9000; no gap flag with an offset */
	assert_true(parse_ok_tz("2024-03-10T02:30:00Z", la, &flags) ==
		    S(1710037800));
	assert_int_equal(flags, 0);
	flags = -1;
	assert_true(parse_ok_tz("2023-10-13T16:45:09+00:00", la, &flags) ==
		    S(T0));
	assert_int_equal(flags, 0);
}

static void test_time_parse_leap_days(void **state)
{
	(void)state;
	assert_instant("2024-02-29T00:00:00Z", S(1709164800));
	assert_instant("2000-02-29T00:00:00Z", S(951782400));
	assert_instant("2000-02-29", S(951782400));
	assert_time_bad("2023-02-29T00:00:00Z");
	assert_time_bad("2023-02-29");
	assert_time_bad("2100-02-29T00:00:00Z");
	assert_time_bad("1900-02-29");
	assert_time_bad("2024-02-30");
}

static void test_time_parse_invalid_dates(void **state)
{
	(void)state;
	assert_time_bad("2023-13-01");
	assert_time_bad("2023-13-01T00:00:00Z");
	assert_time_bad("2023-00-10");
	assert_time_bad("2023-10-00");
	assert_time_bad("2023-04-31");
	assert_time_bad("2023-10-32");
}

static void test_time_parse_invalid_times(void **state)
{
	(void)state;
	assert_time_bad("2023-10-13T25:00:00");
	assert_time_bad("2023-10-13T24:00:00Z");
	assert_time_bad("2023-10-13T16:60:00Z");
	assert_time_bad("2023-10-13T16:45:60Z");
	assert_time_bad("2023-10-13T16:45:09+24:00");
	assert_time_bad("2023-10-13T16:45:09+02:60");
}

static void test_time_parse_malformed(void **state)
{
	(void)state;
	assert_time_bad("");
	assert_time_bad("16:45:09");
	assert_time_bad("2023/10/13");
	assert_time_bad("2023-10-13T16:45:09Zjunk");
	assert_time_bad("2023-10-13T16:45:09+00:00junk");
	assert_time_bad("2023-10-13T16:45:09+00:00+00:00x");
	assert_time_bad("2023-10-13T16:45:09 junk");
	assert_time_bad("2023-10-13T16:45:09.");
	assert_time_bad("2023-10-13T16:45:09.Z");
	assert_time_bad("2023-10-13T16");
	assert_time_bad("2023-10-13T");
	assert_time_bad("2023-10-1");
	assert_time_bad("23-10-13");
	assert_time_bad("2023-10-13T1:45:09Z");
	assert_time_bad("not a time");
}

static void test_time_parse_null_err_tolerated(void **state)
{
	st_instant t = 0;

	(void)state;
	assert_int_equal(st_time_parse("garbage", NULL, &t, NULL, NULL), -1);
	assert_int_equal(st_time_parse("2023-02-29", NULL, &t, NULL, NULL), -1);
	assert_int_equal(st_time_parse("2023-10-13T16:45:09Z", NULL, &t, NULL,
				       NULL), 0);
	assert_true(t == S(T0));
}

/* The documented ends of the range: pandas' Timestamp.max is
 * 2262-04-11 23:47:16.854775807 = INT64_MAX ns; 1678-01-01 is 292 years
 * (70 leap) before 1970: -(292*365 + 70) * 86400 = -9214560000 s. */
static void test_time_parse_int64_range_ends(void **state)
{
	(void)state;
	assert_instant("2262-04-11T23:47:16.854775807Z", INT64_MAX);
	assert_instant("1678-01-01T00:00:00Z", S(INT64_C(-9214560000)));
}

/* int64 nanoseconds cover 1678..2262 only (time.h); a year outside must be
 * an error 65, not a wrapped-around instant (signed overflow). */
static void test_time_parse_year_out_of_int64_range_rejected(void **state)
{
	(void)state;
	assert_time_bad("9999-12-31T23:59:59Z");
	assert_time_bad("1000-01-01T00:00:00Z");
}

/* ---- formatting --------------------------------------------------------- */

static void test_time_format_utc_whole_seconds(void **state)
{
	(void)state;
	assert_fmt_utc(S(T0), "2023-10-13T16:45:09+00:00");
	assert_fmt_utc(0, "1970-01-01T00:00:00+00:00");
	assert_fmt_utc(S(951782400), "2000-02-29T00:00:00+00:00");
}

static void test_time_format_utc_microseconds(void **state)
{
	(void)state;
	assert_fmt_utc(S(T0) + 123456000, "2023-10-13T16:45:09.123456+00:00");
	assert_fmt_utc(S(T0) + 500000000, "2023-10-13T16:45:09.500000+00:00");
	assert_fmt_utc(S(T0) + 1000, "2023-10-13T16:45:09.000001+00:00");
}

static void test_time_format_utc_nanoseconds(void **state)
{
	(void)state;
	assert_fmt_utc(S(T0) + 123456789, "2023-10-13T16:45:09.123456789+00:00");
	assert_fmt_utc(S(T0) + 1, "2023-10-13T16:45:09.000000001+00:00");
	/* the longest form fits in the documented 36 bytes */
	{
		char buf[36];

		assert_int_equal(st_time_format_utc(S(T0) + 999999999, buf,
						    sizeof(buf)), 35);
		assert_string_equal(buf, "2023-10-13T16:45:09.999999999+00:00");
	}
}

static void test_time_format_utc_before_1970(void **state)
{
	(void)state;
	assert_fmt_utc(-500000000, "1969-12-31T23:59:59.500000+00:00");
	assert_fmt_utc(-S(1), "1969-12-31T23:59:59+00:00");
	assert_fmt_utc(-1, "1969-12-31T23:59:59.999999999+00:00");
	assert_fmt_utc(-S(86400), "1969-12-31T00:00:00+00:00");
	assert_fmt_utc(-S(86400) - 1000, "1969-12-30T23:59:59.999999+00:00");
	assert_fmt_utc(S(-2208988800), "1900-01-01T00:00:00+00:00");
}

static void test_time_format_parse_round_trip(void **state)
{
	static const st_instant ts[] = {
		0, 1, -1, S(T0), S(T0) + 123456000, -500000000,
		S(-2208988800) + 7, S(1709164800) + 999999999,
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		st_time_format_utc(ts[i], buf, sizeof(buf));
		assert_true(parse_ok(buf) == ts[i]);
	}
}

static void test_time_format_naive(void **state)
{
	(void)state;
	assert_fmt_naive(S(T0), NULL, "2023-10-13 16:45:09");
	assert_fmt_naive(S(T0) + 250000000, NULL, "2023-10-13 16:45:09.250000");
	assert_fmt_naive(S(T0), la, "2023-10-13 09:45:09");
	assert_fmt_naive(S(1705348800), la, "2024-01-15 12:00:00");
	/* the gap result is 03:30 PDT */
	assert_fmt_naive(S(1710066600), la, "2024-03-10 03:30:00");
	/* both instants of the overlap read 01:30 */
	assert_fmt_naive(S(1730622600), la, "2024-11-03 01:30:00");
	assert_fmt_naive(S(1730622600 + 3600), la, "2024-11-03 01:30:00");
	/* before 1970 in LA (PST): 23:59:59.5Z - 8 h */
	assert_fmt_naive(-500000000, la, "1969-12-31 15:59:59.500000");
}

/* ---- durations ----------------------------------------------------------- */

static void test_duration_parse_sacct(void **state)
{
	(void)state;
	/* 1 day + 2 h 3 min 4 s = 86400 + 7384 */
	assert_duration("1-02:03:04", S(93784));
	/* MM:SS */
	assert_duration("05:06", S(306));
	assert_duration("00:00", 0);
	assert_duration("02:03:04", S(7384));
	/* D-HH and D-HH:MM */
	assert_duration("1-02", S(93600));
	assert_duration("1-02:03", S(93780));
	assert_duration("0-00:00:01", S(1));
}

static void test_duration_parse_hours_past_24(void **state)
{
	(void)state;
	assert_duration("100:00:00", S(360000));
	assert_duration("25:00:01", S(90001));
}

static void test_duration_parse_pandas(void **state)
{
	(void)state;
	/* 19 min 38 s = 1178 s */
	assert_duration("0 days 00:19:38", S(1178));
	assert_duration("2 days 01:00:00", S(176400));
	assert_duration("0 days 00:00:01.500000", S(1) + 500000000);
	assert_duration("1 day, 0:00:00", S(86400));
	assert_duration("1 day 00:00:00", S(86400));
}

/* pandas writes -1 s as "-1 days +23:59:59": -86400 + 86399. */
static void test_duration_parse_pandas_negative_days_plus_time(void **state)
{
	(void)state;
	assert_duration("-1 days +23:59:59", -S(1));
	/* -1.5 s: -86400 + 86398.5 */
	assert_duration("-1 days +23:59:58.500000", -S(1) - 500000000);
}

static void test_duration_parse_seconds_and_fractions(void **state)
{
	(void)state;
	assert_duration("12.5", S(12) + 500000000);
	assert_duration("0", 0);
	assert_duration("3600", S(3600));
	assert_duration("0.000000001", 1);
	assert_duration("1.1234567891", S(1) + 123456789);
	assert_duration("00:00:01.25", S(1) + 250000000);
	assert_duration("01:02.5", S(62) + 500000000);
}

static void test_duration_parse_negative(void **state)
{
	(void)state;
	assert_duration("-00:00:05", -S(5));
	assert_duration("-12.5", -S(12) - 500000000);
	assert_duration("-01:00:00", -S(3600));
}

static void test_duration_parse_invalid(void **state)
{
	(void)state;
	assert_duration_bad("");
	assert_duration_bad("abc");
	assert_duration_bad("1:60");
	assert_duration_bad("00:60:00");
	assert_duration_bad("00:00:60");
	assert_duration_bad("1-24:00:00");
	assert_duration_bad("--5");
	assert_duration_bad("5 weeks");
	assert_duration_bad("-");
	assert_duration_bad("12:");
	assert_duration_bad(":12");
	assert_duration_bad("1.");
	assert_duration_bad("1.5.5");
	assert_duration_bad("1-");
	assert_duration_bad("5 days junk");
}

/* The largest whole number of seconds that fits: 9223372036. */
static void test_duration_parse_int64_range_end(void **state)
{
	(void)state;
	assert_duration("9223372036", S(INT64_C(9223372036)));
	assert_duration("-9223372036", -S(INT64_C(9223372036)));
}

/* Past int64 nanoseconds the parsers multiply into signed overflow: these
 * must be error 65, not a wrapped value.
 *   9223372039 s           > 9223372036 s
 *   106752 days            = 9223372800 s
 *   2562048 h              = 9223372800 s */
static void test_duration_parse_overflow_rejected(void **state)
{
	(void)state;
	assert_duration_bad("9223372039");
	assert_duration_bad("106752-00:00:00");
	assert_duration_bad("2562048:00:00");
	assert_duration_bad("106752 days 00:00:00");
}

static void test_duration_parse_null_err_tolerated(void **state)
{
	st_duration d = 0;

	(void)state;
	assert_int_equal(st_duration_parse("xyz", &d, NULL), -1);
}

static void test_duration_format_hms(void **state)
{
	(void)state;
	assert_fmt_hms(0, "00:00:00");
	assert_fmt_hms(S(59), "00:00:59");
	assert_fmt_hms(S(60), "00:01:00");
	assert_fmt_hms(S(3600), "01:00:00");
	assert_fmt_hms(S(93784), "26:03:04");
	assert_fmt_hms(S(360000), "100:00:00");
}

static void test_duration_format_hms_negative(void **state)
{
	(void)state;
	assert_fmt_hms(-S(5), "-00:00:05");
	assert_fmt_hms(-S(3661), "-01:01:01");
	assert_fmt_hms(-S(1) - 500000000, "-00:00:01.500000");
}

static void test_duration_format_hms_int64_extremes(void **state)
{
	(void)state;
	/* 9223372036 s = 2562047 h (9223369200 s) + 2836 s = 47 min 16 s */
	assert_fmt_hms(INT64_MAX, "2562047:47:16.854775807");
	assert_fmt_hms(INT64_MIN, "-2562047:47:16.854775808");
}

static void test_duration_format_hms_fractions(void **state)
{
	(void)state;
	assert_fmt_hms(S(1) + 250000000, "00:00:01.250000");
	assert_fmt_hms(1, "00:00:00.000000001");
	assert_fmt_hms(S(59) + 123456789, "00:00:59.123456789");
}

static void test_duration_seconds(void **state)
{
	(void)state;
	assert_true(st_duration_seconds(S(93784)) == 93784.0);
	assert_true(st_duration_seconds(S(1) + 500000000) == 1.5);
	assert_true(st_duration_seconds(-S(1) - 500000000) == -1.5);
	assert_true(st_duration_seconds(0) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leap_years_and_month_lengths),
		cmocka_unit_test(test_days_from_civil_known_dates),
		cmocka_unit_test(test_civil_from_days_known_dates),
		cmocka_unit_test(test_civil_days_round_trip_1600_2400),
		cmocka_unit_test(test_time_parse_z),
		cmocka_unit_test(test_time_parse_offsets),
		cmocka_unit_test(test_time_parse_fractions),
		cmocka_unit_test(test_time_parse_fraction_more_than_9_digits_truncated),
		cmocka_unit_test(test_time_parse_doubled_offset_first_wins),
		cmocka_unit_test(test_time_parse_doubled_offset_uses_first_not_second),
		cmocka_unit_test(test_time_parse_space_separator),
		cmocka_unit_test(test_time_parse_without_seconds),
		cmocka_unit_test(test_time_parse_date_only_is_midnight),
		cmocka_unit_test(test_time_parse_naive_utc_when_tz_null),
		cmocka_unit_test(test_time_parse_naive_los_angeles),
		cmocka_unit_test(test_time_parse_la_dst_gap_2024_03_10),
		cmocka_unit_test(test_time_parse_la_dst_overlap_2024_11_03),
		cmocka_unit_test(test_time_parse_explicit_offset_ignores_tz),
		cmocka_unit_test(test_time_parse_leap_days),
		cmocka_unit_test(test_time_parse_invalid_dates),
		cmocka_unit_test(test_time_parse_invalid_times),
		cmocka_unit_test(test_time_parse_malformed),
		cmocka_unit_test(test_time_parse_null_err_tolerated),
		cmocka_unit_test(test_time_parse_int64_range_ends),
		cmocka_unit_test(test_time_format_utc_whole_seconds),
		cmocka_unit_test(test_time_format_utc_microseconds),
		cmocka_unit_test(test_time_format_utc_nanoseconds),
		cmocka_unit_test(test_time_format_utc_before_1970),
		cmocka_unit_test(test_time_format_parse_round_trip),
		cmocka_unit_test(test_time_format_naive),
		cmocka_unit_test(test_duration_parse_sacct),
		cmocka_unit_test(test_duration_parse_hours_past_24),
		cmocka_unit_test(test_duration_parse_pandas),
		cmocka_unit_test(test_duration_parse_pandas_negative_days_plus_time),
		cmocka_unit_test(test_duration_parse_seconds_and_fractions),
		cmocka_unit_test(test_duration_parse_negative),
		cmocka_unit_test(test_duration_parse_invalid),
		cmocka_unit_test(test_duration_parse_int64_range_end),
		cmocka_unit_test(test_duration_parse_null_err_tolerated),
		cmocka_unit_test(test_duration_format_hms),
		cmocka_unit_test(test_duration_format_hms_negative),
		cmocka_unit_test(test_duration_format_hms_int64_extremes),
		cmocka_unit_test(test_duration_format_hms_fractions),
		cmocka_unit_test(test_duration_seconds),
		/* last: with -fsanitize=undefined these overflow and abort the
		 * run until fixed */
		cmocka_unit_test(test_duration_parse_overflow_rejected),
		cmocka_unit_test(test_time_parse_year_out_of_int64_range_rejected),
	};

	return cmocka_run_group_tests(tests, setup_la, teardown_la);
}
