/* Unit tests: measured offsets applied to timestamps. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "streamtime/clockfix.h"

static const char offsets[] =
	"measured_at,reference,target,offset_ms,delay_ms,bound_ms,samples,method\n"
	"2023-10-13T18:00:00+00:00,ncem,rec0,200.5,1,0.25,16,udp\n"
	"2023-10-13T16:00:00+00:00,ncem,rec0,100,1,0.5,16,udp\n"
	"2023-10-13T16:00:00+00:00,ncem,nersc,-2000.000001,1,3,4,ssh-date\n";

static void test_nearest_and_fix(void **state)
{
	st_table t;
	st_clock_offsets o;
	st_clock_fix f = { 0 };
	st_error err;
	st_instant t17 = INT64_C(1697216400) * ST_NS_PER_SEC; /* 17:00 */
	st_instant x;
	st_duration b = 0;
	char hosts[] = "rec0,rec1";

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_parse(&t, "o.csv", offsets, strlen(offsets),
					&err), 0);
	assert_int_equal(st_clock_offsets_load(&o, &t, &err), 0);
	assert_string_equal(o.reference, "ncem");
	/* exactly between two measurements: the earlier one */
	assert_true(st_clock_offsets_at(&o, "rec0", t17, &err)->offset ==
		    100 * INT64_C(1000000));
	assert_true(st_clock_offsets_at(&o, "rec0", t17 + 1, &err)->offset ==
		    200500000);
	/* before the first, after the last */
	assert_true(st_clock_offsets_at(&o, "rec0", 0, &err)->offset == 100000000);
	assert_true(st_clock_offsets_at(&o, "nersc", INT64_MAX / 2, &err)->offset ==
		    -2000000001);
	assert_null(st_clock_offsets_at(&o, "rec9", t17, &err));
	assert_int_equal(err.code, ST_EXIT_DATAERR);
	assert_non_null(strstr(err.text, "'rec9'"));
	/* a time stamped by rec0's clock, on the reference clock */
	f.offsets = &o;
	assert_int_equal(st_clock_fix_parse_hosts(&f, hosts, &err), 0);
	assert_int_equal(f.nreceivers, 2);
	x = t17 + 5;
	assert_int_equal(st_clock_fix_time(&f, "rec0", &x, &b, &err), 0);
	assert_true(x == t17 + 5 - 200500000);
	assert_true(b == 250000);
	/* no host: the reference clock, unchanged */
	assert_int_equal(st_clock_fix_time(&f, NULL, &x, &b, &err), 0);
	assert_true(x == t17 + 5 - 200500000 && b == 250000);
	st_clock_offsets_release(&o);
	st_table_release(&t);
}

/* Issue 17 item 2: clock offsets measured today were applied to 2023 data
 * without a word.  A correction whose measurement is more than a day
 * (ST_CLOCK_FAR_NS) from the time is counted, with the largest distance. */
static void test_far_measurement_counted(void **state)
{
	st_table t;
	st_clock_offsets o;
	st_clock_fix f = { 0 };
	st_clock_far far = { 0 };
	st_error err;
	/* rec0 measured at 16:00 and 18:00 on 2023-10-13 */
	st_instant t17 = INT64_C(1697216400) * ST_NS_PER_SEC;
	st_instant day = INT64_C(86400) * ST_NS_PER_SEC, x;

	(void)state;
	st_table_init(&t);
	assert_int_equal(st_table_parse(&t, "o.csv", offsets, strlen(offsets),
					&err), 0);
	assert_int_equal(st_clock_offsets_load(&o, &t, &err), 0);
	f.offsets = &o;
	f.far = &far;
	x = t17;                        /* an hour from 16:00: near */
	assert_int_equal(st_clock_fix_time(&f, "rec0", &x, NULL, &err), 0);
	x = t17 + day;                  /* 23 h after 18:00: near */
	assert_int_equal(st_clock_fix_time(&f, "rec0", &x, NULL, &err), 0);
	assert_int_equal(far.count, 0);
	x = t17 + day + 2 * 3600 * ST_NS_PER_SEC; /* 25 h after 18:00: far */
	assert_int_equal(st_clock_fix_time(&f, "rec0", &x, NULL, &err), 0);
	x = t17 - 400 * day;            /* 400 days less an hour before 16:00 */
	assert_int_equal(st_clock_fix_time(&f, "rec0", &x, NULL, &err), 0);
	assert_int_equal(far.total, 4);
	assert_int_equal(far.count, 2);
	assert_true(far.worst == 400 * day - 3600 * ST_NS_PER_SEC);
	/* the reference clock is not corrected, so not counted */
	assert_int_equal(st_clock_fix_time(&f, NULL, &x, NULL, &err), 0);
	assert_int_equal(far.total, 4);
	st_clock_offsets_release(&o);
	st_table_release(&t);
}

static void test_bad_files(void **state)
{
	static const char *const bad[] = {
		"measured_at,reference,target,offset_ms\nx,a,b,1\n",  /* no bound */
		"measured_at,reference,target,offset_ms,bound_ms\n"
		"2023-10-13T16:00:00Z,a,b,1,0.1\n2023-10-13T16:00:00Z,c,b,1,0.1\n",
		"measured_at,reference,target,offset_ms,bound_ms\n"
		"yesterday,a,b,1,0.1\n",
		"measured_at,reference,target,offset_ms,bound_ms\n"
		"2023-10-13T16:00:00Z,a,b,1,-0.1\n",
		"measured_at,reference,target,offset_ms,bound_ms\n"
		"2023-10-13T16:00:00Z,a,,1,0.1\n",
		"measured_at,reference,target,offset_ms,bound_ms\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st_table t;
		st_clock_offsets o;
		st_error err;

		st_table_init(&t);
		assert_int_equal(st_table_parse(&t, "bad.csv", bad[i], strlen(bad[i]),
						&err), 0);
		if (st_clock_offsets_load(&o, &t, &err) == 0)
			fail_msg("case %zu loaded", i);
		assert_int_equal(err.code, ST_EXIT_DATAERR);
		assert_non_null(strstr(err.text, "bad.csv"));
		st_table_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest_and_fix),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_far_measurement_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
