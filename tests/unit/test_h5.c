/* Unit tests: counted HDF5 file names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

struct warnings {
	int n;
	char last[512];
};

static void keep_warning(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

/* Create DIR/NAME with mtime SEC (s since 1970). */
static void put(const char *dir, const char *name, int64_t sec)
{
	char p[512];
	struct timespec ts[2] = { { .tv_sec = sec }, { .tv_sec = sec } };
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* Issue 13: an mtime after 2262 overflowed `sec * 1e9` and was written as
 * 1715-06-13.  Such a file is left out with a warning naming it. */
static void test_h5_mtime_after_2262_overflow(void **state)
{
	char dir[] = "/tmp/st-h5-XXXXXX", cmd[64];
	const char *dirs[1] = { dir };
	struct warnings w = { 0 };
	st_log log = { .warn = keep_warning, .ctx = &w };
	st_h5_opts o = { .now = INT64_C(1700000000) * ST_NS_PER_SEC };
	st_h5_result res;
	st_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "FOURD_231005_0925_01410_02101.h5", INT64_C(10413792000));
	put(dir, "FOURD_231005_0925_01410_02102.h5", INT64_C(1696523100));
	assert_int_equal(st_h5_collect(dirs, 1, &o, &res, &log, &err), 0);
	assert_int_equal(res.n, 1);
	assert_true(res.files[0].key.scan == 2102);
	assert_true(res.files[0].mtime == INT64_C(1696523100) * ST_NS_PER_SEC);
	assert_int_equal(res.bad, 1);
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "FOURD_231005_0925_01410_02101.h5"));
	assert_non_null(strstr(w.last, "outside the years"));
	st_h5_result_release(&res);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_h5_mtime_after_2262_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
