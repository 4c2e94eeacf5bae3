/* test_tz.c - unit tests for src/base/tz.c.
 *
 * Expected values are worked out by hand from the published rules (US, EU,
 * Australian, Israeli ... DST laws and the POSIX TZ strings of the zone
 * files), never taken from the code under test.  Dates are written as
 * civil dates; civ() is a test-side days-from-civil, itself checked against
 * literal epoch values.
 *
 * The runner sets TZDIR=/usr/share/zoneinfo.  The synthetic-file tests point
 * TZDIR at a temporary directory and restore it in their teardown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/error.h"
#include "streamtime/tz.h"

#define H 3600

/* ---- helpers ---------------------------------------------------------- */

/* Seconds since 1970-01-01 00:00 of the given proleptic Gregorian date and
 * time (used for UTC instants and for naive local wall-clock seconds). */
static int64_t civ(int64_t y, int m, int d, int hh, int mm, int ss)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468) * 86400 + hh * 3600 + mm * 60 +
	       ss;
}

static st_tz *load_ok(const char *name)
{
	st_error err = { 0 };
	st_tz *tz = st_tz_load(name, &err);

	if (!tz)
		fail_msg("loading '%s' failed: %d %s", name, err.code, err.text);
	assert_int_equal(err.code, 0);
	assert_string_equal(st_tz_name(tz), name);
	return tz;
}

/* Assert that LOCAL maps to UTC instant WANT with flags WANT_FLAGS. */
static void check_local(const st_tz *tz, int64_t local, int64_t want,
			int want_flags)
{
	int flags = -1;
	int64_t got = st_tz_local_to_utc(tz, local, &flags);

	if (got != want || flags != want_flags)
		fail_msg("%s: local %lld -> %lld flags %d, want %lld flags %d",
			 tz ? st_tz_name(tz) : "(null)", (long long)local,
			 (long long)got, flags, (long long)want, want_flags);
	/* FLAGS may be NULL. */
	assert_true(st_tz_local_to_utc(tz, local, NULL) == want);
}

/* Assert the offset just before and at a transition at UTC T. */
static void check_transition(const st_tz *tz, int64_t t, int32_t before,
			     int32_t after)
{
	assert_int_equal(st_tz_offset_at(tz, t - 1), before);
	assert_int_equal(st_tz_offset_at(tz, t), after);
	assert_int_equal(st_tz_offset_at(tz, t + 1), after);
}

/* ---- synthetic TZif files --------------------------------------------- */

#define MAX_FILES 32

static char tmpdir[64];
static char *saved_tzdir;
static char written[MAX_FILES][64];
static int n_written;

/* PATH (256 bytes) = tmpdir/NAME. */
static void tmp_path(char *path, const char *name)
{
	int n = snprintf(path, 256, "%s/%s", tmpdir, name);

	assert_true(n > 0 && n < 256);
}

/* Remember NAME for removal in the group teardown. */
static void remember(const char *name)
{
	int n;

	assert_true(n_written < MAX_FILES);
	n = snprintf(written[n_written], sizeof(written[0]), "%s", name);
	assert_true(n > 0 && (size_t)n < sizeof(written[0]));
	n_written++;
}

struct ttype {
	int32_t off;
	int dst;
};

static void put32(FILE *f, int64_t v)
{
	uint32_t u = (uint32_t)v;
	unsigned char b[4] = {
		(unsigned char)(u >> 24 & 0xff), (unsigned char)(u >> 16 & 0xff),
		(unsigned char)(u >> 8 & 0xff), (unsigned char)(u & 0xff),
	};

	fwrite(b, 1, 4, f);
}

static void put64(FILE *f, int64_t v)
{
	put32(f, (int64_t)((uint64_t)v >> 32));
	put32(f, v);
}

static void put_header(FILE *f, char version, size_t ntrans, size_t ntypes)
{
	static const char zero[15];

	fwrite("TZif", 1, 4, f);
	fputc(version, f);
	fwrite(zero, 1, 15, f);
	put32(f, 0);                    /* isutcnt */
	put32(f, 0);                    /* isstdcnt */
	put32(f, 0);                    /* leapcnt */
	put32(f, (int64_t)ntrans);
	put32(f, (int64_t)ntypes);
	put32(f, (int64_t)ntypes * 4);  /* charcnt: "Tn\0\0" per type */
}

static void put_data(FILE *f, int wide, const int64_t *trans,
		     const unsigned char *idx, size_t ntrans,
		     const struct ttype *types, size_t ntypes)
{
	for (size_t i = 0; i < ntrans; i++) {
		if (wide)
			put64(f, trans[i]);
		else
			put32(f, trans[i]);
	}
	if (ntrans)
		fwrite(idx, 1, ntrans, f);
	for (size_t i = 0; i < ntypes; i++) {
		put32(f, types[i].off);
		fputc(types[i].dst, f);
		fputc((int)(4 * i), f);
	}
	for (size_t i = 0; i < ntypes; i++) {
		char abbr[4] = { 'T', (char)('0' + i), 0, 0 };

		fwrite(abbr, 1, 4, f);
	}
}

/* Write TZif file NAME into tmpdir: VERSION 0 writes a version-1 file
 * (32-bit data only, no footer); otherwise a version-VERSION file with the
 * same data in both blocks and footer FOOTER. */
static void write_tzif(const char *name, char version, const int64_t *trans,
		       const unsigned char *idx, size_t ntrans,
		       const struct ttype *types, size_t ntypes,
		       const char *footer)
{
	char path[256];
	FILE *f;

	tmp_path(path, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	put_header(f, version, ntrans, ntypes);
	put_data(f, 0, trans, idx, ntrans, types, ntypes);
	if (version) {
		put_header(f, version, ntrans, ntypes);
		put_data(f, 1, trans, idx, ntrans, types, ntypes);
		fprintf(f, "\n%s\n", footer);
	}
	assert_int_equal(fclose(f), 0);
	remember(name);
}

/* A slim-style file: no transitions, one type, only footer FOOTER. */
static void write_slim(const char *name, int32_t off, const char *footer)
{
	struct ttype t = { off, 0 };

	write_tzif(name, '2', NULL, NULL, 0, &t, 1, footer);
}

static void write_raw(const char *name, const void *data, size_t len)
{
	char path[256];
	FILE *f;

	tmp_path(path, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	remember(name);
}

static int group_setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/test_tz.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char path[256];

	(void)state;
	for (int i = 0; i < n_written; i++) {
		tmp_path(path, written[i]);
		unlink(path);
	}
	rmdir(tmpdir);
	return 0;
}

/* Point TZDIR at the temporary directory, remembering the old value. */
static int tzdir_setup(void **state)
{
	const char *old = getenv("TZDIR");

	(void)state;
	saved_tzdir = old ? strdup(old) : NULL;
	if (old && !saved_tzdir)
		return -1;
	return setenv("TZDIR", tmpdir, 1);
}

/* Restore TZDIR (runs even when the test failed). */
static int tzdir_teardown(void **state)
{
	int rc;

	(void)state;
	rc = saved_tzdir ? setenv("TZDIR", saved_tzdir, 1) : unsetenv("TZDIR");
	free(saved_tzdir);
	saved_tzdir = NULL;
	return rc;
}

/* Assert that loading NAME fails with code 78 and a message naming the
 * file under tmpdir. */
static void check_malformed(const char *name)
{
	st_error err = { 0 };
	char path[256];

	tmp_path(path, name);
	assert_null(st_tz_load(name, &err));
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	if (!strstr(err.text, path))
		fail_msg("message '%s' does not name '%s'", err.text, path);
	assert_non_null(strstr(err.text, "malformed"));
}

/* ---- tests against the system zone files ------------------------------ */

static void test_civ_helper(void **state)
{
	(void)state;
	assert_true(civ(1970, 1, 1, 0, 0, 0) == 0);
	assert_true(civ(2000, 1, 1, 0, 0, 0) == 946684800);
	assert_true(civ(2024, 3, 10, 10, 0, 0) == 1710064800);
	assert_true(civ(1800, 1, 1, 0, 0, 0) == INT64_C(-5364662400));
}

static void test_utc_and_null(void **state)
{
	static const char *const names[] = { "UTC", "Etc/UTC", "Z" };
	int64_t t = civ(2024, 7, 1, 12, 0, 0);
	int flags = -1;

	(void)state;
	assert_int_equal(st_tz_offset_at(NULL, t), 0);
	assert_true(st_tz_local_to_utc(NULL, t, &flags) == t);
	assert_int_equal(flags, 0);
	assert_true(st_tz_local_to_utc(NULL, t, NULL) == t);
	st_tz_free(NULL);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		st_tz *tz = load_ok(names[i]);

		assert_int_equal(st_tz_offset_at(tz, t), 0);
		assert_int_equal(st_tz_offset_at(tz, civ(1850, 1, 1, 0, 0, 0)),
				 0);
		assert_int_equal(st_tz_offset_at(tz, civ(2200, 1, 1, 0, 0, 0)),
				 0);
		check_local(tz, t, t, 0);
		st_tz_free(tz);
	}
}

static void test_refused_names(void **state)
{
	static const char *const bad[] = {
		"../etc/passwd", "/etc/localtime", "", "America/../Etc/UTC",
		"..",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st_error err = { 0 };

		assert_null(st_tz_load(bad[i], &err));
		assert_int_equal(err.code, ST_EXIT_CONFIG);
		assert_true(err.text[0] != '\0');
	}
	/* A NULL error report is allowed. */
	assert_null(st_tz_load("../etc/passwd", NULL));
}

static void test_unknown_zone(void **state)
{
	st_error err = { 0 };

	(void)state;
	assert_null(st_tz_load("Mars/Base", &err));
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	assert_string_equal(err.text, "unknown time zone 'Mars/Base'");

	/* A directory is not a zone. */
	memset(&err, 0, sizeof(err));
	assert_null(st_tz_load("America", &err));
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	assert_string_equal(err.text, "unknown time zone 'America'");
	assert_null(st_tz_load("Mars/Base", NULL));
}

static void test_los_angeles_offsets(void **state)
{
	st_tz *tz = load_ok("America/Los_Angeles");

	(void)state;
	assert_int_equal(st_tz_offset_at(tz, civ(2023, 10, 13, 12, 0, 0)),
			 -7 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2023, 12, 1, 12, 0, 0)),
			 -8 * H);
	/* 2024: PDT from Sun Mar 10 02:00 PST (10:00Z) to Sun Nov 3 02:00
	 * PDT (09:00Z). */
	check_transition(tz, civ(2024, 3, 10, 10, 0, 0), -8 * H, -7 * H);
	check_transition(tz, civ(2024, 11, 3, 9, 0, 0), -7 * H, -8 * H);
	/* Before 1883-11-18 20:00Z: local mean time -7:52:58. */
	assert_int_equal(st_tz_offset_at(tz, civ(1800, 1, 1, 0, 0, 0)),
			 -(7 * H + 52 * 60 + 58));
	/* Standard time began 1883-11-18 12:07:02 LMT = 20:00:00Z. */
	check_transition(tz, civ(1883, 11, 18, 20, 0, 0),
			 -(7 * H + 52 * 60 + 58), -8 * H);
	st_tz_free(tz);
}

static void test_los_angeles_local(void **state)
{
	st_tz *tz = load_ok("America/Los_Angeles");

	(void)state;
	/* Ordinary times. */
	check_local(tz, civ(2024, 1, 15, 12, 0, 0), civ(2024, 1, 15, 20, 0, 0),
		    0);
	check_local(tz, civ(2024, 7, 1, 12, 0, 0), civ(2024, 7, 1, 19, 0, 0),
		    0);
	check_local(tz, civ(2023, 10, 13, 9, 0, 0),
		    civ(2023, 10, 13, 16, 0, 0), 0);

	/* Spring forward 2024-03-10: 02:00..02:59:59 do not exist; the PST
	 * offset (before the gap) is used. */
	check_local(tz, civ(2024, 3, 10, 1, 59, 59),
		    civ(2024, 3, 10, 9, 59, 59), 0);
	check_local(tz, civ(2024, 3, 10, 2, 0, 0), civ(2024, 3, 10, 10, 0, 0),
		    ST_TZ_GAP);
	check_local(tz, civ(2024, 3, 10, 2, 30, 0),
		    civ(2024, 3, 10, 10, 30, 0), ST_TZ_GAP);
	check_local(tz, civ(2024, 3, 10, 2, 59, 59),
		    civ(2024, 3, 10, 10, 59, 59), ST_TZ_GAP);
	check_local(tz, civ(2024, 3, 10, 3, 0, 0), civ(2024, 3, 10, 10, 0, 0),
		    0);

	/* Fall back 2024-11-03: 01:00..01:59:59 happen twice; the earlier
	 * (PDT) instant is returned. */
	check_local(tz, civ(2024, 11, 3, 0, 59, 59),
		    civ(2024, 11, 3, 7, 59, 59), 0);
	check_local(tz, civ(2024, 11, 3, 1, 0, 0), civ(2024, 11, 3, 8, 0, 0),
		    ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2024, 11, 3, 1, 30, 0), civ(2024, 11, 3, 8, 30, 0),
		    ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2024, 11, 3, 1, 59, 59),
		    civ(2024, 11, 3, 8, 59, 59), ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2024, 11, 3, 2, 0, 0), civ(2024, 11, 3, 10, 0, 0),
		    0);
	st_tz_free(tz);
}

static void test_los_angeles_footer(void **state)
{
	st_tz *tz = load_ok("America/Los_Angeles");

	(void)state;
	/* Past the table (fat files stop in 2037): PST8PDT,M3.2.0,M11.1.0. */
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 7, 1, 0, 0, 0)), -7 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 1, 1, 0, 0, 0)), -8 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2100, 7, 1, 0, 0, 0)), -7 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2100, 12, 1, 0, 0, 0)),
			 -8 * H);
	/* 2040: second Sunday of March is the 11th, first of November the
	 * 4th. */
	check_transition(tz, civ(2040, 3, 11, 10, 0, 0), -8 * H, -7 * H);
	check_transition(tz, civ(2040, 11, 4, 9, 0, 0), -7 * H, -8 * H);
	check_local(tz, civ(2040, 3, 11, 2, 30, 0),
		    civ(2040, 3, 11, 10, 30, 0), ST_TZ_GAP);
	check_local(tz, civ(2040, 11, 4, 1, 30, 0), civ(2040, 11, 4, 8, 30, 0),
		    ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2040, 11, 4, 2, 0, 0), civ(2040, 11, 4, 10, 0, 0),
		    0);
	st_tz_free(tz);
}

static void test_london(void **state)
{
	st_tz *tz = load_ok("Europe/London");

	(void)state;
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 15, 12, 0, 0)), 0);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 12, 0, 0)), H);
	/* EU rule: last Sunday of March / October at 01:00Z. */
	check_transition(tz, civ(2024, 3, 31, 1, 0, 0), 0, H);
	check_transition(tz, civ(2024, 10, 27, 1, 0, 0), H, 0);
	check_transition(tz, civ(2040, 3, 25, 1, 0, 0), 0, H);
	check_transition(tz, civ(2040, 10, 28, 1, 0, 0), H, 0);
	check_local(tz, civ(2024, 3, 31, 1, 30, 0), civ(2024, 3, 31, 1, 30, 0),
		    ST_TZ_GAP);
	check_local(tz, civ(2024, 10, 27, 1, 30, 0),
		    civ(2024, 10, 27, 0, 30, 0), ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2024, 6, 1, 12, 0, 0), civ(2024, 6, 1, 11, 0, 0),
		    0);
	st_tz_free(tz);
}

static void test_sydney(void **state)
{
	st_tz *tz = load_ok("Australia/Sydney");

	(void)state;
	/* Southern hemisphere: AEDT (+11) in January, AEST (+10) in July. */
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 15, 0, 0, 0)),
			 11 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)),
			 10 * H);
	/* Ends first Sunday of April 03:00 AEDT, starts first Sunday of
	 * October 02:00 AEST. */
	check_transition(tz, civ(2024, 4, 6, 16, 0, 0), 11 * H, 10 * H);
	check_transition(tz, civ(2024, 10, 5, 16, 0, 0), 10 * H, 11 * H);
	check_local(tz, civ(2024, 4, 7, 2, 30, 0), civ(2024, 4, 6, 15, 30, 0),
		    ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2024, 10, 6, 2, 30, 0),
		    civ(2024, 10, 5, 16, 30, 0), ST_TZ_GAP);
	check_local(tz, civ(2024, 12, 25, 12, 0, 0),
		    civ(2024, 12, 25, 1, 0, 0), 0);
	/* Footer AEST-10AEDT,M10.1.0,M4.1.0/3 (DST wraps the new year). */
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 1, 15, 0, 0, 0)),
			 11 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 7, 15, 0, 0, 0)),
			 10 * H);
	check_transition(tz, civ(2040, 3, 31, 16, 0, 0), 11 * H, 10 * H);
	check_transition(tz, civ(2040, 10, 6, 16, 0, 0), 10 * H, 11 * H);
	st_tz_free(tz);
}

static void test_kolkata(void **state)
{
	st_tz *tz = load_ok("Asia/Kolkata");

	(void)state;
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 6, 1, 0, 0, 0)),
			 5 * H + 1800);
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 12, 1, 0, 0, 0)),
			 5 * H + 1800);
	check_local(tz, civ(2024, 6, 1, 12, 0, 0), civ(2024, 6, 1, 6, 30, 0),
		    0);
	st_tz_free(tz);
}

static void test_dublin_negative_dst(void **state)
{
	st_tz *tz = load_ok("Europe/Dublin");

	(void)state;
	/* IST (+1) in summer, GMT in winter, whichever is flagged DST. */
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)), H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 15, 0, 0, 0)), 0);
	check_transition(tz, civ(2024, 3, 31, 1, 0, 0), 0, H);
	check_transition(tz, civ(2024, 10, 27, 1, 0, 0), H, 0);
	check_local(tz, civ(2024, 3, 31, 1, 30, 0), civ(2024, 3, 31, 1, 30, 0),
		    ST_TZ_GAP);
	check_local(tz, civ(2024, 10, 27, 1, 30, 0),
		    civ(2024, 10, 27, 0, 30, 0), ST_TZ_AMBIGUOUS);
	/* Footer IST-1GMT0,M10.5.0,M3.5.0/1: "DST" is GMT in winter. */
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 7, 1, 0, 0, 0)), H);
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 1, 15, 0, 0, 0)), 0);
	check_transition(tz, civ(2040, 3, 25, 1, 0, 0), 0, H);
	check_transition(tz, civ(2040, 10, 28, 1, 0, 0), H, 0);
	check_local(tz, civ(2040, 3, 25, 1, 30, 0), civ(2040, 3, 25, 1, 30, 0),
		    ST_TZ_GAP);
	check_local(tz, civ(2040, 10, 28, 1, 30, 0),
		    civ(2040, 10, 28, 0, 30, 0), ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2040, 12, 1, 12, 0, 0), civ(2040, 12, 1, 12, 0, 0),
		    0);
	st_tz_free(tz);
}

static void test_unusual_footers(void **state)
{
	st_tz *tz;

	(void)state;
	/* <+0330>-3:30: no DST. */
	tz = load_ok("Asia/Tehran");
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 7, 1, 0, 0, 0)),
			 3 * H + 1800);
	st_tz_free(tz);

	/* <-02>2<-01>,M3.5.0/-1,M10.5.0/0: a negative rule time, DST from
	 * Saturday 23:00 local before the last Sunday of March. */
	tz = load_ok("America/Nuuk");
	check_transition(tz, civ(2040, 3, 25, 1, 0, 0), -2 * H, -1 * H);
	check_transition(tz, civ(2040, 10, 28, 1, 0, 0), -1 * H, -2 * H);
	check_local(tz, civ(2040, 3, 24, 23, 30, 0),
		    civ(2040, 3, 25, 1, 30, 0), ST_TZ_GAP);
	st_tz_free(tz);

	/* IST-2IDT,M3.4.4/26,M10.5.0: Friday 02:00 after the fourth
	 * Thursday of March (2040-03-22 + 26 h). */
	tz = load_ok("Asia/Jerusalem");
	check_transition(tz, civ(2040, 3, 23, 0, 0, 0), 2 * H, 3 * H);
	check_transition(tz, civ(2040, 10, 27, 23, 0, 0), 3 * H, 2 * H);
	st_tz_free(tz);

	/* <+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45. */
	tz = load_ok("Pacific/Chatham");
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 7, 1, 0, 0, 0)),
			 12 * H + 2700);
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 1, 1, 0, 0, 0)),
			 13 * H + 2700);
	check_transition(tz, civ(2040, 3, 31, 14, 0, 0), 13 * H + 2700,
			 12 * H + 2700);
	check_transition(tz, civ(2040, 9, 29, 14, 0, 0), 12 * H + 2700,
			 13 * H + 2700);
	st_tz_free(tz);
}

/* ---- tests on synthetic files ----------------------------------------- */

static void test_utc_needs_no_file(void **state)
{
	st_tz *tz;
	st_error err = { 0 };

	(void)state;
	/* TZDIR is the temporary directory, which holds no UTC file. */
	tz = load_ok("UTC");
	assert_int_equal(st_tz_offset_at(tz, 0), 0);
	st_tz_free(tz);
	assert_null(st_tz_load("Europe/London", &err));
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	assert_string_equal(err.text, "unknown time zone 'Europe/London'");
}

static void test_slim_footer_only(void **state)
{
	st_tz *tz;

	(void)state;
	write_slim("SlimLA", -8 * H, "PST8PDT,M3.2.0,M11.1.0");
	tz = load_ok("SlimLA");
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 15, 0, 0, 0)),
			 -8 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)),
			 -7 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2023, 10, 13, 12, 0, 0)),
			 -7 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2023, 12, 1, 12, 0, 0)),
			 -8 * H);
	check_transition(tz, civ(2024, 3, 10, 10, 0, 0), -8 * H, -7 * H);
	check_transition(tz, civ(2024, 11, 3, 9, 0, 0), -7 * H, -8 * H);
	check_local(tz, civ(2024, 3, 10, 2, 30, 0),
		    civ(2024, 3, 10, 10, 30, 0), ST_TZ_GAP);
	check_local(tz, civ(2024, 3, 10, 1, 59, 59),
		    civ(2024, 3, 10, 9, 59, 59), 0);
	check_local(tz, civ(2024, 3, 10, 3, 0, 0), civ(2024, 3, 10, 10, 0, 0),
		    0);
	check_local(tz, civ(2024, 11, 3, 1, 30, 0), civ(2024, 11, 3, 8, 30, 0),
		    ST_TZ_AMBIGUOUS);
	check_local(tz, civ(2024, 11, 3, 0, 59, 59),
		    civ(2024, 11, 3, 7, 59, 59), 0);
	check_local(tz, civ(2024, 11, 3, 2, 0, 0), civ(2024, 11, 3, 10, 0, 0),
		    0);
	check_local(tz, civ(2024, 7, 1, 12, 0, 0), civ(2024, 7, 1, 19, 0, 0),
		    0);
	/* With no transitions the footer rules every instant (RFC 8536). */
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 7, 1, 0, 0, 0)),
			 -7 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2040, 1, 1, 0, 0, 0)),
			 -8 * H);
	st_tz_free(tz);
}

static void test_footer_forms(void **state)
{
	st_tz *tz;

	(void)state;
	/* Fixed offset east of Greenwich with minutes. */
	write_slim("Tehran", 3 * H + 1800, "<+0330>-3:30");
	tz = load_ok("Tehran");
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)),
			 3 * H + 1800);
	check_local(tz, civ(2024, 7, 1, 12, 0, 0), civ(2024, 7, 1, 8, 30, 0),
		    0);
	st_tz_free(tz);

	/* Explicit /2 times. */
	write_slim("NewYork", -5 * H, "EST5EDT,M3.2.0/2,M11.1.0/2");
	tz = load_ok("NewYork");
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)),
			 -4 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 15, 0, 0, 0)),
			 -5 * H);
	check_transition(tz, civ(2024, 3, 10, 7, 0, 0), -5 * H, -4 * H);
	check_transition(tz, civ(2024, 11, 3, 6, 0, 0), -4 * H, -5 * H);
	st_tz_free(tz);

	/* Jn: February 29 never counted, J60 is always March 1, J300
	 * always October 27. */
	write_slim("Julian1", 0, "XXX0YYY,J60/0,J300/0");
	tz = load_ok("Julian1");
	check_transition(tz, civ(2024, 3, 1, 0, 0, 0), 0, H);
	check_transition(tz, civ(2024, 10, 26, 23, 0, 0), H, 0);
	check_transition(tz, civ(2023, 3, 1, 0, 0, 0), 0, H);
	check_transition(tz, civ(2023, 10, 26, 23, 0, 0), H, 0);
	st_tz_free(tz);

	/* n: zero-based, February 29 counted: day 59 is Feb 29 in 2024 but
	 * Mar 1 in 2023; day 299 is Oct 26 in 2024 but Oct 27 in 2023.
	 * (POSIX and glibc agree; Python's zoneinfo counts one day late.) */
	write_slim("Julian0", 0, "XXX0YYY,59/0,299/0");
	tz = load_ok("Julian0");
	check_transition(tz, civ(2024, 2, 29, 0, 0, 0), 0, H);
	check_transition(tz, civ(2024, 10, 25, 23, 0, 0), H, 0);
	check_transition(tz, civ(2023, 3, 1, 0, 0, 0), 0, H);
	check_transition(tz, civ(2023, 10, 26, 23, 0, 0), H, 0);
	st_tz_free(tz);

	/* Negative times: Saturday 23:00 local and Sunday 00:00 local. */
	write_slim("Nuuk", -2 * H, "<-02>2<-01>,M3.5.0/-1,M10.5.0/0");
	tz = load_ok("Nuuk");
	check_transition(tz, civ(2024, 3, 31, 1, 0, 0), -2 * H, -1 * H);
	check_transition(tz, civ(2024, 10, 27, 1, 0, 0), -1 * H, -2 * H);
	check_local(tz, civ(2024, 3, 30, 23, 30, 0),
		    civ(2024, 3, 31, 1, 30, 0), ST_TZ_GAP);
	check_local(tz, civ(2024, 10, 26, 23, 30, 0),
		    civ(2024, 10, 27, 0, 30, 0), ST_TZ_AMBIGUOUS);
	st_tz_free(tz);

	/* Hours past 24: 4th Thursday of March 2024 is the 28th, +26 h is
	 * Friday the 29th 02:00 IST = 00:00Z. */
	write_slim("Israel", 2 * H, "IST-2IDT,M3.4.4/26,M10.5.0");
	tz = load_ok("Israel");
	check_transition(tz, civ(2024, 3, 29, 0, 0, 0), 2 * H, 3 * H);
	check_transition(tz, civ(2024, 10, 26, 23, 0, 0), 3 * H, 2 * H);
	st_tz_free(tz);

	/* The limits +-167 h: first Sunday of March 2024 (3rd) + 167 h =
	 * Mar 9 23:00; first Sunday of October (6th) - 167 h = Sep 29
	 * 01:00 local DST = 00:00Z. */
	write_slim("Extreme", 0, "XXX0YYY,M3.1.0/167,M10.1.0/-167");
	tz = load_ok("Extreme");
	check_transition(tz, civ(2024, 3, 9, 23, 0, 0), 0, H);
	check_transition(tz, civ(2024, 9, 29, 0, 0, 0), H, 0);
	st_tz_free(tz);

	/* An explicit DST offset with minutes. */
	write_slim("Explicit", H, "AAA-1BBB-2:30,M3.5.0,M10.5.0/3");
	tz = load_ok("Explicit");
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 15, 0, 0, 0)), H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)),
			 2 * H + 1800);
	/* Mar 31 02:00 std (+1) = 01:00Z; Oct 27 03:00 (+2:30) = 00:30Z. */
	check_transition(tz, civ(2024, 3, 31, 1, 0, 0), H, 2 * H + 1800);
	check_transition(tz, civ(2024, 10, 27, 0, 30, 0), 2 * H + 1800, H);
	st_tz_free(tz);

	/* DST all year round: the end of one year is the start of the
	 * next, no change ever happens. */
	write_slim("AllYear", -4 * H, "EST5EDT,0/0,J365/25");
	tz = load_ok("AllYear");
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 1, 5, 0, 0)),
			 -4 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 1, 1, 4, 59, 59)),
			 -4 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)),
			 -4 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 12, 31, 23, 0, 0)),
			 -4 * H);
	check_local(tz, civ(2024, 1, 1, 0, 30, 0), civ(2024, 1, 1, 4, 30, 0),
		    0);
	check_local(tz, civ(2023, 12, 31, 23, 30, 0),
		    civ(2024, 1, 1, 3, 30, 0), 0);
	st_tz_free(tz);
}

static void test_v1_file(void **state)
{
	/* Version 1, 32-bit data, no footer: +1 h between the two
	 * transitions of 2000, 0 before and after. */
	static const struct ttype types[] = { { 0, 0 }, { H, 1 } };
	const int64_t trans[] = { civ(2000, 3, 26, 1, 0, 0),
				  civ(2000, 10, 29, 1, 0, 0) };
	static const unsigned char idx[] = { 1, 0 };
	st_tz *tz;

	(void)state;
	write_tzif("V1", 0, trans, idx, 2, types, 2, NULL);
	tz = load_ok("V1");
	assert_int_equal(st_tz_offset_at(tz, civ(1990, 7, 1, 0, 0, 0)), 0);
	check_transition(tz, trans[0], 0, H);
	check_transition(tz, trans[1], H, 0);
	assert_int_equal(st_tz_offset_at(tz, civ(2024, 7, 1, 0, 0, 0)), 0);
	check_local(tz, civ(2000, 3, 26, 1, 30, 0), civ(2000, 3, 26, 1, 30, 0),
		    ST_TZ_GAP);
	check_local(tz, civ(2000, 10, 29, 1, 30, 0),
		    civ(2000, 10, 29, 0, 30, 0), ST_TZ_AMBIGUOUS);
	st_tz_free(tz);
}

static void test_v2_no_footer_and_before(void **state)
{
	/* Type 0 is DST; before the first transition the first standard
	 * type (1, offset -3 h) applies.  The empty footer means the last
	 * type goes on for ever. */
	static const struct ttype types[] = { { -2 * H, 1 }, { -3 * H, 0 } };
	const int64_t trans[] = { civ(2000, 1, 1, 0, 0, 0),
				  civ(2001, 1, 1, 0, 0, 0) };
	static const unsigned char idx[] = { 0, 1 };
	st_tz *tz;

	(void)state;
	write_tzif("V3", '3', trans, idx, 2, types, 2, "");
	tz = load_ok("V3");
	assert_int_equal(st_tz_offset_at(tz, civ(1999, 6, 1, 0, 0, 0)),
			 -3 * H);
	check_transition(tz, trans[0], -3 * H, -2 * H);
	check_transition(tz, trans[1], -2 * H, -3 * H);
	assert_int_equal(st_tz_offset_at(tz, civ(2100, 6, 1, 0, 0, 0)),
			 -3 * H);
	assert_int_equal(st_tz_offset_at(tz, INT64_MAX), -3 * H);
	assert_int_equal(st_tz_offset_at(tz, INT64_MIN), -3 * H);
	st_tz_free(tz);
}

static void test_table_then_footer(void **state)
{
	/* A v4 file whose table ends in 2007 and whose footer carries on:
	 * the footer's US rule must apply from then on. */
	static const struct ttype types[] = { { -5 * H, 0 }, { -4 * H, 1 } };
	const int64_t trans[] = { civ(2007, 3, 11, 7, 0, 0),
				  civ(2007, 11, 4, 6, 0, 0) };
	static const unsigned char idx[] = { 1, 0 };
	st_tz *tz;

	(void)state;
	write_tzif("V4", '4', trans, idx, 2, types, 2,
		   "EST5EDT,M3.2.0,M11.1.0");
	tz = load_ok("V4");
	check_transition(tz, trans[0], -5 * H, -4 * H);
	check_transition(tz, trans[1], -4 * H, -5 * H);
	check_transition(tz, civ(2024, 3, 10, 7, 0, 0), -5 * H, -4 * H);
	check_transition(tz, civ(2024, 11, 3, 6, 0, 0), -4 * H, -5 * H);
	check_local(tz, civ(2024, 3, 10, 2, 30, 0), civ(2024, 3, 10, 7, 30, 0),
		    ST_TZ_GAP);
	check_local(tz, civ(2024, 11, 3, 1, 30, 0), civ(2024, 11, 3, 5, 30, 0),
		    ST_TZ_AMBIGUOUS);
	st_tz_free(tz);
}

static void test_malformed_files(void **state)
{
	static const char garbage[] = "this is not a time zone file\n";
	static const struct ttype t = { 0, 0 };
	unsigned char head[44] = { 'T', 'Z', 'i', 'f', '2' };
	int64_t tr = 0;
	unsigned char bad_idx = 5;

	(void)state;
	write_raw("Garbage", garbage, sizeof(garbage) - 1);
	check_malformed("Garbage");

	write_raw("Empty", "", 0);
	check_malformed("Empty");

	/* A header that promises 3 transitions, then nothing. */
	head[35] = 3;
	head[39] = 1;
	head[43] = 4;
	write_raw("Truncated", head, sizeof(head));
	check_malformed("Truncated");

	/* Month 13 in the footer. */
	write_slim("BadFooter", 0, "PST8PDT,M13.2.0,M11.1.0");
	check_malformed("BadFooter");

	/* Trailing junk after the rules. */
	write_slim("BadFooter2", 0, "PST8PDT,M3.2.0,M11.1.0x");
	check_malformed("BadFooter2");

	/* A transition to a time type that does not exist. */
	write_tzif("BadIndex", '2', &tr, &bad_idx, 1, &t, 1, "");
	check_malformed("BadIndex");
}

/* Found by fuzz_tz_tzif: transitions one second apart, +5 -> +6:30 at T1
 * and +6:30 -> +2:30 at T1 + 1.  The overlap of the second reaches back
 * before the first: T1 + 10000 local is T1 - 8000 (+5) and T1 + 1000
 * (+2:30), but was flagged unique because the walk stopped at T1. */
static void test_overlap_reaching_past_a_transition_is_ambiguous(void **state)
{
	const int64_t t1 = 1000000000;
	const int64_t trans[] = { t1, t1 + 1 };
	const unsigned char idx[] = { 1, 2 };
	const struct ttype types[] = { { 5 * H, 0 }, { 6 * H + 1800, 1 },
				       { 2 * H + 1800, 0 } };
	st_tz *tz;

	(void)state;
	write_tzif("CloseTransitions", '2', trans, idx, 2, types, 3,
		   "<+0230>-2:30");
	tz = load_ok("CloseTransitions");
	check_local(tz, t1 + 10000, t1 - 8000, ST_TZ_AMBIGUOUS);
	/* past both: unique under +2:30 */
	check_local(tz, t1 + 30000, t1 + 21000, 0);
	/* well before: unique under +5 */
	check_local(tz, t1 - 100000, t1 - 100000 - 5 * H, 0);
	st_tz_free(tz);
}

/* st_tz_from_tzif and st_tz_from_posix, the entry points of the TZif and
 * POSIX TZ fuzz targets: the same zone as from the file. */
static void test_zone_from_memory(void **state)
{
	static const int64_t at[] = {
		0, 1678611600, 1678611599, 1699174800, 1699174799, 1688169600,
		4102444800, -2000000000,
	};
	FILE *f = fopen("/usr/share/zoneinfo/America/Los_Angeles", "rb");
	unsigned char buf[8192];
	size_t n;
	st_tz *file, *mem, *posix;
	st_error err;

	(void)state;
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 100 && n < sizeof(buf));
	file = st_tz_load("America/Los_Angeles", &err);
	assert_non_null(file);
	mem = st_tz_from_tzif("LA", buf, n, &err);
	assert_non_null(mem);
	assert_string_equal(st_tz_name(mem), "LA");
	posix = st_tz_from_posix("PST8PDT,M3.2.0,M11.1.0", &err);
	assert_non_null(posix);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		assert_int_equal(st_tz_offset_at(mem, at[i]),
				 st_tz_offset_at(file, at[i]));
		if (at[i] > 1200000000)
			assert_int_equal(st_tz_offset_at(posix, at[i]),
					 st_tz_offset_at(file, at[i]));
	}
	assert_int_equal(st_tz_offset_at(posix, 1688169600), -7 * 3600);
	assert_int_equal(st_tz_offset_at(posix, 1672531200), -8 * 3600);
	/* truncated: refused, naming the zone */
	assert_null(st_tz_from_tzif("LA", buf, n / 2, &err));
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	assert_non_null(strstr(err.text, "'LA'"));
	assert_null(st_tz_from_posix("PST8PDT", &err));  /* DST without rules */
	assert_int_equal(err.code, ST_EXIT_CONFIG);
	assert_null(st_tz_from_posix("PST99", &err));
	assert_null(st_tz_from_posix("<+01>-1,", &err));
	st_tz_free(file);
	st_tz_free(mem);
	st_tz_free(posix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* The system zone files under TZDIR. */
		cmocka_unit_test(test_civ_helper),
		cmocka_unit_test(test_utc_and_null),
		cmocka_unit_test(test_refused_names),
		cmocka_unit_test(test_unknown_zone),
		cmocka_unit_test(test_los_angeles_offsets),
		cmocka_unit_test(test_zone_from_memory),
		cmocka_unit_test_setup_teardown(
			test_overlap_reaching_past_a_transition_is_ambiguous,
			tzdir_setup, tzdir_teardown),
		cmocka_unit_test(test_los_angeles_local),
		cmocka_unit_test(test_los_angeles_footer),
		cmocka_unit_test(test_london),
		cmocka_unit_test(test_sydney),
		cmocka_unit_test(test_kolkata),
		cmocka_unit_test(test_dublin_negative_dst),
		cmocka_unit_test(test_unusual_footers),
		/* Synthetic files in a temporary TZDIR. */
		cmocka_unit_test_setup_teardown(test_utc_needs_no_file,
						tzdir_setup, tzdir_teardown),
		cmocka_unit_test_setup_teardown(test_slim_footer_only,
						tzdir_setup, tzdir_teardown),
		cmocka_unit_test_setup_teardown(test_footer_forms,
						tzdir_setup, tzdir_teardown),
		cmocka_unit_test_setup_teardown(test_v1_file,
						tzdir_setup, tzdir_teardown),
		cmocka_unit_test_setup_teardown(test_v2_no_footer_and_before,
						tzdir_setup, tzdir_teardown),
		cmocka_unit_test_setup_teardown(test_table_then_footer,
						tzdir_setup, tzdir_teardown),
		cmocka_unit_test_setup_teardown(test_malformed_files,
						tzdir_setup, tzdir_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
