/* test_search.c - unit tests for include/streamtime/search.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "streamtime/search.h"

static const int64_t v[] = { -5, 0, 0, 0, 3, 9, INT64_MAX };
#define N (sizeof(v) / sizeof(v[0]))

/* The bounds by a linear scan, the definition itself. */
static size_t linear_lower(int64_t key)
{
	size_t i = 0;

	while (i < N && v[i] < key)
		i++;
	return i;
}

static size_t linear_upper(int64_t key)
{
	size_t i = 0;

	while (i < N && v[i] <= key)
		i++;
	return i;
}

static void test_i64_bounds_match_a_linear_scan(void **state)
{
	static const int64_t keys[] = { INT64_MIN, -6, -5, -1, 0, 1, 3, 4, 9,
					10, INT64_MAX };

	(void)state;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		assert_int_equal(st_i64_lower_bound(v, N, keys[k]),
				 linear_lower(keys[k]));
		assert_int_equal(st_i64_upper_bound(v, N, keys[k]),
				 linear_upper(keys[k]));
	}
	/* equal runs: the first of them, and one past the last */
	assert_int_equal(st_i64_lower_bound(v, N, 0), 1);
	assert_int_equal(st_i64_upper_bound(v, N, 0), 4);
	assert_int_equal(st_i64_lower_bound(v, 0, 0), 0);
	assert_int_equal(st_i64_upper_bound(v, 0, 0), 0);
}

struct rec {
	const char *name;
	int64_t at;
};

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct rec *)elem)->name);
}

static int cmp_at(const void *key, const void *elem)
{
	int64_t k = *(const int64_t *)key, a = ((const struct rec *)elem)->at;

	return (k > a) - (k < a);
}

static void test_lower_bound_on_records_finds_first_of_equals(void **state)
{
	static const struct rec r[] = {
		{ "a", 1 }, { "b", 2 }, { "b", 3 }, { "b", 4 }, { "d", 5 },
	};
	int64_t t;

	(void)state;
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), "b", cmp_name), 1);
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), "a", cmp_name), 0);
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), "c", cmp_name), 4);
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), "e", cmp_name), 5);
	assert_int_equal(st_lower_bound(r, 0, sizeof(*r), "a", cmp_name), 0);
	t = 3;
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), &t, cmp_at), 2);
	t = 0;
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), &t, cmp_at), 0);
	t = 6;
	assert_int_equal(st_lower_bound(r, 5, sizeof(*r), &t, cmp_at), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64_bounds_match_a_linear_scan),
		cmocka_unit_test(test_lower_bound_on_records_finds_first_of_equals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
