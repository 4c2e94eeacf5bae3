/* test_lanes.c - trace_lrec_sort (src/trace/lanes.c), the timeline's
 * in-place sort of its slices, against qsort with trace_cmp_lrec: random
 * slices, many equal starts and ends, sorted, reversed, all equal but
 * their order of writing, and the sizes around the insertion sort's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#include "rnd.h"

/* Slices of shape SHAPE (0 random, 1 few values, 2 sorted, 3 reversed,
 * 4 equal but seq) sorted both ways: the same order. */
static void sort_both(size_t n, int shape)
{
	struct lrec *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1,
								sizeof(*b));

	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd();
		int64_t s = shape == 1 ? (int64_t)(r % 5) : (int64_t)(r % 100000);

		if (shape == 2 || shape == 3)
			s = shape == 2 ? (int64_t)i : (int64_t)(n - i);
		if (shape == 4)
			s = 7;
		a[i] = (struct lrec){ s, s + (shape == 4 ? 3 : (int64_t)(r >> 40) % 4),
				      shape == 1 || shape == 4 ? 0 :
				      (uint32_t)((r >> 20) % 6), (uint32_t)i };
	}
	/* shuffle the writing order too */
	for (size_t i = n; shape == 4 && i > 1; i--) {
		size_t k = rnd() % i;
		struct lrec x = a[i - 1];

		a[i - 1] = a[k];
		a[k] = x;
	}
	memcpy(b, a, n * sizeof(*a));
	qsort(b, n, sizeof(*b), trace_cmp_lrec);
	trace_lrec_sort(a, n);
	assert_memory_equal(a, b, n * sizeof(*a));
	free(a);
	free(b);
}

static void test_lrec_sort_as_qsort(void **state)
{
	(void)state;
	for (size_t n = 0; n < 70; n++)
		for (int shape = 0; shape < 5; shape++)
			sort_both(n, shape);
	for (int shape = 0; shape < 5; shape++) {
		sort_both(1000, shape);
		sort_both(100003, shape);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lrec_sort_as_qsort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
