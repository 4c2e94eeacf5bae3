/* Unit tests: counted HDF5 file names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "streamtime/h5.h"

static void test_names(void **state)
{
	st_h5_name nm;

	(void)state;
	assert_true(st_h5_parse_name("FOURD_231013_0945_02209_02709.h5", &nm));
	assert_string_equal(nm.id, "02209");
	assert_int_equal(nm.id_num, 2209);
	assert_int_equal(nm.scan, 2709);
	assert_string_equal(nm.suffix, ".h5");
	assert_true(st_h5_parse_name("FOURD_231014_1010_04699_04699_electrons.h5",
				     &nm));
	assert_int_equal(nm.scan, 4699);
	assert_string_equal(nm.suffix, "_electrons.h5");
	assert_true(st_h5_parse_name("FOURD_231013_0945_00000_02711.h5", &nm));
	assert_int_equal(nm.id_num, 0);
	assert_string_equal(nm.id, "00000");
	/* ids grow past five digits */
	assert_true(st_h5_parse_name("FOURD_240101_0000_123456_00001.h5", &nm));
	assert_string_equal(nm.id, "123456");
	static const char *const bad[] = {
		"FOURD_231013_0945_02209_02709.h5.tmp",
		"FOURD_231013_0945_02209_02709_.h5",
		"FOURD_231013_0945_02209_02709x.h5",
		"FOURD_231013_0945_02209_02709.H5",
		"FOURD_2310_0945_02209_02709.h5",
		"FOURD_231013_945_02209_02709.h5",
		"FOURD_231013_0945_02209.h5",
		"FOURD_231013_0945__02709.h5",
		"FOURD_231013_0945_02209_.h5",
		"fourd_231013_0945_02209_02709.h5",
		"FOURD_231013_0945_1234567890123456_02709.h5",
		"FOURD_",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (st_h5_parse_name(bad[i], &nm))
			fail_msg("%s parsed", bad[i]);
}

static void test_key_order(void **state)
{
	st_h5_key k[] = { { 100000, 1 }, { 2209, 2710 }, { 2209, 2709 }, { 99, 5 } };

	(void)state;
	qsort(k, 4, sizeof(k[0]), st_h5_key_cmp);
	assert_int_equal(k[0].id_num, 99);
	assert_int_equal(k[1].scan, 2709);
	assert_int_equal(k[2].scan, 2710);
	assert_int_equal(k[3].id_num, 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_key_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
